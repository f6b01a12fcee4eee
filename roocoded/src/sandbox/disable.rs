//! Bash's `dangerously_disable_sandbox: true` (also `dangerouslyDisableSandbox`, Claude
//! Code's spelling): running a command outside the OS sandbox is its own permission
//! question, showing the command. No rule and no mode answers it — `bypassPermissions`
//! and an allow rule for the command still ask; `dontAsk` denies; a deny still denies.

use serde_json::Value;

use crate::permission::{Decision, Mode, modes};
use crate::tools::ToolContext;

/// Both spellings of the parameter.
pub const PARAMS: &[&str] = &["dangerously_disable_sandbox", "dangerouslyDisableSandbox"];

/// True if the Bash input asks to run outside the sandbox.
pub fn requested(input: &Value) -> bool {
    PARAMS
        .iter()
        .any(|p| input.get(p).and_then(Value::as_bool) == Some(true))
}

/// The final decision for a call the layers decided as `decision`.
pub fn review(
    decision: Decision,
    mode: Mode,
    tool: &str,
    input: &Value,
    ctx: &ToolContext,
) -> Decision {
    // Only a real sandbox can be disabled; without one the flag changes nothing.
    let confining = ctx.sandbox.as_ref().is_some_and(|s| s.confines());
    if tool != "Bash" || !requested(input) || !confining {
        return decision;
    }
    let command = input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let question = format!(
        "Run WITHOUT the OS sandbox (it could write anywhere you can and read your \
         credentials): {command}"
    );
    match decision {
        Decision::Deny { .. } => decision,
        Decision::Allow => modes::ask(mode, question),
        Decision::Ask { reason } => modes::ask(mode, format!("{question} — also: {reason}")),
    }
}
