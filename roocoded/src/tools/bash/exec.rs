//! A program run with its argument vector as given — no shell parses it, so a value
//! with spaces, quotes or `;` stays one argument. This is how a skill's command-backed
//! tool runs (`crate::tools::skill_command`): in the session's OS sandbox with the
//! session's command environment, its input as JSON on standard input, its process
//! group supervised as a foreground `Bash` call's is (timeout, cancel, live output,
//! nothing left running).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::foreground::{RemoveOnDrop, shape, supervise};
use super::launch::Launch;
use super::process::{Script, spawn};
use crate::tools::{ToolContext, ToolError, ToolOutput};

/// One run of a program.
pub struct Program<'a> {
    /// The program and its arguments.
    pub argv: &'a [String],
    /// What its standard input reads.
    pub stdin: &'a str,
    /// Where it runs.
    pub dir: &'a Path,
    pub timeout: Duration,
    /// A folder it may read even where the sandbox hides it (the skill's own).
    pub readable: Option<PathBuf>,
    /// Variables added to the session's command environment.
    pub vars: BTreeMap<String, String>,
}

/// Runs `program` and waits for it; the result is shaped as a `Bash` call's (exit code,
/// signal or timeout noted, an error when it failed).
pub async fn run_program(ctx: &ToolContext, program: Program<'_>) -> Result<ToolOutput, ToolError> {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let Some(label) = program.argv.first() else {
        return Err(ToolError::Failed("no program to run".to_string()));
    };
    let mut launch = Launch::new(ctx, false)?;
    if let Some(dir) = program.readable {
        launch = launch.reading(dir);
    }
    launch.env.extend(program.vars);
    let input = ctx.shell.scratch_file("input").map_err(|e| {
        ToolError::Failed(format!("Cannot create a temporary file for the input: {e}"))
    })?;
    std::fs::write(&input, program.stdin)
        .map_err(|e| ToolError::Failed(format!("Cannot write {}: {e}", input.display())))?;
    let _remove = RemoveOnDrop(input.clone());
    let script = Script::Exec {
        argv: program.argv,
        stdin: &input,
    };
    let spawned = spawn(script, program.dir, &launch)
        .map_err(|e| ToolError::Failed(format!("Cannot start `{label}`: {e}")))?;
    let (ending, rendered) =
        supervise(ctx, spawned, &program.argv.join(" "), program.timeout).await;
    shape(
        ending,
        rendered,
        Vec::new(),
        program.timeout,
        &launch,
        program.dir,
    )
}
