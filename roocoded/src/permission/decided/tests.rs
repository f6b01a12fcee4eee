//! Tests of [`DecidedBy`] as data: every variant's JSON carries its layer as the tag and
//! reads back the same; the sentences of the layers the agent loop records.

use std::path::PathBuf;

use super::*;
use crate::config::RuleOrigin;

fn rule(kind: RuleKind) -> DecidedBy {
    DecidedBy::UserRule {
        kind,
        rule: "Bash(cargo test:*)".into(),
        origin: Some(RuleOrigin::new("/p/.roocode/config.yaml", 7)),
    }
}

fn client(kind: &str, pid: Option<u32>) -> roocode_protocol::event::DecidedBy {
    roocode_protocol::event::DecidedBy {
        kind: kind.into(),
        pid,
    }
}

/// One of each variant.
fn every_variant() -> Vec<DecidedBy> {
    vec![
        DecidedBy::Dangerous {
            finding: "rm -rf / deletes everything".into(),
        },
        DecidedBy::ReadOnlyAgent {
            why: "`touch x` is not a read-only command".into(),
        },
        DecidedBy::PathSandbox {
            reason: "path /etc/passwd is outside the project root /p".into(),
        },
        DecidedBy::Credentials {
            path: "/p/.env".into(),
            why: Why::Name {
                pattern: ".env".into(),
            },
        },
        DecidedBy::HardLink {
            path: "/p/x".into(),
            links: 2,
            write: true,
        },
        DecidedBy::PrivateAddress {
            host: "127.0.0.1".into(),
            class: AddressClass::Loopback,
        },
        DecidedBy::Protected {
            path: "/p/.envrc".into(),
            class: Protected::RunBy(super::super::protected::Runner::Direnv),
        },
        DecidedBy::OpaqueCommand {
            why: "a substitution".into(),
        },
        rule(RuleKind::Allow),
        DecidedBy::Mode {
            mode: Mode::AcceptEdits,
            case: ModeCase::FileEdit,
        },
        DecidedBy::NoOsSandbox {
            before: Box::new(rule(RuleKind::Allow)),
        },
        DecidedBy::Hook {
            point: HookPoint::PreToolUse,
            hook: Some("./check.sh".into()),
            reason: Some("prod".into()),
            before: Some(Box::new(rule(RuleKind::Allow))),
        },
        DecidedBy::Human {
            answer: HumanAnswer::AllowOnce,
            answered_by: client("tui", Some(4242)),
            asked: Box::new(DecidedBy::Mode {
                mode: Mode::Default,
                case: ModeCase::Other,
            }),
        },
        DecidedBy::SandboxStopped {
            path: Some(PathBuf::from("/etc/hosts")),
        },
    ]
}

#[test]
fn json_is_tagged_with_the_layer_and_reads_back() {
    let all = every_variant();
    let mut layers: Vec<&str> = all.iter().map(DecidedBy::layer).collect();
    for by in &all {
        let value = serde_json::to_value(by).unwrap();
        assert_eq!(value["layer"], by.layer(), "{value}");
        let back: DecidedBy = serde_json::from_value(value).unwrap();
        assert_eq!(&back, by);
        assert!(!by.explain().is_empty());
    }
    layers.sort_unstable();
    layers.dedup();
    assert_eq!(layers.len(), all.len(), "one layer name per variant");
}

#[test]
fn a_rule_names_its_file_and_line() {
    assert_eq!(
        rule(RuleKind::Allow).explain(),
        "allowed by rule `Bash(cargo test:*)` in /p/.roocode/config.yaml line 7"
    );
    assert_eq!(
        rule(RuleKind::Deny).explain(),
        "denied by rule `Bash(cargo test:*)` in /p/.roocode/config.yaml line 7"
    );
    let value = serde_json::to_value(rule(RuleKind::Ask)).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "layer": "rule",
            "kind": "ask",
            "rule": "Bash(cargo test:*)",
            "origin": {"file": "/p/.roocode/config.yaml", "line": 7},
        })
    );
}

#[test]
fn hooks_people_and_the_os_sandbox_explain_themselves() {
    let hook = DecidedBy::Hook {
        point: HookPoint::PreToolUse,
        hook: Some("./check.sh".into()),
        reason: Some("not on prod".into()),
        before: Some(Box::new(rule(RuleKind::Allow))),
    };
    assert_eq!(
        hook.explain(),
        "decided by a pre_tool_use hook (./check.sh), which said: not on prod; the \
         permission layer had allowed by rule `Bash(cargo test:*)` in \
         /p/.roocode/config.yaml line 7"
    );
    let human = DecidedBy::Human {
        answer: HumanAnswer::Deny,
        answered_by: client("cli", None),
        asked: Box::new(DecidedBy::Mode {
            mode: Mode::Default,
            case: ModeCase::Other,
        }),
    };
    assert_eq!(
        human.explain(),
        "denied by the user in cli, asked by the mode: default asks before a command or \
         another tool that acts"
    );
    assert_eq!(
        DecidedBy::SandboxStopped { path: None }.explain(),
        "stopped by the OS sandbox while it ran"
    );
}

#[test]
fn a_deny_of_an_asking_layer_is_the_dont_ask_mode() {
    let protected = DecidedBy::Protected {
        path: "/p/.git/config".into(),
        class: Protected::Git,
    };
    let denied = Decided::new(Decision::Deny { reason: "x".into() }, protected.clone());
    assert!(
        denied
            .explain()
            .ends_with("dontAsk mode, which denies whatever would be asked")
    );
    let asked = Decided::new(Decision::Ask { reason: "x".into() }, protected);
    assert_eq!(asked.explain(), asked.by.explain());
    // A deny rule denies by itself.
    let by_rule = Decided::new(Decision::Deny { reason: "x".into() }, rule(RuleKind::Deny));
    assert_eq!(by_rule.explain(), by_rule.by.explain());
}
