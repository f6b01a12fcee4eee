//! Protected files against every mode, look-alikes that are not protected, links, rules,
//! RooCode's user directory, `core.hooksPath` and the memory directories.

use super::*;
use crate::memory::MemoryDirs;
use crate::permission::test_support::{Facts, Judge, Project};
use crate::permission::{Decision, GateSettings, Mode, Rules};

const MODES: [Mode; 5] = [
    Mode::Default,
    Mode::AcceptEdits,
    Mode::Plan,
    Mode::BypassPermissions,
    Mode::DontAsk,
];

/// Project-relative paths whose write asks in every mode.
const PROTECTED: [&str; 31] = [
    ".roocode/config.yaml",
    ".roocode/config.local.yaml",
    ".roocode/rules/style.md",
    ".roocode/.gitignore",
    "sub/.roocode/config.yaml",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/agents/reviewer.md",
    ".claude/commands/deploy.md",
    ".claude/skills/pdf/SKILL.md",
    ".mcp.json",
    "tools/.mcp.json",
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    ".git",
    "vendor/lib/.git/config",
    ".gitconfig",
    ".config/git/config",
    ".envrc",
    "web/.envrc",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".idea/workspace.xml",
    ".gitmodules",
    ".bashrc",
    ".profile",
    ".zshrc",
    ".bash_profile",
    ".config/fish/config.fish",
    ".ssh/authorized_keys",
];

/// Look-alikes: ordinary files an agent edits every day.
const ORDINARY: [&str; 14] = [
    "src/main.rs",
    "src/git.rs",
    ".gitignore",
    ".gitattributes",
    ".github/workflows/ci.yml",
    ".roocodex/config.yaml",
    "roocode/config.yaml",
    "settings.json",
    ".claude/notes/review.md",
    ".vscode/launch.json",
    "docs/bashrc.md",
    "profile",
    "my.envrc.example",
    ".config/nvim/init.lua",
];

fn gate(mode: Mode) -> PermissionGate {
    PermissionGate::new(mode)
}

fn decide(gate: &PermissionGate, project: &Project, rel: &str) -> Decision {
    let tool = Facts::writing("Write", &project.path(rel));
    gate.judge(&tool, &project.scope)
}

fn short(d: &Decision) -> &'static str {
    match d {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

#[test]
fn protected_paths_ask_in_every_mode_and_deny_in_dont_ask() {
    let project = Project::new();
    for rel in PROTECTED {
        for mode in MODES {
            let decision = decide(&gate(mode), &project, rel);
            let expected = if mode == Mode::DontAsk { "deny" } else { "ask" };
            assert_eq!(
                short(&decision),
                expected,
                "{rel} in {mode:?}: {decision:?}"
            );
            let (Decision::Ask { reason } | Decision::Deny { reason }) = &decision else {
                unreachable!()
            };
            assert!(reason.contains("a protected file"), "{rel}: {reason}");
        }
    }
}

#[test]
fn ordinary_look_alikes_follow_the_mode() {
    let project = Project::new();
    for rel in ORDINARY {
        let expect = [
            (Mode::Default, "ask"),
            (Mode::AcceptEdits, "allow"),
            (Mode::Plan, "ask"),
            (Mode::BypassPermissions, "allow"),
            (Mode::DontAsk, "deny"),
        ];
        for (mode, expected) in expect {
            let decision = decide(&gate(mode), &project, rel);
            assert_eq!(
                short(&decision),
                expected,
                "{rel} in {mode:?}: {decision:?}"
            );
            if let Decision::Ask { reason } | Decision::Deny { reason } = &decision {
                assert!(!reason.contains("protected"), "{rel}: {reason}");
            }
        }
    }
}

#[test]
fn the_reason_names_the_file_and_why() {
    let project = Project::new();
    let Decision::Ask { reason } = decide(&gate(Mode::BypassPermissions), &project, ".git/config")
    else {
        panic!("expected an ask")
    };
    assert!(reason.contains(".git/config"), "{reason}");
    assert!(reason.contains("make git run programs"), "{reason}");
    assert!(reason.contains("in every mode"), "{reason}");
}

#[test]
fn a_link_to_a_protected_file_is_protected() {
    let project = Project::new();
    project.write(".git/config", "[core]\n");
    std::os::unix::fs::symlink(project.path(".git/config"), project.path("notes.txt")).unwrap();
    std::fs::create_dir(project.path("cfg")).unwrap();
    std::fs::create_dir(project.path("src")).unwrap();
    std::os::unix::fs::symlink(project.path(".roocode"), project.path("cfg/r")).unwrap();
    std::fs::create_dir(project.path(".roocode")).unwrap();
    for rel in ["notes.txt", "cfg/r/config.local.yaml", "src/../.git/config"] {
        let decision = decide(&gate(Mode::AcceptEdits), &project, rel);
        assert_eq!(short(&decision), "ask", "{rel}: {decision:?}");
    }
}

#[test]
fn allow_rules_do_not_skip_the_question_and_deny_rules_deny() {
    let project = Project::new();
    let rules = |allow: &[&str], deny: &[&str]| {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (rules, errors) = Rules::parse(&owned(allow), &[], &owned(deny));
        assert!(errors.is_empty());
        rules
    };
    let allowing = PermissionGate::new(GateSettings {
        rules: rules(&["Write", "Write(.roocode/**)", "Edit(**)"], &[]),
        ..GateSettings::new(Mode::BypassPermissions)
    });
    let decision = decide(&allowing, &project, ".roocode/config.local.yaml");
    assert_eq!(short(&decision), "ask", "{decision:?}");
    let denying = PermissionGate::new(GateSettings {
        rules: rules(&[], &["Write(.git/**)"]),
        ..GateSettings::new(Mode::BypassPermissions)
    });
    let Decision::Deny { reason } = decide(&denying, &project, ".git/config") else {
        panic!("expected a deny")
    };
    assert!(reason.contains("denied by rule"), "{reason}");
}

#[test]
fn the_user_directory_is_protected_wherever_it_lies() {
    let project = Project::new();
    let user_dir = project.path("rh");
    std::fs::create_dir(&user_dir).unwrap();
    let gate = gate(Mode::BypassPermissions).with_user_dir(user_dir);
    for rel in ["rh/config.yaml", "rh/ROOCODE.md", "rh/skills/x/SKILL.md"] {
        assert_eq!(short(&decide(&gate, &project, rel)), "ask", "{rel}");
    }
    assert_eq!(short(&decide(&gate, &project, "rhx/config.yaml")), "allow");
}

#[test]
fn a_workspace_inside_roocode_directories_is_an_ordinary_project() {
    let outer = Project::new();
    let root = outer.path("rh/.roocode/data/worktrees/agent-1");
    std::fs::create_dir_all(&root).unwrap();
    let scope = Scope::new(root.clone(), root.clone());
    let gate = gate(Mode::AcceptEdits).with_user_dir(outer.path("rh/.roocode"));
    let decide = |rel: &str| {
        let tool = Facts::writing("Write", &root.join(rel));
        short(&gate.judge(&tool, &scope))
    };
    assert_eq!(decide("src/main.rs"), "allow");
    assert_eq!(decide(".roocode/config.yaml"), "ask");
    assert_eq!(decide(".git"), "ask");
}

#[test]
fn memory_directories_are_not_protected() {
    let project = Project::new();
    let user_dir = project.path("rh");
    let gate = gate(Mode::AcceptEdits)
        .with_user_dir(user_dir.clone())
        .with_memory_dirs(MemoryDirs::new(&user_dir, &project.root));
    for rel in [".roocode/memory/MEMORY.md", "rh/memory/user_role.md"] {
        assert_eq!(short(&decide(&gate, &project, rel)), "allow", "{rel}");
    }
    assert_eq!(
        short(&decide(&gate, &project, ".roocode/config.yaml")),
        "ask"
    );
}

#[test]
fn the_hooks_path_of_the_repository_is_protected() {
    let project = Project::new();
    project.write(
        ".git/config",
        "[core]\n\tbare = false\n[alias]\n\thooksPath = nope\n[core]\n\thooksPath = \"tools/hooks\" ; set by setup\n",
    );
    let gate = gate(Mode::BypassPermissions);
    let decision = decide(&gate, &project, "tools/hooks/pre-commit");
    assert_eq!(short(&decision), "ask", "{decision:?}");
    assert_eq!(short(&decide(&gate, &project, "nope/x")), "allow");
    assert_eq!(short(&decide(&gate, &project, "tools/build.sh")), "allow");
}

#[test]
fn reads_are_not_protected() {
    let project = Project::new();
    project.write(".roocode/config.yaml", "model: x\n");
    let target = PermissionTarget::Path {
        path: project.path(".roocode/config.yaml"),
        write: false,
    };
    assert_eq!(
        gate(Mode::Default).protected_write(&target, &project.scope),
        None
    );
}

#[test]
fn core_hooks_path_parsing() {
    assert_eq!(
        core_hooks_path("[core]\nhooksPath=.husky\n"),
        Some(".husky".into())
    );
    assert_eq!(
        core_hooks_path("[Core]\n  HOOKSPATH = a b # c\n"),
        Some("a b".into())
    );
    assert_eq!(core_hooks_path("[core \"x\"]\nhooksPath=a\n"), None);
    assert_eq!(core_hooks_path("[user]\nhooksPath=a\n"), None);
    assert_eq!(core_hooks_path("[core]\nhooksPath=\n"), None);
}

#[test]
fn the_plan_file_stays_writable_in_plan_mode_when_it_lies_in_the_user_directory() {
    let project = Project::new();
    let user_dir = project.root.parent().unwrap().join(".roocode");
    let plan = user_dir.join("data/plans/test.md");
    std::fs::create_dir_all(plan.parent().unwrap()).unwrap();
    let settings = GateSettings {
        plan_file: Some(plan.clone()),
        ..GateSettings::new(Mode::Plan)
    };
    let gate = PermissionGate::new(settings).with_user_dir(user_dir.clone());
    let tool = Facts::writing("Write", &plan);
    assert_eq!(gate.judge(&tool, &project.scope), Decision::Allow);
    let target = PermissionTarget::Path {
        path: user_dir.join("config.yaml"),
        write: true,
    };
    assert_eq!(
        gate.protected_write(&target, &project.scope),
        Some(Protected::RooCodeConfig)
    );
}
