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
    #[error("{0}")]
    Other(String),
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
    let rpc = connect_raw(socket).await?;
    let hello = rpc
        .hello(PROTOCOL_VERSION, BUILD_ID.to_string(), client)
        .await
        .map_err(|e| ConnectError::Handshake {
            path: socket.display().to_string(),
            message: error_message(&e),
        })?;
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
