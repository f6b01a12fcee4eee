//! Connecting to the daemon: WebSocket-framed JSON-RPC over the Unix socket, then the
//! `daemon.hello` handshake. Auto-start lives in [`crate::autostart`].

use std::path::Path;
use std::time::Duration;

use jsonrpsee::client_transport::ws::{Url, WsTransportClientBuilder};
use jsonrpsee::core::client::ClientBuilder;

use roocode_protocol::api::DaemonApiClient;
use roocode_protocol::daemon::{ClientInfo, HelloResponse};
use roocode_protocol::{BUILD_ID, PROTOCOL_VERSION};

use crate::rpc_error::error_message;

/// A connected JSON-RPC client; call the generated `*ApiClient` traits on it.
pub type RpcClient = jsonrpsee::core::client::Client;

/// Why a connection failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot connect to the daemon at {path}: {source}")]
    Socket {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the daemon at {path} did not complete the connection: {message}")]
    Handshake { path: String, message: String },
    #[error(
        "the daemon speaks protocol {daemon}, this client protocol {client}: restart it with `roocode-cli daemon restart`"
    )]
    Incompatible { daemon: u32, client: u32 },
    /// Something holds the socket and accepts connections but does not answer.
    #[error(
        "the daemon at {path}{} accepted the connection but did not answer within {secs} s: it may be stuck; {}",
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        stop_hint(*pid)
    )]
    Unresponsive {
        path: String,
        pid: Option<i32>,
        secs: u64,
    },
    #[error("{0}")]
    Other(String),
}

/// How to get rid of a stuck daemon.
fn stop_hint(pid: Option<i32>) -> String {
    match pid {
        Some(p) => format!(
            "stop it with `kill {p}` (or `kill -9 {p}` if it does not exit), then run the command again (set {HELLO_TIMEOUT_VAR} to wait longer)"
        ),
        None => format!(
            "stop the roocoded process that serves it, then run the command again (set {HELLO_TIMEOUT_VAR} to wait longer)"
        ),
    }
}

/// Environment variable bounding the wait for a daemon's `daemon.hello` answer (ms).
pub const HELLO_TIMEOUT_VAR: &str = "ROOCODE_HELLO_TIMEOUT_MS";
const DEFAULT_HELLO_TIMEOUT: Duration = Duration::from_secs(15);

fn hello_timeout() -> Duration {
    std::env::var(HELLO_TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_HELLO_TIMEOUT, Duration::from_millis)
}

impl ConnectError {
    /// True when nothing answers at the socket (absent, or refused): a daemon may be started.
    pub fn is_not_running(&self) -> bool {
        matches!(
            self,
            ConnectError::Socket { source, .. }
                if matches!(source.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused)
        )
    }
}

/// Opens a connection without the handshake.
pub async fn connect_raw(socket: &Path) -> Result<RpcClient, ConnectError> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(|source| ConnectError::Socket {
            path: socket.display().to_string(),
            source,
        })?;
    over_stream(socket, stream).await
}

async fn over_stream(
    socket: &Path,
    stream: tokio::net::UnixStream,
) -> Result<RpcClient, ConnectError> {
    let url = Url::parse("ws://localhost/").map_err(|e| ConnectError::Other(e.to_string()))?;
    let (tx, rx) = WsTransportClientBuilder::default()
        .build_with_stream(url, stream)
        .await
        .map_err(|e| ConnectError::Handshake {
            path: socket.display().to_string(),
            message: e.to_string(),
        })?;
    Ok(ClientBuilder::default()
        .request_timeout(Duration::from_secs(60))
        // A slow reader must not lose its subscription; the TUI drains in its own task.
        .max_buffer_capacity_per_subscription(1 << 16)
        .build_with_tokio(tx, rx))
}

/// Opens a connection and performs the `daemon.hello` handshake.
///
/// A daemon of another protocol is an error; a daemon of another build of the same
/// protocol is returned with `build_id` differing from [`BUILD_ID`] so the caller can
/// warn (see [`build_mismatch_warning`]).
pub async fn connect(
    socket: &Path,
    client: ClientInfo,
) -> Result<(RpcClient, HelloResponse), ConnectError> {
    connect_within(socket, client, hello_timeout()).await
}

/// [`connect`] with the bound on the handshake given.
async fn connect_within(
    socket: &Path,
    client: ClientInfo,
    bound: Duration,
) -> Result<(RpcClient, HelloResponse), ConnectError> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(|source| ConnectError::Socket {
            path: socket.display().to_string(),
            source,
        })?;
    // Who holds the socket, to name it if it does not answer.
    let pid = stream.peer_cred().ok().and_then(|c| c.pid());
    let handshake = async {
        let rpc = over_stream(socket, stream).await?;
        let hello = rpc
            .hello(PROTOCOL_VERSION, BUILD_ID.to_string(), client)
            .await
            .map_err(|e| ConnectError::Handshake {
                path: socket.display().to_string(),
                message: error_message(&e),
            })?;
        Ok::<_, ConnectError>((rpc, hello))
    };
    let (rpc, hello) = tokio::time::timeout(bound, handshake).await.map_err(|_| {
        ConnectError::Unresponsive {
            path: socket.display().to_string(),
            pid,
            secs: bound.as_secs().max(1),
        }
    })??;
    if !hello.compatible || hello.protocol != PROTOCOL_VERSION {
        return Err(ConnectError::Incompatible {
            daemon: hello.protocol,
            client: PROTOCOL_VERSION,
        });
    }
    Ok((rpc, hello))
}

/// The line to print when the daemon was built from other sources than this client.
pub fn build_mismatch_warning(hello: &HelloResponse) -> Option<String> {
    (hello.build_id != BUILD_ID).then(|| {
        format!(
            "warning: the running daemon (pid {}, build {}) is another build than this client ({}); run `roocode-cli daemon restart` to use this one",
            hello.pid, hello.build_id, BUILD_ID
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_daemon_that_accepts_but_never_answers_is_named_with_its_pid() {
        let dir = std::env::temp_dir().join(format!("rc-unresp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let socket = dir.join("s.sock");
        let _ = std::fs::remove_file(&socket);
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        // Accepts, holds the connection open, and never says a word.
        let holder = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            std::future::pending::<()>().await;
            drop(stream);
        });
        let client = ClientInfo {
            kind: "test".into(),
            name: "test".into(),
            pid: std::process::id(),
        };
        let err = connect_within(&socket, client, Duration::from_millis(100))
            .await
            .expect_err("no answer, no connection");
        holder.abort();
        let _ = std::fs::remove_dir_all(&dir);
        let me = std::process::id() as i32;
        assert!(
            matches!(err, ConnectError::Unresponsive { pid: Some(p), .. } if p == me),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(text.contains(&format!("pid {me}")), "{text}");
        assert!(text.contains(&format!("kill {me}")), "{text}");
    }
}
