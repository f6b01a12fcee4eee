//! The replay's driver: sends the recorded user messages to the replay's session one by
//! one, each once the session is quiet — no turn running or queued, nothing in its
//! inbox, none of its agents working or owing it a notification — so the turns that
//! notifications started in the recording start here the same way between them. Once
//! the last one is done it tells what the recording has that the replay did not use,
//! gives the session back its client's plain environment (a replayed session is a
//! normal one: sent a message, it asks the model) and ends with `replay_finished`. A
//! daemon that stops, or a cancel of the replay's session, ends the replay where it is
//! (its session keeps what it did).

use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::agents::AgentState;
use roocode_protocol::event::EventPayload;
use roocode_protocol::session::{ClientEnv, SendParams};
use tokio_util::sync::CancellationToken;

use super::Run;
use crate::agent::{AgentError, Engine};

/// How often quiet is checked again without an event (a safety net: the events of the
/// session wake the check first).
const QUIET_POLL: Duration = Duration::from_millis(250);

impl Engine {
    pub(super) async fn drive_replay(
        self: &Arc<Self>,
        run: Arc<Run>,
        messages: Vec<String>,
        env: ClientEnv,
        client_env: ClientEnv,
    ) {
        let id = run.session_id.clone();
        let mut stopped = None;
        for text in messages {
            if let Err(e) = self.wait_quiet(&id, &run.cancel).await {
                stopped = Some(e);
                break;
            }
            let params = SendParams {
                session_id: id.clone(),
                text,
                env: env.clone(),
                model: None,
                mode: None,
            };
            if let Err(e) = self.send(params).await {
                let payload = EventPayload::ReplayDivergence {
                    kind: "message_refused".into(),
                    call_id: None,
                    tool: None,
                    message: format!("a recorded message could not be sent again: {e}"),
                    expected: None,
                    actual: None,
                };
                run.diverge(&id, payload).await;
            }
        }
        if stopped.is_none()
            && let Err(e) = self.wait_quiet(&id, &run.cancel).await
        {
            stopped = Some(e);
        }
        if let Some(e) = &stopped {
            tracing::warn!(session = %id, "replay stopped: {e}");
        }
        self.finish_replay(&run, client_env, stopped).await;
    }

    /// Waits until the session `id` is quiet (see the module doc).
    async fn wait_quiet(&self, id: &str, cancel: &CancellationToken) -> Result<(), AgentError> {
        let mut events = self.events.subscribe(id);
        loop {
            // The daemon is stopping: the replay ends with it (its session stays).
            if self.tasks.is_closed() {
                return Err(AgentError::Invalid("the daemon is stopping".into()));
            }
            if cancel.is_cancelled() {
                return Err(AgentError::Invalid("cancelled".into()));
            }
            if self.is_quiet(id).await? {
                return Ok(());
            }
            tokio::select! {
                _ = events.recv() => {}
                () = cancel.cancelled() => {}
                () = tokio::time::sleep(QUIET_POLL) => {}
            }
        }
    }

    /// Read in this order so that nothing slips between the reads: an agent that ends
    /// queues its notification before it counts as settled, and a turn that takes
    /// the notification from the inbox is running before it does.
    async fn is_quiet(&self, id: &str) -> Result<bool, AgentError> {
        if self.store.session(id).await?.is_none() {
            return Err(AgentError::NotFound(id.to_string()));
        }
        for child in self.store.children(id).await? {
            let settled = match child.state {
                AgentState::Queued | AgentState::Running | AgentState::Waiting => false,
                AgentState::Idle | AgentState::Unknown => true,
                AgentState::Completed | AgentState::Failed | AgentState::Cancelled => {
                    !child.background || child.notified
                }
            };
            if !settled {
                return Ok(false);
            }
        }
        if self.store.has_queued_injections(id).await? {
            return Ok(false);
        }
        let rt = self.runtime(id).await?;
        let state = rt.state.lock().await;
        Ok(state.running.is_none() && state.queue.is_empty() && !state.woken)
    }

    async fn finish_replay(
        &self,
        run: &Arc<Run>,
        client_env: ClientEnv,
        stopped: Option<AgentError>,
    ) {
        // What the recording did and the replay did not, unless it was cut short.
        if stopped.is_none() {
            for feed in self.replays.of_run(run) {
                feed.tell_the_rest().await;
            }
        }
        self.replays.remove_run(run);
        if let Some(rt) = self.runtimes.get(&run.session_id) {
            rt.state.lock().await.env = client_env;
        }
        let stats = run.stats();
        let found = match stats.divergences {
            0 => "no divergence".to_string(),
            1 => "1 divergence".to_string(),
            n => format!("{n} divergences"),
        };
        let ended = match &stopped {
            None => "replay finished".to_string(),
            Some(e) => format!("replay stopped before its end ({e})"),
        };
        let message = format!(
            "{ended}: {} of {} recorded model answers used, {} tool results compared, {found}",
            stats.model_calls, run.recorded_answers, stats.tool_calls
        );
        tracing::info!(session = %run.session_id, "{message}");
        let payload = EventPayload::ReplayFinished {
            recorded_session_id: run.recorded_session_id.clone(),
            model_calls: stats.model_calls,
            recorded_model_calls: run.recorded_answers,
            tool_calls: stats.tool_calls,
            divergences: stats.divergences,
            stopped: stopped.map(|e| e.to_string()),
            message,
        };
        if let Err(e) = self
            .events
            .append(&run.session_id, &run.session_id, payload)
            .await
        {
            tracing::error!(session = %run.session_id, "cannot record the end of the replay: {e}");
        }
    }
}
