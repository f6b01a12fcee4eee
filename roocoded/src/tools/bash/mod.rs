//! The `Bash` tool and its helpers `BashOutput` and `KillShell`.
//!
//! Every command runs with `bash -c` (`sh` where bash is missing) in a process group of
//! its own, inside the session's OS sandbox (`launch.rs`, `crate::sandbox`), with the
//! sandbox's command environment (the client's snapshot without provider keys and
//! `ROOCODE_*`, plus `env.forward` and a private `TMPDIR`), stdin on /dev/null, and
//! stdout and stderr on one pipe so their lines come back interleaved as written. A
//! timeout, a cancel, the end of the command (for what it left running with `&`),
//! `KillShell` and the end of the session kill the whole group: SIGTERM, then SIGKILL
//! after [`process::TERM_GRACE`].
//!
//! Per-session state — the working directory that persists between calls and the
//! background shells — is a [`ShellState`] the session holds and passes in
//! [`ToolContext::shell`]. Spawned groups are reported to the optional
//! [`ProcessRecorder`] in [`ToolContext::processes`], so that a daemon restarting after
//! a crash can [`kill_group`] the leftovers.
//!
//! Files: `foreground.rs` (a call run to its end), `background.rs` (background shells),
//! `shell.rs` ([`ShellState`]), `process.rs` (spawning, output pump, group killing),
//! `output.rs` (head + tail capping), `bash_output.rs`, `kill_shell.rs`.

mod background;
mod bash_output;
mod exec;
mod foreground;
mod kill_shell;
mod launch;
mod output;
mod process;
mod shell;

use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

pub use bash_output::BashOutputTool;
pub use exec::{Program, run_program};
pub use kill_shell::KillShellTool;
pub use process::{ProcessRecorder, kill_group, terminate_group};
pub use shell::ShellState;

use super::{
    Effect, PermissionTarget, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool,
};

/// Timeout when the call gives none (2 minutes).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Longest timeout; larger values are reduced to it (10 minutes).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

const DESCRIPTION: &str = "\
Runs a shell command (bash -c, or sh where bash is missing) and returns its output.

Usage:
- The working directory persists between calls: after `cd sub`, later commands start in \
sub. It must stay inside the project (and the configured additional directories): a cd \
that leaves it is undone and the result says so. Nothing else persists between calls \
(variables, aliases, activated environments), so set those up in the same command.
- Quote paths that contain spaces with double quotes: cd \"my dir\", python \"my script.py\".
- Run several commands in one call by chaining them: `cmd1 && cmd2` when each needs the \
previous one to succeed, `;` when they are independent.
- Prefer the dedicated tools over shell equivalents: Read instead of cat, head or tail; \
Glob instead of find or ls -R; Grep instead of grep or rg; Edit and Write instead of sed, \
awk or echo redirections. Use Bash for what needs a shell: builds, tests, git, package \
managers, running programs.
- stdin is /dev/null, so nothing interactive can be answered (editors, prompts, \
git rebase -i, password questions): pass flags such as -y, --yes or --no-edit.
- timeout is in milliseconds: 120000 (2 minutes) by default, at most 600000 (10 minutes; \
larger values are reduced). On timeout the command and every process it started are \
killed, and you get the output so far.
- stdout and stderr come back together, in the order they were written. Output longer \
than about 30000 characters keeps its beginning and its end, with a note saying how \
much was cut from the middle; narrow the command (grep, tail, a quieter flag) when you \
need the middle.
- A non-zero exit code is reported as `Exit code: N` and marks the result as an error.
- Processes started with & are stopped when the command ends. For long-running \
processes (dev servers, watchers, anything that does not exit on its own) set \
run_in_background: true instead of using & or nohup: the call returns at once with a \
bash_id; read the new output with BashOutput and stop it with KillShell. Background \
commands have no timeout, start in the current working directory and do not change it.
- Give description: what the command does in 5-10 words, shown to the user.
- Commands run in an OS sandbox: they can write only inside the project (and the \
configured additional directories and $TMPDIR), .git/config, .git/hooks and .roocode/ \
are read-only, and credential directories such as ~/.ssh look empty. A command the \
sandbox stopped fails with \"Read-only file system\" or \"Permission denied\" and a \
note saying so. Only if it truly must write elsewhere, re-run it with \
dangerously_disable_sandbox: true; the user is asked to approve that every time.";

/// The built-in `Bash` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct BashTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashArgs {
    /// The command to run
    pub command: String,
    /// Timeout in milliseconds (default 120000, at most 600000; larger values are reduced)
    // A float so that `120000.0` is accepted like `120000`.
    #[schemars(range(min = 1))]
    pub timeout: Option<f64>,
    /// What the command does, in 5-10 words (e.g. "Run the unit tests")
    // Shown by clients from the call's input; not used here.
    #[serde(rename = "description")]
    pub _description: Option<String>,
    /// Start the command in the background and return its bash_id at once; read its output with BashOutput
    pub run_in_background: Option<bool>,
    /// Run the command outside the OS sandbox. Only when the sandbox stopped a command that really needs to write outside the project; the user is always asked first
    // The permission gate asks the user first, in every mode (`crate::sandbox::disable`).
    pub dangerously_disable_sandbox: Option<bool>,
    /// Same as dangerously_disable_sandbox
    // Claude Code's spelling. A field of its own, not a serde alias, so that the schema
    // lists it and giving both is not a duplicate-field error.
    #[serde(rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox_camel: Option<bool>,
}

impl BashArgs {
    /// Either spelling of `dangerously_disable_sandbox` is true.
    pub fn unsandboxed(&self) -> bool {
        self.dangerously_disable_sandbox == Some(true)
            || self.dangerously_disable_sandbox_camel == Some(true)
    }
}

impl TypedTool for BashTool {
    type Args = BashArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "Bash",
            DESCRIPTION,
            Effect::RunCommands,
            ToolCategory::Command,
        )
    }

    fn target(&self, args: &BashArgs, _ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::Command(args.command.clone())
    }

    fn unsandboxed(&self, args: &BashArgs) -> bool {
        args.unsandboxed()
    }

    fn run<'a>(
        &'a self,
        input: BashArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            if input.command.trim().is_empty() {
                return Err(ToolError::InvalidInput("command is empty".to_string()));
            }
            let unconfined = input.unsandboxed();
            if input.run_in_background == Some(true) {
                let shell = background::start(ctx, &input.command, unconfined)?;
                return Ok(ToolOutput::text(format!(
                    "Command running in the background with bash_id {id}. Read its output \
                     with BashOutput (bash_id \"{id}\") and stop it with KillShell.",
                    id = shell.id
                )));
            }
            foreground::run(ctx, &input.command, timeout(input.timeout), unconfined).await
        }
        .boxed()
    }
}

/// The call's timeout: the default when absent, clamped to 1 ms ..= the maximum.
fn timeout(ms: Option<f64>) -> Duration {
    let ms = ms.unwrap_or(DEFAULT_TIMEOUT_MS as f64);
    // NaN cannot come from JSON; `clamp` keeps the cast in range.
    Duration::from_millis(ms.clamp(1.0, MAX_TIMEOUT_MS as f64) as u64)
}

#[cfg(test)]
mod sandbox_tests;
#[cfg(test)]
mod tests;
