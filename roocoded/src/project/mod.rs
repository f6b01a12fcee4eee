//! The project a working directory belongs to, as git's own files say, for every part of
//! the daemon: its root (the git top-level), the git directories of the repository (a
//! linked worktree's `.git` is a file naming its own git directory, whose `commondir`
//! names the one it shares), the current branch and the remote's default branch.
//!
//! Nothing here runs `git`: these are read on every turn, and a file read cannot hang
//! or pick up the user's aliases. What a command could have rewritten (a `.git` file
//! pointing elsewhere) is only trusted where it decides nothing but a label; the OS
//! sandbox checks a worktree's git directories itself ([`worktree`]).

use std::path::{Path, PathBuf};

pub mod worktree;

/// The nearest ancestor of `cwd` (itself included) holding `.git` (a directory, or a
/// file for worktrees and submodules); `cwd` when there is none.
pub fn root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// Where git keeps a repository's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitDirs {
    /// This checkout's own git directory: `HEAD`, `index`, `config.worktree`.
    pub git_dir: PathBuf,
    /// The directory shared by all worktrees: refs, objects, `config`. The same as
    /// `git_dir` outside a linked worktree.
    pub common_dir: PathBuf,
}

impl GitDirs {
    /// The git directories of the checkout at `root`: `root/.git` when it is a
    /// directory; for a `.git` file (`gitdir: <dir>`), the directory it names (relative
    /// to `root`) and the `commondir` there (relative to it), if any.
    pub fn of(root: &Path) -> Option<Self> {
        let dot_git = root.join(".git");
        if dot_git.is_dir() {
            return Some(Self {
                git_dir: dot_git.clone(),
                common_dir: dot_git,
            });
        }
        let text = std::fs::read_to_string(&dot_git).ok()?;
        // `join` keeps an absolute path as it is.
        let git_dir = root.join(text.trim().strip_prefix("gitdir:")?.trim());
        let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(common) => git_dir.join(common.trim()),
            Err(_) => git_dir.clone(),
        };
        Some(Self {
            git_dir,
            common_dir,
        })
    }
}

/// The current branch of the checkout at `root`, from its own `HEAD`
/// (`ref: refs/heads/main` → `main`). None outside git or when HEAD is detached.
pub fn branch(root: &Path) -> Option<String> {
    let dirs = GitDirs::of(root)?;
    let head = std::fs::read_to_string(dirs.git_dir.join("HEAD")).ok()?;
    let branch = head
        .trim()
        .strip_prefix("ref:")?
        .trim()
        .strip_prefix("refs/heads/")?;
    (!branch.is_empty()).then(|| branch.to_string())
}

/// The remote's default branch of the repository at `root`, from the shared
/// `refs/remotes/origin/HEAD` (`ref: refs/remotes/origin/main` → `main`).
pub fn default_branch(root: &Path) -> Option<String> {
    let dirs = GitDirs::of(root)?;
    let head = std::fs::read_to_string(dirs.common_dir.join("refs/remotes/origin/HEAD")).ok()?;
    let branch = head
        .trim()
        .strip_prefix("ref:")?
        .trim()
        .strip_prefix("refs/remotes/origin/")?;
    (!branch.is_empty()).then(|| branch.to_string())
}

#[cfg(test)]
mod tests;

/// Where a user's own files are: RooCode's user directory (`~/.roocode`, or
/// `ROOCODE_HOME`) holds RooCode's — config, memory, hooks, skills, commands, agent
/// definitions — and the client's home ([`client_home`]) holds Claude Code's
/// (`~/.claude/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserDirs {
    /// RooCode's user directory.
    pub roocode: PathBuf,
    /// The client's home.
    pub home: PathBuf,
}

impl UserDirs {
    /// The user's folder `name`: RooCode's (`~/.roocode/skills`), or Claude Code's
    /// (`~/.claude/skills`) when `claude`.
    pub fn folder(&self, claude: bool, name: &str) -> PathBuf {
        if claude {
            self.home.join(".claude").join(name)
        } else {
            self.roocode.join(name)
        }
    }

    /// RooCode's at `<home>/.roocode`, Claude Code's at `<home>/.claude` (as they are
    /// without `ROOCODE_HOME`).
    pub fn at_home(home: &Path) -> Self {
        Self {
            roocode: home.join(".roocode"),
            home: home.to_path_buf(),
        }
    }
}

/// The client's home, where the user's skills, commands and Claude Code files live:
/// its `HOME`, or — when it sent none — a folder under `data_dir` that never exists,
/// so only the project's and the built-in ones are found (never the daemon's own).
pub fn client_home(vars: &std::collections::BTreeMap<String, String>, data_dir: &Path) -> PathBuf {
    match vars.get("HOME") {
        Some(home) if !home.is_empty() => PathBuf::from(home),
        _ => data_dir.join("no-client-home"),
    }
}
