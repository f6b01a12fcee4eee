//! Tool calls through the real daemon: batching, call order, validation and the sandbox.

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Api, World};

/// The tool_result blocks of a recorded request's last user message, as (id, content, is_error).
fn anthropic_results(body: &Value) -> Vec<(String, String, bool)> {
    let last = body["messages"].as_array().and_then(|m| m.last());
    assert_eq!(last.map(|m| &m["role"]), Some(&Value::from("user")));
    crate::harness::last_results(body)
        .into_iter()
        .map(|r| (r.tool_use_id, r.content, r.is_error))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_glob_grep_run_and_results_come_back_in_call_order() {
    let w = World::new(
        Script::new()
            .reply(Reply::ToolCalls {
                text: Some("Let me look.".into()),
                calls: vec![
                    ToolCall::with_id("c1", "Read", json!({"file_path": "notes.txt"})),
                    ToolCall::with_id("c2", "Glob", json!({"pattern": "**/*.rs"})),
                    ToolCall::with_id(
                        "c3",
                        "Grep",
                        json!({"pattern": "needle", "output_mode": "content"}),
                    ),
                ],
            })
            .reply(Reply::text("Found it.")),
    )
    .await;
    let p = w.project_path();
    std::fs::write(p.join("notes.txt"), "first line\nsecond line\n").unwrap();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/lib.rs"), "// a needle in code\n").unwrap();

    let out = w
        .run(&["send", "--output", "stream-json", "find the needle"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let results = anthropic_results(&w.mock.requests()[1].body);
    let ids: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["c1", "c2", "c3"]);
    assert!(
        results[0].1.contains("first line") && !results[0].2,
        "{:?}",
        results[0]
    );
    assert!(results[1].1.contains("src/lib.rs"), "{:?}", results[1]);
    assert!(
        results[2].1.contains("src/lib.rs:1:// a needle in code"),
        "{:?}",
        results[2]
    );

    let events = out.json_lines();
    let kinds: Vec<String> = events
        .iter()
        .filter(|e| e["type"] == "tool_call" || e["type"] == "tool_result")
        .map(|e| {
            format!(
                "{}:{}",
                e["type"].as_str().unwrap(),
                e["call_id"].as_str().unwrap()
            )
        })
        .collect();
    // One concurrent batch: every call announced, then every result in call order.
    assert_eq!(
        kinds,
        [
            "tool_call:c1",
            "tool_call:c2",
            "tool_call:c3",
            "tool_result:c1",
            "tool_result:c2",
            "tool_result:c3"
        ]
    );
    // stream-json keeps stderr for the session line and problems only.
    assert!(!out.stderr.contains('●'), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_interleaved_parallel_calls_are_routed_by_index() {
    let w = World::with_api(
        Api::OpenAi,
        Script::new()
            .reply(
                ScriptedReply::new(Reply::tool_calls(vec![
                    ToolCall::with_id("call_a", "Read", json!({"file_path": "a.txt"})),
                    ToolCall::with_id("call_b", "Read", json!({"file_path": "b.txt"})),
                ]))
                .with_interleave()
                .with_repeat_ids()
                .with_chunk_chars(3),
            )
            .reply(Reply::text("Both read.")),
    )
    .await;
    let p = w.project_path();
    std::fs::write(p.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(p.join("b.txt"), "bravo\n").unwrap();
    let out = w.run(&["send", "read both"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Both read.\n");
    // Text output names each tool call on stderr, paths relative to the project.
    assert!(out.stderr.contains("● Read a.txt"), "{}", out.stderr);
    assert!(out.stderr.contains("● Read b.txt"), "{}", out.stderr);
    let msgs = w.mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let tool_msgs: Vec<&Value> = msgs.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_msgs.len(), 2);
    assert_eq!(tool_msgs[0]["tool_call_id"], "call_a");
    assert!(tool_msgs[0]["content"].as_str().unwrap().contains("alpha"));
    assert_eq!(tool_msgs[1]["tool_call_id"], "call_b");
    assert!(tool_msgs[1]["content"].as_str().unwrap().contains("bravo"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_arguments_and_sandbox_escapes_come_back_as_errors() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![
                ToolCall::with_id(
                    "bad",
                    "Read",
                    json!({"path": "x", "file_path": "notes.txt"}),
                ),
                ToolCall::with_id("etc", "Read", json!({"file_path": "/etc/passwd"})),
                ToolCall::with_id("up", "Read", json!({"file_path": "../outside.txt"})),
            ]))
            .reply(Reply::text("I will stay inside.")),
    )
    .await;
    std::fs::write(w.project_path().join("notes.txt"), "hi\n").unwrap();
    let out = w.run(&["send", "try things"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let results = anthropic_results(&w.mock.requests()[1].body);
    assert!(results.iter().all(|r| r.2), "all are errors: {results:?}");
    assert!(results[0].1.contains("path"), "{:?}", results[0]);
    assert!(
        results[1].1.starts_with("Permission denied:"),
        "{:?}",
        results[1]
    );
    assert!(
        results[2].1.starts_with("Permission denied:"),
        "{:?}",
        results[2]
    );
}
