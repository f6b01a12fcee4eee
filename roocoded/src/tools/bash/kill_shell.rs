//! The `KillShell` tool: stop a background shell and everything it started.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tools::{Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

const DESCRIPTION: &str = "\
Stops a background shell, one started by Bash with run_in_background: true, together \
with every process it started (its whole process group: SIGTERM, then SIGKILL for \
whatever is still running a moment later).

Usage:
- bash_id is the id Bash returned when it started the command (for example bash_1).
- Output written before the shell stopped can still be read with BashOutput, whose \
status then says killed.
- Stopping a shell that already ended is harmless; the result says how it ended.
- Background shells are also stopped when the session ends, but stop servers and \
watchers yourself once you no longer need them.";

/// The built-in `KillShell` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct KillShellTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillShellArgs {
    /// The id of the background shell to stop, as returned by Bash (e.g. bash_1)
    pub bash_id: String,
}

impl TypedTool for KillShellTool {
    type Args = KillShellArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "KillShell",
            DESCRIPTION,
            Effect::RunCommands,
            ToolCategory::Command,
        )
    }

    fn run<'a>(
        &'a self,
        input: KillShellArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let shell = ctx.shell.find(&input.bash_id)?;
            let text = if shell.kill().await {
                format!("Killed {} ({}).", shell.id, shell.command)
            } else {
                format!(
                    "{} was not running: it {}.",
                    shell.id,
                    match shell.status() {
                        status @ super::background::ShellStatus::Killed =>
                            format!("was already {status}"),
                        status => status.to_string(),
                    }
                )
            };
            Ok(ToolOutput::text(text))
        }
        .boxed()
    }
}
