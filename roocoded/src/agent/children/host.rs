//! [`ChildHost`]: the [`AgentHost`] of one parent agent's tool calls. `Agent` starts a
//! child and, in the foreground, waits for its outcome — until it ends, the parent's
//! turn is cancelled (the child is stopped), or it moves to the background (after
//! `agents.auto_background_s`, or a client's `agent.background`), when the call returns
//! and the result comes later as a task notification. The task tools read and stop the
//! session's background agents.

use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use roocode_protocol::agents::AgentState;

use super::book::{Outcome, Phase};
use super::spawn::{ParentCall, Started};
use crate::agent::Engine;
use crate::agent::turn::INTERRUPTED_BY_USER;
use crate::store::AgentRow;
use crate::tools::{AgentHost, AgentRequest};

/// The sub-agents of one parent agent, for its tool calls.
pub struct ChildHost {
    engine: Arc<Engine>,
    parent: ParentCall,
}

impl std::fmt::Debug for ChildHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildHost")
            .field("parent", &self.parent.session.id)
            .finish_non_exhaustive()
    }
}

impl ChildHost {
    pub fn new(engine: Arc<Engine>, parent: ParentCall) -> Self {
        Self { engine, parent }
    }

    /// Waits for a foreground child: its outcome, or the reason the call returns first.
    async fn wait(&self, started: &Started) -> Result<String, String> {
        let Some(entry) = self.engine.children.get(&started.id) else {
            // It ended before we looked: its row has the outcome.
            return self.outcome_from_store(&started.id).await;
        };
        let mut outcome = entry.outcome();
        // The executor drops this call when the parent's turn is cancelled: the child
        // is stopped then too (a foreground child never outlives its parent's call).
        let mut guard = StopOnDrop {
            engine: Some(self.engine.clone()),
            id: started.id.clone(),
        };
        let auto = self.parent.config.agents_limits().auto_background;
        let auto = tokio::time::sleep(auto);
        tokio::pin!(auto);
        // A teammate's helpers stay in the foreground: it starts no background agents.
        let mut auto_fired =
            self.parent.session.kind == roocode_protocol::session::SessionKind::Teammate;
        loop {
            tokio::select! {
                done = async { outcome.wait_for(Option::is_some).await.ok().and_then(|o| o.clone()) } => {
                    guard.disarm();
                    // Moved to the background just before it ended: the notification
                    // carries the result, so the call must not carry it too.
                    if entry.phase() == Phase::Background {
                        return Ok(moved_text(started, "it was moved there"));
                    }
                    return match done {
                        Some(o) => Ok(result_text(&started.id, &started.name, &o)),
                        None => self.outcome_from_store(&started.id).await,
                    };
                }
                () = &mut auto, if !auto_fired => {
                    auto_fired = true;
                    let moved = self.engine.background_agent(&started.id).await;
                    if moved.is_ok_and(|m| m) || entry.phase() == Phase::Background {
                        guard.disarm();
                        return Ok(moved_text(started, "it ran longer than agents.auto_background_s"));
                    }
                }
                _ = entry.to_background.notified() => {
                    if entry.phase() == Phase::Background {
                        guard.disarm();
                        return Ok(moved_text(started, "the user moved it there"));
                    }
                }
                _ = self.parent.cancel.cancelled() => {
                    let _ = self.engine.stop_agent(&started.id).await;
                    let mut ended = entry.outcome();
                    let _ = tokio::time::timeout(
                        Duration::from_secs(10),
                        ended.wait_for(Option::is_some),
                    )
                    .await;
                    return Err(INTERRUPTED_BY_USER.to_string());
                }
            }
        }
    }

    async fn outcome_from_store(&self, id: &str) -> Result<String, String> {
        let row = self.row(id).await?;
        let outcome = Outcome::recorded(&row);
        Ok(result_text(&row.id, &row.name, &outcome))
    }

    async fn row(&self, id: &str) -> Result<AgentRow, String> {
        let children = self
            .engine
            .store()
            .children(&self.parent.session.id)
            .await
            .map_err(|e| e.to_string())?;
        let mut matching = children.into_iter().filter(|c| c.id.starts_with(id));
        match (matching.next(), matching.next()) {
            (Some(one), None) => Ok(one),
            (None, _) => Err(format!("no task has the id `{id}`: TaskList lists them")),
            (Some(_), Some(_)) => Err(format!("`{id}` names several tasks: give more of the id")),
        }
    }
}

impl AgentHost for ChildHost {
    fn run_agent(&self, request: AgentRequest) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let teammate = request.team_name.clone();
            let started = self.engine.start_agent(&self.parent, request).await?;
            if let Some(team) = teammate {
                return Ok(format!(
                    "Teammate \"{}\" joined team \"{team}\" (id {}) and is working on its assignment. It works alongside you until the team is deleted: talk to it with SendMessage to \"{}\". Its messages, and a notice whenever it goes idle, reach you as <teammate-message> blocks; do not poll for them.",
                    started.name, started.id, started.name
                ));
            }
            if started.background {
                return Ok(format!(
                    "Started agent \"{}\" in the background (id {}). You will get a <task-notification> with its result when it ends: do not poll for it; go on with other work, or end your turn if there is none.",
                    started.name, started.id
                ));
            }
            self.wait(&started).await
        }
        .boxed()
    }

    fn task_list(&self) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let children = self
                .engine
                .store()
                .children(&self.parent.session.id)
                .await
                .map_err(|e| e.to_string())?;
            let tasks: Vec<&AgentRow> = children.iter().filter(|c| c.background).collect();
            if tasks.is_empty() {
                return Ok("No tasks.".into());
            }
            let mut out = String::from("Tasks of kind agent:\n");
            for t in tasks {
                out.push_str(&format!(
                    "- {} [{}] {} ({}): {}\n",
                    t.id, t.state, t.name, t.agent_type, t.description
                ));
            }
            Ok(out)
        }
        .boxed()
    }

    fn task_get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<String, String>> {
        async move {
            let row = self.row(task_id).await?;
            if !row.state.is_final() {
                return Ok(format!(
                    "Task {} ({}) is still {}: you will be notified when it ends. Do not wait for it.",
                    row.id, row.name, row.state
                ));
            }
            let outcome = Outcome::recorded(&row);
            Ok(result_text(&row.id, &row.name, &outcome))
        }
        .boxed()
    }

    fn task_stop<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<String, String>> {
        async move {
            let row = self.row(task_id).await?;
            match self.engine.stop_agent(&row.id).await {
                Ok(true) => Ok(format!("Task {} ({}) stopped.", row.id, row.name)),
                Ok(false) => Ok(format!(
                    "Task {} ({}) had already ended ({}).",
                    row.id, row.name, row.state
                )),
                Err(e) => Err(e.to_string()),
            }
        }
        .boxed()
    }
}

/// Stops a foreground child whose parent's call went away before it ended.
struct StopOnDrop {
    engine: Option<Arc<Engine>>,
    id: String,
}

impl StopOnDrop {
    fn disarm(&mut self) {
        self.engine = None;
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            let id = std::mem::take(&mut self.id);
            tokio::spawn(async move {
                if let Err(e) = engine.stop_agent(&id).await {
                    tracing::warn!(agent = %id, "cannot stop the sub-agent: {e}");
                }
            });
        }
    }
}

/// What the parent reads when a child ends.
fn result_text(id: &str, name: &str, o: &Outcome) -> String {
    match o.state {
        AgentState::Completed => {
            let result = if o.result.trim().is_empty() {
                "(the agent ended without a text answer)"
            } else {
                o.result.as_str()
            };
            format!(
                "{result}\n\nagent {name} (id {id}) completed; resume it with this id to continue its work."
            )
        }
        AgentState::Cancelled => format!(
            "Agent {name} (id {id}) was stopped before it finished.{}",
            partial(o)
        ),
        _ => format!(
            "Agent {name} (id {id}) failed: {}.{}",
            o.error.as_deref().unwrap_or("unknown error"),
            partial(o)
        ),
    }
}

fn partial(o: &Outcome) -> String {
    if o.result.trim().is_empty() {
        String::new()
    } else {
        format!(" Its last words:\n{}", o.result)
    }
}

fn moved_text(started: &Started, why: &str) -> String {
    format!(
        "Agent \"{}\" (id {}) moved to the background ({why}); it keeps working. You will get a <task-notification> with its result when it ends: do not poll for it.",
        started.name, started.id
    )
}
