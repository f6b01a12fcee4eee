//! Agent teams on the wire: a member's state, the answers of `team.list|get` and
//! `mailbox.list` ([`TeamInfo`], [`MemberInfo`], [`TeamTaskInfo`], [`MailInfo`]), and
//! the states the team events of a lead's stream carry (`team_member`, `task_updated`,
//! `mailbox_message`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a team member is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemberState {
    /// A turn of it runs, or is about to.
    Active,
    /// Its loop ended; a message resumes it.
    Idle,
    /// Shut down (it agreed to, it was stopped, or the team was deleted); a message
    /// resumes it too.
    Stopped,
    /// A state this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl MemberState {
    pub fn as_str(self) -> &'static str {
        match self {
            MemberState::Active => "active",
            MemberState::Idle => "idle",
            MemberState::Stopped => "stopped",
            MemberState::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for MemberState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A team as clients see it (`team.list`, `team.get`, `roocode-cli team`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TeamInfo {
    pub id: String,
    pub name: String,
    /// The session that leads it (its short id in `lead_short_id`).
    pub lead_session_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lead_short_id: String,
    #[serde(default)]
    pub description: String,
    /// `none`, or `worktree` (each member in its own git worktree).
    pub isolation: String,
    /// RFC 3339.
    pub created_at: String,
    /// In the order they joined.
    pub members: Vec<MemberInfo>,
    /// Mail addressed to the lead that it has not read yet.
    #[serde(default)]
    pub lead_unread_mail: u64,
    /// How many tasks of the shared list are in each status.
    pub task_counts: TaskCounts,
    /// The shared task list, oldest first (`team.get` only; lists leave it out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TeamTaskInfo>,
    /// The model usage of the lead's and every member's own session, summed; its
    /// `cost_usd` is absent when a price is unknown.
    pub usage: crate::content::Usage,
}

/// How many tasks are in each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TaskCounts {
    pub pending: u64,
    pub in_progress: u64,
    pub completed: u64,
}

/// A member of a team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemberInfo {
    /// Its name in the team (what `SendMessage` addresses).
    pub name: String,
    /// Its session's id (`roocode-cli attach <id>` follows it).
    pub agent_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub short_id: String,
    /// `general-purpose`, or a definition's name.
    pub agent_type: String,
    pub model: String,
    pub state: MemberState,
    /// `in-process` or `tmux`.
    pub backend: String,
    /// Its git worktree, when the team isolates its members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    pub plan_mode_required: bool,
    /// RFC 3339.
    pub joined_at: String,
    /// The task it owns that is in progress (the oldest, if it owns several).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_task: Option<TeamTaskInfo>,
    /// Mail addressed to it that it has not read yet.
    pub unread_mail: u64,
    /// Its own session's model usage.
    pub usage: crate::content::Usage,
}

/// A task of a team's shared list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamTaskInfo {
    pub id: i64,
    pub subject: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// A member's name, or `lead`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The tasks it waits for (completed ones included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<i64>,
}

/// One message of a team's mailbox, for one recipient (`mailbox.list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MailInfo {
    pub id: i64,
    /// The team's name.
    pub team: String,
    /// Team names: a member's name, or `lead`.
    pub from: String,
    pub to: String,
    /// `message`, `status_update`, `task_assignment`, `shutdown_request`,
    /// `shutdown_response`, `plan_approval_request`, `plan_approval_response`,
    /// `idle_notification`.
    pub kind: String,
    #[serde(default)]
    pub summary: String,
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approve: Option<bool>,
    /// RFC 3339.
    pub created_at: String,
    /// Whether its recipient has read it (it was delivered into its context).
    pub read: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_round_trips_and_leaves_empty_parts_out() {
        let team = TeamInfo {
            id: "T".into(),
            name: "alpha".into(),
            lead_session_id: "L".into(),
            lead_short_id: String::new(),
            description: String::new(),
            isolation: "none".into(),
            created_at: "2026-12-01T10:00:00.000Z".into(),
            members: vec![MemberInfo {
                name: "builder".into(),
                agent_id: "A".into(),
                short_id: "a1".into(),
                agent_type: "general-purpose".into(),
                model: "m".into(),
                state: MemberState::Idle,
                backend: "in-process".into(),
                worktree: None,
                plan_mode_required: false,
                joined_at: "2026-12-01T10:00:01.000Z".into(),
                current_task: None,
                unread_mail: 2,
                usage: Default::default(),
            }],
            lead_unread_mail: 0,
            task_counts: TaskCounts::default(),
            tasks: vec![],
            usage: Default::default(),
        };
        let v = serde_json::to_value(&team).unwrap();
        assert!(v.get("tasks").is_none() && v.get("lead_short_id").is_none());
        assert_eq!(v["members"][0]["state"], "idle");
        assert_eq!(serde_json::from_value::<TeamInfo>(v).unwrap(), team);
    }
}
