//! The JSON-RPC interface: serves the `protocol` traits on the Unix socket and turns
//! calls into requests to [`crate::agent::Engine`]. Nothing here decides anything
//! about sessions; it translates, checks the caller and streams events.

mod agent_api;
mod daemon_api;
mod doctor;
mod errors;
pub mod frames;
mod handshake;
mod hooks_api;
pub mod limits;
mod mcp_api;
pub mod peer_check;
mod permission_api;
mod refusing;
mod relay;
mod server;
mod session_api;
mod subscribe;
mod team_api;
mod traced;
mod workflow_api;

use std::sync::Arc;
use std::time::Instant;

use roocode_protocol::paths::Paths;
use tokio_util::sync::CancellationToken;

use crate::agent::Engine;

pub use server::serve;

/// What the RPC handlers share.
#[derive(Clone)]
pub struct DaemonContext {
    pub engine: Arc<Engine>,
    pub paths: Paths,
    pub started: Instant,
    pub started_at_ms: i64,
    /// Cancelled to stop the daemon.
    pub stop: CancellationToken,
    /// Shown by every client that connects (`daemon.hello`, `daemon.info`).
    pub warnings: Vec<String>,
}

/// Implements every RPC trait of the protocol.
#[derive(Clone)]
pub(crate) struct Handler(pub DaemonContext);

/// The connecting process, from SO_PEERCRED; attached to every call of its connection.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    pub uid: u32,
    pub pid: Option<i32>,
}
