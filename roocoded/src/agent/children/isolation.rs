//! `isolation: worktree`: a git worktree and branch for a child under RooCode's data
//! directory, committed and removed when the child ends.
//!
//! - Before the child starts ([`Engine::prepare_worktree`]): the project must be a git
//!   repository with a commit, and git installed, else the `Agent` call fails with the
//!   reason. The branch `roocode/<name>-<short id>` starts at `HEAD`; uncommitted
//!   changes of the main tree are not carried over (the report says so).
//! - While it runs, the child's file tools, OS sandbox and Bash work in the worktree;
//!   its configuration, instructions, memory and "allow always" rules stay the main
//!   project's (`agent/executor.rs`, `base_context`).
//! - When it ends, however it ends ([`Engine::finish_worktree`]): everything it changed
//!   is committed on its branch (`--no-verify`; the user's identity, else
//!   `RooCode <roocode@localhost>`), the worktree removed, the branch kept, and the
//!   parent told the branch and the diff stat.
//! - At daemon start ([`Engine::clean_worktrees`]): a worktree whose agent will not
//!   run again (crashed, cancelled, failed with the daemon) is committed as work in
//!   progress and removed; a background child that is resumed keeps its own.
//!
//! - When its team is deleted ([`Engine::retire_worktree`]), a teammate's worktree
//!   (kept between its runs) is committed and removed the same way, and its branch is
//!   deleted when the project's `HEAD` has all of it, else kept (`git branch -d`:
//!   never forced).
//!
//! `git`: the commands (environment, hooks). `tree`: one worktree's life over them.

mod git;
mod tree;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use roocode_protocol::agents::AgentState;

use self::git::Git;
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

/// What became of a teammate's branch when its worktree was retired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetiredBranch {
    pub branch: String,
    /// Commits the project's `HEAD` lacks: 0 means the branch was deleted; `None`: not
    /// known (the branch is left as it is).
    pub unmerged: Option<u64>,
    /// What went wrong closing the worktree, if anything (its files are left then).
    pub problem: Option<String>,
}

/// Worktrees are made one at a time: several agents of one response (teammates of a
/// worktree team) would otherwise run git's status and worktree commands on one
/// repository at once, and git's lock files make one of them fail.
static MAKING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Engine {
    /// Makes the worktree of child `agent_id` of the project at `root`; the error says
    /// why it cannot be made (not a git repository, git missing, …).
    pub(super) async fn prepare_worktree(
        &self,
        root: &Path,
        agent_id: &str,
        name: &str,
    ) -> Result<Prepared, String> {
        // A checkout can take a while: not on the daemon's async threads.
        let (data_dir, root) = (self.paths.data_dir.clone(), root.to_path_buf());
        let (id, named) = (agent_id.to_string(), name.to_string());
        let _one_at_a_time = MAKING.lock().await;
        let prepared = tokio::task::spawn_blocking(move || {
            tree::create(&Git::daemon(), &data_dir, &root, &id, &named)
        })
        .await
        .map_err(|e| format!("isolation: worktree: the worktree could not be made: {e}"))??;
        tracing::info!(agent = %agent_id, branch = %prepared.branch, worktree = %prepared.path.display(), "sub-agent worktree created");
        Ok(prepared)
    }

    /// Commits the child's work on its branch and removes its worktree; the report for
    /// its parent (branch and diff stat), if it had one.
    pub(super) async fn finish_worktree(
        &self,
        row: &AgentRow,
        state: AgentState,
    ) -> Option<String> {
        let path = PathBuf::from(row.worktree.as_ref()?);
        let branch = row
            .branch
            .clone()
            .unwrap_or_else(|| tree::branch_name(&row.name, &row.id));
        if !path.exists() {
            self.forget_worktree(&row.id).await;
            return Some(format!(
                "Worktree: its directory was already gone; what was committed is on branch `{branch}`."
            ));
        }
        let message = commit_message(row, state);
        let closing = path.clone();
        let closed = tokio::task::spawn_blocking(move || {
            tree::close(&Git::daemon(), &closing, &branch, &message)
        })
        .await;
        match closed {
            Ok(Ok(report)) => {
                tracing::info!(agent = %row.id, branch = %report.branch, commits = report.commits, "sub-agent worktree committed and removed");
                self.forget_worktree(&row.id).await;
                Some(report.text())
            }
            Ok(Err(why)) => {
                tracing::error!(agent = %row.id, worktree = %path.display(), "cannot close the sub-agent's worktree: {why}");
                Some(format!("Worktree: {why}."))
            }
            Err(e) => {
                tracing::error!(agent = %row.id, "closing the sub-agent's worktree panicked: {e}");
                Some(format!(
                    "Worktree: closing it failed; its files are left in {}.",
                    path.display()
                ))
            }
        }
    }

    /// A teammate's worktree when its team is deleted: its work committed and the
    /// worktree removed as [`Engine::finish_worktree`] does, then its branch deleted if
    /// the project's `HEAD` has every commit of it, else kept. `None` for an agent that
    /// never had one.
    pub(in crate::agent) async fn retire_worktree(
        &self,
        row: &AgentRow,
        state: AgentState,
    ) -> Option<RetiredBranch> {
        let branch = row.branch.clone()?;
        let path = row.worktree.clone();
        let report = self.finish_worktree(row, state).await;
        // Closing it failed when it is still there: its files stay, and so does its branch.
        let left = path.as_deref().is_some_and(|p| Path::new(p).exists());
        let problem = left
            .then(|| report.unwrap_or_else(|| "Worktree: it could not be removed.".to_string()));
        let root = match self.store.session(&row.id).await {
            Ok(Some(session)) => PathBuf::from(session.root),
            _ => {
                return Some(RetiredBranch {
                    branch,
                    unmerged: None,
                    problem,
                });
            }
        };
        let named = branch.clone();
        let checked = tokio::task::spawn_blocking(move || {
            let git = Git::daemon();
            let repo = git.toplevel(&root)?.unwrap_or(root);
            let unmerged = git.unmerged_count(&repo, &named)?;
            if unmerged == 0 && !left {
                git.delete_merged_branch(&repo, &named)?;
            }
            Ok::<u64, git::GitError>(unmerged)
        })
        .await;
        let (unmerged, problem) = match checked {
            Ok(Ok(n)) => (Some(n), problem),
            Ok(Err(e)) => {
                tracing::warn!(agent = %row.id, branch = %branch, "cannot check the teammate's branch: {e}");
                (
                    None,
                    problem.or(Some(format!("its branch was left as it is ({e})"))),
                )
            }
            Err(e) => (
                None,
                problem.or(Some(format!("checking its branch failed ({e})"))),
            ),
        };
        Some(RetiredBranch {
            branch,
            unmerged,
            problem,
        })
    }

    /// Before a child that ran in a worktree is resumed (`Agent` with `resume`): its
    /// branch checked out again where its spec says it works, so its tools and sandbox
    /// find it. Nothing to do for a child without one, or whose worktree is still there.
    pub(in crate::agent) async fn reopen_worktree(&self, row: &AgentRow) -> Result<(), String> {
        let spec = super::ChildSpec::from_json(&row.spec)
            .map_err(|e| format!("agent {} has a corrupt spec: {e}", row.id))?;
        let Some(path) = spec.workspace else {
            return Ok(());
        };
        if row.worktree.is_some() && path.is_dir() {
            return Ok(());
        }
        let Some(branch) = row.branch.clone() else {
            return Err(format!("agent {} has no branch to work on", row.id));
        };
        let session = self
            .store
            .session(&row.id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("agent {} has no session", row.id))?;
        let root = PathBuf::from(&session.root);
        let at = path.clone();
        let reopened =
            tokio::task::spawn_blocking(move || tree::reopen(&Git::daemon(), &root, &at, &branch))
                .await
                .map_err(|e| format!("isolation: worktree: reopening it panicked: {e}"))?;
        reopened?;
        self.store
            .set_agent_worktree(&row.id, Some(&path.display().to_string()), None)
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(agent = %row.id, worktree = %path.display(), "sub-agent worktree reopened");
        Ok(())
    }

    /// At daemon start, before agents resume: every worktree under the data directory
    /// whose agent will not run again is committed (work in progress) and removed, and
    /// rows naming a worktree that is gone forget it. Problems are logged, never fatal.
    pub(super) async fn clean_worktrees(&self) {
        let dir = tree::worktrees_dir(&self.paths.data_dir);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => {
                tracing::warn!(dir = %dir.display(), "cannot list the sub-agent worktrees: {e}");
                return;
            }
        };
        let mut repos: Vec<PathBuf> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .map(str::to_string)
            else {
                continue;
            };
            if !path.is_dir() {
                // A record whose worktree is gone.
                if let Some(stem) = id.strip_suffix(".json")
                    && !dir.join(stem).exists()
                {
                    let _ = std::fs::remove_file(&path);
                }
                continue;
            }
            let row = match self.store.agent(&id).await {
                Ok(row) => row,
                Err(e) => {
                    tracing::warn!(agent = %id, "cannot read the agent of a worktree: {e}");
                    continue;
                }
            };
            if row.as_ref().is_some_and(resumes) {
                continue;
            }
            if let Some(r) = tree::read_record(&path) {
                repos.push(r.common_dir);
            }
            let (branch, message) = match &row {
                Some(r) => (
                    r.branch
                        .clone()
                        .unwrap_or_else(|| tree::branch_name(&r.name, &r.id)),
                    commit_message(r, AgentState::Failed),
                ),
                None => (
                    tree::branch_name("agent", &id),
                    format!(
                        "RooCode agent {id}: work in progress\n\nIts worktree was left behind; committed by RooCode at daemon start."
                    ),
                ),
            };
            let closing = path.clone();
            let closed = tokio::task::spawn_blocking(move || {
                tree::close(&Git::daemon(), &closing, &branch, &message)
            })
            .await;
            match closed {
                Ok(Ok(report)) => {
                    tracing::info!(agent = %id, branch = %report.branch, commits = report.commits, "a stray sub-agent worktree was committed and removed");
                    if row.is_some() {
                        self.forget_worktree(&id).await;
                    }
                }
                Ok(Err(why)) => {
                    tracing::warn!(agent = %id, "a stray sub-agent worktree is left: {why}");
                }
                Err(e) => tracing::error!(agent = %id, "cleaning a worktree panicked: {e}"),
            }
        }
        self.forget_missing_worktrees().await;
        repos.sort();
        repos.dedup();
        let git = Git::daemon();
        for repo in repos {
            if let Err(e) = git.prune(&repo) {
                tracing::warn!(repo = %repo.display(), "git worktree prune failed: {e}");
            }
        }
    }

    /// Rows that still name a worktree whose directory is gone (and whose agent will
    /// not run again) forget it.
    async fn forget_missing_worktrees(&self) {
        let rows = match self.store.all_agents().await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::warn!("cannot list the agents: {e}");
                return;
            }
        };
        for row in rows {
            let gone = row
                .worktree
                .as_deref()
                .is_some_and(|w| !Path::new(w).exists());
            if gone && !resumes(&row) {
                self.forget_worktree(&row.id).await;
            }
        }
    }

    /// Clears the row's worktree (its branch is kept).
    async fn forget_worktree(&self, id: &str) {
        if let Err(e) = self.store.set_agent_worktree(id, None, None).await {
            tracing::warn!(agent = %id, "cannot record that the worktree is removed: {e}");
        }
    }
}

/// A background child that has not ended: it resumes at this start, in its worktree.
fn resumes(row: &AgentRow) -> bool {
    row.background && !row.state.is_final()
}

/// `RooCode agent <name>: <description>` (marked as work in progress unless the agent
/// completed), and a body saying how it ended.
fn commit_message(row: &AgentRow, state: AgentState) -> String {
    let description = row.description.lines().next().unwrap_or_default().trim();
    let description: String = description.chars().take(100).collect();
    let (wip, how) = match state {
        AgentState::Completed => (false, "completed its task"),
        AgentState::Failed => (true, "did not finish (it failed or was interrupted)"),
        AgentState::Cancelled => (true, "was cancelled"),
        AgentState::Queued
        | AgentState::Running
        | AgentState::Waiting
        | AgentState::Idle
        | AgentState::Unknown => (true, "was interrupted"),
    };
    let subject = match (description.is_empty(), wip) {
        (true, false) => format!("RooCode agent {}", row.name),
        (true, true) => format!("RooCode agent {} (work in progress)", row.name),
        (false, false) => format!("RooCode agent {}: {description}", row.name),
        (false, true) => format!(
            "RooCode agent {}: {description} (work in progress)",
            row.name
        ),
    };
    format!(
        "{subject}\n\nAgent {} ({}) {how}; RooCode committed what it left in its worktree.",
        row.id, row.agent_type
    )
}
