//! The `KillShell` tool: stop a background shell and everything it started.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::tools::{
    Effect, PermissionTarget, Tool, ToolCategory, ToolContext, ToolError, ToolOutput, parse_input,
};

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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KillShellInput {
    bash_id: String,
}

impl Tool for KillShellTool {
    fn name(&self) -> &'static str {
        "KillShell"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "bash_id": {
                    "type": "string",
                    "description": "The id of the background shell to stop, as returned by Bash (e.g. bash_1)"
                }
            },
            "required": ["bash_id"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::RunCommands
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Command
    }

    fn permission_target(&self, _input: &Value, _ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::None
    }

    fn execute<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let input: KillShellInput = parse_input(self.name(), input)?;
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
