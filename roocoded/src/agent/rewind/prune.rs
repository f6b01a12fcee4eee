//! Pruning the shadow store from the engine: what the recorded snapshots still name
//! is read from the store and everything else goes (see `snapshot::prune`). Run when
//! a session is deleted, so the snapshots of deleted sessions do not stay on disk.

use std::time::Duration;

use super::io_error;
use crate::agent::{AgentError, Engine};
use crate::snapshot::Pruned;

/// Client environment variable: seconds a blob just written is kept by a prune
/// (default 600), for a snapshot whose row is not recorded yet.
pub const GRACE_ENV: &str = "ROOCODE_SNAPSHOT_GRACE_S";

/// The stat index of a tree no one snapshotted for this long goes with a prune.
const INDEX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);

impl Engine {
    /// Removes the snapshot files no recorded snapshot needs.
    pub async fn prune_snapshots(&self, grace: Duration) -> Result<Pruned, AgentError> {
        let (live, roots) = self.store.snapshot_references().await?;
        let snapshots = self.snapshots.clone();
        let pruned =
            tokio::task::spawn_blocking(move || snapshots.prune(&live, &roots, grace, INDEX_AGE))
                .await
                .map_err(io_error)?
                .map_err(io_error)?;
        tracing::info!(
            removed = pruned.blobs.removed,
            removed_bytes = pruned.blobs.removed_bytes,
            kept = pruned.blobs.kept,
            indexes = pruned.indexes,
            "snapshots pruned"
        );
        Ok(pruned)
    }
}

/// The grace of a prune when the client names none.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(600);

/// The grace `env` asks for, else the default.
pub fn grace(env: &roocode_protocol::session::ClientEnv) -> Duration {
    env.get(GRACE_ENV)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_GRACE, Duration::from_secs)
}
