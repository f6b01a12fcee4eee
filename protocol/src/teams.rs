//! Agent teams on the wire: a member's state, and what the team events of a lead's
//! stream carry (`team_member`, `task_updated`, `mailbox_message`).

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
