//! RooCode `config.yaml` hook entries: what loads, with which provenance, and which
//! problems (with lines) a broken entry gives while its neighbours still load.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::parse_yaml;
use crate::hooks::{HookAction, HookEvent, HookScope, HookSet};

fn parse(text: &str) -> HookSet {
    parse_yaml(
        Path::new("/p/.roocode/config.yaml"),
        text,
        HookScope::Project,
    )
}

/// (line, message) of every problem.
fn problems(set: &HookSet) -> Vec<(Option<usize>, String)> {
    set.problems
        .iter()
        .map(|p| (p.line, p.message.clone()))
        .collect()
}

#[test]
fn loads_entries_with_provenance() {
    let text = r#"model: anthropic/claude-sonnet-4-5
permissions:
  allow: []
hooks:
  - event: post_tool_use
    matcher: "Write|Edit"
    if: tool == "Write" && file_path =~ "\\.rs$"
    action: {type: command, command: "rustfmt $FILE_PATH", timeout: 30}
  - event: user_prompt_submit
    action: {type: inject, text: "Remember the style guide."}
  - event: pre_tool_use
    action:
      type: command
      command: ./check.sh
      timeout: 2.5
"#;
    let set = parse(text);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(set.hooks.len(), 3);

    let fmt = &set.hooks[0];
    assert_eq!(fmt.event, HookEvent::PostToolUse);
    assert_eq!(fmt.matcher.as_ref().unwrap().pattern(), "Write|Edit");
    assert_eq!(
        fmt.condition.as_ref().unwrap().source(),
        r#"tool == "Write" && file_path =~ "\\.rs$""#,
        "a plain YAML scalar keeps its backslashes; the condition unescapes `\\`"
    );
    assert_eq!(
        fmt.action,
        HookAction::Command {
            command: "rustfmt $FILE_PATH".into(),
            timeout: Duration::from_secs(30)
        }
    );
    assert_eq!(fmt.source.path, PathBuf::from("/p/.roocode/config.yaml"));
    assert_eq!(fmt.source.line, 5);
    assert_eq!(fmt.source.index, 0);
    assert_eq!(fmt.source.scope, HookScope::Project);
    assert!(!fmt.source.claude);

    let inject = &set.hooks[1];
    assert_eq!(inject.event, HookEvent::UserPromptSubmit);
    assert_eq!(
        inject.action,
        HookAction::Inject {
            text: "Remember the style guide.".into()
        }
    );
    assert_eq!(inject.source.line, 9);
    assert!(inject.matcher.is_none() && inject.condition.is_none());

    let check = &set.hooks[2];
    assert_eq!(check.source.line, 11);
    assert_eq!(check.source.index, 2);
    assert_eq!(
        check.action,
        HookAction::Command {
            command: "./check.sh".into(),
            timeout: Duration::from_millis(2500)
        }
    );
}

#[test]
fn default_timeout_and_empty_matchers() {
    let set = parse(
        "hooks:\n- event: pre_tool_use\n  matcher: \"\"\n  action: {type: command, command: x}\n\
         - event: PreToolUse\n  matcher: \"*\"\n  action: {type: command, command: y}\n",
    );
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert!(set.hooks[0].matcher.is_none());
    assert!(set.hooks[1].matcher.as_ref().unwrap().matches_all());
    assert_eq!(set.hooks[1].event, HookEvent::PreToolUse);
    assert_eq!(
        set.hooks[0].action,
        HookAction::Command {
            command: "x".into(),
            timeout: Duration::from_secs(60)
        }
    );
}

#[test]
fn no_hooks_is_no_problem() {
    for text in [
        "",
        "# nothing\n",
        "model: x\n",
        "hooks:\n",
        "hooks: []\n",
        "- a\n- b\n",
    ] {
        let set = parse(text);
        assert!(set.hooks.is_empty() && set.problems.is_empty(), "{text:?}");
    }
}

#[test]
fn bad_entries_are_problems_and_good_ones_still_load() {
    let text = r#"hooks:
  - event: post_tool_use
    action: {type: command, command: ok1}
  - event: post_tool_uses
    action: {type: command, command: x}
  - event: stop
    colour: red
    action: {type: inject, text: t}
  - event: pre_tool_use
    matcher: "(("
    action: {type: command, command: x}
  - event: pre_tool_use
    if: tool = "Bash"
    action: {type: command, command: x}
  - event: pre_tool_use
    action:
      type: command
      command: x
      timeout: "30"
  - event: pre_tool_use
    action: {type: script, command: x}
  - event: pre_tool_use
    action: {type: inject, text: t, command: x}
  - just a string
  - event: pre_tool_use
  - event: stop
    matcher: Bash
    action: {type: inject, text: t}
  - event: 3
    action: {type: command, command: ""}
  - action: {command: x}
  - event: session_start
    action: {type: command, command: ok2, timeout: 0}
  - event: session_start
    action: {type: inject, text: ok3}
"#;
    let set = parse(text);
    let commands: Vec<String> = set
        .hooks
        .iter()
        .map(|h| match &h.action {
            HookAction::Command { command, .. } => command.clone(),
            HookAction::Inject { text } => text.clone(),
        })
        .collect();
    assert_eq!(commands, ["ok1", "ok3"]);
    assert_eq!(set.hooks[1].source.index, 14);
    assert_eq!(set.hooks[1].source.line, 34);
    let expected: &[(usize, &str)] = &[
        (
            4,
            "hook #2: unknown event `post_tool_uses` (expected one of session_start, ",
        ),
        (
            7,
            "hook #3: unknown key `colour` (expected event, matcher, if, action)",
        ),
        (
            10,
            "hook #4: `matcher` is not a valid regex for the tool name",
        ),
        (
            13,
            "hook #5: in `if: tool = \"Bash\"` at column 6: `=` alone",
        ),
        (
            19,
            "hook #6: `timeout` must be a positive number of seconds, not the string \"30\"",
        ),
        (
            21,
            "hook #7: unknown action type `script` (expected command or inject)",
        ),
        (
            23,
            "hook #8: unknown key `command` in the `inject` action (expected type, text)",
        ),
        (
            24,
            "hook #9: expected a mapping (event, matcher, if, action), not a string",
        ),
        (25, "hook #10: `action` is missing"),
        (27, "hook #11: `stop` has no matcher"),
        (29, "hook #12: `event` must be a string, not a number"),
        (30, "hook #12: a command action needs a non-empty `command`"),
        (31, "hook #13: `event` is missing"),
        (31, "hook #13: the action has no `type`"),
        (
            33,
            "hook #14: `timeout` must be a positive number of seconds, not 0",
        ),
    ];
    let got = problems(&set);
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
fn broken_yaml_and_a_hooks_key_that_is_not_a_list() {
    let set = parse("hooks:\n  - event: stop\n    action: {type: inject\n");
    assert!(set.hooks.is_empty());
    assert_eq!(set.problems.len(), 1);
    assert!(
        set.problems[0].message.starts_with("invalid YAML"),
        "{:?}",
        set.problems
    );
    assert!(set.problems[0].line.is_some());

    let set = parse("model: x\nhooks: {event: stop}\n");
    assert_eq!(
        problems(&set),
        [(
            Some(2),
            "`hooks` must be a list of entries (`- event: ...`), not a mapping".to_string()
        )]
    );
    assert_eq!(
        set.problems[0].to_string(),
        "/p/.roocode/config.yaml:2: `hooks` must be a list of entries (`- event: ...`), not a mapping"
    );
}
