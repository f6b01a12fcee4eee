//! The few git operations a worktree child needs, run with the `git` binary (`-C`, no
//! shell) in an environment that cannot redirect it: every `GIT_*` variable of the
//! daemon is removed, so `GIT_DIR`, `GIT_WORK_TREE` or `GIT_INDEX_FILE` cannot point a
//! command at another repository. The user's hooks never run (`core.hooksPath=/dev/null`
//! and `--no-verify`: they run when the user merges the branch), nor fsmonitor, and the
//! commits are not signed (the daemon cannot answer a pinentry).
//!
//! Blocking: call from `spawn_blocking` (or where a short block is acceptable).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The identity of commits when the user has none configured.
pub const FALLBACK_NAME: &str = "RooCode";
pub const FALLBACK_EMAIL: &str = "roocode@localhost";

/// Why a git operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed (no `git` on the daemon's PATH)")]
    NotInstalled,
    #[error("cannot run git: {0}")]
    Spawn(std::io::Error),
    #[error("`git {args}` failed: {stderr}")]
    Failed { args: String, stderr: String },
}

/// How git is run; [`Git::daemon`] in production, tests add variables (a `HOME` of
/// their own) to isolate it from the machine's configuration.
#[derive(Debug, Clone, Default)]
pub struct Git {
    extra_env: Vec<(OsString, OsString)>,
    /// `--git-dir` and `--work-tree`: git is told where things are instead of finding
    /// them through the worktree's `.git` file, which the agent can rewrite.
    pinned: Option<(PathBuf, PathBuf)>,
}

impl Git {
    /// git with the daemon's environment minus every `GIT_*` variable.
    pub fn daemon() -> Self {
        Self::default()
    }

    /// git with `vars` set too (after the `GIT_*` ones are removed).
    #[cfg(test)]
    pub fn with_env(vars: &[(&str, &std::ffi::OsStr)]) -> Self {
        Self {
            extra_env: vars
                .iter()
                .map(|(k, v)| (OsString::from(k), v.to_os_string()))
                .collect(),
            pinned: None,
        }
    }

    /// The same git, told the worktree's verified git directory and work tree.
    pub fn pinned(&self, git_dir: &Path, work_tree: &Path) -> Self {
        Self {
            extra_env: self.extra_env.clone(),
            pinned: Some((git_dir.to_path_buf(), work_tree.to_path_buf())),
        }
    }

    fn command(&self, dir: &Path) -> Command {
        let mut cmd = Command::new("git");
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GIT_") {
                cmd.env_remove(key);
            }
        }
        cmd.env("GIT_TERMINAL_PROMPT", "0");
        cmd.envs(self.extra_env.iter().map(|(k, v)| (k, v)));
        cmd.arg("-C").arg(dir);
        if let Some((git_dir, work_tree)) = &self.pinned {
            cmd.arg("--git-dir").arg(git_dir);
            cmd.arg("--work-tree").arg(work_tree);
        }
        cmd.args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
            // Submodules are other repositories, with configurations of their own.
            "-c",
            "diff.ignoreSubmodules=all",
            "-c",
            "status.submoduleSummary=false",
        ]);
        cmd.stdin(Stdio::null());
        cmd
    }

    /// Runs `git -C dir args…`; its exit status and output.
    fn output(&self, dir: &Path, args: &[&str]) -> Result<std::process::Output, GitError> {
        self.command(dir)
            .args(args)
            .output()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => GitError::NotInstalled,
                _ => GitError::Spawn(e),
            })
    }

    /// Runs `git -C dir args…` and returns its stdout; a non-zero exit is an error
    /// carrying git's message.
    fn run(&self, dir: &Path, args: &[&str]) -> Result<String, GitError> {
        let out = self.output(dir, args)?;
        if !out.status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Fails with [`GitError::NotInstalled`] when there is no git to run.
    pub fn check_installed(&self) -> Result<(), GitError> {
        self.run(Path::new("/"), &["--version"]).map(drop)
    }

    /// The top-level directory of the work tree holding `dir`, `None` outside one.
    pub fn toplevel(&self, dir: &Path) -> Result<Option<PathBuf>, GitError> {
        let out = self.output(dir, &["rev-parse", "--show-toplevel"])?;
        let top = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok((out.status.success() && !top.is_empty()).then(|| PathBuf::from(top)))
    }

    /// The commit `HEAD` names, `None` in a repository without commits.
    pub fn head(&self, dir: &Path) -> Result<Option<String>, GitError> {
        let out = self.output(dir, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])?;
        let sha = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok((out.status.success() && !sha.is_empty()).then_some(sha))
    }

    /// How many paths of the work tree differ from `HEAD` (changed, staged or
    /// untracked, an untracked directory counting once).
    pub fn dirty_count(&self, dir: &Path) -> Result<usize, GitError> {
        let out = self.run(dir, &["status", "--porcelain", "--ignore-submodules=all"])?;
        Ok(out.lines().filter(|l| !l.trim().is_empty()).count())
    }

    /// A new branch `branch` at `base` checked out in a new worktree at `path`.
    pub fn add_worktree(
        &self,
        repo: &Path,
        branch: &str,
        path: &Path,
        base: &str,
    ) -> Result<(), GitError> {
        let path = path.to_string_lossy();
        self.run(
            repo,
            &["worktree", "add", "--quiet", "-b", branch, &path, base],
        )
        .map(drop)
    }

    /// The existing branch `branch` checked out in a new worktree at `path`.
    pub fn add_existing_worktree(
        &self,
        repo: &Path,
        path: &Path,
        branch: &str,
    ) -> Result<(), GitError> {
        let path = path.to_string_lossy();
        self.run(repo, &["worktree", "add", "--quiet", &path, branch])
            .map(drop)
    }

    /// The name of the branch checked out at `dir`, `None` on a detached `HEAD`.
    pub fn current_branch(&self, dir: &Path) -> Result<Option<String>, GitError> {
        let out = self.output(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"])?;
        let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok((out.status.success() && !name.is_empty()).then_some(name))
    }

    /// Commits every change of the work tree at `dir` (`add -A`, ignored files aside)
    /// with `message`, as the user's identity or, for whatever part of it is not
    /// configured, [`FALLBACK_NAME`] / [`FALLBACK_EMAIL`]. Returns whether there was
    /// anything to commit.
    pub fn commit_all(&self, dir: &Path, message: &str) -> Result<bool, GitError> {
        self.run(dir, &["add", "-A"])?;
        let staged = self.output(dir, &["diff", "--cached", "--quiet", "--no-ext-diff"])?;
        if staged.status.success() {
            return Ok(false);
        }
        let name = self.config_value(dir, "user.name")?;
        let email = self.config_value(dir, "user.email")?;
        let name_arg = format!("user.name={FALLBACK_NAME}");
        let email_arg = format!("user.email={FALLBACK_EMAIL}");
        let mut args: Vec<&str> = Vec::new();
        if name.is_none() {
            args.extend(["-c", &name_arg]);
        }
        if email.is_none() {
            args.extend(["-c", &email_arg]);
        }
        args.extend([
            "-c",
            "commit.gpgSign=false",
            "commit",
            "--no-verify",
            "--quiet",
            "--no-edit",
            "-m",
            message,
        ]);
        self.run(dir, &args)?;
        Ok(true)
    }

    /// A configuration value as git at `dir` sees it, `None` when unset or empty.
    fn config_value(&self, dir: &Path, key: &str) -> Result<Option<String>, GitError> {
        let out = self.output(dir, &["config", "--get", key])?;
        let value = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok((out.status.success() && !value.is_empty()).then_some(value))
    }

    /// How many commits `HEAD` of `dir` is ahead of `base`.
    pub fn commits_since(&self, dir: &Path, base: &str) -> Result<u64, GitError> {
        let range = format!("{base}..HEAD");
        let out = self.run(dir, &["rev-list", "--count", &range])?;
        Ok(out.trim().parse().unwrap_or(0))
    }

    /// `git diff --stat` of `HEAD` of `dir` against `base` (empty: no difference).
    pub fn diff_stat(&self, dir: &Path, base: &str) -> Result<String, GitError> {
        let out = self.run(
            dir,
            &[
                "diff",
                "--stat=120",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                base,
                "HEAD",
            ],
        )?;
        Ok(out.trim_end().to_string())
    }

    /// A new branch `name` at `HEAD` of `dir`.
    pub fn create_branch(&self, dir: &Path, name: &str) -> Result<(), GitError> {
        self.run(dir, &["branch", name, "HEAD"]).map(drop)
    }

    /// Removes the worktree at `path` (its branch stays) from the repository whose
    /// common git directory is `common`; files git would keep (ignored ones) go too.
    pub fn remove_worktree(&self, common: &Path, path: &Path) -> Result<(), GitError> {
        let path = path.to_string_lossy();
        self.run(common, &["worktree", "remove", "--force", &path])
            .map(drop)
    }

    /// How many commits of `branch` the `HEAD` of the repository at `repo` lacks (0:
    /// merged, or never moved).
    pub fn unmerged_count(&self, repo: &Path, branch: &str) -> Result<u64, GitError> {
        let range = format!("HEAD..refs/heads/{branch}");
        let out = self.run(repo, &["rev-list", "--count", &range, "--"])?;
        Ok(out.trim().parse().unwrap_or(0))
    }

    /// Deletes `branch` if the `HEAD` of `repo` has all of it (`git branch -d`, which
    /// refuses an unmerged branch: never forced).
    pub fn delete_merged_branch(&self, repo: &Path, branch: &str) -> Result<(), GitError> {
        self.run(repo, &["branch", "-d", "--quiet", branch])
            .map(drop)
    }

    /// Forgets worktrees whose directories are gone.
    pub fn prune(&self, dir: &Path) -> Result<(), GitError> {
        self.run(dir, &["worktree", "prune"]).map(drop)
    }
}
