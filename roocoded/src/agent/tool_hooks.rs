//! The hooks around one tool call (issue 14 item 4):
//!
//! - `pre_tool_use` runs after the input was validated and after the gate's layers
//!   1–3, whose denies it cannot undo (it does not run for a denied call), and before
//!   the mode and the human: exit 2 or a deny blocks the call (the reason is its
//!   error result), `ask` forces a prompt, `allow` skips the prompt, and an updated
//!   input is validated and checked by the gate again.
//! - `permission_request` runs when a call would be asked of a human: `allow` or
//!   `deny` answers for them; `notification` then tells the user a call waits
//!   (`permission_prompt`). [`notify_with`] is the same for the waits of a tool's own
//!   human (`agent::human`: a question, `elicitation_dialog`; a plan or a fetch to
//!   approve, `permission_prompt`).
//! - `post_tool_use` runs after the call; a complaint (exit 2 with its stderr, or
//!   `{"decision": "block", "reason": …}`) and added context become a correction in the
//!   agent's inbox, read before its next model call.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Engine;
use super::executor::Call;
use super::hooks::SessionHooks;
use super::settings::TurnSettings;
use crate::hooks::{self, HookInput};
use crate::permission::Decision;
use crate::tools::{Prepared, ToolContext, ToolOutput};

/// Most characters of a result a `post_tool_use` hook is given.
const MAX_RESPONSE_CHARS: usize = 100_000;

/// The call after its `pre_tool_use` hooks: what runs, with which input, and the
/// gate's decision as the hooks left it; `Err` is the result a refused call gets.
pub(super) async fn pre_tool_use(
    engine: &Arc<Engine>,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
    call: &Call,
    prepared: Prepared,
    decision: Decision,
) -> Result<(Prepared, Value, Decision), ToolOutput> {
    let input = call.input.clone();
    let Some(hooks) = settings.hooks.as_ref() else {
        return Ok((prepared, input, decision));
    };
    if matches!(decision, Decision::Deny { .. }) || !hooks.listens(hooks::HookEvent::PreToolUse) {
        return Ok((prepared, input, decision));
    }
    let event = HookInput::pre_tool_use(hooks.context(), &call.name, input.clone())
        .with_tool_use_id(&call.id);
    let fired = hooks.fire(&engine.hook_results, &event).await;
    for e in fired.errors() {
        tracing::warn!(tool = %call.name, "{e}");
    }
    if let Some(reason) = fired.refusal() {
        tracing::info!(tool = %call.name, %reason, "blocked by a hook");
        return Err(ToolOutput::error(format!("Blocked by a hook: {reason}")));
    }
    let (prepared, input, mut decision) = match fired.updated_input() {
        None => (prepared, input, decision),
        Some(updated) => {
            let again = settings
                .agent
                .tools
                .prepare(&call.name, &updated, ctx)
                .map_err(|e| {
                    ToolOutput::error(format!(
                        "A hook changed this call's input to one that is not valid: {e}"
                    ))
                })?;
            let checked = ctx.check(&settings.gate(), &again.call(&updated));
            (again, updated, checked)
        }
    };
    match (fired.decision(), &decision) {
        (_, Decision::Deny { .. }) => {}
        (Some(hooks::Decision::Ask), Decision::Allow) => {
            decision = Decision::Ask {
                reason: "a pre_tool_use hook asks for your approval".into(),
            };
        }
        (Some(hooks::Decision::Allow), Decision::Ask { .. }) => decision = Decision::Allow,
        _ => {}
    }
    Ok((prepared, input, decision))
}

/// Runs the `post_tool_use` hooks of a finished call; what they say for the model is
/// queued in the agent's inbox.
pub(super) async fn post_tool_use(
    engine: &Arc<Engine>,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
    call: &Call,
    input: &Value,
    output: &ToolOutput,
) {
    let Some(hooks) = settings.hooks.as_ref() else {
        return;
    };
    if !hooks.listens(hooks::HookEvent::PostToolUse) {
        return;
    }
    let content: String = output.content.chars().take(MAX_RESPONSE_CHARS).collect();
    let response = json!({"content": content, "is_error": output.is_error});
    let event = HookInput::post_tool_use(hooks.context(), &call.name, input.clone(), response)
        .with_tool_use_id(&call.id);
    let fired = hooks.fire(&engine.hook_results, &event).await;
    for e in fired.errors() {
        tracing::warn!(tool = %call.name, "{e}");
    }
    let mut texts = Vec::new();
    if let Some(reason) = fired.refusal() {
        texts.push(format!(
            "A post_tool_use hook reported a problem with your {} call ({}): {reason}\nFix it before going on.",
            call.name, call.id
        ));
    }
    texts.extend(fired.context());
    if let Err(e) = engine.queue_hook_texts(&ctx.session_id, &texts).await {
        tracing::error!("cannot queue a hook's correction: {e}");
    }
}

/// The answer of the `permission_request` hooks for a call about to be asked of a
/// human: `Some(Ok)` allows it, `Some(Err)` is the denied call's result, `None` asks.
pub(super) async fn permission_request(
    engine: &Arc<Engine>,
    settings: &TurnSettings<'_>,
    call: &Call,
    tool: &str,
) -> Option<Result<(), ToolOutput>> {
    let hooks = settings.hooks.as_ref()?;
    if !hooks.listens(hooks::HookEvent::PermissionRequest) {
        return None;
    }
    let event = HookInput::permission_request(hooks.context(), tool, call.input.clone())
        .with_tool_use_id(&call.id);
    let fired = hooks.fire(&engine.hook_results, &event).await;
    for e in fired.errors() {
        tracing::warn!(tool = %call.name, "{e}");
    }
    if let Some(reason) = fired.refusal() {
        return Some(Err(ToolOutput::error(format!(
            "Permission denied by a hook: {reason}"
        ))));
    }
    (fired.decision() == Some(hooks::Decision::Allow)).then_some(Ok(()))
}

/// Fires the `notification` hooks (a call or a question waits for a human) without
/// waiting for them: a slow notifier never holds the turn.
pub(super) fn notify(engine: &Arc<Engine>, settings: &TurnSettings<'_>, message: &str, kind: &str) {
    notify_with(engine, settings.hooks.as_ref(), message, kind);
}

/// [`notify`] with the session's `hooks` (none: nothing fires); `kind` is the
/// `notification_type` (`HookInput::PERMISSION_PROMPT`, ...).
pub(super) fn notify_with(
    engine: &Arc<Engine>,
    hooks: Option<&Arc<SessionHooks>>,
    message: &str,
    kind: &str,
) {
    let Some(hooks) = hooks else {
        return;
    };
    if !hooks.listens(hooks::HookEvent::Notification) {
        return;
    }
    let hooks = Arc::clone(hooks);
    let engine = Arc::clone(engine);
    let event = HookInput::notification(hooks.context(), message, Some(kind.to_string()));
    tokio::spawn(async move {
        let fired = hooks.fire(&engine.hook_results, &event).await;
        for e in fired.errors() {
            tracing::warn!("{e}");
        }
    });
}

/// The notification of a permission prompt, in Claude Code's words.
pub(super) fn permission_message(tool: &str, summary: &str) -> String {
    if summary.trim().is_empty() {
        format!("RooCode needs your permission to use {tool}")
    } else {
        format!("RooCode needs your permission to use {tool}: {summary}")
    }
}

/// The notification of `AskUserQuestion`'s questions (their JSON, as the tool sends
/// them): every question's text, so a notifier can show what is asked.
pub(super) fn question_message(questions: &Value) -> String {
    let texts: Vec<&str> = questions
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|q| q.get("question")?.as_str())
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    match texts.as_slice() {
        [] => "RooCode has a question for you".to_string(),
        [one] => format!("RooCode has a question for you: {one}"),
        many => format!(
            "RooCode has {} questions for you: {}",
            many.len(),
            many.join(" | ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_s_notification_says_what_is_asked() {
        let one = json!([{"question": "Which database should I use?", "header": "DB"}]);
        assert_eq!(
            question_message(&one),
            "RooCode has a question for you: Which database should I use?"
        );
        let two = json!([{"question": "Which DB?"}, {"question": " Tests? "}]);
        assert_eq!(
            question_message(&two),
            "RooCode has 2 questions for you: Which DB? | Tests?"
        );
        assert_eq!(
            question_message(&json!("not a list")),
            "RooCode has a question for you"
        );
    }

    #[test]
    fn a_permission_s_notification_names_the_tool() {
        assert_eq!(
            permission_message("Bash", "rm -rf build"),
            "RooCode needs your permission to use Bash: rm -rf build"
        );
        assert_eq!(
            permission_message("WebFetch", ""),
            "RooCode needs your permission to use WebFetch"
        );
    }
}
