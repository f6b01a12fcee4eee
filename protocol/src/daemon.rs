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
    /// Problems every client should show its user (e.g. a corrupt database that was
    /// moved aside at start-up). Empty from daemons that predate the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
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
    /// The same warnings as [`HelloResponse::warnings`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
