//! Deleting a team (`TeamDelete`, `team.delete`): refused while any member is active;
//! otherwise every member is stopped and the team's state (members, tasks, mail) goes.
//! The members' sessions stay, as every session does until the user removes it.

use std::sync::Arc;

use crate::agent::{AgentError, Engine};
use crate::store::MemberState;

impl Engine {
    /// Deletes team `team_id`; the answer says what was done. An active member makes
    /// it an error naming who is still working.
    pub async fn delete_team(self: &Arc<Self>, team_id: &str) -> Result<String, AgentError> {
        let Some(team) = self.store.team(team_id).await? else {
            return Err(AgentError::Invalid(format!("no team has the id {team_id}")));
        };
        let members = self.store.members(team_id).await?;
        let active: Vec<&str> = members
            .iter()
            .filter(|m| m.state == MemberState::Active)
            .map(|m| m.name.as_str())
            .collect();
        if !active.is_empty() {
            return Err(AgentError::Invalid(format!(
                "team \"{}\" still has active members ({}): ask them to shut down (SendMessage kind shutdown_request) or wait until they are idle, then delete it",
                team.name,
                active.join(", ")
            )));
        }
        for member in &members {
            if member.state != MemberState::Stopped {
                self.stop_agent(&member.agent_id).await?;
            }
        }
        self.store.delete_team(team_id).await?;
        tracing::info!(team = %team.name, members = members.len(), "team deleted");
        Ok(format!(
            "Team \"{}\" deleted: its {} member(s) stopped, its tasks and mail removed.",
            team.name,
            members.len()
        ))
    }
}
