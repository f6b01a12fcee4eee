//! `daemon.prune`: what RooCode's data holds that can go — sessions idle for longer
//! than a cutoff (with their messages, events, spilled tool results, plan files and
//! rewind snapshots), and the recorded request bodies of the sessions kept — as a
//! dry run, or done. A running session, or one whose agents still work, is never
//! pruned.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `daemon.prune`'s parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PruneParams {
    /// Sessions idle for longer than this go (default 30 days).
    #[serde(default)]
    pub older_than_ms: Option<u64>,
    /// `false`: only say what would go.
    #[serde(default)]
    pub apply: bool,
    /// Snapshot files written within this long are kept, for snapshots being recorded
    /// (default 600 s; the client's `ROOCODE_SNAPSHOT_GRACE_S`).
    #[serde(default)]
    pub snapshot_grace_ms: Option<u64>,
}

/// A session pruning removes (or would).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PrunedSession {
    pub session_id: String,
    #[serde(default)]
    pub short_id: String,
    pub title: String,
    pub root: String,
    /// Unix milliseconds.
    pub last_activity: i64,
}

/// What `daemon.prune` found (and, with `applied`, removed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PruneReport {
    pub applied: bool,
    /// The cutoff: sessions idle since before it go (Unix milliseconds).
    pub cutoff: i64,
    #[serde(default)]
    pub sessions: Vec<PrunedSession>,
    /// Sessions old enough but kept: running, or with agents at work (id, why).
    #[serde(default)]
    pub kept: Vec<(String, String)>,
    /// Bytes of spilled tool results of the pruned sessions.
    pub tool_result_bytes: u64,
    /// Bytes of recorded request and response bodies older than the cutoff (of the
    /// sessions kept; a pruned session's go with it).
    pub body_bytes: u64,
    /// Bytes of snapshot files no kept session needs (known once applied: 0 before).
    pub snapshot_bytes: u64,
}
