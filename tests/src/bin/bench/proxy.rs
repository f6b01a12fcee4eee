//! [`TimingProxy`]: a TCP pass-through in front of the mock LLM that notes when the
//! first byte of a request arrives and when the last byte of a response leaves. The
//! span between the two is the model call as seen on the wire — what a real provider
//! would take instead of the mock — without the daemon's own work of encoding the
//! request and assembling the response.
//!
//! It knows nothing of HTTP: give each proxy one model call to watch (the bench starts
//! one per measured call) and read [`TimingProxy::exchange`] afterwards.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

#[derive(Default)]
struct Timing {
    first_request_byte: Option<Instant>,
    last_response_byte: Option<Instant>,
}

/// Which way bytes flow through one connection.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// Daemon → mock.
    Request,
    /// Mock → daemon.
    Response,
}

/// A running proxy; dropping it closes the listener and every connection.
pub struct TimingProxy {
    addr: SocketAddr,
    timing: Arc<Mutex<Timing>>,
    task: JoinHandle<()>,
}

impl TimingProxy {
    /// Listens on an ephemeral loopback port and forwards every connection to `upstream`.
    pub async fn start(upstream: SocketAddr) -> anyhow::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .context("timing proxy: cannot listen")?;
        let addr = listener.local_addr()?;
        let timing = Arc::new(Mutex::new(Timing::default()));
        let task = tokio::spawn(accept(listener, upstream, timing.clone()));
        Ok(Self { addr, timing, task })
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// From the first request byte to the last response byte; `None` before both.
    pub fn exchange(&self) -> Option<Duration> {
        let t = self.timing.lock().unwrap_or_else(PoisonError::into_inner);
        Some(
            t.last_response_byte?
                .saturating_duration_since(t.first_request_byte?),
        )
    }
}

impl Drop for TimingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Accepts until aborted; the connections live in a `JoinSet`, so they end with it.
async fn accept(listener: TcpListener, upstream: SocketAddr, timing: Arc<Mutex<Timing>>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((client, _)) => {
                    connections.spawn(pipe(client, upstream, timing.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Copies both ways between the client and a new connection to `upstream`.
async fn pipe(
    client: TcpStream,
    upstream: SocketAddr,
    timing: Arc<Mutex<Timing>>,
) -> std::io::Result<()> {
    let server = TcpStream::connect(upstream).await?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    tokio::try_join!(
        forward(
            &mut client_read,
            &mut server_write,
            &timing,
            Direction::Request
        ),
        forward(
            &mut server_read,
            &mut client_write,
            &timing,
            Direction::Response
        ),
    )?;
    Ok(())
}

async fn forward(
    from: &mut OwnedReadHalf,
    to: &mut OwnedWriteHalf,
    timing: &Mutex<Timing>,
    direction: Direction,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buf).await?;
        if n == 0 {
            return to.shutdown().await;
        }
        // Noted before the bytes are passed on, so the timing is complete by the time
        // the daemon can act on the last of them (and the bench can read it).
        {
            let mut t = timing.lock().unwrap_or_else(PoisonError::into_inner);
            match direction {
                Direction::Request => {
                    t.first_request_byte.get_or_insert_with(Instant::now);
                }
                Direction::Response => t.last_response_byte = Some(Instant::now()),
            }
        }
        to.write_all(&buf[..n]).await?;
    }
}
