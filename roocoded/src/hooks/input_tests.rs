//! The event JSON in Claude Code's shape, per event, and the flat fields conditions see.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{HookContext, HookInput};
use crate::hooks::{CompactTrigger, SessionSource};

fn ctx() -> HookContext {
    HookContext {
        session_id: "s1".into(),
        cwd: PathBuf::from("/p"),
        transcript_path: String::new(),
        permission_mode: "default".into(),
        agent: None,
    }
}

#[test]
fn pre_tool_use_json_is_claude_shaped() {
    let input = HookInput::pre_tool_use(
        ctx(),
        "Write",
        json!({"file_path": "/p/a.rs", "content": "x"}),
    )
    .with_tool_use_id("toolu_1");
    assert_eq!(
        input.to_json(),
        json!({
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "transcript_path": "",
            "cwd": "/p",
            "permission_mode": "default",
            "tool_name": "Write",
            "tool_input": {"file_path": "/p/a.rs", "content": "x"},
            "tool_use_id": "toolu_1",
        })
    );
}

#[test]
fn per_event_keys() {
    let table: Vec<(HookInput, Value)> = vec![
        (
            HookInput::session_start(ctx(), SessionSource::Resume),
            json!({"source": "resume"}),
        ),
        (
            HookInput::session_end(ctx(), "clear"),
            json!({"reason": "clear"}),
        ),
        (
            HookInput::user_prompt_submit(ctx(), "hi"),
            json!({"prompt": "hi"}),
        ),
        (
            HookInput::post_tool_use(
                ctx(),
                "Bash",
                json!({"command": "ls"}),
                json!({"stdout": "a"}),
            ),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}}),
        ),
        (
            HookInput::permission_request(ctx(), "Bash", json!({})),
            json!({"tool_name": "Bash", "tool_input": {}}),
        ),
        (
            HookInput::stop(ctx(), true),
            json!({"stop_hook_active": true}),
        ),
        (
            HookInput::subagent_stop(ctx(), false),
            json!({"stop_hook_active": false}),
        ),
        (
            HookInput::pre_compact(ctx(), CompactTrigger::Manual, "keep tests"),
            json!({"trigger": "manual", "custom_instructions": "keep tests"}),
        ),
        (
            HookInput::notification(ctx(), "waiting", Some("idle_prompt".into())),
            json!({"message": "waiting", "notification_type": "idle_prompt"}),
        ),
    ];
    for (input, own) in table {
        let mut expected = json!({
            "hook_event_name": input.event().claude_name(),
            "session_id": "s1", "transcript_path": "", "cwd": "/p", "permission_mode": "default",
        });
        for (k, v) in own.as_object().unwrap() {
            expected[k] = v.clone();
        }
        assert_eq!(input.to_json(), expected, "{}", input.event());
    }
}

#[test]
fn fields_are_flat_strings() {
    let mut c = ctx();
    c.agent = Some("explorer".into());
    let input = HookInput::post_tool_use(
        c,
        "Edit",
        json!({"file_path": "/p/a.rs", "replace_all": true, "prompt": "from input", "opts": {"n": 1, "deep": {"x": "y"}}}),
        json!({"ok": true}),
    );
    let f = input.fields();
    let get = |k: &str| f.get(k).map(String::as_str);
    assert_eq!(get("event"), Some("post_tool_use"));
    assert_eq!(get("tool"), Some("Edit"));
    assert_eq!(get("agent"), Some("explorer"));
    assert_eq!(get("cwd"), Some("/p"));
    assert_eq!(get("file_path"), Some("/p/a.rs"));
    assert_eq!(get("replace_all"), Some("true"));
    // a tool_input key fills an event key the event does not have
    assert_eq!(get("prompt"), Some("from input"));
    assert_eq!(get("opts"), Some(r#"{"deep":{"x":"y"},"n":1}"#));
    assert_eq!(get("tool_input.file_path"), Some("/p/a.rs"));
    assert_eq!(get("tool_input.opts.n"), Some("1"));
    assert_eq!(get("tool_input.opts.deep.x"), Some("y"));
    assert_eq!(get("tool_response.ok"), Some("true"));
    assert_eq!(get("source"), None);

    let prompt = HookInput::user_prompt_submit(ctx(), "fix it");
    assert_eq!(
        prompt.fields().get("prompt").map(String::as_str),
        Some("fix it")
    );
    assert_eq!(prompt.fields().get("tool"), None);
}

#[test]
fn event_keys_win_over_tool_input_keys() {
    let input = HookInput::pre_tool_use(ctx(), "X", json!({"tool": "shadow", "cwd": "/elsewhere"}));
    let f = input.fields();
    assert_eq!(f["tool"], "X");
    assert_eq!(f["cwd"], "/p");
    assert_eq!(f["tool_input.tool"], "shadow");
}

#[test]
fn matcher_values() {
    assert_eq!(
        HookInput::pre_tool_use(ctx(), "Bash", json!({})).matcher_value(),
        Some("Bash")
    );
    assert_eq!(
        HookInput::session_start(ctx(), SessionSource::Compact).matcher_value(),
        Some("compact")
    );
    assert_eq!(
        HookInput::pre_compact(ctx(), CompactTrigger::Auto, "").matcher_value(),
        Some("auto")
    );
    assert_eq!(HookInput::stop(ctx(), false).matcher_value(), None);
}
