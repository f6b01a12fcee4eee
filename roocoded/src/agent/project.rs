//! The project root of a working directory: its git top-level, else the directory.

use std::path::{Path, PathBuf};

/// The nearest ancestor of `cwd` (itself included) holding `.git` (a directory, or a
/// file for worktrees and submodules); `cwd` when there is none.
pub fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The current git branch of `root`, read from `.git/HEAD` (None outside git or when
/// HEAD is detached).
pub fn git_branch(root: &Path) -> Option<String> {
    let head = std::fs::read_to_string(root.join(".git").join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn git_top_level_or_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let sub = root.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(project_root(&sub), sub);
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(project_root(&sub), root);
        assert_eq!(git_branch(&root).as_deref(), Some("feature/x"));
    }
}
