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
use roocode_protocol::content::{Message, Role};
use roocode_protocol::event::EventPayload;

use super::book::{Entry, Outcome, Phase, SlotGuard, StopCause};
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
        let entry = self.children.open(id, phase);
        self.run_opened(&row, entry).await
    }

    /// Starts the run of `row` whose book entry is `entry` (see [`Engine::run_child`]).
    pub(in crate::agent) async fn run_opened(
        self: &Arc<Self>,
        row: &AgentRow,
        entry: Arc<Entry>,
    ) -> Result<(), AgentError> {
        let id = row.id.as_str();
        let phase = entry.phase();
        let spec = match ChildSpec::from_json(&row.spec) {
            Ok(spec) => spec,
            Err(e) => {
                self.children.close_if(id, &entry);
                return Err(AgentError::Invalid(format!(
                    "agent {id} has a corrupt spec: {e}"
                )));
            }
        };
        let limit = match self.store.session(id).await {
            Ok(Some(session)) => self
                .config(std::path::Path::new(&session.root))
                .map(|c| c.agents_limits().max_concurrent as usize)
                .unwrap_or(16),
            Ok(None) => 16,
            Err(e) => {
                // No run starts: a later wake or resume must be able to open one.
                self.children.close_if(id, &entry);
                return Err(e.into());
            }
        };
        let engine = self.clone();
        let id = id.to_string();
        let timeout = Duration::from_secs(spec.timeout_s.max(1));
        // Neither the wait for a slot nor the watchdog is a task the stopping daemon
        // waits for: a queued child stays queued for the next start.
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
                // Stopped while it waited for a slot: it never ran.
                engine.child_ended(&id).await;
                return;
            }
            // Its time limit counts from here: time spent queued is not its own.
            engine.watch_the_clock(&id, &entry, timeout);
            entry.mark_started();
            if let Err(e) = engine.start_child_turns(&id, slot).await {
                tracing::error!(agent = %id, "cannot start the sub-agent's turn: {e}");
                engine.child_ended(&id).await;
                return;
            }
            // A stop that came while the turn was being set up found no turn to cancel.
            if entry.stop_cause().is_some() {
                engine.interrupt_child(&id).await;
            }
        });
        Ok(())
    }

    /// Stops the child as failed once `timeout` has passed, unless its run ended first.
    fn watch_the_clock(self: &Arc<Self>, id: &str, entry: &Arc<Entry>, timeout: Duration) {
        let (engine, id, entry) = (self.clone(), id.to_string(), entry.clone());
        let mut ended = entry.outcome();
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
        });
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
        match self.store.member(id).await {
            Ok(Some(member)) => return self.teammate_ended(id, &member).await,
            Ok(None) => {}
            Err(e) => {
                tracing::error!(agent = %id, "cannot tell whether the agent is a teammate: {e}")
            }
        }
        if let Err(e) = self.finish_child(id).await {
            tracing::error!(agent = %id, "cannot finish the sub-agent: {e}");
        }
    }

    /// Records how the run ended and tells whoever hears of it. Once the outcome is
    /// known every step is taken even if an earlier one failed (logged), so a waiting
    /// parent is never left waiting and the row never stays `running`.
    async fn finish_child(self: &Arc<Self>, id: &str) -> Result<(), AgentError> {
        let entry = self.children.get(id);
        let row = match self.store.agent(id).await {
            Ok(Some(row)) => row,
            // Deleted with its parent: nothing to record, nobody to tell.
            Ok(None) => {
                if let Some(entry) = &entry {
                    self.children.close_if(id, entry);
                }
                return Ok(());
            }
            Err(e) => {
                if let Some(entry) = &entry {
                    self.abandon_entry(id, entry, &e.to_string());
                }
                return Err(e.into());
            }
        };
        let entry = entry.unwrap_or_else(|| self.children.open(id, phase_of(&row)));
        let outcome = match self.outcome_of(&row, entry.stop_cause()).await {
            Ok(Some(outcome)) => outcome,
            Ok(None) => {
                // The daemon is stopping: the child resumes at the next start.
                self.children.close_if(id, &entry);
                return Ok(());
            }
            Err(e) => {
                self.abandon_entry(id, &entry, &e.to_string());
                return Err(e);
            }
        };
        // Its background shells end with it — before its worktree is committed, so
        // nothing of it still runs there — and its in-memory side is rebuilt if it is
        // resumed (removed before the row says it ended: a resume waits for that, so it
        // never shares this run's runtime).
        if let Some(rt) = self.runtimes.get(id) {
            rt.shell.kill_all().await;
            self.runtimes.remove_if(id, &rt);
        }
        let mut result = outcome.result.clone();
        if let Some(report) = self.finish_worktree(&row, outcome.state).await {
            result = format!("{result}\n\n{report}");
        }
        let outcome = Outcome { result, ..outcome };
        let recorded = self
            .store
            .finish_agent(
                id,
                outcome.state,
                Some(&outcome.result),
                outcome.error.as_deref(),
            )
            .await;
        if let Err(e) = &recorded {
            tracing::error!(agent = %id, "cannot record the end of the sub-agent: {e}");
        }
        self.announce_end(&row, &outcome).await;
        tracing::info!(agent = %id, state = %outcome.state, "sub-agent ended");
        // Before its parent hears of it: the parent's next model call sees the graph
        // moved.
        if outcome.state == AgentState::Completed
            && let Err(e) = self.graph_completed(&row, &outcome.result).await
        {
            tracing::error!(agent = %id, "cannot advance the collaboration graph: {e}");
        }
        let phase = entry.finish(outcome.clone());
        self.children.close_if(id, &entry);
        if phase == Phase::Background && recorded.is_ok() {
            self.notify_parent_of(&row, &outcome).await?;
        }
        Ok(())
    }

    /// The end of the run of `entry` could not be read or recorded (`error`): it is
    /// finished as failed (a waiting parent gets that instead of waiting forever) and
    /// closed (a later wake or resume can open a new run).
    pub(in crate::agent) fn abandon_entry(&self, id: &str, entry: &Arc<Entry>, error: &str) {
        if entry.outcome().borrow().is_none() {
            entry.finish(Outcome {
                state: AgentState::Failed,
                result: String::new(),
                error: Some(format!("the end of its run could not be recorded: {error}")),
            });
        }
        self.children.close_if(id, entry);
    }

    /// `agent_completed` on the parent's stream (best effort: the row is the record).
    async fn announce_end(&self, row: &AgentRow, outcome: &Outcome) {
        let usage = match self.store.session(&row.id).await {
            Ok(session) => session.map(|s| s.usage()).unwrap_or_default(),
            Err(_) => Default::default(),
        };
        let summary = notification::summary_of(outcome.error.as_deref().unwrap_or(&outcome.result));
        let ended = EventPayload::AgentCompleted {
            state: outcome.state,
            summary,
            usage,
        };
        if let Err(e) = self.events.append(&row.parent_id, &row.id, ended).await {
            tracing::warn!(agent = %row.id, "cannot record agent_completed: {e}");
        }
    }

    /// Queues the `<task-notification>` of `row`'s run in its parent's inbox (once: a
    /// second call queues nothing) and wakes the parent.
    async fn notify_parent_of(
        self: &Arc<Self>,
        row: &AgentRow,
        outcome: &Outcome,
    ) -> Result<(), AgentError> {
        // A loop's round tells its loop instead (`workflow::rounds`).
        if self.loop_round_ended(row, outcome).await? {
            return Ok(());
        }
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

    /// Queues `report` as the task notification of the loop round `row` (once: see
    /// [`Engine::notify_parent_of`]) and wakes its parent, the loop's origin.
    pub(in crate::agent) async fn notify_loop_end(
        self: &Arc<Self>,
        row: &AgentRow,
        report: &str,
    ) -> Result<(), AgentError> {
        let state = match self.store.agent(&row.id).await? {
            Some(now) => now.state,
            None => row.state,
        };
        let text = notification::task_notification(&Ended {
            id: &row.id,
            name: &row.name,
            description: &row.description,
            state,
            result: report,
            error: None,
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
    pub(in crate::agent) async fn outcome_of(
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

    /// The text of the child's last assistant message: from the context its last turn
    /// left in memory (the stored one, see `SessionRuntime::context`), else the store's
    /// (also while a turn holds that context: a run's end never waits for a turn).
    async fn last_text(&self, id: &str) -> Result<String, AgentError> {
        let last = |messages: &[Message]| {
            messages
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant && !m.text().trim().is_empty())
                .map(|m| m.text())
                .unwrap_or_default()
        };
        if let Some(rt) = self.runtimes.get(id)
            && let Ok(cached) = rt.context.try_lock()
            && let Some(context) = cached.as_ref()
        {
            return Ok(last(context));
        }
        Ok(last(&self.store.context(id).await?))
    }

    /// After a start: background children that were running continue from their stored
    /// history (told they were interrupted); foreground ones end `failed` (their parent's
    /// turn ended with the daemon); parents with notifications waiting are woken. First,
    /// worktrees of agents that will not run again are committed and removed.
    pub async fn resume_agents(self: &Arc<Self>) -> Result<(), AgentError> {
        self.clean_worktrees().await;
        let live = [AgentState::Queued, AgentState::Running, AgentState::Waiting];
        // Each row on its own: one that cannot be resumed fails alone, and the daemon
        // still starts.
        for row in self.store.agents_in(&live).await? {
            if let Err(e) = self.resume_one(&row).await {
                tracing::error!(agent = %row.id, "cannot resume the sub-agent: {e}");
                let error = format!("it could not be resumed after a restart: {e}");
                let failed = Outcome {
                    state: AgentState::Failed,
                    result: String::new(),
                    error: Some(error),
                };
                self.record_failure(&row, &failed).await;
            }
        }
        // A background child that ended just before the crash, its parent not told yet.
        let ended = [
            AgentState::Completed,
            AgentState::Failed,
            AgentState::Cancelled,
        ];
        for row in self.store.agents_in(&ended).await? {
            if row.background
                && !row.notified
                && let Err(e) = self.notify_parent_of(&row, &Outcome::recorded(&row)).await
            {
                tracing::error!(agent = %row.id, "cannot notify the sub-agent's parent: {e}");
            }
        }
        for session in self.store.sessions_with_injections().await? {
            let is_child = self.store.agent(&session).await?.is_some();
            if !is_child && let Err(e) = self.wake(&session).await {
                tracing::error!(session = %session, "cannot wake the session for its inbox: {e}");
            }
        }
        self.resume_teammates().await
    }

    /// Resumes one agent a previous daemon left live: a background one continues, told
    /// it was interrupted; a foreground one ended with its parent's turn.
    async fn resume_one(self: &Arc<Self>, row: &AgentRow) -> Result<(), AgentError> {
        if !row.background {
            let error = "the daemon stopped while this foreground agent ran; its parent's turn was interrupted with it";
            self.store
                .finish_agent(&row.id, AgentState::Failed, None, Some(error))
                .await?;
            self.store.mark_notified(&row.id).await?;
            return Ok(());
        }
        if row.state != AgentState::Queued {
            self.store
                .queue_injection(&row.id, InjectionKind::Recovery, RESUMED_NOTE)
                .await?;
        }
        // Its status says interrupted; a new turn clears that.
        tracing::info!(agent = %row.id, "resuming a background sub-agent");
        self.run_child(&row.id, Phase::Background).await
    }

    /// Records a run that could not go on as failed and tells its parent (best effort).
    /// A teammate is stopped with it (a member left `active` with no run would make
    /// `TeamDelete` refuse forever), its lead told by mail.
    pub(super) async fn record_failure(self: &Arc<Self>, row: &AgentRow, outcome: &Outcome) {
        match self.store.member(&row.id).await {
            Ok(Some(member)) => return self.teammate_failed(row, &member, outcome).await,
            Ok(None) => {}
            Err(e) => {
                tracing::error!(agent = %row.id, "cannot tell whether the agent is a teammate: {e}")
            }
        }
        let error = outcome.error.as_deref();
        if let Err(e) = self
            .store
            .finish_agent(&row.id, outcome.state, None, error)
            .await
        {
            tracing::error!(agent = %row.id, "cannot record the sub-agent's failure: {e}");
            return;
        }
        self.announce_end(row, outcome).await;
        if row.background
            && let Err(e) = self.notify_parent_of(row, outcome).await
        {
            tracing::error!(agent = %row.id, "cannot notify the sub-agent's parent: {e}");
        }
    }

    /// Stops the children of `parent_id`, then waits (bounded) for their runs to end.
    pub(crate) async fn stop_children(self: &Arc<Self>, parent_id: &str) -> Result<(), AgentError> {
        let mut running = Vec::new();
        for child in self.store.children(parent_id).await? {
            if child.state.is_final() {
                continue;
            }
            if let Some(entry) = self.children.get(&child.id) {
                running.push(entry);
            }
            self.stop_agent(&child.id).await?;
        }
        let all_ended = futures_util::future::join_all(running.iter().map(|entry| {
            let mut outcome = entry.outcome();
            async move {
                let _ = outcome.wait_for(Option::is_some).await;
            }
        }));
        let _ = tokio::time::timeout(Duration::from_secs(10), all_ended).await;
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
