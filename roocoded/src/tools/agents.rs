//! The seam through which a tool starts and drives sub-agents without knowing the
//! engine: [`AgentHost`], which the agent module implements for each call of a parent
//! agent (`Agent`, `TaskList`, `TaskGet`, `TaskStop` use it).

use futures_util::future::BoxFuture;

/// An `Agent` call, as the model made it (parameters as Claude Code names them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentRequest {
    pub prompt: String,
    pub description: String,
    /// A built-in type or a definition's name; `None`: a fork of the caller.
    pub subagent_type: Option<String>,
    /// `inherit`, a tier (`sonnet`, `opus`, `haiku`) or a model spec.
    pub model: Option<String>,
    pub run_in_background: bool,
    pub name: Option<String>,
    /// `worktree`, or none.
    pub isolation: Option<String>,
    /// The id of a finished child to continue with its history.
    pub resume: Option<String>,
    /// The caller's team: the agent joins it as a teammate named `name`.
    pub team_name: Option<String>,
    /// The permission mode a teammate starts in (`plan`: its lead approves its plan).
    pub mode: Option<String>,
    /// Where a teammate is shown: `in-process`, `tmux` or `auto` (`teams.backend`).
    pub backend: Option<String>,
    /// The only tools the child may have, within its type's (a fork skill's
    /// `allowed_tools`); `None`: its type's.
    pub tools: Option<Vec<String>>,
    /// What the child's first turn runs with (a fork skill's pre-approved rules, model
    /// and own tools).
    pub scope: Option<super::turn_scope::TurnScope>,
}

/// The sub-agents of the calling agent.
pub trait AgentHost: Send + Sync + std::fmt::Debug {
    /// Runs `request`: to completion for a foreground child (its result), or up to its
    /// start for a background one (its id, the result comes as a notification). The
    /// error is the tool result the model gets.
    fn run_agent(&self, request: AgentRequest) -> BoxFuture<'_, Result<String, String>>;
    /// Every task of the caller's session tree, grouped by kind.
    fn task_list(&self) -> BoxFuture<'_, Result<String, String>>;
    /// A task's status and result; never waits for a running one.
    fn task_get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<String, String>>;
    /// Stops a task.
    fn task_stop<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<String, String>>;
}
