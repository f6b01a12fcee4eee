//! A linked worktree's git directories, checked before the OS sandbox makes them
//! writable: `git commit` in a worktree writes its own git directory and the shared one,
//! both outside the workspace.
//!
//! The `.git` file is writable by commands, so it is not trusted to name places: the
//! git directory must be `<common>/worktrees/<name>`, point back at this workspace in
//! its own `gitdir` file, and `<common>` must hold `HEAD` and `objects/`. Otherwise
//! (a `.git` file rewritten to `gitdir: /home/me`) there are none.

use std::path::Path;

use super::GitDirs;

/// The canonical git directories of the worktree at `ws` when its `.git` file passes
/// the checks above; None for a plain checkout, no git at all, or a `.git` file that
/// does not name this worktree's own git directory (logged).
pub fn verified(ws: &Path) -> Option<GitDirs> {
    let dot_git = ws.join(".git");
    if !dot_git.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let dir = text.trim().strip_prefix("gitdir:").map(str::trim)?;
    let git_dir = ws.join(dir).canonicalize().ok()?;
    let back = std::fs::read_to_string(git_dir.join("gitdir"))
        .ok()
        .and_then(|t| Path::new(t.trim()).canonicalize().ok());
    let own = dot_git.canonicalize().ok();
    let common_dir = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .and_then(|c| git_dir.join(c.trim()).canonicalize().ok())?;
    let shaped = git_dir.parent().is_some_and(|p| {
        p.file_name().is_some_and(|n| n == "worktrees") && p.parent() == Some(common_dir.as_path())
    });
    let is_repo = common_dir.join("HEAD").is_file() && common_dir.join("objects").is_dir();
    if back.is_none() || back != own || !shaped || !is_repo {
        tracing::warn!(workspace = %ws.display(), "ignoring a .git file that does not name this worktree's own git directory");
        return None;
    }
    Some(GitDirs {
        git_dir,
        common_dir,
    })
}
