//! The tool-set layers as a table: each row an agent and a configuration, and the
//! exact set it gets.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::tools::test_support::{BUILTIN_NAMES, FakeTool, Project};

/// The built-ins plus an MCP tool (as a fake), so every layer has something to remove.
fn registry() -> Arc<Registry> {
    let mut r = Registry::with_builtins();
    let schema = json!({"type": "object", "properties": {}});
    r.register(Arc::new(FakeTool::new("mcp__github__search", schema)))
        .unwrap();
    Arc::new(r)
}

/// A selection of `kind` under `disabled` and `bash`, with no definition, for an agent
/// in plan mode (so that only the other layers take `ExitPlanMode` away).
fn sel(kind: AgentKind, disabled: &[String], bash: Option<bool>) -> Selection<'_> {
    Selection {
        kind,
        disabled,
        bash,
        custom_disallowed: &[],
        allowed: None,
        disallowed: &[],
        planning: true,
        leading: true,
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(ToString::to_string).collect()
}

/// Every tool of [`registry`]: the built-ins, then the MCP tool.
fn all() -> Vec<&'static str> {
    let mut all = BUILTIN_NAMES.to_vec();
    all.push("mcp__github__search");
    all
}

fn without(remove: &[&str]) -> Vec<&'static str> {
    all().into_iter().filter(|n| !remove.contains(n)).collect()
}

/// Every code tool of [`registry`]: what a coordinator never gets.
const CODE_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "Bash",
    "BashOutput",
    "KillShell",
    "WebFetch",
    "mcp__github__search",
];

#[test]
fn the_layers_as_a_table() {
    let registry = registry();
    let none: Vec<String> = Vec::new();
    let web = strings(&["WebFetch"]);
    let ask = strings(&["AskUserQuestion"]);
    let custom_off = strings(&["Bash", "WebFetch"]);
    let reviewer = strings(&["Read", "Grep", "Glob", "AskUserQuestion", "Nonexistent"]);
    let no_write = strings(&["Write", "Edit"]);
    let child = |custom, background| AgentKind::Child { custom, background };
    let (none, web) = (&none[..], &web[..]);

    let rows: Vec<(&str, Selection<'_>, Vec<&str>)> = vec![
        (
            "main, nothing disabled",
            sel(AgentKind::Main, none, None),
            all(),
        ),
        (
            "main that leads no team: TeamCreate, but no tool that works on a team",
            sel(AgentKind::Main, none, None).leading(false),
            without(TEAM_TOOLS),
        ),
        (
            "main, outside plan mode: no ExitPlanMode",
            Selection {
                planning: false,
                ..sel(AgentKind::Main, none, None)
            },
            without(&["ExitPlanMode"]),
        ),
        (
            "main, tools.disabled: [WebFetch]",
            sel(AgentKind::Main, web, None),
            without(&["WebFetch"]),
        ),
        (
            "main, tools.bash: false takes its helpers along",
            sel(AgentKind::Main, none, Some(false)),
            without(&["Bash", "BashOutput", "KillShell"]),
        ),
        (
            "main, tools.bash: true changes nothing",
            sel(AgentKind::Main, none, Some(true)),
            all(),
        ),
        (
            "built-in foreground child: no Agent, user or team tools",
            sel(child(false, false), none, None),
            without(NEVER_FOR_CHILDREN),
        ),
        (
            "teammate: everything but the user's and the lead's tools",
            sel(AgentKind::Teammate { custom: false }, none, None),
            without(&["AskUserQuestion", "TaskStop", "TeamCreate", "TeamDelete"]),
        ),
        (
            "custom teammate loses agents.custom_disallowed",
            Selection {
                custom_disallowed: &custom_off,
                ..sel(AgentKind::Teammate { custom: true }, none, None)
            },
            without(&[
                "AskUserQuestion",
                "TaskStop",
                "TeamCreate",
                "TeamDelete",
                "Bash",
                "WebFetch",
            ]),
        ),
        (
            "background child keeps the working set and MCP tools",
            sel(child(false, true), none, None),
            vec![
                "Read",
                "Write",
                "Edit",
                "Glob",
                "Grep",
                "Bash",
                "BashOutput",
                "KillShell",
                "WebFetch",
                "TodoWrite",
                "Memory",
                "Skill",
                "mcp__github__search",
            ],
        ),
        (
            "custom child loses agents.custom_disallowed",
            Selection {
                custom_disallowed: &custom_off,
                ..sel(child(true, false), none, None)
            },
            without(&[NEVER_FOR_CHILDREN, &["Bash", "WebFetch"]].concat()),
        ),
        (
            "custom_disallowed does not touch built-in children",
            Selection {
                custom_disallowed: &custom_off,
                ..sel(child(false, false), none, None)
            },
            without(NEVER_FOR_CHILDREN),
        ),
        (
            "a definition's tools: only those (never a forbidden or unknown one)",
            Selection {
                allowed: Some(&reviewer),
                ..sel(child(true, false), none, None)
            },
            vec!["Glob", "Grep", "Read"],
        ),
        (
            "a definition's disallowed_tools",
            Selection {
                disallowed: &no_write,
                ..sel(child(true, true), web, None)
            },
            vec![
                "Read",
                "Glob",
                "Grep",
                "Bash",
                "BashOutput",
                "KillShell",
                "TodoWrite",
                "Memory",
                "Skill",
                "mcp__github__search",
            ],
        ),
        (
            "coordinator: no code tool; team, task, agent tools, notes and the user's",
            sel(AgentKind::Coordinator, none, None),
            without(&[CODE_TOOLS, &["Skill"]].concat()),
        ),
        (
            "coordinator outside plan mode: no ExitPlanMode either",
            Selection {
                planning: false,
                ..sel(AgentKind::Coordinator, none, None)
            },
            without(&[CODE_TOOLS, &["ExitPlanMode", "Skill"]].concat()),
        ),
        (
            "coordinator under tools.disabled and tools.bash: false",
            sel(AgentKind::Coordinator, &ask, Some(false)),
            without(&[CODE_TOOLS, &["AskUserQuestion", "Skill"]].concat()),
        ),
        (
            "coordinating(false) is the plain main agent",
            sel(AgentKind::Coordinator, none, None).coordinating(false),
            all(),
        ),
        (
            "an empty tools list means every tool left",
            Selection {
                allowed: Some(&[]),
                ..sel(AgentKind::Main, none, Some(false))
            },
            without(&["Bash", "BashOutput", "KillShell"]),
        ),
    ];
    for (what, selection, want) in rows {
        let set = select(&registry, &selection);
        let mut got: Vec<&str> = set.names().collect();
        let mut want = want;
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{what}");
    }
}

#[test]
fn the_model_gets_exactly_the_set_in_registry_order() {
    let registry = registry();
    let disallowed = strings(&["Write", "Edit"]);
    let set = select(
        &registry,
        &Selection {
            disallowed: &disallowed,
            ..Selection::main(&[], Some(false))
        },
    );
    let defs: Vec<String> = set.defs().iter().map(|d| d.name.to_string()).collect();
    let names: Vec<String> = set.names().map(String::from).collect();
    assert_eq!(defs, names);
    assert_eq!(&defs[..3], ["Read", "Glob", "Grep"]);
    assert!(!defs.iter().any(|n| n == "Bash" || n == "Write"));
}

#[test]
fn a_tool_outside_the_set_is_unknown_and_the_error_lists_the_set() {
    let project = Project::new();
    let registry = registry();
    let allowed = strings(&["Read", "Glob"]);
    let set = select(
        &registry,
        &Selection {
            allowed: Some(&allowed),
            ..Selection::main(&[], None)
        },
    );
    let input = json!({"file_path": "a.txt", "content": "x"});
    let err = set.prepare("Write", &input, &project.ctx).unwrap_err();
    assert_eq!(
        err.to_string(),
        "No such tool: Write. Available tools: Read, Glob."
    );
    assert!(
        set.prepare("Read", &json!({"file_path": "a.txt"}), &project.ctx)
            .is_ok()
    );
}

#[test]
fn a_coordinator_keeps_the_team_tools_by_name_and_nothing_unnamed() {
    let mut r = Registry::with_builtins();
    let schema = json!({"type": "object", "properties": {}});
    for name in [
        "TeamDelete",
        "SendMessage",
        "TaskCreate",
        "TaskUpdate",
        "Skill",
        "mcp__fs__read",
    ] {
        if !BUILTIN_NAMES.contains(&name) {
            r.register(Arc::new(FakeTool::new(name, schema.clone())))
                .unwrap();
        }
    }
    let selection = Selection::main(&[], None).coordinating(true).leading(true);
    let set = select(&Arc::new(r), &selection);
    let got: Vec<&str> = set.names().collect();
    for kept in [
        "TeamCreate",
        "TeamDelete",
        "SendMessage",
        "TaskCreate",
        "TaskUpdate",
        "TaskList",
        "TaskGet",
        "TaskStop",
        "Agent",
        "TodoWrite",
        "Memory",
        "AskUserQuestion",
    ] {
        assert!(got.contains(&kept), "{kept} missing from {got:?}");
    }
    for dropped in ["Skill", "mcp__fs__read", "Read", "Bash", "ExitPlanMode"] {
        assert!(!got.contains(&dropped), "{dropped} in {got:?}");
    }
}
