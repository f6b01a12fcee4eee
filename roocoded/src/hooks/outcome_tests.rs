//! How a finished hook's exit code and output read as a [`HookOutcome`], case by case
//! as in Claude Code.

use serde_json::json;

use super::{Decision, HookOutcome, outcome_of_inject};
use crate::hooks::HookEvent;

fn out(event: HookEvent, code: i32, stdout: &str, stderr: &str) -> HookOutcome {
    HookOutcome::from_output(event, Some(code), stdout, stderr)
}

#[test]
fn exit_zero_plain_output() {
    assert_eq!(
        out(HookEvent::PreToolUse, 0, "", ""),
        HookOutcome::default()
    );
    assert_eq!(
        out(HookEvent::PreToolUse, 0, "formatted 3 files\n", ""),
        HookOutcome::default(),
        "plain stdout is only shown"
    );
    for event in [HookEvent::UserPromptSubmit, HookEvent::SessionStart] {
        let o = out(event, 0, "branch: main\n", "");
        assert_eq!(
            o.additional_context.as_deref(),
            Some("branch: main"),
            "{event}"
        );
        assert_eq!(o.decision, None);
        assert_eq!(out(event, 0, "  \n", "").additional_context, None);
    }
    // JSON that is not an object is plain text
    assert_eq!(
        out(HookEvent::UserPromptSubmit, 0, "\"quoted\"", "")
            .additional_context
            .as_deref(),
        Some("\"quoted\"")
    );
}

#[test]
fn exit_two_blocks_with_stderr() {
    let table = [
        (HookEvent::PreToolUse, Decision::Deny),
        (HookEvent::PermissionRequest, Decision::Deny),
        (HookEvent::PostToolUse, Decision::Block),
        (HookEvent::UserPromptSubmit, Decision::Block),
        (HookEvent::Stop, Decision::Block),
        (HookEvent::SubagentStop, Decision::Block),
    ];
    for (event, decision) in table {
        let o = out(event, 2, r#"{"decision": "approve"}"#, "  no rm -rf here\n");
        assert_eq!(o.decision, Some(decision), "{event}");
        assert_eq!(o.reason.as_deref(), Some("no rm -rf here"), "{event}");
        assert!(o.is_blocking());
        assert_eq!(o.error, None);
    }
    let o = out(HookEvent::PreToolUse, 2, "", "");
    assert!(o.reason.unwrap().contains("exit code 2"));
    // events that cannot block only report
    for event in [
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
    ] {
        let o = out(event, 2, "", "oops");
        assert_eq!(o.decision, None, "{event}");
        assert_eq!(o.error.as_deref(), Some("exited with code 2: oops"));
    }
}

#[test]
fn other_exits_are_non_blocking_errors() {
    let o = out(
        HookEvent::PreToolUse,
        1,
        r#"{"decision":"block"}"#,
        "lint failed\n",
    );
    assert_eq!(o.decision, None);
    assert_eq!(o.error.as_deref(), Some("exited with code 1: lint failed"));
    assert!(!o.is_blocking());
    let o = HookOutcome::from_output(HookEvent::Stop, None, "", "");
    assert_eq!(o.error.as_deref(), Some("was killed by a signal"));
    assert_eq!(HookOutcome::failed("x").error.as_deref(), Some("x"));
}

#[test]
fn json_decisions() {
    let table: &[(HookEvent, &str, Option<Decision>, Option<&str>)] = &[
        (
            HookEvent::PreToolUse,
            r#"{"decision": "approve", "reason": "safe"}"#,
            Some(Decision::Allow),
            Some("safe"),
        ),
        (
            HookEvent::PreToolUse,
            r#"{"decision": "block", "reason": "no"}"#,
            Some(Decision::Deny),
            Some("no"),
        ),
        (
            HookEvent::PostToolUse,
            r#"{"decision": "block", "reason": "fix lint"}"#,
            Some(Decision::Block),
            Some("fix lint"),
        ),
        (
            HookEvent::Stop,
            r#"{"decision": "block", "reason": "tests fail"}"#,
            Some(Decision::Block),
            Some("tests fail"),
        ),
        (
            HookEvent::PreToolUse,
            r#"{"decision": "approve", "hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "ask", "permissionDecisionReason": "check it"}}"#,
            Some(Decision::Ask),
            Some("check it"),
        ),
        (
            HookEvent::PreToolUse,
            r#"{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "prod"}}"#,
            Some(Decision::Deny),
            Some("prod"),
        ),
        (
            HookEvent::PreToolUse,
            r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#,
            Some(Decision::Allow),
            None,
        ),
        (
            HookEvent::PermissionRequest,
            r#"{"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "not now"}}}"#,
            Some(Decision::Deny),
            Some("not now"),
        ),
        (HookEvent::PreToolUse, "  {}  \n", None, None),
    ];
    for (event, stdout, decision, reason) in table {
        let o = out(*event, 0, stdout, "ignored stderr");
        assert_eq!(o.decision, *decision, "{stdout}");
        assert_eq!(o.reason.as_deref(), *reason, "{stdout}");
        assert_eq!(o.error, None, "{stdout}");
    }
}

#[test]
fn json_common_and_specific_fields() {
    let o = out(
        HookEvent::PreToolUse,
        0,
        &json!({
            "continue": false,
            "stopReason": "done for today",
            "systemMessage": "careful",
            "suppressOutput": true,
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {"command": "ls -la"},
                "additionalContext": "ran in CI mode"
            }
        })
        .to_string(),
        "",
    );
    assert_eq!(
        o,
        HookOutcome {
            decision: Some(Decision::Allow),
            reason: None,
            continue_: Some(false),
            stop_reason: Some("done for today".into()),
            system_message: Some("careful".into()),
            suppress_output: true,
            updated_input: Some(json!({"command": "ls -la"})),
            additional_context: Some("ran in CI mode".into()),
            error: None,
        }
    );
    // JSON on a prompt event: its context is additionalContext, not the raw stdout
    let o = out(
        HookEvent::UserPromptSubmit,
        0,
        r#"{"hookSpecificOutput": {"additionalContext": "today is Monday"}}"#,
        "",
    );
    assert_eq!(o.additional_context.as_deref(), Some("today is Monday"));
    let o = out(
        HookEvent::PermissionRequest,
        0,
        r#"{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput": {"a": 1}, "interrupt": true}}}"#,
        "",
    );
    assert_eq!(o.decision, Some(Decision::Allow));
    assert_eq!(o.updated_input, Some(json!({"a": 1})));
    assert_eq!(o.continue_, Some(false));
}

#[test]
fn wrong_json_fields_are_noted_not_fatal() {
    let o = out(
        HookEvent::PreToolUse,
        0,
        r#"{"decision": "maybe", "continue": "no", "reason": "r", "hookSpecificOutput": {"updatedInput": "x"}}"#,
        "",
    );
    assert_eq!(o.decision, None);
    assert_eq!(o.continue_, None);
    assert_eq!(o.reason.as_deref(), Some("r"));
    assert_eq!(o.updated_input, None);
    let e = o.error.unwrap();
    assert!(
        e.contains("`decision` should be approve or block, not \"maybe\""),
        "{e}"
    );
    assert!(e.contains("`continue` should be true or false"), "{e}");
    assert!(
        e.contains("`hookSpecificOutput.updatedInput` should be an object"),
        "{e}"
    );
}

#[test]
fn inject_is_additional_context() {
    let o = outcome_of_inject("Remember the style guide.");
    assert_eq!(
        o.additional_context.as_deref(),
        Some("Remember the style guide.")
    );
    assert_eq!(o.decision, None);
}
