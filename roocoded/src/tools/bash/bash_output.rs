//! The `BashOutput` tool: what a background shell wrote since the last read, and its
//! status.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tools::{Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

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

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashOutputArgs {
    /// The id of the background shell, as returned by Bash (e.g. bash_1)
    pub bash_id: String,
}

impl TypedTool for BashOutputTool {
    type Args = BashOutputArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "BashOutput",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Command,
        )
    }

    fn is_concurrency_safe(&self, _args: &BashOutputArgs) -> bool {
        true
    }

    fn run<'a>(
        &'a self,
        input: BashOutputArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
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
