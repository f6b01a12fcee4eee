//! Workflow functions through the real binaries: `|plan|` captures a plan artifact and
//! hands over to `execute` when the user answers, through `execute`'s gate on the
//! artifact; `execute` works the checklist through the todo list and is sent back to
//! work until it is complete; a transition activates another function; a locked
//! `skills.auto` function refuses its own deactivation; observers record evidence from
//! a command's output. `roocode-cli workflow` and `/workflow` show the state; every
//! change is a `workflow` event.

use roocode_tests::mock_llm::{Reply, Script};
use serde_json::{Value, json};

use crate::harness::World;
use crate::skills::write;

/// The text of every message of a request.
fn sent(body: &Value) -> String {
    body["messages"].to_string()
}

fn todo(content: &str, status: &str) -> Value {
    json!({"content": content, "status": status, "activeForm": content})
}

const PLAN_ANSWER: &str = "I read the code. Here is the plan:\n\n```plan\n# Goal: greet\n## Steps\n- [ ] Add greet.txt\n- [ ] Check greet.txt\n```\n\nDo you approve this plan?";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_then_execute_through_the_artifact_gate() {
    let w = World::new(
        Script::new()
            // turn 1: the plan
            .reply(Reply::text(PLAN_ANSWER))
            // turn 2: execute stops early, is sent back, ticks both items, ends
            .reply(Reply::text("Working on it."))
            .reply(Reply::tool_call(
                "TodoWrite",
                json!({"todos": [todo("Add greet.txt", "completed"), todo("Check greet.txt", "completed")]}),
            ))
            .reply(Reply::text("Both steps are done.")),
    )
    .await;

    let first = w.run(&["send", "|plan| add a greeting"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let session = first.session_id();
    let requests = w.mock.requests();
    let told = sent(&requests[0].body);
    assert!(
        told.contains("The workflow function `plan` is active"),
        "{told}"
    );
    assert!(!told.contains("|plan|"), "the syntax is removed");
    let tools = crate::skills::tool_names(&requests[0].body);
    assert!(tools.contains(&"Read".to_string()), "{tools:?}");
    assert!(
        !tools
            .iter()
            .any(|t| t == "Write" || t == "Edit" || t == "Bash"),
        "planning has reading tools only: {tools:?}"
    );
    assert!(
        first
            .stdout
            .contains("workflow: artifact `plan` captured by `plan`")
            || first
                .stderr
                .contains("workflow: artifact `plan` captured by `plan`"),
        "{first:?}"
    );

    let info = w.run(&["workflow", &session, "--json"]).await;
    assert_eq!(info.code, 0, "{info:?}");
    let info = info.json();
    assert_eq!(info["functions"][0]["name"], "plan");
    assert_eq!(info["functions"][0]["phase"], "active");
    assert_eq!(info["artifacts"][0]["name"], "plan");
    let path = info["artifacts"][0]["path"]
        .as_str()
        .expect("path")
        .to_string();
    let plan = std::fs::read_to_string(&path).expect("the artifact is a file");
    assert!(plan.contains("- [ ] Add greet.txt"), "{plan}");

    // The user's answer approves: plan completes, execute takes the plan.
    let second = w.run(&["send", "--continue", "yes, go ahead"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let requests = w.mock.requests();
    assert_eq!(
        requests.len(),
        4,
        "sent back once, then the tool call, then done"
    );
    let told = sent(&requests[1].body);
    assert!(told.contains("`plan` is complete"), "{told}");
    assert!(
        told.contains("The workflow function `execute` is active"),
        "{told}"
    );
    assert!(
        told.contains("<artifact name=\\\"plan\\\">\\n# Goal: greet"),
        "{told}"
    );
    let continued = sent(&requests[2].body);
    assert!(
        continued.contains(
            "The workflow function `execute` is not done: it waits for plan_todos_complete"
        ),
        "{continued}"
    );
    let out = format!("{}{}", second.stdout, second.stderr);
    assert!(out.contains("workflow: transition of `plan`"), "{out}");
    assert!(out.contains("function `execute` is complete"), "{out}");

    let info = w.run(&["workflow", &session]).await;
    assert_eq!(info.code, 0, "{info:?}");
    assert!(
        info.stdout.contains("execute          complete"),
        "{}",
        info.stdout
    );
    assert!(
        info.stdout.contains("plan             complete"),
        "{}",
        info.stdout
    );
    let plan = std::fs::read_to_string(&path).expect("artifact");
    assert!(
        plan.contains("- [x] Add greet.txt") && plan.contains("- [x] Check greet.txt"),
        "{plan}"
    );

    // /workflow and /artifacts say the same from inside the session.
    let slash = w.run(&["send", "--continue", "/artifacts"]).await;
    assert!(
        slash.stdout.contains("plan") && slash.stdout.contains(&path),
        "{slash:?}"
    );
    assert_eq!(
        w.mock.request_count(),
        4,
        "local commands never reach the model"
    );
}

const FIRST: &str = "---
description: first step
transitions:
  - when: tool_observed(Bash)
    activate: [second]
    deactivate: [self]
---
FIRST-BODY";

const SECOND: &str = "---
description: second step
requires_evidence: [tests_pass]
observe:
  - on: tool_after
    tool: Bash
    when_output: {contains: 'all green', not_contains: FAILED}
    set_evidence: tests_pass
continue_until: evidence_met
continue_max: 2
---
SECOND-BODY";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transition_hands_over_and_an_observer_records_evidence() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo FAILED; echo all green"}),
            ))
            .reply(Reply::text("Ran it."))
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo all green"}),
            ))
            .reply(Reply::text("Green now.")),
    )
    .await;
    write(&w, ".roocode/skills/first.md", FIRST);
    write(&w, ".roocode/skills/second.md", SECOND);

    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "|first| run the checks",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 4, "{out:?}");
    assert!(sent(&requests[0].body).contains("FIRST-BODY"));
    let second = sent(&requests[1].body);
    assert!(second.contains("`first` is complete"), "{second}");
    assert!(second.contains("SECOND-BODY"), "{second}");
    // the first run said FAILED: no evidence, so the agent is sent back
    assert!(
        sent(&requests[2].body).contains("`second` is not done: it waits for evidence_met"),
        "{}",
        sent(&requests[2].body)
    );
    let info = w
        .run(&["workflow", &out.session_id(), "--json"])
        .await
        .json();
    let second = info["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .find(|f| f["name"] == "second")
        .expect("second")
        .clone();
    assert_eq!(second["evidence"], json!(["tests_pass"]));
    assert_eq!(second["phase"], "complete");
    assert!(
        second["tools"]
            .as_array()
            .expect("tools")
            .contains(&json!("Bash"))
    );
}

const GUARD: &str = "---
description: a house rule that stays
locked: true
transitions:
  - when: turn_count(1)
    deactivate: [self]
---
GUARD-BODY";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_auto_function_refuses_its_deactivation() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Read", json!({"file_path": "a.txt"})))
            .reply(Reply::text("Read it."))
            .reply(Reply::text("Second turn.")),
    )
    .await;
    write(&w, ".roocode/skills/guard.md", GUARD);
    write(&w, "a.txt", "hello\n");
    std::fs::write(
        w.home.path().join("config.yaml"),
        "skills:\n  auto: [guard]\n",
    )
    .expect("user config");

    let out = w.run(&["send", "read a.txt"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("function `guard` activated by skills.auto"),
        "{all}"
    );
    assert!(all.contains("is locked"), "{all}");
    let again = w.run(&["send", "--continue", "again"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    let info = w
        .run(&["workflow", &out.session_id(), "--json"])
        .await
        .json();
    assert_eq!(info["functions"][0]["name"], "guard");
    assert_eq!(info["functions"][0]["phase"], "active");
    assert_eq!(info["functions"][0]["locked"], true);
    let requests = w.mock.requests();
    let body_count = sent(&requests[2].body).matches("GUARD-BODY").count();
    assert_eq!(body_count, 1, "told once, not at every call");
}
