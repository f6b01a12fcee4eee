//! [`TeamLink`]: the [`TeamHost`] of one agent's tool calls — a lead's (its team, or
//! the team it may create) or a teammate's (the team it is a member of). The caller is
//! the session the link was made for, never anything a tool's input says.

use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use roocode_protocol::session::SessionKind;

use super::tasks::Actor;
use crate::agent::Engine;
use crate::store::SessionRow;
use crate::tools::{NewTeam, NewTeamTask, Outgoing, TaskChange, TeamHost};

/// What a task tool that changes the list says outside a team.
const NOT_IN_A_TEAM: &str = "you are in no team: TaskCreate and TaskUpdate work on an agent team's shared task list (create a team with TeamCreate first); keep your own checklist with TodoWrite";

/// The team side of one agent's calls.
pub struct TeamLink {
    engine: Arc<Engine>,
    /// The calling agent's session.
    session: SessionRow,
}

impl std::fmt::Debug for TeamLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamLink")
            .field("session", &self.session.id)
            .finish_non_exhaustive()
    }
}

impl TeamLink {
    pub fn new(engine: Arc<Engine>, session: SessionRow) -> Self {
        Self { engine, session }
    }

    /// The caller in its team, if it is in one.
    async fn actor(&self) -> Result<Option<Actor>, String> {
        self.engine
            .team_actor(&self.session)
            .await
            .map_err(|e| e.to_string())
    }
}

impl TeamHost for TeamLink {
    fn create_team(&self, team: NewTeam) -> BoxFuture<'_, Result<String, String>> {
        async move {
            if self.session.kind != SessionKind::Main {
                return Err("only a main agent leads a team: a teammate cannot create one".into());
            }
            let name = &team.team_name;
            let valid = !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !valid {
                return Err(format!(
                    "the team name \"{name}\" is not valid: use up to 64 letters, digits, `-` or `_`"
                ));
            }
            let isolation = match team.isolation.as_deref() {
                None | Some("none") => "none",
                Some("worktree") => "worktree",
                Some(other) => {
                    return Err(format!(
                        "unknown isolation `{other}`: the only isolation is \"worktree\""
                    ));
                }
            };
            let store = self.engine.store();
            if let Some(existing) = store.team_of(&self.session.id).await.map_err(|e| e.to_string())? {
                return Err(format!(
                    "you lead the team \"{}\" already (one team per lead): add teammates to it, or delete it with TeamDelete first",
                    existing.name
                ));
            }
            let id = uuid::Uuid::now_v7().to_string();
            store
                .create_team(&id, name, &self.session.id, &team.description, isolation)
                .await
                .map_err(|e| e.to_string())?;
            tracing::info!(session = %self.session.id, team = %name, isolation, "team created");
            let worktrees = if isolation == "worktree" {
                format!(" {}", super::CONVERGENCE)
            } else {
                String::new()
            };
            Ok(format!(
                "Team \"{name}\" created; you are its lead (teammates address you as \"lead\").{worktrees} Next: create the tasks (TaskCreate, with add_blocked_by where one needs another), then start each teammate with Agent (team_name \"{name}\" and a name), saying which tasks are its own."
            ))
        }
        .boxed()
    }

    fn delete_team<'a>(
        &'a self,
        team_name: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, String>> {
        async move {
            if self.session.kind != SessionKind::Main {
                return Err(
                    "only the team's lead deletes the team: when your work is done, tell the lead and end your turn".into(),
                );
            }
            let store = self.engine.store();
            let team = store
                .team_of(&self.session.id)
                .await
                .map_err(|e| e.to_string())?
                .filter(|t| t.lead_session_id == self.session.id);
            let Some(team) = team else {
                return Err("you lead no team, so there is none to delete".into());
            };
            if let Some(team_name) = team_name.filter(|n| *n != team.name) {
                return Err(format!(
                    "you lead the team \"{}\", not \"{team_name}\": give its name to delete it",
                    team.name
                ));
            }
            self.engine
                .delete_team(&team.id)
                .await
                .map_err(|e| e.to_string())
        }
        .boxed()
    }

    fn create_task(&self, task: NewTeamTask) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let actor = self.actor().await?.ok_or(NOT_IN_A_TEAM)?;
            self.engine.create_team_task(&actor, task).await
        }
        .boxed()
    }

    fn update_task(&self, change: TaskChange) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let actor = self.actor().await?.ok_or(NOT_IN_A_TEAM)?;
            self.engine.update_team_task(&actor, change).await
        }
        .boxed()
    }

    fn team_tasks(&self) -> BoxFuture<'_, Result<Option<String>, String>> {
        async move {
            match self.actor().await? {
                Some(actor) => self.engine.list_team_tasks(&actor).await.map(Some),
                None => Ok(None),
            }
        }
        .boxed()
    }

    fn team_task(&self, id: i64) -> BoxFuture<'_, Result<Option<String>, String>> {
        async move {
            match self.actor().await? {
                Some(actor) => self.engine.get_team_task(&actor, id).await,
                None => Ok(None),
            }
        }
        .boxed()
    }

    fn send_message(&self, message: Outgoing) -> BoxFuture<'_, Result<String, String>> {
        async move { self.engine.send_team_message(&self.session, message).await }.boxed()
    }

    fn is_teammate(&self) -> bool {
        self.session.kind == SessionKind::Teammate
    }

    fn submit_plan<'a>(&'a self, plan: &'a str) -> BoxFuture<'a, Result<String, String>> {
        async move { self.engine.submit_plan(&self.session, plan).await }.boxed()
    }
}
