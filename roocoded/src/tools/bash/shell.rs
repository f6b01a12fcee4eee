//! [`ShellState`]: what one session's shell remembers between `Bash` calls — its
//! working directory and its background shells — plus a private scratch directory for
//! the files the shell reports its directory in and the commands' `TMPDIR`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::background::BackgroundShell;
use super::process::lock;
use crate::tools::{ToolContext, ToolError};

/// Per-session shell state, held by the session in an `Arc` and handed to every call
/// through [`ToolContext::shell`]. Dropping it kills the session's background shells.
#[derive(Debug, Default)]
pub struct ShellState {
    /// Where the next command starts; `None` until a command reported one (then the
    /// call's `ctx.scope.cwd` is used).
    cwd: Mutex<Option<PathBuf>>,
    background: Mutex<Vec<Arc<BackgroundShell>>>,
    last_id: AtomicU64,
    /// Private (0700) directory under the daemon's temp dir, created on first use.
    scratch: Mutex<Option<PathBuf>>,
    file_seq: AtomicU64,
}

impl ShellState {
    pub fn new() -> Self {
        Self::default()
    }

    /// The working directory commands last left the shell in, if any command ran yet.
    pub fn cwd(&self) -> Option<PathBuf> {
        lock(&self.cwd).clone()
    }

    /// Where the next command will start, changing nothing: what permission checks
    /// judge a command's relative paths from (a previous call's `cd` included).
    pub fn next_dir(&self, ctx: &ToolContext) -> PathBuf {
        match lock(&self.cwd).as_ref() {
            Some(dir) if dir.is_dir() => dir.clone(),
            Some(_) => ctx.scope.root.clone(),
            None if ctx.scope.cwd.is_dir() => ctx.scope.cwd.clone(),
            None => ctx.scope.root.clone(),
        }
    }

    /// Kill every running background shell (whole process groups) and wait until they
    /// are gone. The daemon calls this when a session is deleted or on shutdown.
    pub async fn kill_all(&self) {
        let shells = lock(&self.background).clone();
        futures_util::future::join_all(shells.iter().map(|s| s.kill())).await;
    }

    /// The directory the next command starts in, and a note when the remembered one
    /// no longer exists (the project root is used instead, and remembered).
    pub(crate) fn start_dir(&self, ctx: &ToolContext) -> (PathBuf, Option<String>) {
        let mut cwd = lock(&self.cwd);
        match cwd.as_ref() {
            Some(dir) if dir.is_dir() => (dir.clone(), None),
            Some(dir) => {
                let note = format!(
                    "The working directory {} no longer exists; the command ran in the project root {}.",
                    dir.display(),
                    ctx.scope.root.display()
                );
                *cwd = Some(ctx.scope.root.clone());
                (ctx.scope.root.clone(), Some(note))
            }
            None if ctx.scope.cwd.is_dir() => (ctx.scope.cwd.clone(), None),
            None => (ctx.scope.root.clone(), None),
        }
    }

    /// Remember the directory a command ended in (`pwd -P`). A directory outside the
    /// project root and the additional directories is not kept: the root is, and the
    /// returned note says so.
    pub(crate) fn settle_dir(&self, reported: PathBuf, ctx: &ToolContext) -> Option<String> {
        let mut cwd = lock(&self.cwd);
        if inside_project(&reported, ctx) {
            *cwd = Some(reported);
            return None;
        }
        *cwd = Some(ctx.scope.root.clone());
        Some(format!(
            "Shell cwd was reset to {}: {} is outside the project, and the working directory must stay inside it.",
            ctx.scope.root.display(),
            reported.display()
        ))
    }

    /// A fresh path (not yet existing) in the scratch directory, for one command to
    /// write its final directory to.
    pub(crate) fn cwd_file(&self) -> std::io::Result<PathBuf> {
        self.scratch_file("cwd")
    }

    /// A fresh path (not yet existing) `<prefix>-<n>` in the scratch directory.
    pub(crate) fn scratch_file(&self, prefix: &str) -> std::io::Result<PathBuf> {
        let dir = self.scratch_dir()?;
        let n = self.file_seq.fetch_add(1, Ordering::Relaxed);
        Ok(dir.join(format!("{prefix}-{n}")))
    }

    /// The session's private (0700) directory, created on first use: the cwd files
    /// and, in `tmp/`, the commands' `TMPDIR`. Removed with the session's shell.
    pub(crate) fn scratch_dir(&self) -> std::io::Result<PathBuf> {
        let mut scratch = lock(&self.scratch);
        match scratch.as_ref() {
            Some(dir) if dir.is_dir() => Ok(dir.clone()),
            _ => {
                let dir = create_scratch()?;
                *scratch = Some(dir.clone());
                Ok(dir)
            }
        }
    }

    /// Reserve the next background shell id (`bash_1`, `bash_2`, …).
    pub(crate) fn next_id(&self) -> String {
        format!("bash_{}", self.last_id.fetch_add(1, Ordering::Relaxed) + 1)
    }

    pub(crate) fn insert(&self, shell: Arc<BackgroundShell>) {
        lock(&self.background).push(shell);
    }

    /// The background shell `id`, or an error listing the ones that exist.
    pub(crate) fn find(&self, id: &str) -> Result<Arc<BackgroundShell>, ToolError> {
        let shells = lock(&self.background);
        if let Some(shell) = shells.iter().find(|s| s.id == id) {
            return Ok(shell.clone());
        }
        let known = if shells.is_empty() {
            "This session has no background shells.".to_string()
        } else {
            let list: Vec<String> = shells
                .iter()
                .map(|s| format!("{} ({})", s.id, s.status()))
                .collect();
            format!("Known background shells: {}.", list.join(", "))
        };
        Err(ToolError::InvalidInput(format!(
            "No background shell with bash_id \"{id}\". {known}"
        )))
    }
}

impl Drop for ShellState {
    fn drop(&mut self) {
        let shells = std::mem::take(&mut *lock(&self.background));
        for shell in shells {
            shell.kill_detached();
        }
        if let Some(dir) = lock(&self.scratch).take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// True if `dir` is the project root, an additional directory, or below one of them.
fn inside_project(dir: &Path, ctx: &ToolContext) -> bool {
    std::iter::once(&ctx.scope.root)
        .chain(&ctx.scope.additional_dirs)
        .any(|base| {
            let base = base.canonicalize().unwrap_or_else(|_| base.clone());
            dir.starts_with(base)
        })
}

fn create_scratch() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = std::env::temp_dir();
    let mut last_err = None;
    for _ in 0..8 {
        let dir = base.join(format!(
            "roocode-shell-{}-{:016x}",
            std::process::id(),
            fastrand::u64(..)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| std::io::Error::other("cannot create a scratch directory")))
}
