//! The workspace snapshots of a turn (rewind, issue 16): before it, the tree and the
//! conversation as the turn found them; after it, the tree as it left it, so a later
//! rewind tells the turn's changes from those made since by someone else. Taken in a
//! blocking task from the shadow store and recorded with the turn. They never fail
//! the turn: a snapshot that cannot be taken is logged, and that turn cannot be
//! rewound.

use std::path::PathBuf;
use std::time::Instant;

use roocode_protocol::content::Message;
use serde_json::json;

use super::Turn;
use crate::snapshot::{self, Snapshots, Taken};
use crate::store::{SessionRow, TurnSnapshot};

/// Client environment variable that turns the snapshots off (`0`).
pub const SNAPSHOTS_ENV: &str = "ROOCODE_REWIND_SNAPSHOTS";

/// Snapshots `root` (and stores `conversation` beside it) in a blocking task.
async fn take(
    snapshots: std::sync::Arc<Snapshots>,
    root: PathBuf,
    conversation: Option<Vec<Message>>,
) -> Result<(Taken, Option<snapshot::BlobId>), String> {
    let span = tracing::info_span!("snapshot", root = %root.display());
    tokio::task::spawn_blocking(move || {
        let _enter = span.enter();
        let taken = snapshots.take(&root)?;
        let conversation = match conversation {
            Some(messages) => Some(snapshot::conversation::put(snapshots.objects(), &messages)?),
            None => None,
        };
        Ok::<_, std::io::Error>((taken, conversation))
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())
}

impl Turn<'_> {
    /// Snapshots the workspace of `row`'s main agent before this turn, with
    /// `conversation`, the context before the turn delivered its messages.
    pub(super) async fn snapshot_workspace(
        &mut self,
        row: &SessionRow,
        env: &roocode_protocol::session::ClientEnv,
        conversation: Vec<Message>,
    ) {
        if env.get(SNAPSHOTS_ENV).is_some_and(|v| v.trim() == "0") {
            return;
        }
        let root = PathBuf::from(&row.root);
        let started = Instant::now();
        let snapshots = self.engine.snapshots.clone();
        let (taken, conversation) = match take(snapshots, root.clone(), Some(conversation)).await {
            Ok(done) => done,
            Err(e) => {
                tracing::warn!("cannot snapshot the workspace before the turn: {e}");
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
            after_manifest: None,
            conversation: conversation.map(|c| c.to_string()),
            rewound_at: None,
        };
        match self.engine.store().record_turn_snapshot(&record).await {
            Ok(()) => self.snapshotted = Some(root),
            Err(e) => tracing::warn!("cannot record the workspace snapshot: {e}"),
        }
    }

    /// Snapshots the workspace again as the turn leaves it, when one was taken before.
    pub(super) async fn snapshot_after(&mut self) {
        let Some(root) = self.snapshotted.take() else {
            return;
        };
        let snapshots = self.engine.snapshots.clone();
        match take(snapshots, root, None).await {
            Ok((taken, _)) => {
                let store = self.engine.store();
                if let Err(e) = store
                    .set_turn_after_snapshot(self.turn_id, taken.id.as_str())
                    .await
                {
                    tracing::warn!("cannot record the workspace snapshot after the turn: {e}");
                }
            }
            Err(e) => tracing::warn!("cannot snapshot the workspace after the turn: {e}"),
        }
    }
}
