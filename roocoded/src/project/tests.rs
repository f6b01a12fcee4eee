//! The project root, the branch and the default branch, in plain checkouts and in linked
//! worktrees (made by hand and by `git worktree add`).

use std::path::Path;
use std::process::Command;

use super::*;

#[test]
fn git_top_level_or_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let sub = root.join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    assert_eq!(super::root(&sub), sub);
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
    assert_eq!(super::root(&sub), root);
    assert_eq!(branch(&root).as_deref(), Some("feature/x"));
    std::fs::write(
        root.join(".git/HEAD"),
        "0123456789abcdef0123456789abcdef01234567\n",
    )
    .unwrap();
    assert_eq!(branch(&root), None, "detached");
}

#[test]
fn default_branch_is_read_from_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(default_branch(&root), None);
    write(
        &root.join(".git/refs/remotes/origin/HEAD"),
        "ref: refs/remotes/origin/trunk\n",
    );
    assert_eq!(default_branch(&root), Some("trunk".into()));
    // A worktree: `.git` is a file naming the git dir, whose commondir holds the refs.
    let wt = root.join("wt");
    std::fs::create_dir_all(&wt).unwrap();
    write(&root.join(".git/worktrees/wt/commondir"), "../..\n");
    let gitdir = root.join(".git/worktrees/wt");
    std::fs::write(wt.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
    assert_eq!(default_branch(&wt), Some("trunk".into()));
}

/// Issue 10: the branch showed as none inside a worktree, whose `.git` is a file.
#[test]
fn the_branch_of_a_hand_made_worktree_is_its_own_head() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().canonicalize().unwrap().join("main");
    write(&main.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(
        &main.join(".git/worktrees/feat/HEAD"),
        "ref: refs/heads/feature/y\n",
    );
    write(&main.join(".git/worktrees/feat/commondir"), "../..\n");
    let wt = dir.path().canonicalize().unwrap().join("feat");
    std::fs::create_dir_all(wt.join("src")).unwrap();
    // A relative `gitdir:` is relative to the worktree.
    std::fs::write(wt.join(".git"), "gitdir: ../main/.git/worktrees/feat\n").unwrap();
    assert_eq!(super::root(&wt.join("src")), wt);
    assert_eq!(branch(&wt).as_deref(), Some("feature/y"));
    assert_eq!(branch(&main).as_deref(), Some("main"));
    let dirs = GitDirs::of(&wt).unwrap();
    assert_eq!(dirs.git_dir, wt.join("../main/.git/worktrees/feat"));
    assert_eq!(
        dirs.common_dir.canonicalize().unwrap(),
        main.join(".git").canonicalize().unwrap()
    );
}

/// The same through git itself, without the user's or the system's configuration.
#[test]
fn the_branch_of_a_real_git_worktree() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    let main = top.join("main");
    std::fs::create_dir(&main).unwrap();
    git(&main, &["init", "--quiet", "--initial-branch=trunk"]);
    git(
        &main,
        &["commit", "--quiet", "--allow-empty", "-m", "first"],
    );
    git(
        &main,
        &["worktree", "add", "--quiet", "-b", "feature/wt", "../wt"],
    );
    let wt = top.join("wt");
    assert!(wt.join(".git").is_file(), "git made a .git file");
    assert_eq!(branch(&main).as_deref(), Some("trunk"));
    assert_eq!(branch(&wt).as_deref(), Some("feature/wt"));
    std::fs::create_dir(wt.join("sub")).unwrap();
    assert_eq!(super::root(&wt.join("sub")), wt);
    // The worktree passes the sandbox's own check of its `.git` file.
    let verified = worktree::verified(&wt).unwrap();
    assert_eq!(verified.common_dir, main.join(".git"));
    assert_eq!(verified.git_dir, main.join(".git/worktrees/wt"));
    // The remote's default branch is shared by every worktree.
    write(
        &main.join(".git/refs/remotes/origin/HEAD"),
        "ref: refs/remotes/origin/trunk\n",
    );
    assert_eq!(default_branch(&wt).as_deref(), Some("trunk"));
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Run git in `dir` with no configuration but what the test gives it.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
