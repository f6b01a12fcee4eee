//! Permissions through the real daemon: requests every attached client sees, answered
//! from any terminal; allow always; deny with feedback; dontAsk; questions; plan mode;
//! and denials of every kind coming back to the model as error results.

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::World;

/// (content, is_error) of the tool results in the last message of a recorded request.
fn last_results(body: &Value) -> Vec<(String, bool)> {
    crate::harness::last_results(body)
        .into_iter()
        .map(|r| (r.content, r.is_error))
        .collect()
}

fn write_call(path: &str, content: &str) -> Reply {
    Reply::tool_calls(vec![ToolCall::new(
        "Write",
        json!({"file_path": path, "content": content}),
    )])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_attached_clients_see_one_request_and_one_answer_decides() {
    let w = World::new(
        Script::new()
            .reply(write_call("hello.txt", "hi\n"))
            .reply(Reply::text("Written.")),
    )
    .await;
    let first = w.run(&["send", "--no-wait", "create hello.txt"]).await;
    let id = first.session_id();
    let mut a = w.start(&["attach", &id, "--output", "stream-json"]);
    let mut b = w.start(&["attach", &id, "--output", "stream-json"]);
    let ra: Value = a.until_event("permission_request").await;
    let rb: Value = b.until_event("permission_request").await;
    assert_eq!(ra, rb, "both clients see the same request");
    assert_eq!(ra["tool"], "Write");
    let req = ra["request_id"].as_str().unwrap().to_string();

    let pending = w.run(&["pending", "--json"]).await.json();
    assert_eq!(pending[0]["request_id"], req.as_str());
    assert_eq!(pending[0]["kind"], "permission");
    assert_eq!(pending[0]["session_id"], id.as_str());

    let approve = w.run(&["approve", &req]).await;
    assert_eq!(approve.code, 0, "{approve:?}");
    // The second answer loses.
    let late = w.run(&["deny", &req]).await;
    assert_eq!(late.code, 1, "{late:?}");

    for c in [&mut a, &mut b] {
        let resolved: Value = c.until_event("permission_resolved").await;
        assert_eq!(resolved["request_id"], req.as_str());
        assert_eq!(resolved["decision"], "allow");
        assert_eq!(resolved["decided_by"]["kind"], "cli");
        c.until(|l| l.contains("\"turn_completed\"")).await;
    }
    a.signal(Signal::SIGINT);
    b.signal(Signal::SIGINT);
    assert_eq!(
        std::fs::read_to_string(w.project_path().join("hello.txt")).unwrap(),
        "hi\n"
    );
    assert!(
        w.run(&["pending", "--json"])
            .await
            .json()
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_interactive_send_prints_the_request_and_waits() {
    let w = World::new(
        Script::new()
            .reply(write_call("a.txt", "a"))
            .reply(Reply::text("Done.")),
    )
    .await;
    let mut send = w.start(&["send", "--output", "json", "write a"]);
    let line = send.until_stderr(|l| l.starts_with("permission: ")).await;
    let req = line.split(' ').nth(1).unwrap().to_string();
    assert_eq!(line, format!("permission: {req} Write a.txt"));
    assert_eq!(
        w.run(&["approve", &req[..12]]).await.code,
        0,
        "a unique prefix is enough"
    );
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["text"], "Done.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_with_feedback_reaches_the_model_and_the_loop_goes_on() {
    let w = World::new(
        Script::new()
            .reply(write_call("x.txt", "x"))
            .reply(Reply::text("Understood.")),
    )
    .await;
    let first = w.run(&["send", "--no-wait", "write x"]).await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let req: Value = watch.until_event("permission_request").await;
    let req = req["request_id"].as_str().unwrap();
    let deny = w
        .run(&["deny", req, "--feedback", "use y.txt instead"])
        .await;
    assert_eq!(deny.code, 0, "{deny:?}");
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    let results = last_results(&w.mock.requests()[1].body);
    assert!(results[0].1, "an error result");
    assert!(results[0].0.starts_with("Permission denied"), "{results:?}");
    assert!(results[0].0.contains("use y.txt instead"), "{results:?}");
    assert!(!w.project_path().join("x.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_always_writes_a_rule_and_the_next_call_runs_without_asking() {
    let w = World::new(
        Script::new()
            .reply(write_call("notes.md", "one\n"))
            .reply(Reply::text("First done."))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Read",
                json!({"file_path": "notes.md"}),
            )]))
            .reply(write_call("notes.md", "two\n"))
            .reply(Reply::text("Second done.")),
    )
    .await;
    std::fs::create_dir_all(w.project_path().join(".roocode")).unwrap();
    std::fs::write(
        w.project_path().join(".roocode/config.local.yaml"),
        "# my local settings\npermissions:\n  allow:\n    - \"Bash(git status)\"   # keep this\n",
    )
    .unwrap();
    let first = w.run(&["send", "--no-wait", "write notes"]).await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let req: Value = watch.until_event("permission_request").await;
    assert_eq!(
        w.run(&["approve", req["request_id"].as_str().unwrap(), "--always"])
            .await
            .code,
        0
    );
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    let config =
        std::fs::read_to_string(w.project_path().join(".roocode/config.local.yaml")).unwrap();
    assert!(
        config.contains("# my local settings") && config.contains("# keep this"),
        "{config}"
    );
    // Anchored at the root (gitignore style), so a notes.md elsewhere stays asked.
    assert!(config.contains("\"Edit(/notes.md)\""), "{config}");

    let second = w
        .run(&[
            "send",
            "--session",
            &id,
            "--output",
            "stream-json",
            "rewrite notes",
        ])
        .await;
    assert_eq!(second.code, 0, "{second:?}");
    assert!(
        !second.stdout.contains("permission_request"),
        "{}",
        second.stdout
    );
    assert_eq!(
        std::fs::read_to_string(w.project_path().join("notes.md")).unwrap(),
        "two\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dont_ask_denies_instead_of_waiting() {
    let w = World::new(
        Script::new()
            .reply(write_call("z.txt", "z"))
            .reply(Reply::text("Could not.")),
    )
    .await;
    let out = w
        .run(&["send", "--mode", "dontAsk", "--output", "json", "write z"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let results = last_results(&w.mock.requests()[1].body);
    assert!(
        results[0].1 && results[0].0.contains("dontAsk"),
        "{results:?}"
    );
    assert!(!w.project_path().join("z.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dangerous_commands_are_denied_in_every_mode_and_the_model_is_told() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "sudo rm -rf / --no-preserve-root"}),
            )]))
            .reply(Reply::text("I will not do that.")),
    )
    .await;
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "json",
            "clean up",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let results = last_results(&w.mock.requests()[1].body);
    assert!(
        results[0].1 && results[0].0.starts_with("Permission denied"),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_are_answered_from_any_terminal() {
    let questions = json!({"questions": [{
        "question": "Which database should I use?",
        "header": "Database",
        "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "PostgreSQL", "description": "a server"}
        ],
        "multiSelect": false
    }]});
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "AskUserQuestion",
                questions,
            )]))
            .reply(Reply::text("PostgreSQL it is.")),
    )
    .await;
    let first = w.run(&["send", "--no-wait", "set up a database"]).await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let q: Value = watch.until_event("question").await;
    let req = q["request_id"].as_str().unwrap();
    let pending = w.run(&["pending", "--json"]).await.json();
    assert_eq!(pending[0]["kind"], "question");
    let answer = w.run(&["answer", req, "2"]).await;
    assert_eq!(answer.code, 0, "{answer:?}");
    let resolved: Value = watch.until_event("question_resolved").await;
    assert_eq!(resolved["answers"], json!(["PostgreSQL"]));
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    let results = last_results(&w.mock.requests()[1].body);
    assert!(
        results[0]
            .0
            .contains("\"Which database should I use?\" = \"PostgreSQL\""),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_writes_only_the_plan_and_exit_plan_mode_asks_to_switch() {
    let w = World::new(
        Script::new()
            .reply(write_call("src.rs", "fn main() {}"))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "ExitPlanMode",
                json!({"plan": "1. Add main\n2. Test"}),
            )]))
            .reply(Reply::text("Starting.")),
    )
    .await;
    let first = w
        .run(&["send", "--mode", "plan", "--no-wait", "plan a main"])
        .await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    // Writing a project file in plan mode asks, as in default mode.
    let r1: Value = watch.until_event("permission_request").await;
    assert_eq!(r1["tool"], "Write");
    assert_eq!(
        w.run(&["deny", r1["request_id"].as_str().unwrap()])
            .await
            .code,
        0
    );
    let r2: Value = watch.until_event("permission_request").await;
    assert_eq!(r2["tool"], "ExitPlanMode");
    assert_eq!(r2["input"]["plan"], "1. Add main\n2. Test");
    assert_eq!(
        w.run(&["approve", r2["request_id"].as_str().unwrap()])
            .await
            .code,
        0
    );
    let changed: Value = watch.until_event("mode_changed").await;
    assert_eq!(changed["mode"], "default");
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    // The model was told it is in plan mode, with the plan file's path.
    let first_req = w.mock.requests()[0].body.to_string();
    assert!(first_req.contains("Plan mode is active"), "{first_req}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_withdraws_the_waiting_request() {
    let w = World::new(Script::new().reply(write_call("c.txt", "c"))).await;
    let first = w.run(&["send", "--no-wait", "write c"]).await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    watch.until(|l| l.contains("\"permission_request\"")).await;
    assert_eq!(w.run(&["cancel", &id]).await.code, 0);
    let resolved: Value = watch.until_event("permission_resolved").await;
    assert_eq!(resolved["decision"], "cancelled");
    let done: Value = watch.until_event("turn_completed").await;
    assert_eq!(done["stop_reason"], "cancelled");
    watch.signal(Signal::SIGINT);
    assert!(
        w.run(&["pending", "--json"])
            .await
            .json()
            .as_array()
            .unwrap()
            .is_empty()
    );
}
