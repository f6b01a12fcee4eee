//! The team's shared task list on the engine's side: who may do what, and who hears of
//! it. The store keeps the list consistent (atomic claims, cycles refused); this file
//! holds the rules against a hostile model:
//!
//! - Only the team's lead and members touch its list ([`Engine::team_actor`]).
//! - Anyone in the team creates tasks. Changing a task's subject, description or
//!   status is for its owner or the lead; a teammate adds a dependency only to a task
//!   that is its own or unowned (it cannot block another's work).
//! - Owners: the lead assigns anyone (a member's name or `lead`) or nobody, and the new
//!   owner is told by mail from the lead. A teammate sets only itself (reserving a task
//!   atomically: another's is refused, naming who has it) or gives up its own.
//! - Starting (`in_progress`) is an atomic claim; a blocked task cannot be started (the
//!   tasks blocking it named). Completing needs every blocker completed and happens
//!   once; the owners of the tasks it unblocks are told by a `task_assignment` from the
//!   task list itself ([`TASK_LIST_SENDER`]).
//! - Every change is a `task_updated` event on the lead's stream.

use std::sync::Arc;

use roocode_protocol::event::EventPayload;
use roocode_protocol::session::SessionKind;

use super::task_text;
use crate::agent::{AgentError, Engine};
use crate::store::{
    MailKind, MemberState, NewMail, SessionRow, TaskError, TaskStatus, TeamRow, TeamTask,
    open_blockers,
};
use crate::tools::{NewTeamTask, TaskChange, TaskStatusChange};

/// How the team addresses its lead (and how a task owned by the lead names it).
pub const LEAD: &str = "lead";

/// The sender of the task list's own notices (a task unblocked): the daemon, on
/// nobody's behalf. It is neither an agent id nor a name a member can have (names are
/// letters, digits, `-` and `_`), so no teammate can send mail that reads as from it.
pub const TASK_LIST_SENDER: &str = "(task list)";

/// The caller of a task tool, in its team.
#[derive(Debug, Clone)]
pub struct Actor {
    pub team: TeamRow,
    pub agent_id: String,
    /// `lead`, or the member's name.
    pub name: String,
}

impl Actor {
    fn is_lead(&self) -> bool {
        self.team.lead_session_id == self.agent_id
    }

    /// Whether this caller may change `task`'s own fields (subject, status).
    fn owns_or_leads(&self, task: &TeamTask) -> bool {
        self.is_lead() || task.owner.as_deref() == Some(self.name.as_str())
    }
}

/// An owner as the model wrote it: `None` for nobody. The reserved words are read in
/// any capitalisation, as `SendMessage` reads `lead` (no teammate can be named one).
fn owner_named(owner: &str) -> Option<&str> {
    let owner = owner.trim();
    let is = |word: &str| owner.eq_ignore_ascii_case(word);
    if owner.is_empty() || is("none") || is("nobody") {
        None
    } else if is("team-lead") || is(LEAD) {
        Some(LEAD)
    } else {
        Some(owner)
    }
}

impl Engine {
    /// The team `session` acts in — as its lead (a main session) or one of its members
    /// — and under which name; `None` when it is in no team.
    pub(crate) async fn team_actor(
        &self,
        session: &SessionRow,
    ) -> Result<Option<Actor>, AgentError> {
        match session.kind {
            SessionKind::Main => {
                let team = self
                    .store
                    .team_of(&session.id)
                    .await?
                    .filter(|t| t.lead_session_id == session.id);
                Ok(team.map(|team| Actor {
                    team,
                    agent_id: session.id.clone(),
                    name: LEAD.to_string(),
                }))
            }
            SessionKind::Teammate => {
                let Some(member) = self.store.membership(&session.id).await? else {
                    return Ok(None);
                };
                let Some(team) = self.store.team(&member.team_id).await? else {
                    return Ok(None);
                };
                Ok(Some(Actor {
                    team,
                    agent_id: session.id.clone(),
                    name: member.name,
                }))
            }
            _ => Ok(None),
        }
    }

    /// `TaskCreate` in the actor's team.
    pub(crate) async fn create_team_task(
        &self,
        actor: &Actor,
        task: NewTeamTask,
    ) -> Result<String, String> {
        let id = self
            .store
            .create_task_blocked_by(
                &actor.team.id,
                &task.subject,
                &task.description,
                &task.blocked_by,
            )
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(team = %actor.team.name, task = id, by = %actor.name, "team task created");
        self.announce_tasks(actor, &[id]).await;
        let mut answer = format!("Task #{id} created: {}.", task.subject);
        if !task.blocked_by.is_empty() {
            answer.push_str(&format!(
                " It waits for {}: it can start once they are completed.",
                task_text::numbers(&task.blocked_by)
            ));
        }
        answer.push_str(if actor.is_lead() {
            " Assign it with TaskUpdate (owner), or let a teammate claim it."
        } else {
            " Claim it with TaskUpdate (status in_progress) to work on it, or leave it for the lead to assign."
        });
        Ok(answer)
    }

    /// `TaskUpdate` in the actor's team: each part of the change in turn (fields,
    /// dependencies, owner, status); the first refused part ends it, saying what was
    /// done before.
    pub(crate) async fn update_team_task(
        self: &Arc<Self>,
        actor: &Actor,
        change: TaskChange,
    ) -> Result<String, String> {
        let mut changed = vec![change.task_id];
        let mut done = Vec::new();
        let applied = self
            .apply_change(actor, &change, &mut changed, &mut done)
            .await;
        // A status change changes what blocks the task's dependents too.
        if change.status.is_some()
            && let Ok(tasks) = self.store.tasks(&actor.team.id).await
        {
            let dependents = tasks
                .iter()
                .filter(|t| t.blocked_by.contains(&change.task_id));
            changed.extend(dependents.map(|t| t.id));
        }
        changed.sort_unstable();
        changed.dedup();
        self.announce_tasks(actor, &changed).await;
        match applied {
            Ok(()) => {
                let task = self
                    .store
                    .task(&actor.team.id, change.task_id)
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| TaskError::NoSuchTask(change.task_id).to_string())?;
                let mut answer = format!(
                    "Task #{} \"{}\" is {}{}.",
                    task.id,
                    task.subject,
                    task.status.as_str(),
                    task.owner
                        .as_deref()
                        .map(|o| format!(", owned by {o}"))
                        .unwrap_or_else(|| ", unowned".into())
                );
                for line in done {
                    answer.push(' ');
                    answer.push_str(&line);
                }
                Ok(answer)
            }
            Err(why) if done.is_empty() => Err(why),
            Err(why) => Err(format!("{why} (done before that: {})", done.join(" "))),
        }
    }

    async fn apply_change(
        self: &Arc<Self>,
        actor: &Actor,
        change: &TaskChange,
        changed: &mut Vec<i64>,
        done: &mut Vec<String>,
    ) -> Result<(), String> {
        let team = &actor.team.id;
        let store = &self.store;
        let text = |e: TaskError| e.to_string();
        let tasks = store.tasks(team).await.map_err(|e| e.to_string())?;
        let Some(task) = tasks.iter().find(|t| t.id == change.task_id) else {
            return Err(TaskError::NoSuchTask(change.task_id).to_string());
        };

        if change.subject.is_some() || change.description.is_some() {
            if !actor.owns_or_leads(task) {
                return Err(not_yours(task, "change its subject or description"));
            }
            store
                .edit_task(
                    team,
                    task.id,
                    change.subject.as_deref(),
                    change.description.as_deref(),
                )
                .await
                .map_err(text)?;
            done.push("Its subject or description changed.".into());
        }

        // (blocked task, its new blocker)
        let deps = change
            .add_blocked_by
            .iter()
            .map(|b| (task.id, *b))
            .chain(change.add_blocks.iter().map(|b| (*b, task.id)));
        for (blocked, blocker) in deps {
            let Some(waiting) = tasks.iter().find(|t| t.id == blocked) else {
                return Err(TaskError::NoSuchTask(blocked).to_string());
            };
            let free = waiting.owner.is_none();
            if !actor.owns_or_leads(waiting) && !free {
                return Err(not_yours(waiting, "make it wait for another task"));
            }
            store
                .add_dependency(team, blocked, blocker)
                .await
                .map_err(text)?;
            changed.push(blocked);
            done.push(format!("#{blocked} now waits for #{blocker}."));
        }

        if let Some(owner) = &change.owner {
            self.change_owner(actor, task, owner_named(owner), done)
                .await?;
        }

        match change.status {
            None => {}
            Some(TaskStatusChange::InProgress) => {
                let claimant = match (actor.is_lead(), change.owner.as_deref()) {
                    (false, _) => actor.name.clone(),
                    (true, Some(owner)) => owner_named(owner).unwrap_or(LEAD).to_string(),
                    (true, None) => task.owner.clone().unwrap_or_else(|| LEAD.to_string()),
                };
                store
                    .claim_task(team, task.id, &claimant)
                    .await
                    .map_err(text)?;
                tracing::info!(team = %actor.team.name, task = task.id, owner = %claimant, "team task started");
            }
            Some(TaskStatusChange::Completed) => self.complete(actor, task.id, done).await?,
            Some(TaskStatusChange::Pending) => {
                let now = store
                    .task(team, task.id)
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| TaskError::NoSuchTask(task.id).to_string())?;
                if !actor.owns_or_leads(&now) {
                    return Err(not_yours(&now, "change its status"));
                }
                if now.status == TaskStatus::Completed && !actor.is_lead() {
                    return Err(format!(
                        "task #{} is completed: only the lead reopens a completed task",
                        now.id
                    ));
                }
                store.reset_task(team, task.id).await.map_err(text)?;
            }
        }
        Ok(())
    }

    /// The owner part of a `TaskUpdate` (see the module's rules).
    async fn change_owner(
        self: &Arc<Self>,
        actor: &Actor,
        task: &TeamTask,
        owner: Option<&str>,
        done: &mut Vec<String>,
    ) -> Result<(), String> {
        let team = &actor.team.id;
        let text = |e: TaskError| e.to_string();
        if !actor.is_lead() {
            return match owner {
                Some(me) if me == actor.name => {
                    self.store
                        .reserve_task(team, task.id, me)
                        .await
                        .map_err(text)?;
                    done.push("It is yours.".into());
                    Ok(())
                }
                None if task.owner.as_deref() == Some(actor.name.as_str()) => {
                    self.store
                        .set_task_owner(team, task.id, None)
                        .await
                        .map_err(text)?;
                    done.push("You gave it up: it is unowned again.".into());
                    Ok(())
                }
                None => Err(not_yours(task, "give it up")),
                Some(other) => Err(format!(
                    "a teammate sets only itself as a task's owner (you are {}), not \"{other}\": ask the lead to assign it",
                    actor.name
                )),
            };
        }
        let Some(owner) = owner else {
            self.store
                .set_task_owner(team, task.id, None)
                .await
                .map_err(text)?;
            done.push("It has no owner now.".into());
            return Ok(());
        };
        let members = self.store.members(team).await.map_err(|e| e.to_string())?;
        let member = members.iter().find(|m| m.name == owner);
        if owner != LEAD && member.is_none() {
            let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
            return Err(format!(
                "the team has no member \"{owner}\": owners are {} or \"lead\"",
                if names.is_empty() {
                    "(no teammates yet)".to_string()
                } else {
                    names.join(", ")
                }
            ));
        }
        self.store
            .set_task_owner(team, task.id, Some(owner))
            .await
            .map_err(text)?;
        done.push(format!("Its owner is {owner}."));
        if let Some(member) = member
            && task.owner.as_deref() != Some(owner)
        {
            let body = task_text::assignment(task);
            let summary = format!("task #{} is assigned to you", task.id);
            self.tell(
                actor,
                &actor.agent_id,
                &member.agent_id,
                member.state,
                &summary,
                &body,
            )
            .await;
            done.push(format!("{owner} was told."));
        }
        Ok(())
    }

    /// Completes `task` for `actor` (its owner, or the lead; an unowned task is
    /// claimed first) and tells the owners of the tasks it unblocks.
    async fn complete(
        self: &Arc<Self>,
        actor: &Actor,
        task_id: i64,
        done: &mut Vec<String>,
    ) -> Result<(), String> {
        let team = &actor.team.id;
        let text = |e: TaskError| e.to_string();
        let tasks = self.store.tasks(team).await.map_err(|e| e.to_string())?;
        let Some(task) = tasks.iter().find(|t| t.id == task_id) else {
            return Err(TaskError::NoSuchTask(task_id).to_string());
        };
        if task.status == TaskStatus::Completed {
            return Err(TaskError::Done(task_id).to_string());
        }
        let open = open_blockers(&tasks, task);
        if !open.is_empty() {
            return Err(TaskError::Blocked {
                task: task_id,
                open,
            }
            .to_string());
        }
        match &task.owner {
            Some(owner) if *owner == actor.name || actor.is_lead() => {}
            Some(_) => return Err(not_yours(task, "complete it")),
            // Unowned: completing it is claiming it first (atomically: a teammate that
            // claimed it meanwhile keeps it).
            None => self
                .store
                .claim_task(team, task_id, &actor.name)
                .await
                .map_err(text)?,
        }
        let unblocked = self
            .store
            .complete_task(team, task_id)
            .await
            .map_err(text)?;
        tracing::info!(team = %actor.team.name, task = task_id, by = %actor.name, unblocked = unblocked.len(), "team task completed");
        let members = self.store.members(team).await.map_err(|e| e.to_string())?;
        for next in &unblocked {
            let line = match next.owner.as_deref() {
                None => format!(
                    "#{} \"{}\" is unblocked and unowned: claim it, or the lead assigns it.",
                    next.id, next.subject
                ),
                Some(owner) if owner == actor.name => format!(
                    "Your task #{} \"{}\" is unblocked: start it with TaskUpdate (status in_progress).",
                    next.id, next.subject
                ),
                Some(owner) => {
                    let recipient = if owner == LEAD {
                        Some((actor.team.lead_session_id.clone(), MemberState::Active))
                    } else {
                        members
                            .iter()
                            .find(|m| m.name == owner)
                            .map(|m| (m.agent_id.clone(), m.state))
                    };
                    match recipient {
                        Some((_, MemberState::Stopped)) => format!(
                            "#{} \"{}\" is unblocked; its owner {owner} is stopped, so the lead should reassign it.",
                            next.id, next.subject
                        ),
                        Some((id, state)) => {
                            let body = task_text::unblocked(next, task, &actor.name);
                            let summary = format!("task #{} can start now", next.id);
                            self.tell(actor, TASK_LIST_SENDER, &id, state, &summary, &body)
                                .await;
                            format!(
                                "#{} \"{}\" is unblocked ({owner} was told).",
                                next.id, next.subject
                            )
                        }
                        None => format!(
                            "#{} \"{}\" is unblocked; its owner {owner} is not in the team any more.",
                            next.id, next.subject
                        ),
                    }
                }
            };
            done.push(line);
        }
        if unblocked.is_empty() {
            done.push("It unblocked no other task.".into());
        }
        Ok(())
    }

    /// A `task_assignment` to `recipient` (a stopped member is not woken for it).
    async fn tell(
        self: &Arc<Self>,
        actor: &Actor,
        sender: &str,
        recipient: &str,
        state: MemberState,
        summary: &str,
        body: &str,
    ) {
        if recipient == actor.agent_id || state == MemberState::Stopped {
            return;
        }
        let mail = NewMail {
            team_id: &actor.team.id,
            sender,
            kind: MailKind::TaskAssignment,
            summary,
            body,
            request_id: None,
            approve: None,
        };
        if let Err(e) = self.post_mail(&mail, &[recipient]).await {
            tracing::error!(team = %actor.team.name, to = %recipient, "cannot send the task notice: {e}");
        }
    }

    /// `task_updated` on the lead's stream for each task of `ids`, as they are now
    /// (best effort: the list is the record).
    async fn announce_tasks(&self, actor: &Actor, ids: &[i64]) {
        let tasks = match self.store.tasks(&actor.team.id).await {
            Ok(tasks) => tasks,
            Err(e) => {
                tracing::warn!(team = %actor.team.name, "cannot read the task list: {e}");
                return;
            }
        };
        for task in tasks.iter().filter(|t| ids.contains(&t.id)) {
            let event = EventPayload::TaskUpdated {
                team: actor.team.name.clone(),
                task_id: task.id,
                subject: task.subject.clone(),
                status: task.status.as_str().to_string(),
                owner: task.owner.clone(),
                blocked_by: open_blockers(&tasks, task),
            };
            let lead = &actor.team.lead_session_id;
            if let Err(e) = self.events.append(lead, &actor.agent_id, event).await {
                tracing::warn!(session = %lead, "cannot record task_updated: {e}");
            }
        }
    }

    /// `TaskList` in the actor's team.
    pub(crate) async fn list_team_tasks(&self, actor: &Actor) -> Result<String, String> {
        let tasks = self
            .store
            .tasks(&actor.team.id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(task_text::list(&actor.team.name, &tasks))
    }

    /// `TaskGet` of task `id` in the actor's team; `None` if it has no such task.
    pub(crate) async fn get_team_task(
        &self,
        actor: &Actor,
        id: i64,
    ) -> Result<Option<String>, String> {
        let tasks = self
            .store
            .tasks(&actor.team.id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(tasks
            .iter()
            .find(|t| t.id == id)
            .map(|t| task_text::detail(&tasks, t)))
    }
}

/// Why a teammate cannot `act` on another's task.
fn not_yours(task: &TeamTask, act: &str) -> String {
    match &task.owner {
        Some(owner) => format!(
            "task #{} is {owner}'s: only its owner or the lead can {act}",
            task.id
        ),
        None => format!(
            "task #{} has no owner: claim it first (TaskUpdate with status in_progress or owner your name), or ask the lead, to {act}",
            task.id
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_is_a_name_the_lead_or_nobody() {
        assert_eq!(owner_named(" bob "), Some("bob"));
        assert_eq!(owner_named("team-lead"), Some(LEAD));
        assert_eq!(owner_named(""), None);
        assert_eq!(owner_named("none"), None);
        assert_eq!(owner_named("Nobody"), None);
        assert_eq!(owner_named("Team-Lead"), Some(LEAD));
        assert_eq!(owner_named("LEAD"), Some(LEAD));
    }

    #[test]
    fn the_task_list_sender_is_no_name_a_member_can_have() {
        let member_name = |n: &str| {
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        };
        assert!(!member_name(TASK_LIST_SENDER));
        assert!(uuid::Uuid::parse_str(TASK_LIST_SENDER).is_err());
    }
}
