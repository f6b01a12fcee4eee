//! Every [`DecidedBy`] the gate gives, each reached by a real check: the layer it names,
//! the details it keeps (a rule's file and line from real config files) and the
//! sentence `trace --why` shows.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::test_support::{Facts, Judge, Project};
use super::*;
use crate::config::RuleOrigin;

fn settings(mode: Mode, allow: &[&str], ask: &[&str], deny: &[&str]) -> GateSettings {
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (rules, errors) = Rules::parse(&owned(allow), &owned(ask), &owned(deny));
    assert!(errors.is_empty());
    GateSettings {
        rules,
        ..GateSettings::new(mode)
    }
}

fn gate(mode: Mode) -> PermissionGate {
    PermissionGate::new(mode)
}

fn short(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

/// The answer's short form, its layer and its sentence.
fn seen(decided: &Decided) -> (&'static str, &'static str, String) {
    (
        short(&decided.decision),
        decided.by.layer(),
        decided.explain(),
    )
}

#[test]
fn a_dangerous_command_is_denied_by_layer_one() {
    let project = Project::new();
    let decided =
        gate(Mode::BypassPermissions).judge_decided(&Facts::command("rm -rf /"), &project.scope);
    let DecidedBy::Dangerous { finding } = &decided.by else {
        panic!("{decided:?}");
    };
    assert_eq!(
        decided.decision,
        Decision::Deny {
            reason: finding.clone()
        }
    );
    let (answer, layer, why) = seen(&decided);
    assert_eq!((answer, layer), ("deny", "dangerous"));
    assert!(why.starts_with("denied as a dangerous command"), "{why}");
}

#[test]
fn a_read_only_agent_running_a_command_is_denied() {
    let project = Project::new();
    let gate = PermissionGate::new(GateSettings {
        read_only_commands: true,
        ..settings(Mode::BypassPermissions, &["Bash"], &[], &[])
    });
    let decided = gate.judge_decided(&Facts::command("touch x"), &project.scope);
    let DecidedBy::ReadOnlyAgent { why } = &decided.by else {
        panic!("{decided:?}");
    };
    assert!(
        why.starts_with("`touch x` is not a read-only command"),
        "{why}"
    );
    assert_eq!(seen(&decided).0, "deny");
    assert_eq!(decided.by.layer(), "read_only_agent");
}

#[test]
fn a_path_outside_the_project_is_denied_by_the_sandbox() {
    let project = Project::new();
    let decided = gate(Mode::BypassPermissions)
        .judge_decided(&Facts::read("/etc/passwd", &project.scope), &project.scope);
    let reason = format!(
        "path /etc/passwd is outside the project root {}",
        project.root.display()
    );
    assert_eq!(
        decided.by,
        DecidedBy::PathSandbox {
            reason: reason.clone()
        }
    );
    assert_eq!(decided.decision, Decision::Deny { reason });
    assert!(
        decided
            .explain()
            .starts_with("denied by the path sandbox (the project and the additional directories)")
    );
}

#[test]
fn a_credential_file_is_asked_and_says_why() {
    let project = Project::new();
    project.write(".env", "KEY=1\n");
    let read = Facts::read(".env", &project.scope);
    let decided = gate(Mode::Default).judge_decided(&read, &project.scope);
    assert_eq!(
        decided.by,
        DecidedBy::Credentials {
            path: project.path(".env"),
            why: secrets::Why::Name {
                pattern: ".env".into()
            },
        }
    );
    assert_eq!(seen(&decided).0, "ask");
    // In dontAsk the same layer denies, and the sentence says the mode made it so.
    let decided = gate(Mode::DontAsk).judge_decided(&read, &project.scope);
    let (answer, layer, why) = seen(&decided);
    assert_eq!((answer, layer), ("deny", "credentials"));
    assert!(
        why.contains("usually holds credentials (its name matches `.env`)"),
        "{why}"
    );
    assert!(
        why.ends_with("dontAsk mode, which denies whatever would be asked"),
        "{why}"
    );
}

#[test]
fn a_hard_linked_file_is_asked() {
    let project = Project::new();
    let outside = project.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "s\n").unwrap();
    std::fs::hard_link(outside.join("secret"), project.path("x")).unwrap();
    let write = Facts::writing("Edit", &project.path("x"));
    let decided = gate(Mode::BypassPermissions).judge_decided(&write, &project.scope);
    assert_eq!(
        decided.by,
        DecidedBy::HardLink {
            path: project.path("x"),
            links: 2,
            write: true,
        }
    );
    assert_eq!(seen(&decided).0, "ask");
    let read = Facts::read("x", &project.scope);
    let decided = gate(Mode::Default).judge_decided(&read, &project.scope);
    assert!(
        matches!(decided.by, DecidedBy::HardLink { write: false, .. }),
        "{decided:?}"
    );
    // An allow rule naming the file reads it: then the rule decided.
    let allowing = PermissionGate::new(settings(Mode::Default, &["Read(/x)"], &[], &[]));
    let decided = allowing.judge_decided(&read, &project.scope);
    assert_eq!(seen(&decided).0, "allow");
    assert_eq!(decided.by.layer(), "rule");
}

#[test]
fn a_local_address_is_asked_unless_a_rule_names_the_host() {
    let project = Project::new();
    let fetch = Facts::fetch("http://127.0.0.1:8080/docs");
    let decided = gate(Mode::BypassPermissions).judge_decided(&fetch, &project.scope);
    assert_eq!(
        decided.by,
        DecidedBy::PrivateAddress {
            host: "127.0.0.1".into(),
            class: network::AddressClass::Loopback,
        }
    );
    assert_eq!(seen(&decided).0, "ask");
    assert!(
        decided
            .explain()
            .starts_with("asked because 127.0.0.1 is a loopback address")
    );
    let named = PermissionGate::new(settings(
        Mode::Default,
        &["WebFetch", "WebFetch(domain:localhost)"],
        &[],
        &[],
    ));
    let decided = named.judge_decided(&fetch, &project.scope);
    assert_eq!(decided.decision, Decision::Allow);
    // The rule that names the host, not the bare `WebFetch` before it.
    assert_eq!(
        decided.by,
        DecidedBy::UserRule {
            kind: RuleKind::Allow,
            rule: "WebFetch(domain:localhost)".into(),
            origin: None,
        }
    );
}

#[test]
fn a_protected_file_is_asked_with_its_class() {
    let project = Project::new();
    let write = Facts::writing("Write", &project.path(".roocode/config.yaml"));
    let decided = gate(Mode::BypassPermissions).judge_decided(&write, &project.scope);
    assert_eq!(
        decided.by,
        DecidedBy::Protected {
            path: project.path(".roocode/config.yaml"),
            class: protected::Protected::RooCodeConfig,
        }
    );
    assert_eq!(seen(&decided).0, "ask");
    let write = Facts::writing("Write", &project.path(".envrc"));
    let decided = gate(Mode::AcceptEdits).judge_decided(&write, &project.scope);
    assert!(
        matches!(
            decided.by,
            DecidedBy::Protected {
                class: protected::Protected::RunBy(protected::Runner::Direnv),
                ..
            }
        ),
        "{decided:?}"
    );
    assert!(
        decided
            .explain()
            .contains("a file direnv reads to run commands")
    );
}

#[test]
fn a_command_that_cannot_be_seen_through_is_asked() {
    let project = Project::new();
    let decided =
        gate(Mode::BypassPermissions).judge_decided(&Facts::command("eval \"$X\""), &project.scope);
    assert!(
        matches!(decided.by, DecidedBy::OpaqueCommand { .. }),
        "{decided:?}"
    );
    let (answer, layer, why) = seen(&decided);
    assert_eq!((answer, layer), ("ask", "opaque_command"));
    assert!(why.starts_with("asked because RooCode cannot check this command"));
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project whose user and project config files hold rules at known lines.
fn configured(mode: Mode) -> (Project, tempfile::TempDir, PermissionGate) {
    let project = Project::new();
    let user = tempfile::tempdir().unwrap();
    write(
        &user.path().join("config.yaml"),
        "# the user's config\nmodel: a/b\npermissions:\n  allow:\n    - \"Bash(cargo test:*)\"\n  ask: [\"Bash(git push:*)\"]\n",
    );
    write(
        &project.path(".roocode/config.yaml"),
        "permissions:\n  deny:\n    - Bash(curl *)\n  allow: [Read,\n          \"Bash(cargo test:*)\"]\n",
    );
    let config = crate::config::Config::load(user.path(), &project.root).unwrap();
    let (settings, errors) = GateSettings::from_config(&config, mode, &project.root);
    assert!(errors.is_empty(), "{errors:?}");
    (project, user, PermissionGate::new(settings))
}

#[test]
fn a_user_rule_says_its_text_file_and_line() {
    let (project, user, gate) = configured(Mode::Default);
    let user_file = user.path().join("config.yaml");
    let project_file = project.path(".roocode/config.yaml");
    let decided = gate.judge_decided(&Facts::command("cargo test -p x"), &project.scope);
    assert_eq!(decided.decision, Decision::Allow);
    assert_eq!(
        decided.by,
        DecidedBy::UserRule {
            kind: RuleKind::Allow,
            rule: "Bash(cargo test:*)".into(),
            origin: Some(RuleOrigin::new(user_file.clone(), 5)),
        }
    );
    assert_eq!(
        decided.explain(),
        format!(
            "allowed by rule `Bash(cargo test:*)` in {} line 5",
            user_file.display()
        )
    );
    let decided = gate.judge_decided(&Facts::command("git push origin x"), &project.scope);
    assert_eq!(seen(&decided).0, "ask");
    assert_eq!(
        decided.explain(),
        format!(
            "asked because of rule `Bash(git push:*)` in {} line 6",
            user_file.display()
        )
    );
    let decided = gate.judge_decided(&Facts::command("curl https://x.y"), &project.scope);
    assert_eq!(
        decided.by,
        DecidedBy::UserRule {
            kind: RuleKind::Deny,
            rule: "Bash(curl *)".into(),
            origin: Some(RuleOrigin::new(project_file.clone(), 3)),
        }
    );
    assert_eq!(
        decided.decision,
        Decision::Deny {
            reason: "denied by rule Bash(curl *) in your config".into()
        }
    );
    // A rule of a flow list, on the list's first line.
    project.write("a.txt", "a\n");
    let decided = gate.judge_decided(
        &Facts::builtin("Glob", json!({"pattern": "*"}), &project.scope),
        &project.scope,
    );
    assert_eq!(
        decided.by,
        DecidedBy::UserRule {
            kind: RuleKind::Allow,
            rule: "Read".into(),
            origin: Some(RuleOrigin::new(project_file, 4)),
        }
    );
}

#[test]
fn the_mode_decides_what_nothing_else_did() {
    let project = Project::new();
    project.write("a.txt", "a\n");
    let edit = Facts::writing("Edit", &project.path("a.txt"));
    let table = [
        (
            Mode::Default,
            "ask",
            "asked by the mode: default asks before a file edit",
        ),
        (
            Mode::AcceptEdits,
            "allow",
            "allowed by the mode: acceptEdits allows a file edit",
        ),
        (
            Mode::DontAsk,
            "deny",
            "denied by the mode: dontAsk denies a file edit, which would be asked",
        ),
    ];
    for (mode, answer, sentence) in table {
        let decided = gate(mode).judge_decided(&edit, &project.scope);
        assert_eq!(
            decided.by,
            DecidedBy::Mode {
                mode,
                case: ModeCase::FileEdit
            }
        );
        assert_eq!(seen(&decided), (answer, "mode", sentence.to_string()));
    }
    let read =
        gate(Mode::DontAsk).judge_decided(&Facts::read("a.txt", &project.scope), &project.scope);
    assert_eq!(
        read.by,
        DecidedBy::Mode {
            mode: Mode::DontAsk,
            case: ModeCase::ReadOnly
        }
    );
    assert_eq!(read.decision, Decision::Allow);
    let fetch =
        gate(Mode::Default).judge_decided(&Facts::fetch("https://docs.rs/x"), &project.scope);
    assert_eq!(
        fetch.by,
        DecidedBy::Mode {
            mode: Mode::Default,
            case: ModeCase::Network
        }
    );
}

#[test]
fn the_plan_file_is_the_modes_case_too() {
    let project = Project::new();
    let dir: PathBuf = project.root.parent().unwrap().join("data/plans");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = dir.join("session.md");
    let gate = PermissionGate::new(GateSettings {
        plan_file: Some(plan.clone()),
        ..GateSettings::new(Mode::Plan)
    });
    let decided = gate.judge_decided(&Facts::writing("Write", &plan), &project.scope);
    assert_eq!(
        seen(&decided),
        (
            "allow",
            "mode",
            "allowed by the mode: plan allows a write of the plan file".to_string()
        )
    );
}

#[test]
fn leaving_the_os_sandbox_is_its_own_question() {
    let project = Project::new();
    let gate = PermissionGate::new(settings(Mode::Default, &["Bash(make:*)"], &[], &[]));
    let input = json!({"command": "make install", "dangerously_disable_sandbox": true});
    let target = PermissionTarget::Command("make install".into());
    let call = Call {
        tool: "Bash",
        effect: Effect::RunCommands,
        target: &target,
        input: &input,
        unsandboxed: true,
    };
    let place = Place {
        scope: &project.scope,
        shell_cwd: &project.root,
        confined: true,
    };
    let decided = gate.check_decided(&call, &place);
    assert_eq!(
        decided.by,
        DecidedBy::NoOsSandbox {
            before: Box::new(DecidedBy::UserRule {
                kind: RuleKind::Allow,
                rule: "Bash(make:*)".into(),
                origin: None,
            })
        }
    );
    let (answer, layer, why) = seen(&decided);
    assert_eq!((answer, layer), ("ask", "os_sandbox"));
    assert!(
        why.ends_with("before that it was allowed by rule `Bash(make:*)` (in no config file)"),
        "{why}"
    );
    // `check` gives the same answer.
    assert_eq!(gate.check(&call, &place), decided.decision);
    // Without a sandbox to leave, the rule decides.
    let place = Place {
        confined: false,
        ..place
    };
    assert_eq!(gate.check_decided(&call, &place).by.layer(), "rule");
}

#[test]
fn the_record_is_json_with_layer_and_why() {
    let (project, user, gate) = configured(Mode::Default);
    let decided = gate.judge_decided(&Facts::command("cargo test"), &project.scope);
    let record = decided.record();
    let file = user.path().join("config.yaml");
    assert_eq!(
        record,
        json!({
            "layer": "rule",
            "kind": "allow",
            "rule": "Bash(cargo test:*)",
            "origin": {"file": file, "line": 5},
            "why": decided.explain(),
        })
    );
    let back: DecidedBy = serde_json::from_value(record).unwrap();
    assert_eq!(back, decided.by);
}
