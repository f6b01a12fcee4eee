//! The seam through which the team tools reach the caller's team without knowing the
//! engine: [`TeamHost`], which the agent module implements for each call of a lead or a
//! teammate (`TeamCreate`, `TeamDelete`, `SendMessage` and, inside a team, the task
//! tools use it).

use futures_util::future::BoxFuture;

/// A `TeamCreate` call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewTeam {
    pub team_name: String,
    pub description: String,
    /// `worktree`: each teammate works in its own git worktree; `none` (or absent).
    pub isolation: Option<String>,
}

/// The team of the calling agent (its lead or one of its members).
pub trait TeamHost: Send + Sync + std::fmt::Debug {
    /// Creates the caller's team (a lead has one); the error is the model's result.
    fn create_team(&self, team: NewTeam) -> BoxFuture<'_, Result<String, String>>;
}
