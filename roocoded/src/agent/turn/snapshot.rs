//! The workspace snapshot before a turn (rewind, issue 16): taken in a blocking task
//! from the shadow store, recorded with the turn. It never fails the turn: a snapshot
//! that cannot be taken is logged, and that turn cannot be rewound.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use super::Turn;
use crate::store::{SessionRow, TurnSnapshot};

/// Client environment variable that turns the snapshots off (`0`).
pub const SNAPSHOTS_ENV: &str = "ROOCODE_REWIND_SNAPSHOTS";

impl Turn<'_> {
    /// Snapshots the workspace of `row`'s main agent before this turn.
    pub(super) async fn snapshot_workspace(
        &self,
        row: &SessionRow,
        env: &roocode_protocol::session::ClientEnv,
    ) {
        if env.get(SNAPSHOTS_ENV).is_some_and(|v| v.trim() == "0") {
            return;
        }
        let root = PathBuf::from(&row.root);
        let snapshots = self.engine.snapshots.clone();
        let started = Instant::now();
        let span = tracing::info_span!("snapshot", root = %root.display());
        let taken = tokio::task::spawn_blocking(move || {
            let _enter = span.enter();
            snapshots.take(&root)
        })
        .await;
        let taken = match taken {
            Ok(Ok(taken)) => taken,
            Ok(Err(e)) => {
                tracing::warn!("cannot snapshot the workspace before the turn: {e}");
                return;
            }
            Err(e) => {
                tracing::warn!("the workspace snapshot did not finish: {e}");
                return;
            }
        };
        let took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let skipped: Vec<_> = taken
            .skipped
            .iter()
            .map(|s| json!({"path": s.path.display().to_string(), "why": s.why.to_string()}))
            .collect();
        tracing::info!(
            files = taken.manifest.files.len(),
            hashed = taken.hashed,
            skipped = skipped.len(),
            took_ms,
            "workspace snapshot"
        );
        let record = TurnSnapshot {
            turn_id: self.turn_id.to_string(),
            session_id: row.id.clone(),
            root: row.root.clone(),
            manifest: taken.id.to_string(),
            files: taken.manifest.files.len() as u64,
            skipped: serde_json::Value::Array(skipped).to_string(),
            took_ms,
            created_at: crate::clock::now_ms(),
        };
        if let Err(e) = self.engine.store().record_turn_snapshot(&record).await {
            tracing::warn!("cannot record the workspace snapshot: {e}");
        }
    }
}
