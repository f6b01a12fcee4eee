//! One child's worktree, from creation to removal, over [`Git`]:
//!
//! - [`create`]: a branch `roocode/<name>-<short id>` at the project's `HEAD`, checked
//!   out at `<data_dir>/worktrees/<agent id>`, and beside it `<agent id>.json` (the
//!   [`Record`]: the repository's git directory, the commit it started from, the note
//!   for the parent). Uncommitted changes of the main tree are not carried over.
//! - [`close`]: everything in it committed on its branch, the diff stat against the
//!   start, the worktree removed (the branch kept), the record deleted.
//! - [`reopen`]: the branch checked out again at the same place, for a child resumed
//!   after its run ended.
//!
//! The worktree's `.git` file is writable by the child's commands, so before the
//! daemon runs git in it (unsandboxed) the file must name the repository the record
//! names ([`crate::project::worktree::verified`]); otherwise nothing is touched.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Prepared;
use super::git::{Git, GitError};

/// What [`create`] keeps beside a worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The repository's common git directory (canonical).
    pub common_dir: PathBuf,
    /// The commit the branch started at.
    pub base: String,
    #[serde(default)]
    pub note: Option<String>,
    /// The git configuration files as they were when the worktree was made (None:
    /// absent). The agent's commands may be able to write them (Landlock cannot make
    /// them read-only), and the daemon's `git add` would run a filter they define, so
    /// nothing is committed if one changed.
    #[serde(default)]
    pub guarded: Vec<(PathBuf, Option<String>)>,
    /// The agent's branch, the only one RooCode commits on.
    #[serde(default)]
    pub branch: Option<String>,
}

/// The files whose settings could make the daemon's git run a program: the shared and
/// per-worktree configuration and the repository's attributes.
fn guarded_files(common_dir: &Path, git_dir: &Path) -> Vec<PathBuf> {
    vec![
        common_dir.join("config"),
        common_dir.join("config.worktree"),
        common_dir.join("info/attributes"),
        git_dir.join("config.worktree"),
    ]
}

fn snapshot(files: Vec<PathBuf>) -> Vec<(PathBuf, Option<String>)> {
    files
        .into_iter()
        .map(|f| {
            let content = std::fs::read_to_string(&f).ok();
            (f, content)
        })
        .collect()
}

/// The first guarded file that differs from the record, if any.
fn changed_config(record: &Record) -> Option<PathBuf> {
    record
        .guarded
        .iter()
        .find(|(file, was)| std::fs::read_to_string(file).ok() != *was)
        .map(|(file, _)| file.clone())
}

/// How a worktree ended, for the parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub branch: String,
    /// Commits on the branch since it started (the child's own and the final one).
    pub commits: u64,
    /// `git diff --stat` against the start; empty when nothing differs.
    pub stat: String,
    pub note: Option<String>,
}

impl Report {
    /// The text appended to the child's result.
    pub fn text(&self) -> String {
        let b = &self.branch;
        let mut text = if self.stat.is_empty() {
            format!(
                "Worktree: the agent changed no files; branch `{b}` is where it started. Its worktree is removed."
            )
        } else {
            let commits = match self.commits {
                1 => "1 commit".to_string(),
                n => format!("{n} commits"),
            };
            format!(
                "Worktree: the agent's changes are committed on branch `{b}` ({commits}); its worktree is removed and the branch kept, to review and merge (`git merge {b}`):\n{}",
                self.stat
            )
        };
        if let Some(note) = &self.note {
            text.push('\n');
            text.push_str(note);
        }
        text
    }
}

/// `<data_dir>/worktrees`: every child's worktree and record.
pub fn worktrees_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("worktrees")
}

fn record_path(worktree: &Path) -> PathBuf {
    let mut name = worktree.as_os_str().to_os_string();
    name.push(".json");
    PathBuf::from(name)
}

/// The record of the worktree at `path`, if it has a readable one.
pub fn read_record(path: &Path) -> Option<Record> {
    let text = std::fs::read_to_string(record_path(path)).ok()?;
    serde_json::from_str(&text).ok()
}

/// `roocode/<name as a slug>-<the id's last 8 letters>` (a UUIDv7 starts with its
/// time, so its end is what tells two agents apart).
pub fn branch_name(name: &str, agent_id: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 40 {
            break;
        }
    }
    let slug = slug.trim_matches('-');
    let slug = if slug.is_empty() { "agent" } else { slug };
    let alnum: Vec<char> = agent_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let short: String = alnum[alnum.len().saturating_sub(8)..].iter().collect();
    format!("roocode/{slug}-{}", short.to_lowercase())
}

/// Makes the worktree of agent `agent_id` (named `name`) of the project at `root`.
/// The error is what the model reads: why, and what to do instead.
pub fn create(
    git: &Git,
    data_dir: &Path,
    root: &Path,
    agent_id: &str,
    name: &str,
) -> Result<Prepared, String> {
    let not_made =
        |e: GitError| format!("isolation: worktree: cannot make the agent's worktree: {e}");
    match git.check_installed() {
        Ok(()) => {}
        Err(GitError::NotInstalled) => {
            return Err("isolation: worktree needs git, and git is not installed here (no `git` on the daemon's PATH): start the agent without isolation, or install git".into());
        }
        Err(e) => return Err(not_made(e)),
    }
    let Some(repo) = git.toplevel(root).map_err(not_made)? else {
        return Err(format!(
            "isolation: worktree needs a git repository, and {} is not in one: start the agent without isolation (or run `git init` and commit first)",
            root.display()
        ));
    };
    let Some(base) = git.head(&repo).map_err(not_made)? else {
        return Err(format!(
            "isolation: worktree needs a commit to branch from, and the repository at {} has none yet: commit first, or start the agent without isolation",
            repo.display()
        ));
    };
    let dirty = git.dirty_count(&repo).map_err(not_made)?;
    let dir = worktrees_dir(data_dir);
    let dir = std::fs::create_dir_all(&dir)
        .and_then(|()| dir.canonicalize())
        .map_err(|e| format!("isolation: worktree: cannot create {}: {e}", dir.display()))?;
    let path = dir.join(agent_id);
    let branch = branch_name(name, agent_id);
    git.add_worktree(&repo, &branch, &path, &base)
        .map_err(not_made)?;
    let Some(dirs) = crate::project::worktree::verified(&path) else {
        // Not what git makes: leave nothing half-made behind.
        let _ = git.remove_worktree(&repo, &path);
        return Err("isolation: worktree: git made a worktree RooCode cannot verify; start the agent without isolation".into());
    };
    let note = (dirty > 0).then(|| dirty_note(dirty, &base));
    // The sandbox keeps an existing hooks directory read-only; one the agent could
    // create would run at the user's next commit.
    if let Err(e) = std::fs::create_dir_all(dirs.common_dir.join("hooks")) {
        tracing::warn!("cannot create the repository's hooks directory: {e}");
    }
    let record = Record {
        guarded: snapshot(guarded_files(&dirs.common_dir, &dirs.git_dir)),
        branch: Some(branch.clone()),
        common_dir: dirs.common_dir,
        base,
        note: note.clone(),
    };
    let written = serde_json::to_string(&record)
        .map_err(std::io::Error::other)
        .and_then(|text| std::fs::write(record_path(&path), text));
    if let Err(e) = written {
        let _ = git.remove_worktree(&repo, &path);
        return Err(format!(
            "isolation: worktree: cannot write beside {}: {e}",
            path.display()
        ));
    }
    Ok(Prepared { path, branch, note })
}

/// Checks the existing `branch` of the repository at `root` out again at `path` (a
/// child resumed after its worktree was removed); its report then covers the new run.
pub fn reopen(git: &Git, root: &Path, path: &Path, branch: &str) -> Result<(), String> {
    let failed = |e: GitError| {
        format!("isolation: worktree: cannot check branch `{branch}` out again for the agent: {e}")
    };
    let Some(repo) = git.toplevel(root).map_err(failed)? else {
        return Err(format!(
            "isolation: worktree: {} is not a git repository any more",
            root.display()
        ));
    };
    git.add_existing_worktree(&repo, path, branch)
        .map_err(failed)?;
    let Some(dirs) = crate::project::worktree::verified(path) else {
        let _ = git.remove_worktree(&repo, path);
        return Err("isolation: worktree: git made a worktree RooCode cannot verify".into());
    };
    let base = git
        .head(path)
        .map_err(failed)?
        .ok_or_else(|| format!("isolation: worktree: branch `{branch}` has no commit"))?;
    let record = Record {
        guarded: snapshot(guarded_files(&dirs.common_dir, &dirs.git_dir)),
        branch: Some(branch.to_string()),
        common_dir: dirs.common_dir,
        base,
        note: None,
    };
    let written = serde_json::to_string(&record)
        .map_err(std::io::Error::other)
        .and_then(|text| std::fs::write(record_path(path), text));
    if let Err(e) = written {
        let _ = git.remove_worktree(&repo, path);
        return Err(format!(
            "isolation: worktree: cannot write beside {}: {e}",
            path.display()
        ));
    }
    Ok(())
}

fn dirty_note(count: usize, base: &str) -> String {
    let short = base.get(..10).unwrap_or(base);
    let paths = if count == 1 { "path" } else { "paths" };
    format!(
        "Note: the main tree had {count} uncommitted {paths} (changed, staged or untracked) when the agent started; they were not carried over — the agent worked from the last commit ({short})."
    )
}

/// Commits everything in the worktree at `path` with `message`, removes it and its
/// record, and reports the branch (`branch` is the recorded one, used when the
/// worktree's own `HEAD` does not name one). On an error the worktree is left as it
/// is, with its files.
pub fn close(git: &Git, path: &Path, branch: &str, message: &str) -> Result<Report, String> {
    let record = read_record(path);
    let Some(dirs) = crate::project::worktree::verified(path) else {
        return Err(format!(
            "the worktree at {} is not a git worktree RooCode can verify any more; its files are left there",
            path.display()
        ));
    };
    if let Some(record) = &record
        && record.common_dir != dirs.common_dir
    {
        return Err(format!(
            "the worktree at {} now names another repository ({}) in its .git file; nothing was committed and its files are left there",
            path.display(),
            dirs.common_dir.display()
        ));
    }
    let Some(record) = record else {
        return Err(format!(
            "the worktree at {} has no readable record, so RooCode cannot check it before committing; its files are left there",
            path.display()
        ));
    };
    if let Some(file) = changed_config(&record) {
        return Err(format!(
            "{} changed while the agent ran, and git settings can make git run programs: nothing was committed; the agent's files are left in {} for you to inspect",
            file.display(),
            path.display()
        ));
    }
    let failed = |e: GitError| {
        format!(
            "the agent's work could not be committed ({e}); its files are left in {}",
            path.display()
        )
    };
    // From here git is told where the worktree's git directory is (verified above),
    // never reading the `.git` file again.
    let git = &git.pinned(&dirs.git_dir, path);
    let branch = record.branch.as_deref().unwrap_or(branch);
    match git.current_branch(path).map_err(failed)? {
        Some(current) if current != branch => {
            return Err(format!(
                "the worktree's HEAD was moved to branch `{current}`; RooCode commits only on the agent's own branch `{branch}`, so nothing was committed and its files are left in {}",
                path.display()
            ));
        }
        _ => {}
    }
    git.commit_all(path, message).map_err(failed)?;
    let branch = match git.current_branch(path).map_err(failed)? {
        Some(current) => current,
        None => {
            // A detached HEAD's commits would be lost with the worktree.
            let kept = format!("{branch}-detached");
            git.create_branch(path, &kept).map_err(failed)?;
            kept
        }
    };
    let commits = git.commits_since(path, &record.base).map_err(failed)?;
    let stat = git.diff_stat(path, &record.base).map_err(failed)?;
    remove(git, &dirs.common_dir, path);
    Ok(Report {
        branch,
        commits,
        stat,
        note: record.note,
    })
}

/// Removes the worktree at `path` and its record; git's own removal first, the
/// directory itself when git cannot (its work is committed by then).
fn remove(git: &Git, common_dir: &Path, path: &Path) {
    if let Err(e) = git.remove_worktree(common_dir, path) {
        tracing::warn!(worktree = %path.display(), "git could not remove the worktree ({e}); removing its directory");
        if let Err(e) = std::fs::remove_dir_all(path) {
            tracing::error!(worktree = %path.display(), "cannot remove the worktree: {e}");
        }
        if let Err(e) = git.prune(common_dir) {
            tracing::warn!("git worktree prune failed: {e}");
        }
    }
    let _ = std::fs::remove_file(record_path(path));
}
