//! The seam through which the team tools reach the caller's team without knowing the
//! engine: [`TeamHost`], which the agent module implements for each call of a lead or a
//! teammate (`TeamCreate`, `TeamDelete`, `SendMessage` and, inside a team, the task
//! tools use it).

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

/// The team of the calling agent (its lead or one of its members).
pub trait TeamHost: Send + Sync + std::fmt::Debug {
    /// Creates the caller's team (a lead has one); the error is the model's result.
    fn create_team(&self, team: NewTeam) -> BoxFuture<'_, Result<String, String>>;
    /// Deletes the team the caller leads (named `team_name`).
    fn delete_team<'a>(&'a self, team_name: &'a str) -> BoxFuture<'a, Result<String, String>>;
    /// Adds a task to the caller's team's list; an error outside a team.
    fn create_task(&self, task: NewTeamTask) -> BoxFuture<'_, Result<String, String>>;
    /// Changes a task of the caller's team's list; an error outside a team.
    fn update_task(&self, change: TaskChange) -> BoxFuture<'_, Result<String, String>>;
    /// The caller's team's task list; `None` when the caller is in no team.
    fn team_tasks(&self) -> BoxFuture<'_, Result<Option<String>, String>>;
    /// Task `id` of the caller's team; `None` when the caller is in no team or the
    /// team has no such task.
    fn team_task(&self, id: i64) -> BoxFuture<'_, Result<Option<String>, String>>;
}
