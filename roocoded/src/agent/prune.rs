//! `daemon.prune`: removing what RooCode keeps of old work (see `roocode_protocol::prune`).
//! A main session idle since before the cutoff goes whole — its rows (messages,
//! events, turns, calls, bodies: the database cascades), its sub-agents, spilled tool
//! results, plan file and transcript — unless a turn of it runs or one of its agents
//! works. The recorded bodies of the sessions kept go when older than the cutoff, and
//! the shadow store drops what no kept snapshot names. Without `apply` it only counts.

use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::agents::AgentState;
use roocode_protocol::prune::{PruneParams, PruneReport, PrunedSession};
use roocode_protocol::session::SessionStatus;

use super::{AgentError, Engine};

/// Sessions idle this long go by default.
pub const DEFAULT_OLDER_THAN: Duration = Duration::from_secs(30 * 24 * 3600);

impl Engine {
    /// Why session `id` must stay though old: a turn runs, or agents of it work.
    async fn busy_reason(
        &self,
        id: &str,
        status: SessionStatus,
    ) -> Result<Option<String>, AgentError> {
        let running = match self.runtimes.get(id) {
            Some(rt) => rt.state.lock().await.running.is_some(),
            None => false,
        };
        if running || status == SessionStatus::Running {
            return Ok(Some("a turn is running".into()));
        }
        let working = self.store.children(id).await?.into_iter().any(|c| {
            matches!(
                c.state,
                AgentState::Queued | AgentState::Running | AgentState::Waiting
            )
        });
        Ok(working.then(|| "its agents are working".to_string()))
    }

    /// Counts, or with `apply` removes, what `params` selects.
    pub async fn prune(self: &Arc<Self>, params: &PruneParams) -> Result<PruneReport, AgentError> {
        self.recorder.flush().await;
        let older = params
            .older_than_ms
            .map_or(DEFAULT_OLDER_THAN, Duration::from_millis);
        let cutoff = crate::clock::now_ms()
            .saturating_sub(i64::try_from(older.as_millis()).unwrap_or(i64::MAX));
        let mut report = PruneReport {
            applied: params.apply,
            cutoff,
            ..PruneReport::default()
        };
        let sessions = self.store.list_sessions(None, u32::MAX, false).await?;
        for row in sessions.into_iter().filter(|s| s.last_activity < cutoff) {
            if let Some(why) = self.busy_reason(&row.id, row.status).await? {
                report.kept.push((row.id.clone(), why));
                continue;
            }
            let mut bytes = crate::disk_usage::measure(&self.tool_results_dir(&row.id)).bytes;
            for child in self.store.children(&row.id).await? {
                bytes += crate::disk_usage::measure(&self.tool_results_dir(&child.id)).bytes;
            }
            report.tool_result_bytes += bytes;
            let info = self.sessions.with_short_id(row.to_info()).await?;
            report.sessions.push(PrunedSession {
                session_id: row.id.clone(),
                short_id: info.short_id,
                title: row.title.clone(),
                root: row.root.clone(),
                last_activity: row.last_activity,
            });
        }
        if params.apply {
            for s in &report.sessions {
                self.delete_unpruned(&s.session_id).await?;
            }
        }
        report.body_bytes = self.store.bodies_before(cutoff, params.apply).await?;
        if params.apply {
            let grace = params
                .snapshot_grace_ms
                .map_or(super::rewind::DEFAULT_GRACE, Duration::from_millis);
            let pruned = self.prune_snapshots(grace).await?;
            report.snapshot_bytes = pruned.blobs.removed_bytes;
        }
        tracing::info!(
            applied = params.apply,
            sessions = report.sessions.len(),
            kept = report.kept.len(),
            "prune"
        );
        Ok(report)
    }
}
