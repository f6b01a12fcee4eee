//! [`Recorder`]: a loopback HTTP server for tests of what leaves the machine. It
//! answers `/hop?to=URL` with a redirect to URL and anything else with its page, and
//! records `<path> <host header>` of every request, so "not fetched" is checked (no
//! request arrived), not assumed.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// A running recorder (it stops with the runtime).
pub struct Recorder {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    /// A recorder whose page is `body`, on a free loopback port.
    pub async fn serving(body: &'static str) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(answer(stream, body, log.clone()));
            }
        });
        Ok(Self { addr, seen })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `<path> <host header>` of every request so far, in arrival order.
    pub fn seen(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Reads one request's head, records it and answers it.
async fn answer(
    mut stream: tokio::net::TcpStream,
    body: &'static str,
    log: Arc<Mutex<Vec<String>>>,
) {
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&request).to_string();
    let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
    let host = text
        .lines()
        .find_map(|l| l.strip_prefix("host: ").or(l.strip_prefix("Host: ")))
        .unwrap_or("");
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(format!("{path} {host}"));
    let response = match path.strip_prefix("/hop?to=") {
        Some(to) => format!(
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        None => format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ),
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}
