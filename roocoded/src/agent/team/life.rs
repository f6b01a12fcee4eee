//! A teammate's life between runs. When its loop ends it becomes idle (or stopped, when
//! it was stopped), recorded with an idle notice for its lead in one transaction; a
//! message to an idle or stopped teammate starts a new run with its full history, in a
//! turn slot of `agents.max_concurrent` (teammates count only while a turn runs). One
//! rule, at a run's end and after a daemon start alike: an idle teammate resumes for
//! anything in its inbox, a stopped one only for mail sent since it stopped (an agreed
//! shutdown is never undone by mail that was waiting).
//!
//! A lead is woken for idle notices after `teams.idle_debounce_ms`, so one lead
//! iteration takes every notice that arrived meanwhile; other mail wakes at once.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use roocode_protocol::agents::AgentState;
use roocode_protocol::event::EventPayload;

use crate::agent::children::{Entry, Outcome, Phase, StopCause, summary_of};
use crate::agent::{AgentError, Engine};
use crate::store::{AgentRow, MailKind, MemberEnd, MemberRow, MemberState, NewMail};

/// The live side of teams.
#[derive(Default)]
pub struct TeamBook {
    /// Leads with a debounced wake pending.
    waking: Mutex<HashSet<String>>,
    /// Teams being deleted: their members are not woken any more.
    deleting: Mutex<HashSet<String>>,
}

impl TeamBook {
    /// True if `team` was not being deleted (and is now).
    pub(super) fn begin_delete(&self, team: &str) -> bool {
        let mut deleting = self.deleting.lock().unwrap_or_else(PoisonError::into_inner);
        deleting.insert(team.to_string())
    }

    pub(super) fn end_delete(&self, team: &str) {
        let mut deleting = self.deleting.lock().unwrap_or_else(PoisonError::into_inner);
        deleting.remove(team);
    }

    fn is_deleting(&self, team: &str) -> bool {
        let deleting = self.deleting.lock().unwrap_or_else(PoisonError::into_inner);
        deleting.contains(team)
    }

    /// True if no wake of `lead` is pending (and one is now).
    fn claim_wake(&self, lead: &str) -> bool {
        let mut waking = self.waking.lock().unwrap_or_else(PoisonError::into_inner);
        waking.insert(lead.to_string())
    }

    fn release_wake(&self, lead: &str) {
        let mut waking = self.waking.lock().unwrap_or_else(PoisonError::into_inner);
        waking.remove(lead);
    }
}

impl Engine {
    /// Whether session `id` is a member of a team (a store error is an error, never
    /// "not a teammate": a teammate woken as a plain session would skip its rules).
    pub(crate) async fn is_teammate(&self, id: &str) -> Result<bool, AgentError> {
        Ok(self.store.membership(id).await?.is_some())
    }

    /// The one rule for what resumes teammate `id` that is not running, at the end of a
    /// run and after a daemon start alike: an idle one, anything in its inbox; a
    /// stopped one, only mail sent to it since it stopped — so mail that was waiting
    /// when it agreed to shut down (or was stopped) never undoes that.
    async fn is_due_a_run(&self, id: &str, member: &MemberRow) -> Result<bool, AgentError> {
        if member.state != MemberState::Stopped {
            return Ok(self.store.has_queued_injections(id).await?);
        }
        let Some(agent) = self.store.agent(id).await? else {
            return Ok(false);
        };
        let since = agent.ended_at.unwrap_or(0);
        Ok(self.store.has_unread_mail_since(id, since).await?)
    }

    /// Something arrived for teammate `id`: a running teammate reads it before its next
    /// model call; an idle or stopped one starts a run that reads it.
    ///
    /// Boxed: a run's end can resume it again, and the compiler needs that cycle cut.
    pub(crate) fn wake_teammate<'a>(
        self: &'a Arc<Self>,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        Box::pin(self.wake_teammate_now(id))
    }

    async fn wake_teammate_now(self: &Arc<Self>, id: &str) -> Result<(), AgentError> {
        let rt = self.runtime(id).await?;
        {
            let mut state = rt.state.lock().await;
            state.woken = true;
            if state.running.is_some() {
                return Ok(());
            }
        }
        // A run queued for a slot, starting or ending sees it (an ending one looks for
        // unread mail after it closed).
        let Some(entry) = self.children.open_if_absent(id, Phase::Background) else {
            return Ok(());
        };
        // Read again with the entry open: a team deleted meanwhile (its member gone), or
        // being deleted (its members stopped and waited for), gets no new run.
        match self.store.membership(id).await {
            Ok(Some(member)) if !self.teams.is_deleting(&member.team_id) => {}
            Ok(_) => {
                self.children.close_if(id, &entry);
                return Ok(());
            }
            Err(e) => {
                self.children.close_if(id, &entry);
                return Err(e.into());
            }
        }
        let row = match self.store.agent(id).await {
            Ok(Some(row)) => row,
            Ok(None) => {
                self.children.close_if(id, &entry);
                return Ok(());
            }
            Err(e) => {
                self.children.close_if(id, &entry);
                return Err(e.into());
            }
        };
        if let Err(e) = self.restart_member(&row, &rt).await {
            self.children.close_if(id, &entry);
            return Err(e);
        }
        tracing::info!(agent = %id, name = %row.name, "teammate resumed by its mail");
        self.run_opened(&row, entry).await
    }

    /// Marks `row` running again and gives it its lead's environment if it has none yet.
    /// Its worktree comes first: when it cannot be reopened nothing is written, so the
    /// agent and its member stay as the last run left them (never `queued` and `active`
    /// with no run).
    async fn restart_member(
        self: &Arc<Self>,
        row: &AgentRow,
        rt: &crate::agent::runtime::SessionRuntime,
    ) -> Result<(), AgentError> {
        // Its worktree (if any) was kept when its last run ended; a teammate stopped
        // with its team has none left, and gets it back here.
        self.reopen_worktree(row)
            .await
            .map_err(AgentError::Invalid)?;
        self.store.restart_member(&row.id).await?;
        if rt.state.lock().await.env.vars.is_empty()
            && let Some(lead) = self.runtimes.get(&row.parent_id)
        {
            let env = lead.state.lock().await.env.clone();
            rt.state.lock().await.env = env;
        }
        self.announce_member(row, MemberState::Active).await;
        Ok(())
    }

    async fn announce_member(&self, row: &AgentRow, state: MemberState) {
        let Ok(Some(member)) = self.store.membership(&row.id).await else {
            return;
        };
        let team = match self.store.team(&member.team_id).await {
            Ok(Some(team)) => team.name,
            _ => member.team_id.clone(),
        };
        let changed = EventPayload::TeamMember {
            team,
            name: member.name.clone(),
            agent_type: member.agent_type.clone(),
            state,
            joined: false,
        };
        if let Err(e) = self.events.append(&row.parent_id, &row.id, changed).await {
            tracing::warn!(agent = %row.id, "cannot record team_member: {e}");
        }
    }

    /// The turns of teammate `id` ended: it is idle (its lead told) or stopped.
    pub(crate) async fn teammate_ended(self: &Arc<Self>, id: &str, member: &MemberRow) {
        let state = match self.end_member_run(id, member).await {
            Ok(Some(state)) => state,
            // Not ended (deleted, or the daemon is stopping).
            Ok(None) => return,
            Err(e) => {
                tracing::error!(agent = %id, "cannot record the end of the teammate's run: {e}");
                return;
            }
        };
        // Mail that came while the run ended found it still open: a new run reads it,
        // by the rule a start follows too.
        let member = MemberRow {
            state,
            ..member.clone()
        };
        match self.is_due_a_run(id, &member).await {
            Ok(true) => {
                if let Err(e) = self.wake_teammate(id).await {
                    tracing::error!(agent = %id, "cannot resume the teammate for its mail: {e}");
                }
            }
            Ok(false) => {}
            Err(e) => tracing::error!(agent = %id, "cannot read the teammate's inbox: {e}"),
        }
    }

    /// Records how the run ended; the member's new state (`None`: it was not ended —
    /// deleted, or interrupted by the daemon stopping).
    ///
    /// Whatever fails (a busy database), the run's book entry is finished and closed,
    /// as [`Engine::finish_child`] does: whoever waits for the run hears it ended, and
    /// the next message can start a new one (an entry left open makes every wake think
    /// a run is still ending, so the teammate could never be woken again).
    async fn end_member_run(
        self: &Arc<Self>,
        id: &str,
        member: &MemberRow,
    ) -> Result<Option<MemberState>, AgentError> {
        let entry = self
            .children
            .get(id)
            .unwrap_or_else(|| self.children.open(id, Phase::Background));
        let ended = self.record_member_end(id, member, &entry).await;
        if let Err(e) = &ended {
            self.abandon_entry(id, &entry, &e.to_string());
        }
        ended
    }

    /// [`Engine::end_member_run`] with the run's `entry`; on success the entry is
    /// closed, on an error the caller closes it.
    async fn record_member_end(
        self: &Arc<Self>,
        id: &str,
        member: &MemberRow,
        entry: &Arc<Entry>,
    ) -> Result<Option<MemberState>, AgentError> {
        let Some(row) = self.store.agent(id).await? else {
            self.children.close_if(id, entry);
            return Ok(None);
        };
        // It agreed to shut down in this run (the mailbox says so across a restart).
        if self.shutdown_agreed(id).await {
            entry.set_stop(StopCause::Stopped);
        }
        let stopped = entry.stop_cause() == Some(StopCause::Stopped);
        let Some(outcome) = self.outcome_of(&row, entry.stop_cause()).await? else {
            // The daemon is stopping: the teammate resumes at the next start.
            self.children.close_if(id, entry);
            return Ok(None);
        };
        let (agent_state, member_state) = if stopped {
            // Its shells end with it; an idle teammate keeps its own (a dev server).
            if let Some(rt) = self.runtimes.get(id) {
                rt.shell.kill_all().await;
            }
            (AgentState::Cancelled, MemberState::Stopped)
        } else {
            (AgentState::Idle, MemberState::Idle)
        };
        let body = idle_notice(&member.name, &outcome);
        let summary = format!("{} is idle", member.name);
        let notice = NewMail {
            team_id: &member.team_id,
            sender: id,
            kind: MailKind::IdleNotification,
            summary: &summary,
            body: &body,
            request_id: None,
            approve: None,
        };
        let end = MemberEnd {
            agent_id: id,
            agent_state,
            member_state,
            result: Some(&outcome.result),
            error: outcome.error.as_deref(),
        };
        let told = (!stopped).then_some((&notice, row.parent_id.as_str()));
        let recorded = self.store.member_ended(&end, told).await;
        // Its run is over either way: whoever waits for it hears how it ended.
        entry.finish(outcome);
        recorded?;
        self.children.close_if(id, entry);
        tracing::info!(agent = %id, name = %member.name, state = %member_state, "teammate's run ended");
        self.announce_member(&row, member_state).await;
        if !stopped {
            self.announce_mail(&notice, &row.parent_id).await;
            self.wake_lead_soon(&row.parent_id);
        }
        Ok(Some(member_state))
    }

    /// A run of teammate `row` could not go on (`outcome`, failed): its agent row and
    /// its member (`stopped`) are recorded with a notice for its lead in one
    /// transaction, as a run's end is. A message sent to it later resumes it.
    pub(crate) async fn teammate_failed(
        self: &Arc<Self>,
        row: &AgentRow,
        member: &MemberRow,
        outcome: &Outcome,
    ) {
        let body = idle_notice(&member.name, outcome);
        let summary = format!("{} stopped", member.name);
        let notice = NewMail {
            team_id: &member.team_id,
            sender: &row.id,
            kind: MailKind::IdleNotification,
            summary: &summary,
            body: &body,
            request_id: None,
            approve: None,
        };
        let end = MemberEnd {
            agent_id: &row.id,
            agent_state: outcome.state,
            member_state: MemberState::Stopped,
            result: Some(&outcome.result),
            error: outcome.error.as_deref(),
        };
        if let Err(e) = self
            .store
            .member_ended(&end, Some((&notice, row.parent_id.as_str())))
            .await
        {
            tracing::error!(agent = %row.id, "cannot record the teammate's failure: {e}");
            return;
        }
        tracing::warn!(agent = %row.id, name = %member.name, "teammate stopped on an error");
        self.announce_member(row, MemberState::Stopped).await;
        self.announce_mail(&notice, &row.parent_id).await;
        self.wake_lead_soon(&row.parent_id);
    }

    /// Wakes `lead` after the idle debounce, once for every notice arriving meanwhile.
    pub(crate) fn wake_lead_soon(self: &Arc<Self>, lead: &str) {
        if !self.teams.claim_wake(lead) {
            return;
        }
        let engine = self.clone();
        let lead = lead.to_string();
        tokio::spawn(async move {
            let delay = engine.idle_debounce(&lead).await;
            tokio::time::sleep(delay).await;
            engine.teams.release_wake(&lead);
            if let Err(e) = engine.wake(&lead).await {
                tracing::error!(session = %lead, "cannot wake the team's lead: {e}");
            }
        });
    }

    /// `ROOCODE_TEAM_DEBOUNCE_MS` of the lead's client, else `teams.idle_debounce_ms`;
    /// either at most [`crate::config::MAX_IDLE_DEBOUNCE_MS`].
    async fn idle_debounce(&self, lead: &str) -> Duration {
        if let Some(rt) = self.runtimes.get(lead)
            && let Some(ms) = rt
                .state
                .lock()
                .await
                .env
                .get("ROOCODE_TEAM_DEBOUNCE_MS")
                .and_then(|v| v.parse::<u64>().ok())
        {
            return Duration::from_millis(ms.min(crate::config::MAX_IDLE_DEBOUNCE_MS));
        }
        match self.store.session(lead).await {
            Ok(Some(session)) => self
                .config(std::path::Path::new(&session.root))
                .map(|c| c.teams_settings().idle_debounce)
                .unwrap_or(Duration::from_millis(250)),
            _ => Duration::from_millis(250),
        }
    }

    /// After a start: idle and stopped teammates resume by the rule of a run's end
    /// ([`Engine::is_due_a_run`]); running ones were resumed with the other background
    /// agents. Each on its own: one that cannot be read or woken is logged.
    pub(crate) async fn resume_teammates(self: &Arc<Self>) -> Result<(), AgentError> {
        for session in self.store.sessions_with_injections().await? {
            let member = match self.store.member(&session).await {
                Ok(Some(member)) => member,
                Ok(None) => continue,
                Err(e) => {
                    tracing::error!(agent = %session, "cannot tell whether the session is a teammate: {e}");
                    continue;
                }
            };
            let due = match self.is_due_a_run(&session, &member).await {
                Ok(due) => due,
                Err(e) => {
                    tracing::error!(agent = %session, "cannot read the teammate's inbox: {e}");
                    continue;
                }
            };
            if due && let Err(e) = self.wake_teammate(&session).await {
                tracing::error!(agent = %session, "cannot resume the teammate for its mail: {e}");
            }
        }
        Ok(())
    }
}

/// What the lead reads when a teammate goes idle.
fn idle_notice(name: &str, outcome: &Outcome) -> String {
    let mut text = match (&outcome.state, &outcome.error) {
        (_, Some(error)) => format!("{name} stopped working on an error: {error}."),
        (AgentState::Cancelled, None) => format!("{name} was interrupted."),
        _ => format!("{name} finished its turn and is idle."),
    };
    let last = summary_of(&outcome.result);
    if !last.is_empty() {
        text.push_str(&format!(" Its last message: {last}"));
    }
    text.push_str(" Send it a message to give it more work; it keeps everything it did.");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_notice_says_how_the_run_ended_and_how_to_resume() {
        let done = Outcome {
            state: AgentState::Completed,
            result: "All three files are migrated.".into(),
            error: None,
        };
        let text = idle_notice("builder", &done);
        assert!(
            text.starts_with("builder finished its turn and is idle."),
            "{text}"
        );
        assert!(text.contains("All three files are migrated."), "{text}");
        let failed = Outcome {
            state: AgentState::Failed,
            result: String::new(),
            error: Some("it ran out of time".into()),
        };
        assert!(idle_notice("b", &failed).contains("error: it ran out of time."));
    }

    #[test]
    fn one_debounced_wake_is_pending_per_lead() {
        let book = TeamBook::default();
        assert!(book.claim_wake("lead"));
        assert!(!book.claim_wake("lead"));
        assert!(book.claim_wake("other"));
        book.release_wake("lead");
        assert!(book.claim_wake("lead"));
    }

    #[test]
    fn a_team_is_deleted_by_one_call_at_a_time() {
        let book = TeamBook::default();
        assert!(book.begin_delete("t1"));
        assert!(book.is_deleting("t1") && !book.is_deleting("t2"));
        assert!(!book.begin_delete("t1"));
        book.end_delete("t1");
        assert!(!book.is_deleting("t1"));
    }
}
