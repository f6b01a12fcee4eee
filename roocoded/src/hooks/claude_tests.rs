//! Claude Code `settings.json` hooks mapped onto [`HookSpec`]s: events, matchers,
//! timeouts, provenance, and the problems of entries RooCode cannot run.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::parse_claude;
use crate::hooks::{HookAction, HookContext, HookEvent, HookInput, HookScope, HookSet};

fn parse(text: &str) -> HookSet {
    parse_claude(
        Path::new("/p/.claude/settings.json"),
        text,
        HookScope::Local,
    )
}

fn command(set: &HookSet, i: usize) -> (&str, Duration) {
    match &set.hooks[i].action {
        HookAction::Command { command, timeout } => (command, *timeout),
        HookAction::Inject { .. } => panic!("an inject from Claude's settings"),
    }
}

#[test]
fn maps_claude_settings() {
    let text = r#"{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "./guard.sh", "timeout": 30}
        ]
      },
      {
        "matcher": "Write|Edit",
        "hooks": [
          {"type": "command", "command": "a"},
          {"type": "command", "command": "b"}
        ]
      }
    ],
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "date"}]}
    ],
    "Stop": [
      {"matcher": "ignored", "hooks": [{"type": "command", "command": "stop.sh"}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "hello"}]}
    ]
  }
}"#;
    let set = parse(text);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    let pre: Vec<_> = set.for_event(HookEvent::PreToolUse).collect();
    assert_eq!(pre.len(), 3);
    assert_eq!(pre[0].matcher.as_ref().unwrap().pattern(), "Bash");
    assert_eq!(pre[1].matcher.as_ref().unwrap().pattern(), "Write|Edit");
    assert_eq!(pre[2].matcher.as_ref().unwrap().pattern(), "Write|Edit");
    assert_eq!(pre[0].source.line, 8);
    assert_eq!(pre[1].source.line, 14);
    assert_eq!(pre[2].source.line, 15);
    assert!(
        pre.iter()
            .all(|h| h.source.claude && h.source.scope == HookScope::Local)
    );
    assert!(pre.iter().all(|h| h.condition.is_none()));

    let by_command = |c: &str| {
        (0..set.hooks.len())
            .find(|&i| command(&set, i).0 == c)
            .unwrap()
    };
    assert_eq!(
        command(&set, by_command("./guard.sh")).1,
        Duration::from_secs(30)
    );
    assert_eq!(command(&set, by_command("a")).1, Duration::from_secs(60));
    let stop = &set.hooks[by_command("stop.sh")];
    assert_eq!(stop.event, HookEvent::Stop);
    assert!(stop.matcher.is_none(), "Stop takes no matcher: ignored");
    assert_eq!(stop.source.line, 23);
    let start = &set.hooks[by_command("hello")];
    assert_eq!(start.event, HookEvent::SessionStart);
    assert_eq!(start.matcher.as_ref().unwrap().pattern(), "startup");

    // indexes are distinct, and so are ids
    let mut ids: Vec<_> = set.hooks.iter().map(|h| h.id()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), set.hooks.len());

    // the matchers work as Claude Code's
    let ctx = HookContext::default;
    let bash = HookInput::pre_tool_use(ctx(), "Bash", json!({"command": "ls"}));
    let edit = HookInput::pre_tool_use(ctx(), "Edit", json!({"file_path": "x"}));
    let matched = |input: &HookInput| -> Vec<String> {
        set.matching(input)
            .map(|h| match &h.action {
                HookAction::Command { command, .. } => command.clone(),
                HookAction::Inject { text } => text.clone(),
            })
            .collect()
    };
    assert_eq!(matched(&bash), ["./guard.sh"]);
    assert_eq!(matched(&edit), ["a", "b"]);
    assert_eq!(matched(&HookInput::stop(ctx(), false)), ["stop.sh"]);
}

#[test]
fn other_keys_and_no_hooks_are_fine() {
    for text in [
        "{}",
        r#"{"model": "x"}"#,
        r#"{"hooks": {}}"#,
        r#"{"hooks": null}"#,
        "[]",
    ] {
        let set = parse(text);
        assert!(set.hooks.is_empty() && set.problems.is_empty(), "{text}");
    }
}

#[test]
fn problems_name_lines_and_keep_the_good_hooks() {
    let text = r#"{
  "hooks": {
    "PostToolUseFailure": [
      {"hooks": [{"type": "command", "command": "x"}]}
    ],
    "PostToolUse": [
      {"matcher": "((", "hooks": [{"type": "command", "command": "bad-regex"}]},
      {"matcher": "Edit", "hooks": [
        {"type": "prompt", "prompt": "judge it"},
        {"type": "command", "command": "later", "statusMessage": "hi"},
        {"type": "command", "command": "slow", "timeout": "30"},
        {"type": "command"},
        "not an object"
      ]}
    ],
    "Stop": {"hooks": []},
    "Notification": [{"matcher": 3, "hooks": []}]
  }
}"#;
    let set = parse(text);
    let loaded: Vec<_> = (0..set.hooks.len()).map(|i| command(&set, i).0).collect();
    assert_eq!(loaded, ["later"]);
    assert_eq!(set.hooks[0].event, HookEvent::PostToolUse);
    let got: Vec<(Option<usize>, &str)> = set
        .problems
        .iter()
        .map(|p| (p.line, p.message.as_str()))
        .collect();
    let expected: &[(usize, &str)] = &[
        (
            17,
            "`Notification`: `matcher` must be a string, not a number",
        ),
        (7, "`PostToolUse`: matcher `((` is not a valid regex"),
        (9, "`PostToolUse`: hooks of type `prompt` are not supported"),
        (
            10,
            "`PostToolUse`: unknown key `statusMessage` in a hook (ignored)",
        ),
        (
            11,
            "`PostToolUse`: `timeout` must be a positive number of seconds, not \"30\"",
        ),
        (
            12,
            "`PostToolUse`: a command hook needs a non-empty `command` string",
        ),
        (12, "`PostToolUse`: a hook must be an object, not a string"),
        (3, "unknown hook event `PostToolUseFailure`"),
        (16, "`Stop` must be a list of matcher groups"),
    ];
    assert_eq!(got.len(), expected.len(), "{got:#?}");
    for ((line, message), (want_line, want)) in got.iter().zip(expected) {
        assert!(
            message.starts_with(want),
            "{message:?} should start with {want:?}"
        );
        assert_eq!(*line, Some(*want_line), "{message}");
    }
}

#[test]
fn broken_json_names_its_line() {
    let set = parse("{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}");
    assert!(set.hooks.is_empty());
    assert_eq!(set.problems.len(), 1);
    assert_eq!(set.problems[0].line, Some(3));
    assert!(set.problems[0].message.starts_with("invalid JSON"));
    let set = parse(r#"{"hooks": ["PreToolUse"]}"#);
    assert!(
        set.problems[0]
            .message
            .starts_with("`hooks` must be an object")
    );
}
