//! A local model's window: the mock acts as llama.cpp's `llama-server` serving an
//! 8,192-token model (`GET /v1/models` reports `meta.n_ctx`, and a request over it is
//! refused with llama.cpp's exact error body). The daemon discovers the window, so
//! `/context` shows it and a multi-step tool task compacts its way through with no
//! provider error; with discovery off, the first refusal teaches the window, the
//! history is compacted and the request sent again once.

use roocode_tests::mock_llm::{RecordedRequest, Reply, Script, ToolCall, system_text};
use serde_json::{Value, json};

use crate::harness::{Api, World};

/// The served model's context size, in tokens.
const N_CTX: u64 = 8192;
/// Tool-using iterations of the task.
const STEPS: usize = 30;

const SUMMARY: &str = "## Goal\nRead every note of the project.\n## Decisions\nIn order.\n\
## Files read and changed\nnotes read, nothing changed.\n## Open tasks\nThe notes not read yet.\n\
## User preferences\nNone stated.\n## Next step\nRead the next note.";

fn is_summary_call(r: &RecordedRequest) -> bool {
    system_text(&r.body).contains("context compactor")
}

/// A task of `STEPS` reads of ~2,000-character notes (kept inline: under the small
/// window's layer-1 threshold), then an answer.
fn world_script() -> Script {
    let mut script = Script::new()
        .rule("context compactor", Reply::text(SUMMARY))
        .llama_cpp(N_CTX);
    for i in 0..STEPS {
        script = script.reply(Reply::tool_calls(vec![ToolCall::with_id(
            format!("call_{i:03}"),
            "Read",
            json!({"file_path": format!("notes/note-{}.txt", i % 6)}),
        )]));
    }
    script.reply(Reply::text("All notes read."))
}

async fn world() -> World {
    let w = World::with_api(Api::OpenAi, world_script()).await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join("notes")).unwrap();
    for n in 0..6 {
        let text: String = (0..30)
            .map(|l| format!("note {n} line {l:03}: the build passed on the first try\n"))
            .collect();
        std::fs::write(p.join(format!("notes/note-{n}.txt")), text).unwrap();
    }
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(p.join(".roocode/config.yaml"), "max_turns: 100\n").unwrap();
    w
}

fn errors(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["type"] == "error").collect()
}

fn last_answer(events: &[Value]) -> &Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "assistant_message")
        .expect("an answer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_of_a_llama_server_is_discovered_and_the_task_compacts_through() {
    let w = world().await;
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "stream-json",
            "Read the notes one by one.",
        ])
        .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = out.json_lines();
    assert!(errors(&events).is_empty(), "{:?}", errors(&events));
    assert_eq!(
        last_answer(&events)["content"][0]["text"],
        "All notes read."
    );

    let requests = w.mock.requests();
    let refused: Vec<_> = requests
        .iter()
        .filter(|r| r.body.to_string().len() as u64 / 4 > N_CTX)
        .collect();
    assert!(
        refused.is_empty(),
        "{} requests over the window",
        refused.len()
    );
    let summaries = requests.iter().filter(|r| is_summary_call(r)).count();
    assert!(summaries >= 1, "the 8k window forces compaction");
    let compactions = events.iter().filter(|e| e["type"] == "compaction").count();
    assert_eq!(compactions, summaries);
    assert_eq!(w.mock.remaining(), 0);
    // A small window's request carries the tools' short descriptions.
    let first = &requests[0].body;
    let read = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "Read")
        .expect("Read is offered");
    let description = read["function"]["description"].as_str().unwrap();
    assert!(!description.contains('\n'), "{description}");

    let ctx = w.run(&["send", "--continue", "/context"]).await;
    assert_eq!(ctx.code, 0, "{ctx:?}");
    assert!(
        ctx.stdout.contains("Context window: 8,192 tokens"),
        "{}",
        ctx.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overflow_error_teaches_the_window_and_the_request_is_sent_again() {
    let mut w = world().await;
    w.vars
        .push(("ROOCODE_WINDOW_DISCOVERY_MS".into(), "0".into()));
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "stream-json",
            "Read the notes one by one.",
        ])
        .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = out.json_lines();
    assert!(errors(&events).is_empty(), "{:?}", errors(&events));
    assert_eq!(
        last_answer(&events)["content"][0]["text"],
        "All notes read."
    );
    let requests = w.mock.requests();
    let refused = requests
        .iter()
        .filter(|r| !is_summary_call(r) && r.body.to_string().len() as u64 / 4 > N_CTX)
        .count();
    assert_eq!(refused, 1, "one refusal, then the learned window holds");
    assert!(
        requests.iter().any(is_summary_call),
        "compacted after learning"
    );

    let ctx = w.run(&["send", "--continue", "/context"]).await;
    assert!(
        ctx.stdout.contains("Context window: 8,192 tokens"),
        "{}",
        ctx.stdout
    );
}
