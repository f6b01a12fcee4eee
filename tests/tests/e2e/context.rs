//! Context management seen through the daemon: instruction files and the memory index
//! in the conversation (the system prompt untouched), the Memory tool, large results
//! saved to a file the agent can page through, and `/context`.

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::World;

fn first_user_text(body: &Value) -> String {
    body["messages"][0]["content"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructions_and_memories_reach_the_model_without_touching_the_system_prompt() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Memory",
                json!({"action": "save", "name": "package manager", "type": "project",
                       "description": "use pnpm, never npm", "content": "The user said: always use pnpm."}),
            )]))
            .reply(Reply::text("Noted."))
            .reply(Reply::text("Second session.")),
    )
    .await;
    let p = w.project_path();
    std::fs::write(
        p.join("ROOCODE.md"),
        "Answer tersely.\n@include docs/style.md\n",
    )
    .unwrap();
    std::fs::create_dir_all(p.join("docs")).unwrap();
    std::fs::write(p.join("docs/style.md"), "Prefer iterators over loops.\n").unwrap();

    let out = w.run(&["send", "remember: we use pnpm"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let reqs = w.mock.requests();
    let first = first_user_text(&reqs[0].body);
    assert!(
        first.contains("Answer tersely.") && first.contains("Prefer iterators over loops."),
        "{first}"
    );
    assert_eq!(
        reqs[0].body["system"], reqs[1].body["system"],
        "the system prompt is byte-stable"
    );
    assert!(
        !reqs[0].body["system"]
            .to_string()
            .contains("Answer tersely.")
    );
    let memory_file = p.join(".roocode/memory/package-manager.md");
    assert!(
        std::fs::read_to_string(&memory_file)
            .unwrap()
            .contains("always use pnpm")
    );
    assert!(
        std::fs::read_to_string(p.join(".roocode/memory/MEMORY.md"))
            .unwrap()
            .contains("use pnpm, never npm")
    );

    // A new session starts with the memory index.
    let second = w.run(&["send", "--new", "hello again"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let text = first_user_text(&w.mock.requests()[2].body);
    assert!(text.contains("use pnpm, never npm"), "{text}");
    let listed = w.run(&["send", "--continue", "/memory"]).await;
    assert!(
        listed.stdout.contains("package manager"),
        "{}",
        listed.stdout
    );
    let ctx = w.run(&["send", "--continue", "/context"]).await;
    assert_eq!(ctx.code, 0, "{ctx:?}");
    assert!(
        ctx.stdout.contains("Total") && ctx.stdout.contains("%"),
        "{}",
        ctx.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_result_is_saved_to_a_file_the_agent_can_page_through() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "seq 1 30000"}),
            )]))
            .reply(Reply::text("Big.")),
    )
    .await;
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "count a lot"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let last = w.mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let result = last["content"][0]["content"].as_str().unwrap().to_string();
    assert!(
        result.len() < 6_000,
        "a preview, not the whole output: {} chars",
        result.len()
    );
    assert!(
        result.contains("\n1\n") || result.starts_with('1') || result.contains("1\n2\n"),
        "{result}"
    );
    assert!(result.contains("30000"), "the tail is kept: {result}");
    let path = w.home.path().join("data/tool-results");
    let saved: Vec<_> = walk(&path);
    assert_eq!(saved.len(), 1, "{saved:?}");
    // The whole output is in the file, middle included.
    let full = std::fs::read_to_string(&saved[0]).unwrap();
    let expected: String = (1..=30_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(full.trim_end(), expected.trim_end());
    assert!(full.len() > 25_000 && full.len() > result.len() * 4);
    assert!(
        result.contains(&saved[0].display().to_string()),
        "the preview names the file: {result}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_by_hand_summarises_older_history_and_the_session_goes_on() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("First answer."))
            .reply(Reply::text("Second answer."))
            .reply(Reply::text("## Goal\nThe summary of the parser work."))
            .reply(Reply::text("Continuing from the summary.")),
    )
    .await;
    let first = w.run(&["send", "start the parser"]).await;
    let id = first.session_id();
    w.run(&["send", "--session", &id, "add tests"]).await;
    let out = w
        .run(&["send", "--session", &id, "/compact the parser"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("Compacted:"), "{}", out.stdout);
    let reqs = w.mock.requests();
    let summary_call = &reqs[2].body;
    assert!(
        summary_call["system"]
            .to_string()
            .contains("context compactor"),
        "{summary_call}"
    );
    assert!(
        summary_call
            .get("tools")
            .is_none_or(|t| t.as_array().is_some_and(Vec::is_empty))
    );
    let asked = summary_call["messages"][0].to_string();
    for s in [
        "## Goal",
        "## Next step",
        "Focus the summary on: the parser",
        "start the parser",
    ] {
        assert!(asked.contains(s), "{s}: {asked}");
    }
    let next = w.run(&["send", "--session", &id, "go on"]).await;
    assert_eq!(next.stdout, "Continuing from the summary.\n");
    let body = w.mock.requests()[3].body["messages"].to_string();
    assert!(
        body.contains("The summary of the parser work.") && !body.contains("First answer."),
        "{body}"
    );
    let events = w
        .run(&["attach", &id, "--output", "stream-json", "--until-idle"])
        .await
        .json_lines();
    assert!(events.iter().any(|e| e["type"] == "compaction"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_happens_by_itself_when_the_window_fills() {
    // The summary calls are answered by a rule, wherever they fall between the turns.
    let w = World::new(
        Script::new()
            .reply(Reply::text("One."))
            .reply(Reply::text("Two."))
            .reply(Reply::text("Three, after compaction."))
            .rule("context compactor", Reply::text("## Goal\nAuto summary.")),
    )
    .await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        "context:\n  window_tokens: 4000\n  compact_threshold: 0.5\n",
    )
    .unwrap();
    let first = w.run(&["send", "one"]).await;
    let id = first.session_id();
    w.run(&["send", "--session", &id, "two"]).await;
    let third = w
        .run(&["send", "--session", &id, "--output", "stream-json", "three"])
        .await;
    assert_eq!(third.code, 0, "{third:?}");
    let events = third.json_lines();
    let c = events
        .iter()
        .find(|e| e["type"] == "compaction")
        .expect("a compaction event");
    assert!(c["after_tokens"].as_u64().unwrap() < c["before_tokens"].as_u64().unwrap() + 1000);
    let done = events
        .iter()
        .rev()
        .find(|e| e["type"] == "assistant_message")
        .unwrap();
    assert_eq!(done["content"][0]["text"], "Three, after compaction.");
    let requests = w.mock.requests();
    let body = requests.last().unwrap().body["messages"].to_string();
    assert!(
        body.contains("Auto summary.") && body.contains("three") && !body.contains("\"one\""),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compaction_whose_summary_fails_drops_the_oldest_steps_and_the_turn_goes_on() {
    // Every summary call fails: the oldest history is dropped instead.
    let w = World::new(
        Script::new()
            .reply(Reply::text("One."))
            .reply(Reply::text("Two."))
            .reply(Reply::text("Three, after dropping."))
            .rule("context compactor", Reply::error(500)),
    )
    .await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        "context:\n  window_tokens: 4000\n  compact_threshold: 0.5\n",
    )
    .unwrap();
    let first = w.run(&["send", "one"]).await;
    let id = first.session_id();
    w.run(&["send", "--session", &id, "two"]).await;
    let third = w
        .run(&["send", "--session", &id, "--output", "stream-json", "three"])
        .await;
    assert_eq!(third.code, 0, "{third:?}");
    let events = third.json_lines();
    let told = events
        .iter()
        .find(|e| e["type"] == "error" && e["kind"] == "compaction_dropped")
        .unwrap_or_else(|| panic!("the user is told: {events:?}"));
    assert!(
        told["message"]
            .as_str()
            .unwrap()
            .contains("oldest step(s) were dropped"),
        "{told}"
    );
    let done = events
        .iter()
        .rev()
        .find(|e| e["type"] == "assistant_message")
        .unwrap();
    assert_eq!(done["content"][0]["text"], "Three, after dropping.");
    let requests = w.mock.requests();
    let body = requests.last().unwrap().body["messages"].to_string();
    assert!(
        body.contains("could not be summarised")
            && body.contains("three")
            && !body.contains("\"one\""),
        "{body}"
    );
}
