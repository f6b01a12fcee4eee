//! A child's run: started in a turn slot when it runs in the background (queued until
//! one is free), bounded by its timeout, stopped on request, and finished when its turns
//! end — its outcome recorded, announced on its parent's stream, and handed to the
//! waiting parent or queued in the parent's inbox as a task notification (once: the
//! notification and the agent's `notified` mark commit together).
//!
//! After a daemon crash or stop, [`Engine::resume_agents`] continues every background
//! child from its stored history with a note that it was interrupted; a foreground
//! child's parent turn was interrupted with it, so it ends `failed`.

use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::agents::AgentState;
use roocode_protocol::content::Role;
use roocode_protocol::event::EventPayload;

use super::book::{Outcome, Phase, SlotGuard, StopCause};
use super::notification::{self, Ended};
use super::types::ChildSpec;
use crate::agent::{AgentError, Engine};
use crate::store::{AgentRow, InjectionKind};

/// What a resumed child reads first after a daemon restart.
pub const RESUMED_NOTE: &str = "The daemon was restarted while you were working on this task. \
A tool call that was running then did not complete (its result says so): check what it did \
before repeating it, then continue the task.";

impl Engine {
    /// Starts a run of child `id` (recorded, its first message queued or its context
    /// written): at once in the foreground (in its parent's slot), or when a slot is free
    /// in the background.
    pub(super) async fn run_child(
        self: &Arc<Self>,
        id: &str,
        phase: Phase,
    ) -> Result<(), AgentError> {
        let Some(row) = self.store.agent(id).await? else {
            return Err(AgentError::Invalid(format!("agent {id} does not exist")));
        };
        let spec = ChildSpec::from_json(&row.spec)
            .map_err(|e| AgentError::Invalid(format!("agent {id} has a corrupt spec: {e}")))?;
        let entry = self.children.open(id, phase);
        let limit = match self.store.session(id).await? {
            Some(session) => self
                .config(std::path::Path::new(&session.root))
                .map(|c| c.agents_limits().max_concurrent as usize)
                .unwrap_or(16),
            None => 16,
        };
        let engine = self.clone();
        let id = id.to_string();
        let timeout = Duration::from_secs(spec.timeout_s.max(1));
        // The watchdog ends with the run; neither it nor the wait for a slot is a task the
        // daemon waits for when it stops (a queued child stays queued for the next start).
        let mut ended = entry.outcome();
        let watchdog = {
            let engine = engine.clone();
            let id = id.clone();
            let entry = entry.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = tokio::time::sleep(timeout) => {}
                    _ = ended.wait_for(Option::is_some) => return,
                }
                entry.set_stop(StopCause::TimedOut {
                    after_s: timeout.as_secs(),
                });
                tracing::warn!(agent = %id, "sub-agent timed out");
                engine.interrupt_child(&id).await;
            })
        };
        tokio::spawn(async move {
            let slot = match phase {
                Phase::Foreground => None,
                Phase::Background => {
                    tokio::select! {
                        guard = engine.children.slots.acquire(limit) => Some(guard),
                        _ = entry.queued_cancel.cancelled() => None,
                    }
                }
            };
            if entry.stop_cause().is_some() {
                // Stopped (or timed out) while it waited for a slot: it never ran.
                engine.child_ended(&id).await;
                watchdog.abort();
                return;
            }
            entry.mark_started();
            if let Err(e) = engine.start_child_turns(&id, slot).await {
                tracing::error!(agent = %id, "cannot start the sub-agent's turn: {e}");
                engine.child_ended(&id).await;
            }
        });
        Ok(())
    }

    async fn start_child_turns(
        self: &Arc<Self>,
        id: &str,
        slot: Option<SlotGuard>,
    ) -> Result<(), AgentError> {
        self.store.set_agent_state(id, AgentState::Running).await?;
        let rt = self.runtime(id).await?;
        if !self.start_turn_if_idle(rt, slot).await? {
            tracing::warn!(agent = %id, "the sub-agent was already running a turn");
        }
        Ok(())
    }

    /// Cancels the child's running turn, or its wait for a slot.
    pub(super) async fn interrupt_child(&self, id: &str) {
        let Some(entry) = self.children.get(id) else {
            return;
        };
        if entry.has_started() {
            if let Err(e) = self.cancel(id).await {
                tracing::warn!(agent = %id, "cannot cancel the sub-agent: {e}");
            }
        } else {
            entry.queued_cancel.cancel();
        }
    }

    /// Stops a child; returns whether it was still running or queued.
    pub async fn stop_agent(self: &Arc<Self>, id: &str) -> Result<bool, AgentError> {
        let Some(row) = self.store.agent(id).await? else {
            return Err(AgentError::Invalid(format!("no agent has the id {id}")));
        };
        if row.state.is_final() {
            return Ok(false);
        }
        match self.children.get(id) {
            Some(entry) => {
                entry.set_stop(StopCause::Stopped);
                self.interrupt_child(id).await;
            }
            // Not running in this daemon (idle, or not resumed yet): it ends now.
            None => {
                let entry = self.children.open(id, phase_of(&row));
                entry.set_stop(StopCause::Stopped);
                self.child_ended(id).await;
            }
        }
        tracing::info!(agent = %id, "sub-agent stopped");
        Ok(true)
    }

    /// Moves a running foreground child to the background: its parent's `Agent` call
    /// returns at once and the result comes as a task notification. Returns whether it
    /// moved.
    pub async fn background_agent(&self, id: &str) -> Result<bool, AgentError> {
        let Some(row) = self.store.agent(id).await? else {
            return Err(AgentError::Invalid(format!("no agent has the id {id}")));
        };
        let Some(entry) = self.children.get(id) else {
            return Ok(false);
        };
        match entry.move_to_background() {
            Ok(true) => {
                self.store.set_agent_background(id).await?;
                self.events
                    .append(&row.parent_id, id, EventPayload::AgentBackgrounded)
                    .await?;
                entry.to_background.notify_one();
                tracing::info!(agent = %id, "sub-agent moved to the background");
                Ok(true)
            }
            Ok(false) | Err(_) => Ok(false),
        }
    }

    /// A child's model asked for `calls`: counted, and shown on its parent's stream at
    /// most once a second.
    pub(crate) async fn child_progress(&self, id: &str, calls: &[crate::agent::executor::Call]) {
        if let Err(e) = self
            .store
            .add_agent_tool_calls(id, calls.len() as u64)
            .await
        {
            tracing::warn!(agent = %id, "cannot count the agent's tool calls: {e}");
        }
        let Some(entry) = self.children.get(id) else {
            return;
        };
        if !entry.progress_due() {
            return;
        }
        let (Ok(Some(row)), Ok(Some(session))) =
            (self.store.agent(id).await, self.store.session(id).await)
        else {
            return;
        };
        let usage = session.usage();
        let last_activity = calls
            .last()
            .map_or_else(|| "thinking".to_string(), |c| c.name.clone());
        let progress = EventPayload::AgentProgress {
            tool_calls: row.tool_calls,
            tokens: usage.input_tokens + usage.output_tokens,
            last_activity,
        };
        if let Err(e) = self.events.append(&row.parent_id, id, progress).await {
            tracing::warn!(agent = %id, "cannot record the agent's progress: {e}");
        }
    }

    /// The turns of session `id` ended: if it is a child, its run is over.
    pub(crate) async fn child_ended(self: &Arc<Self>, id: &str) {
        if let Err(e) = self.finish_child(id).await {
            tracing::error!(agent = %id, "cannot finish the sub-agent: {e}");
        }
    }

    async fn finish_child(self: &Arc<Self>, id: &str) -> Result<(), AgentError> {
        let Some(row) = self.store.agent(id).await? else {
            return Ok(());
        };
        let entry = match self.children.get(id) {
            Some(entry) => entry,
            None => self.children.open(id, phase_of(&row)),
        };
        let Some(outcome) = self.outcome_of(&row, entry.stop_cause()).await? else {
            // The daemon is stopping: the child resumes at the next start.
            self.children.close(id);
            return Ok(());
        };
        let mut result = outcome.result.clone();
        if let Some(report) = self.finish_worktree(&row, outcome.state).await {
            result = format!("{result}\n\n{report}");
        }
        self.store
            .finish_agent(id, outcome.state, Some(&result), outcome.error.as_deref())
            .await?;
        let usage = self
            .store
            .session(id)
            .await?
            .map(|s| s.usage())
            .unwrap_or_default();
        self.events
            .append(
                &row.parent_id,
                id,
                EventPayload::AgentCompleted {
                    state: outcome.state,
                    summary: notification::summary_of(outcome.error.as_deref().unwrap_or(&result)),
                    usage,
                },
            )
            .await?;
        tracing::info!(agent = %id, state = %outcome.state, "sub-agent ended");
        // Its background shells end with it; its in-memory side is rebuilt if resumed.
        if let Some(rt) = self.runtimes.get(id) {
            rt.shell.kill_all().await;
        }
        self.runtimes.remove(id);
        let outcome = Outcome { result, ..outcome };
        let phase = entry.finish(outcome.clone());
        self.children.close(id);
        if phase == Phase::Background {
            self.notify_parent_of(&row, &outcome).await?;
        }
        Ok(())
    }

    /// Queues the `<task-notification>` of `row`'s run in its parent's inbox (once: a
    /// second call queues nothing) and wakes the parent.
    async fn notify_parent_of(
        self: &Arc<Self>,
        row: &AgentRow,
        outcome: &Outcome,
    ) -> Result<(), AgentError> {
        let text = notification::task_notification(&Ended {
            id: &row.id,
            name: &row.name,
            description: &row.description,
            state: outcome.state,
            result: &outcome.result,
            error: outcome.error.as_deref(),
        });
        if self
            .store
            .notify_parent(&row.id, InjectionKind::TaskNotification, &text)
            .await?
        {
            self.wake(&row.parent_id).await?;
        }
        Ok(())
    }

    /// How the child's run ended, from why it was stopped and how its last turn ended;
    /// `None` when the daemon interrupted it (it is resumed, not finished).
    async fn outcome_of(
        &self,
        row: &AgentRow,
        stopped: Option<StopCause>,
    ) -> Result<Option<Outcome>, AgentError> {
        let result = self.last_text(&row.id).await?;
        let outcome = |state, error: Option<String>| {
            Some(Outcome {
                state,
                result: result.clone(),
                error,
            })
        };
        match stopped {
            Some(StopCause::TimedOut { after_s }) => {
                let error = format!("it ran out of time after {after_s} s (timeout_s)");
                return Ok(outcome(AgentState::Failed, Some(error)));
            }
            Some(StopCause::Stopped) => return Ok(outcome(AgentState::Cancelled, None)),
            None => {}
        }
        let end = self.store.last_turn_end(&row.id).await?;
        Ok(match end {
            Some((stop, _)) if stop == "interrupted" => None,
            Some((stop, _)) if matches!(stop.as_str(), "end_turn" | "max_turns" | "max_tokens") => {
                outcome(AgentState::Completed, None)
            }
            Some((stop, _)) if stop == "cancelled" => outcome(AgentState::Cancelled, None),
            Some((_, error)) => outcome(
                AgentState::Failed,
                Some(error.unwrap_or_else(|| "its turn failed".into())),
            ),
            None => outcome(AgentState::Failed, Some("it never ran".into())),
        })
    }

    /// The text of the child's last assistant message.
    async fn last_text(&self, id: &str) -> Result<String, AgentError> {
        let context = self.store.context(id).await?;
        Ok(context
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant && !m.text().trim().is_empty())
            .map(|m| m.text())
            .unwrap_or_default())
    }

    /// After a start: background children that were running continue from their stored
    /// history (told they were interrupted); foreground ones end `failed` (their parent's
    /// turn ended with the daemon); parents with notifications waiting are woken. First,
    /// worktrees of agents that will not run again are committed and removed.
    pub async fn resume_agents(self: &Arc<Self>) -> Result<(), AgentError> {
        self.clean_worktrees().await;
        let live = [AgentState::Queued, AgentState::Running, AgentState::Waiting];
        for row in self.store.agents_in(&live).await? {
            if row.background {
                if row.state != AgentState::Queued {
                    self.store
                        .queue_injection(&row.id, InjectionKind::Recovery, RESUMED_NOTE)
                        .await?;
                }
                // Its status says interrupted; a new turn clears that.
                tracing::info!(agent = %row.id, "resuming a background sub-agent");
                self.run_child(&row.id, Phase::Background).await?;
            } else {
                let error = "the daemon stopped while this foreground agent ran; its parent's turn was interrupted with it";
                self.store
                    .finish_agent(&row.id, AgentState::Failed, None, Some(error))
                    .await?;
                self.store.mark_notified(&row.id).await?;
            }
        }
        // A background child that ended just before the crash, its parent not told yet.
        let ended = [
            AgentState::Completed,
            AgentState::Failed,
            AgentState::Cancelled,
        ];
        for row in self.store.agents_in(&ended).await? {
            if row.background && !row.notified {
                let outcome = Outcome {
                    state: row.state,
                    result: row.result.clone().unwrap_or_default(),
                    error: row.error.clone(),
                };
                self.notify_parent_of(&row, &outcome).await?;
            }
        }
        for session in self.store.sessions_with_injections().await? {
            let is_child = self.store.agent(&session).await?.is_some();
            if !is_child {
                self.wake(&session).await?;
            }
        }
        Ok(())
    }

    /// Stops the children of `parent_id` and waits (bounded) for their turns to end.
    pub(crate) async fn stop_children(self: &Arc<Self>, parent_id: &str) -> Result<(), AgentError> {
        for child in self.store.children(parent_id).await? {
            if child.state.is_final() {
                continue;
            }
            let entry = self.children.get(&child.id);
            self.stop_agent(&child.id).await?;
            if let Some(entry) = entry {
                let mut outcome = entry.outcome();
                let _ = tokio::time::timeout(
                    Duration::from_secs(10),
                    outcome.wait_for(Option::is_some),
                )
                .await;
            }
        }
        Ok(())
    }
}

fn phase_of(row: &AgentRow) -> Phase {
    if row.background {
        Phase::Background
    } else {
        Phase::Foreground
    }
}
