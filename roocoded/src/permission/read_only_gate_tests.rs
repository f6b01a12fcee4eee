//! Tests of the gate for agents limited to read-only commands (`Explore`, `Plan`):
//! what the classifier refuses is denied before the mode and the rules are consulted,
//! so neither `bypassPermissions` nor an allow rule lifts it; an agent without the
//! limit is judged as before.

use serde_json::json;

use super::test_support::{Facts, Judge, Project};
use super::*;

const MODES: [Mode; 5] = [
    Mode::Default,
    Mode::AcceptEdits,
    Mode::Plan,
    Mode::BypassPermissions,
    Mode::DontAsk,
];

/// Commands a read-only agent may run (the mode then decides as for anyone).
const READING: &[&str] = &[
    "git log --oneline -5",
    "ls -la",
    "rg foo",
    "cat a.txt | head",
    "ls missing 2>/dev/null || echo none",
    "git log -S foo --oneline -- src",
    "git blame -L 1,2 a.txt",
];

/// Commands it may not, with what the denial names.
const WRITING: &[(&str, &str)] = &[
    ("rm x", "`rm` is not a read-only program"),
    ("git commit -m wip", "`git commit` is not read-only"),
    ("sed -i s/a/b/ a.txt", "`sed` is not a read-only program"),
    ("echo x > f", "writes f through a redirection"),
    ("FOO=1 ls", "sets environment variables"),
    ("ls && touch x", "`touch` is not a read-only program"),
    ("eval \"$CMD\"", "cannot see what it would run"),
];

fn gate(mode: Mode, allow: &[&str], read_only_commands: bool) -> PermissionGate {
    let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
    let (rules, errors) = Rules::parse(&allow, &[], &[]);
    assert!(errors.is_empty(), "{errors:?}");
    PermissionGate::new(GateSettings {
        rules,
        read_only_commands,
        ..GateSettings::new(mode)
    })
}

fn kill_shell() -> Facts {
    Facts {
        tool: "KillShell",
        effect: Effect::RunCommands,
        target: PermissionTarget::None,
        input: json!({ "bash_id": "bash_1" }),
    }
}

fn is_read_only_denial(decision: &Decision) -> bool {
    matches!(decision, Decision::Deny { reason }
        if reason.contains("This agent can only run read-only commands"))
}

#[test]
fn writing_commands_are_denied_whatever_the_mode_and_rules() {
    let project = Project::new();
    for mode in MODES {
        for allow in [&[][..], &["Bash(*)"], &["Bash"]] {
            let gate = gate(mode, allow, true);
            for (line, why) in WRITING {
                let decision = gate.judge(&Facts::command(line), &project.scope);
                let Decision::Deny { reason } = &decision else {
                    panic!("{line} in {} with {allow:?}: {decision:?}", mode.as_str());
                };
                assert!(
                    reason.starts_with(&format!("`{line}` is not a read-only command: ")),
                    "{reason}"
                );
                assert!(reason.contains(why), "{line}: {reason}");
                assert!(is_read_only_denial(&decision), "{reason}");
            }
            assert!(
                is_read_only_denial(&gate.judge(&kill_shell(), &project.scope)),
                "KillShell in {}",
                mode.as_str()
            );
        }
    }
}

#[test]
fn reading_commands_are_left_to_the_mode_and_rules() {
    let project = Project::new();
    project.write("a.txt", "a\n");
    for mode in MODES {
        let limited = gate(mode, &[], true);
        let unlimited = gate(mode, &[], false);
        for line in READING {
            let facts = Facts::command(line);
            let decision = limited.judge(&facts, &project.scope);
            assert!(!is_read_only_denial(&decision), "{line}: {decision:?}");
            assert_eq!(
                decision,
                unlimited.judge(&facts, &project.scope),
                "{line} in {}",
                mode.as_str()
            );
        }
    }
    // An allow rule allows them, as for any agent; bypass too.
    let allowed = gate(Mode::Default, &["Bash(*)"], true);
    let bypass = gate(Mode::BypassPermissions, &[], true);
    for line in READING {
        let facts = Facts::command(line);
        assert_eq!(
            allowed.judge(&facts, &project.scope),
            Decision::Allow,
            "{line}"
        );
        assert_eq!(
            bypass.judge(&facts, &project.scope),
            Decision::Allow,
            "{line}"
        );
    }
}

#[test]
fn an_agent_without_the_limit_is_unchanged() {
    let project = Project::new();
    for (line, _) in WRITING.iter().filter(|(l, _)| !l.starts_with("eval")) {
        let facts = Facts::command(line);
        assert_eq!(
            gate(Mode::BypassPermissions, &[], false).judge(&facts, &project.scope),
            Decision::Allow,
            "{line}"
        );
        assert_eq!(
            gate(Mode::Default, &["Bash(*)"], false).judge(&facts, &project.scope),
            Decision::Allow,
            "{line}"
        );
        assert!(matches!(
            gate(Mode::Default, &[], false).judge(&facts, &project.scope),
            Decision::Ask { .. }
        ));
    }
    assert_eq!(
        gate(Mode::BypassPermissions, &[], false).judge(&kill_shell(), &project.scope),
        Decision::Allow
    );
}

#[test]
fn tools_that_run_nothing_are_not_affected() {
    let project = Project::new();
    project.write("a.txt", "a\n");
    let gate = gate(Mode::AcceptEdits, &[], true);
    assert_eq!(
        gate.judge(&Facts::read("a.txt", &project.scope), &project.scope),
        Decision::Allow
    );
    // What keeps a read-only agent from writing files is its tool set, not this rule.
    assert_eq!(
        gate.judge(
            &Facts::writing("Edit", &project.path("a.txt")),
            &project.scope
        ),
        Decision::Allow
    );
}

#[test]
fn a_long_command_is_shown_shortened() {
    let project = Project::new();
    let line = format!("touch {}", "é".repeat(300));
    let Decision::Deny { reason } =
        gate(Mode::BypassPermissions, &[], true).judge(&Facts::command(&line), &project.scope)
    else {
        panic!("not denied")
    };
    assert!(
        reason.starts_with(&format!("`touch {}…` is not", "é".repeat(194))),
        "{reason}"
    );
    assert!(reason.len() < 1000, "{reason}");
}

#[test]
fn dangerous_commands_keep_their_own_reason() {
    let project = Project::new();
    let decision = gate(Mode::BypassPermissions, &["Bash(*)"], true)
        .judge(&Facts::command("rm -rf /"), &project.scope);
    assert_eq!(
        decision,
        Decision::Deny {
            reason: "rm -rf / is never allowed: it deletes the root directory /".into()
        }
    );
}
