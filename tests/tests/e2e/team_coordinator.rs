//! Coordinator mode end to end, as the model receives it: with `coordinator: true` or
//! after `/coordinator on` the lead's requests carry only its team, task, message and
//! agent tools (with TodoWrite, Memory and AskUserQuestion), a code tool called anyway is
//! unknown, the system prompt says it does no code work; the session's choice wins over
//! the project's setting and survives a daemon restart. A lead's prompt says how to
//! decompose from the moment it leads a team.

use roocode_tests::mock_llm::script::system_text;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{World, last_results, tool_names};

/// What a coordinator may be sent (the built-in team tools other parts add included;
/// ExitPlanMode only while it plans).
const COORDINATOR_TOOLS: &[&str] = &[
    "ExitPlanMode",
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
];

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
];

/// The request was a coordinator's: only coordinator tools, every one it needs, and the
/// prompt that says so.
fn assert_coordinator(body: &Value) {
    let names = tool_names(body);
    for name in &names {
        assert!(
            COORDINATOR_TOOLS.contains(&name.as_str()),
            "{name} sent to a coordinator: {names:?}"
        );
    }
    for kept in [
        "TeamCreate",
        "Agent",
        "TaskList",
        "TodoWrite",
        "Memory",
        "AskUserQuestion",
    ] {
        assert!(names.iter().any(|n| n == kept), "{kept} missing: {names:?}");
    }
    let system = system_text(body);
    assert!(
        system.contains("Coordinator mode is on") && system.contains("by file boundaries"),
        "{system}"
    );
}

/// The request was a plain main agent's: the code tools are there.
fn assert_full(body: &Value) {
    let names = tool_names(body);
    for code in CODE_TOOLS {
        assert!(names.iter().any(|n| n == code), "{code} missing: {names:?}");
    }
    assert!(!system_text(body).contains("Coordinator mode"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_coordinator_true_the_lead_gets_no_code_tool_and_cannot_call_one() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-read",
                "Read",
                json!({"file_path": "secret.rs"}),
            )]))
            .reply(Reply::text("I will ask a teammate instead."))
            .reply(Reply::text("Back to work myself.")),
    )
    .await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(p.join(".roocode/config.yaml"), "coordinator: true\n").unwrap();
    std::fs::write(p.join("secret.rs"), "fn hidden() {}\n").unwrap();

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "read secret.rs"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = out.session_id();
    let requests = w.mock.requests();
    assert_coordinator(&requests[0].body);
    assert!(
        !tool_names(&requests[0].body)
            .iter()
            .any(|n| n == "ExitPlanMode")
    );
    // Sent no Read, and refused one all the same.
    let refused = last_results(&requests[1].body)
        .into_iter()
        .find(|r| r.tool_use_id == "call-read")
        .unwrap();
    assert!(
        refused.is_error && refused.content.contains("Unknown tool `Read`"),
        "{refused:?}"
    );
    assert!(!refused.content.contains("hidden"), "{refused:?}");

    // The status says whose choice it is; the session's choice wins over the project's.
    let status = w.run(&["send", "--session", &id, "/coordinator"]).await;
    assert!(
        status
            .stdout
            .starts_with("Coordinator mode: on (the project's"),
        "{status:?}"
    );
    let off = w.run(&["send", "--session", &id, "/coordinator off"]).await;
    assert_eq!(off.code, 0, "{off:?}");
    let again = w.run(&["send", "--session", &id, "go on"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_full(&w.mock.requests()[2].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinator_on_and_off_are_kept_with_the_session_across_a_daemon_restart() {
    let w = World::new(Script::always(Reply::text("Answer."))).await;
    let first = w.run(&["send", "hello"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    assert_full(&w.mock.requests()[0].body);

    let status = w.run(&["send", "--session", &id, "/coordinator"]).await;
    assert!(
        status.stdout.starts_with("Coordinator mode: off"),
        "{status:?}"
    );
    let on = w.run(&["send", "--session", &id, "/coordinator on"]).await;
    assert_eq!(on.code, 0, "{on:?}");
    assert!(on.stdout.starts_with("Coordinator mode on"), "{on:?}");
    let bad = w
        .run(&["send", "--session", &id, "/coordinator sideways"])
        .await;
    assert_eq!(bad.code, 1, "{bad:?}");
    assert!(bad.stderr.contains("/coordinator on"), "{bad:?}");

    let restart = w.run(&["daemon", "restart"]).await;
    assert_eq!(restart.code, 0, "{restart:?}");
    let second = w.run(&["send", "--session", &id, "dispatch it"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert_coordinator(&w.mock.requests()[1].body);
    let status = w.run(&["send", "--session", &id, "/coordinator"]).await;
    assert!(
        status.stdout.starts_with("Coordinator mode: on (chosen"),
        "{status:?}"
    );
    let context = w.run(&["send", "--session", &id, "/context"]).await;
    assert!(
        context.stdout.contains("coordinator mode: no code tools"),
        "{context:?}"
    );
    // /help lists it.
    let help = w.run(&["send", "--session", &id, "/help"]).await;
    assert!(help.stdout.contains("/coordinator [on|off]"), "{help:?}");

    // A coordinator that plans is told to plan through its teammates.
    let plan = w.run(&["send", "--session", &id, "/mode plan"]).await;
    assert_eq!(plan.code, 0, "{plan:?}");
    let planned = w.run(&["send", "--session", &id, "plan it"]).await;
    assert_eq!(planned.code, 0, "{planned:?}");
    let body = &w.mock.requests()[2].body;
    assert_coordinator(body);
    assert!(tool_names(body).iter().any(|n| n == "ExitPlanMode"));
    let messages = body["messages"].to_string();
    assert!(
        messages.contains("have teammates explore") && !messages.contains("(Read, Glob, Grep)"),
        "{messages}"
    );
    let default = w.run(&["send", "--session", &id, "/mode default"]).await;
    assert_eq!(default.code, 0, "{default:?}");

    let off = w.run(&["send", "--session", &id, "/coordinator off"]).await;
    assert!(off.stdout.contains("every tool again"), "{off:?}");
    let third = w.run(&["send", "--session", &id, "do it yourself"]).await;
    assert_eq!(third.code, 0, "{third:?}");
    assert_full(&w.mock.requests()[3].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_s_prompt_says_how_to_decompose_from_the_moment_it_leads_a_team() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "TeamCreate",
                json!({"team_name": "alpha"}),
            )]))
            .reply(Reply::text("The team exists."))
            .reply(Reply::text("Still leading.")),
    )
    .await;
    let out = w.run(&["send", "make a team"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let again = w
        .run(&["send", "--session", &out.session_id(), "and now?"])
        .await;
    assert_eq!(again.code, 0, "{again:?}");
    let systems: Vec<String> = w
        .mock
        .requests()
        .iter()
        .map(|r| system_text(&r.body))
        .collect();
    assert!(!systems[0].contains("Leading your team"), "{}", systems[0]);
    for says in [
        "by file boundaries",
        "2–4 tasks",
        "`add_blocked_by`",
        "verification task",
    ] {
        assert!(systems[1].contains(says), "{says}: {}", systems[1]);
    }
    assert!(!systems[1].contains("Coordinator mode"));
    // Byte-stable while the role stays: the next turn's prompt is the same.
    assert_eq!(systems[1], systems[2]);
}
