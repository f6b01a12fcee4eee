//! `isolation: worktree`: a git worktree and branch for a child under RooCode's data
//! directory, committed and removed when the child ends.

use std::path::{Path, PathBuf};

use roocode_protocol::agents::AgentState;

use crate::agent::Engine;
use crate::store::AgentRow;

/// A child's worktree, made before it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub path: PathBuf,
    pub branch: String,
    /// Said to the parent with the result (uncommitted changes not carried over, …).
    pub note: Option<String>,
}

impl Engine {
    /// Makes the worktree of child `agent_id` of the project at `root`; the error says
    /// why it cannot be made (not a git repository, git missing, …).
    pub(super) fn prepare_worktree(
        &self,
        root: &Path,
        agent_id: &str,
        name: &str,
    ) -> Result<Prepared, String> {
        let _ = (root, agent_id, name);
        Err("isolation: worktree is not available in this build".into())
    }

    /// Commits the child's work on its branch and removes its worktree; the report for
    /// its parent (branch and diff stat), if it had one.
    pub(super) async fn finish_worktree(
        &self,
        row: &AgentRow,
        state: AgentState,
    ) -> Option<String> {
        let _ = (row, state);
        None
    }
}
