//! Daemon handshake and status types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who is calling (sent in `daemon.hello`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientInfo {
    /// `cli`, `tui`, or another tool's name.
    pub kind: String,
    pub name: String,
    pub pid: u32,
}

/// Answer of `daemon.hello`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HelloResponse {
    pub protocol: u32,
    pub version: String,
    pub build_id: String,
    pub pid: u32,
    /// False when the client speaks another protocol version: it must not go on.
    pub compatible: bool,
}

/// Answer of `daemon.info`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DaemonInfo {
    pub pid: u32,
    pub version: String,
    pub build_id: String,
    pub protocol: u32,
    pub socket_path: String,
    pub database_path: String,
    pub log_path: String,
    pub started_at: String,
    pub uptime_secs: u64,
    pub sessions: u64,
    pub running_turns: u64,
}
