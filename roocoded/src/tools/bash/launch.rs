//! How a `Bash` call's shell is started: the session's OS sandbox (bubblewrap or the
//! Landlock helper, see `crate::sandbox`) wraps it, unless the call has
//! `dangerously_disable_sandbox` (which the permission gate asked the user about), and
//! its environment is the sandbox's command environment with the session's private
//! `TMPDIR`. A context without a sandbox (tests) runs the shell directly with `ctx.env`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::sandbox::CommandSandbox;
use crate::tools::{ToolContext, ToolError};

/// Everything `process::spawn` needs to know about confinement.
pub(crate) struct Launch {
    pub env: BTreeMap<String, String>,
    sandbox: Option<Arc<CommandSandbox>>,
    unconfined: bool,
    /// The session's private directory (writable; `TMPDIR` is `tmp/` inside it).
    scratch: Option<PathBuf>,
    /// Places readable inside the sandbox even where it hides them (a skill's folder).
    readable: Vec<PathBuf>,
}

impl Launch {
    /// The launch of one call; `unconfined` is the call's `dangerously_disable_sandbox`.
    pub(crate) fn new(ctx: &ToolContext, unconfined: bool) -> Result<Self, ToolError> {
        let Some(sandbox) = ctx.sandbox.clone() else {
            return Ok(Self {
                env: ctx.env.clone(),
                sandbox: None,
                unconfined,
                scratch: None,
                readable: Vec::new(),
            });
        };
        if !unconfined && let crate::sandbox::Mechanism::Refuse(why) = &sandbox.mechanism {
            return Err(ToolError::Failed(why.clone()));
        }
        let scratch = ctx.shell.scratch_dir().map_err(|e| {
            ToolError::Failed(format!(
                "Cannot create the session's temporary directory: {e}"
            ))
        })?;
        let tmp = scratch.join("tmp");
        std::fs::create_dir_all(&tmp)
            .map_err(|e| ToolError::Failed(format!("Cannot create {}: {e}", tmp.display())))?;
        Ok(Self {
            env: sandbox.command_env(&ctx.env, Some(&tmp)),
            sandbox: Some(sandbox),
            unconfined,
            scratch: Some(scratch),
            readable: Vec::new(),
        })
    }

    /// The same launch with `dir` readable inside the sandbox (a user skill's folder
    /// is in RooCode's home, which commands otherwise cannot see).
    pub(crate) fn reading(mut self, dir: PathBuf) -> Self {
        self.readable.push(dir);
        self
    }

    /// The program and arguments to put before the shell, if any.
    pub(crate) fn wrapper(&self, dir: &Path) -> std::io::Result<Option<(PathBuf, Vec<OsString>)>> {
        match &self.sandbox {
            Some(sandbox) if !self.unconfined => sandbox
                .wrapper(dir, self.scratch.as_deref(), &self.readable)
                .map_err(std::io::Error::other),
            _ => Ok(None),
        }
    }

    /// The note for a failed command's output when the sandbox probably stopped it.
    pub(crate) fn failure_note(&self, output: &str, dir: &Path) -> Option<String> {
        let sandbox = self
            .sandbox
            .as_ref()
            .filter(|s| s.confines() && !self.unconfined)?;
        let mut policy = sandbox.policy.clone();
        if let Some(scratch) = &self.scratch {
            policy.add(scratch, crate::sandbox::Access::Writable);
        }
        crate::sandbox::hint::note(output, &policy, dir)
    }
}
