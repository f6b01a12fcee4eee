//! The `BashOutput` tool: what a background shell wrote since the last read, and its
//! status.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::tools::{
    Effect, PermissionTarget, Tool, ToolCategory, ToolContext, ToolError, ToolOutput, parse_input,
};

const DESCRIPTION: &str = "\
Reads the output of a background shell, one started by Bash with run_in_background: true.

Usage:
- bash_id is the id Bash returned when it started the command (for example bash_1).
- Returns the shell's status (running, exited with code N, or killed) and only the \
output written since the previous BashOutput call for that shell: stdout and stderr \
together, in the order they were written. Each piece of output is returned once.
- It never waits: when there is no new output yet it says so. Do other work and check \
again later instead of calling it in a tight loop or sleeping.
- When a lot of output piled up since the last read, its beginning and end are kept and \
a note says how much was cut from the middle.
- Use KillShell to stop a background shell.";

/// The built-in `BashOutput` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct BashOutputTool;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BashOutputInput {
    bash_id: String,
}

impl Tool for BashOutputTool {
    fn name(&self) -> &'static str {
        "BashOutput"
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
                    "description": "The id of the background shell, as returned by Bash (e.g. bash_1)"
                }
            },
            "required": ["bash_id"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::OwnState
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
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
            let input: BashOutputInput = parse_input(self.name(), input)?;
            let shell = ctx.shell.find(&input.bash_id)?;
            let (status, text) = shell.read();
            let text = text.trim_end_matches(['\n', '\r']);
            let body = if text.is_empty() {
                "(no new output)"
            } else {
                text
            };
            Ok(ToolOutput::text(format!("Status: {status}\n\n{body}")))
        }
        .boxed()
    }
}
