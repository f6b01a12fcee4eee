//! Tests of the whole gate: the mode matrix, how layers 1, 3 and 4 combine, the plan
//! file, real paths against rules, protected and default branches.

use std::path::{Path, PathBuf};

use super::test_support::{Facts, Judge, Project};
use super::*;

fn command(line: &str) -> Facts {
    Facts::command(line)
}

fn settings(mode: Mode, allow: &[&str], ask: &[&str], deny: &[&str]) -> GateSettings {
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (rules, errors) = Rules::parse(&owned(allow), &owned(ask), &owned(deny));
    assert!(errors.is_empty());
    GateSettings {
        rules,
        ..GateSettings::new(mode)
    }
}

/// A short name for a decision, for tables.
fn short(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

const MODES: [Mode; 5] = [
    Mode::Default,
    Mode::AcceptEdits,
    Mode::Plan,
    Mode::BypassPermissions,
    Mode::DontAsk,
];

fn plan_file(project: &Project) -> PathBuf {
    let dir = project.root.parent().unwrap().join("data/plans");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("session.md")
}

#[test]
fn mode_matrix() {
    let project = Project::new();
    project.write("a.txt", "a\n");
    let plan = plan_file(&project);
    let edit = Facts::writing("Edit", &project.path("a.txt"));
    let write_plan = Facts::writing("Write", &plan);
    let other = Facts::new("TodoWrite");
    let run = command("cargo build");
    let read = Facts::read("a.txt", &project.scope);
    // read, edit in the sandbox, command, plan file write, other tool
    let expected = [
        ["allow", "ask", "ask", "ask", "ask"],
        ["allow", "allow", "ask", "allow", "ask"],
        ["allow", "ask", "ask", "allow", "ask"],
        ["allow", "allow", "allow", "allow", "allow"],
        ["allow", "deny", "deny", "deny", "deny"],
    ];
    for (mode, want) in MODES.iter().zip(expected) {
        let gate = PermissionGate::new(GateSettings {
            plan_file: Some(plan.clone()),
            ..GateSettings::new(*mode)
        });
        let got = [
            short(&gate.judge(&read, &project.scope)),
            short(&gate.judge(&edit, &project.scope)),
            short(&gate.judge(&run, &project.scope)),
            short(&gate.judge(&write_plan, &project.scope)),
            short(&gate.judge(&other, &project.scope)),
        ];
        assert_eq!(got, want, "mode {}", mode.as_str());
    }
}

#[test]
fn dont_ask_says_why() {
    let project = Project::new();
    let gate = PermissionGate::new(Mode::DontAsk);
    let Decision::Deny { reason } = gate.judge(&command("make"), &project.scope) else {
        panic!("not denied")
    };
    assert!(reason.starts_with("Bash wants to run: make"), "{reason}");
    assert!(reason.contains("dontAsk mode"), "{reason}");
}

#[test]
fn dangerous_commands_are_denied_in_every_mode_whatever_the_rules() {
    let project = Project::new();
    for mode in MODES {
        let gate = PermissionGate::new(settings(mode, &["Bash", "Bash(rm -rf /)"], &[], &[]));
        assert_eq!(
            gate.judge(&command("rm -rf /"), &project.scope),
            Decision::Deny {
                reason: "rm -rf / is never allowed: it deletes the root directory /".into()
            },
            "{}",
            mode.as_str()
        );
        let root_by_path = format!("rm -rf {}", project.root.display());
        assert_eq!(
            short(&gate.judge(&command(&root_by_path), &project.scope)),
            "deny"
        );
    }
}

#[test]
fn what_cannot_be_seen_through_is_asked_even_in_bypass() {
    let project = Project::new();
    for line in crate::permission::dangerous::tests::OPAQUE {
        for (mode, want) in [
            (Mode::BypassPermissions, "ask"),
            (Mode::Default, "ask"),
            (Mode::AcceptEdits, "ask"),
            (Mode::DontAsk, "deny"),
        ] {
            // Even a blanket allow rule does not open it.
            let gate = PermissionGate::new(settings(mode, &["Bash", "Bash(eval:*)"], &[], &[]));
            let decision = gate.judge(&command(line), &project.scope);
            assert_eq!(short(&decision), want, "{line} in {}", mode.as_str());
        }
    }
    let gate = PermissionGate::new(Mode::BypassPermissions);
    let Decision::Ask { reason } = gate.judge(&command("eval \"$X\""), &project.scope) else {
        panic!("not asked")
    };
    assert!(reason.contains("cannot check this command"), "{reason}");
    // A deny rule still denies it.
    let gate = PermissionGate::new(settings(
        Mode::BypassPermissions,
        &[],
        &[],
        &["Bash(eval:*)"],
    ));
    assert_eq!(
        short(&gate.judge(&command("eval \"$X\""), &project.scope)),
        "deny"
    );
}

#[test]
fn rules_decide_before_the_mode() {
    let project = Project::new();
    project.write("src/a.rs", "");
    let s = |mode| {
        settings(
            mode,
            &["Bash(git diff:*)", "Edit(src/**)"],
            &["Bash(git push:*)"],
            &["Bash(curl *)"],
        )
    };
    let edit = Facts::writing("Write", &project.path("src/a.rs"));
    for mode in [Mode::Default, Mode::Plan, Mode::DontAsk] {
        let gate = PermissionGate::new(s(mode));
        assert_eq!(
            gate.judge(&command("git diff HEAD"), &project.scope),
            Decision::Allow
        );
        assert_eq!(gate.judge(&edit, &project.scope), Decision::Allow);
    }
    // An explicit ask rule asks even in bypassPermissions.
    let gate = PermissionGate::new(s(Mode::BypassPermissions));
    assert_eq!(
        gate.judge(&command("git push origin x"), &project.scope),
        Decision::Ask {
            reason: "Bash wants to run: git push origin x (rule Bash(git push:*) in your config asks first)".into()
        }
    );
    assert_eq!(
        gate.judge(&command("ls && curl https://x"), &project.scope),
        Decision::Deny {
            reason: "denied by rule Bash(curl *) in your config".into()
        }
    );
    assert_eq!(
        short(&PermissionGate::new(s(Mode::DontAsk)).judge(&command("git push"), &project.scope)),
        "deny"
    );
}

#[test]
fn plan_file_is_allowed_in_plan_mode_and_nothing_else_there() {
    let project = Project::new();
    let plan = plan_file(&project);
    let gate = PermissionGate::new(GateSettings {
        plan_file: Some(plan.clone()),
        ..GateSettings::new(Mode::Plan)
    });
    let write = |p: &Path| gate.judge(&Facts::writing("Write", p), &project.scope);
    assert_eq!(write(&plan), Decision::Allow);
    assert_eq!(
        short(&write(&plan.with_file_name("other.md"))),
        "deny",
        "only the plan file"
    );
    assert_eq!(
        short(&write(&project.path("src/x.rs"))),
        "ask",
        "plan mode asks for edits"
    );
    // A symlink put where the plan file goes does not count as the plan file.
    std::fs::remove_file(&plan).ok();
    std::os::unix::fs::symlink(project.path("victim.txt"), &plan).unwrap();
    assert_ne!(write(&plan), Decision::Allow);
}

#[test]
fn rules_see_real_paths() {
    let project = Project::new();
    project.write("secrets/key", "k");
    std::os::unix::fs::symlink(project.path("secrets"), project.path("innocent")).unwrap();
    let gate = PermissionGate::new(settings(
        Mode::BypassPermissions,
        &[],
        &[],
        &["Read(secrets/**)"],
    ));
    let decision = gate.judge(&Facts::read("innocent/key", &project.scope), &project.scope);
    assert_eq!(short(&decision), "deny");
    // A search of the denied directory itself is denied too.
    let grep = Facts::grep("k", Some("innocent"), &project.scope);
    let decision = gate.judge(&grep, &project.scope);
    assert_eq!(short(&decision), "deny");
    // An allow rule on the link's name does not allow what it points to.
    let gate = PermissionGate::new(settings(Mode::Default, &["Edit(innocent/**)"], &[], &[]));
    let edit = Facts::writing("Edit", &project.path("innocent/key"));
    assert_eq!(short(&gate.judge(&edit, &project.scope)), "ask");
}

#[test]
fn home_rules_use_the_configured_home() {
    let project = Project::new();
    let home = project.root.clone();
    project.write("notes/a.md", "");
    let gate = PermissionGate::new(GateSettings {
        home: Some(home),
        ..settings(Mode::Default, &[], &[], &["Read(~/notes/**)"])
    });
    assert_eq!(
        short(&gate.judge(&Facts::read("notes/a.md", &project.scope), &project.scope)),
        "deny"
    );
}

#[test]
fn protected_and_default_branches() {
    let project = Project::new();
    let gate = PermissionGate::new(GateSettings {
        protected_branches: vec!["develop".into()],
        default_branch: Some("trunk".into()),
        ..GateSettings::new(Mode::BypassPermissions)
    });
    assert_eq!(
        gate.protected_branches(),
        ["main", "master", "trunk", "develop"]
    );
    for line in [
        "git push -f origin develop",
        "git push --force origin trunk",
        "git push -f origin main",
    ] {
        assert_eq!(
            short(&gate.judge(&command(line), &project.scope)),
            "deny",
            "{line}"
        );
    }
    assert_eq!(
        short(&gate.judge(&command("git push -f origin feature"), &project.scope)),
        "allow"
    );
}

#[test]
fn settings_from_config() {
    let user = "permissions:\n  protected_branches: [develop]\n  deny: [\"Bash(curl *)\"]\n";
    let project = "permissions:\n  protected_branches: [release, develop]\n  allow: [\"Bash(curl:*)\", \"Bash(\"]\n";
    let mut config = crate::config::Config::parse(Path::new("u.yaml"), user).unwrap();
    config.merge(crate::config::Config::parse(Path::new("p.yaml"), project).unwrap());
    assert_eq!(
        config.permissions.protected_branches,
        ["develop", "release"]
    );
    let dir = Project::new();
    let (settings, errors) = GateSettings::from_config(&config, Mode::BypassPermissions, &dir.root);
    assert_eq!(errors.len(), 1);
    assert_eq!(settings.protected_branches, ["develop", "release"]);
    let gate = PermissionGate::new(settings);
    assert_eq!(short(&gate.judge(&command("curl x"), &dir.scope)), "deny");
    assert_eq!(
        short(&gate.judge(&command("git push -f origin release"), &dir.scope)),
        "deny"
    );
}
