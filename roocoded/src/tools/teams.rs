//! The seam through which the team tools reach the caller's team without knowing the
//! engine: [`TeamHost`], which the agent module implements for each call of a lead or a
//! teammate (`TeamCreate`, `TeamDelete`, `SendMessage`, a teammate's `ExitPlanMode` and,
//! inside a team, the task tools use it).

use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

/// A `TeamCreate` call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewTeam {
    pub team_name: String,
    pub description: String,
    /// `worktree`: each teammate works in its own git worktree; `none` (or absent).
    pub isolation: Option<String>,
}

/// A `TaskCreate` call in a team.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewTeamTask {
    pub subject: String,
    pub description: String,
    /// The tasks it waits for.
    pub blocked_by: Vec<i64>,
}

/// A status a `TaskUpdate` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatusChange {
    Pending,
    InProgress,
    Completed,
}

/// A `TaskUpdate` call in a team: the task, and what to change (each part optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskChange {
    pub task_id: i64,
    pub status: Option<TaskStatusChange>,
    /// A member's name or `lead`; empty: no owner.
    pub owner: Option<String>,
    /// Tasks that wait for this one from now on.
    pub add_blocks: Vec<i64>,
    /// Tasks this one waits for from now on.
    pub add_blocked_by: Vec<i64>,
    pub subject: Option<String>,
    pub description: Option<String>,
}

/// A `SendMessage` call, its spellings resolved (the sender is always the caller).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outgoing {
    /// A teammate's name, `lead` (`team-lead`), an agent id (or a unique prefix), or
    /// `*`; `None` only where the kind implies the lead.
    pub to: Option<String>,
    /// `mailbox.kind`; `None` is a plain message.
    pub kind: Option<String>,
    pub message: String,
    pub summary: Option<String>,
    pub request_id: Option<String>,
    pub approve: Option<bool>,
}

/// The team of the calling agent (its lead or one of its members).
pub trait TeamHost: Send + Sync + std::fmt::Debug {
    /// Creates the caller's team (a lead has one); the error is the model's result.
    fn create_team(&self, team: NewTeam) -> BoxFuture<'_, Result<String, String>>;
    /// Deletes the team the caller leads; a `team_name` given must be its name.
    fn delete_team<'a>(
        &'a self,
        team_name: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, String>>;
    /// Adds a task to the caller's team's list; an error outside a team.
    fn create_task(&self, task: NewTeamTask) -> BoxFuture<'_, Result<String, String>>;
    /// Changes a task of the caller's team's list; an error outside a team.
    fn update_task(&self, change: TaskChange) -> BoxFuture<'_, Result<String, String>>;
    /// The caller's team's task list; `None` when the caller is in no team.
    fn team_tasks(&self) -> BoxFuture<'_, Result<Option<String>, String>>;
    /// Task `id` of the caller's team; `None` when the caller is in no team or the
    /// team has no such task.
    fn team_task(&self, id: i64) -> BoxFuture<'_, Result<Option<String>, String>>;

    /// Sends a message from the caller to members of its team; the answer says who
    /// got it (and, for a shutdown request, the request id the answer will carry).
    fn send_message(&self, message: Outgoing) -> BoxFuture<'_, Result<String, String>>;

    /// Whether the caller is a teammate (its plans go to its lead, not to the user).
    fn is_teammate(&self) -> bool;

    /// A teammate's `ExitPlanMode`: sends `plan` to its lead as a plan approval
    /// request; the answer tells the teammate to end its turn and wait.
    fn submit_plan<'a>(&'a self, plan: &'a str) -> BoxFuture<'a, Result<String, String>>;
}
