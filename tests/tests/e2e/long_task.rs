//! A long task through the daemon: 200 iterations of one turn whose tool results are
//! large, against a mock provider that refuses any request over its context window
//! (as real providers do). All three layers of context management take part: big
//! results go to files, old ones are stubbed, and the history is compacted by summary
//! calls (answered by a rule of the mock, apart from the task's script) as often as
//! needed. The turn finishes with no provider error, every cut falls on an iteration
//! boundary, and every request sent is chain-valid.

use std::collections::BTreeSet;

use roocode_tests::mock_llm::{RecordedRequest, Reply, Script, ToolCall, system_text};
use serde_json::{Value, json};

use crate::harness::World;

/// Iterations of the scripted task (each one model call with one tool call).
const STEPS: usize = 200;
/// The provider's (and the configured) context window, in tokens.
const WINDOW: u64 = 24_000;

const SUMMARY: &str = "## Goal\nRead every log of the project and report on it.\n\
## Decisions\nRead the logs in order.\n## Files read and changed\nlogs/*.log read, nothing changed.\n\
## Open tasks\nThe logs not read yet.\n## User preferences\nNone stated.\n\
## Next step\nRead the next log.";

/// The tool call of step `i`: big reads (spilled to a file by layer 1), medium reads
/// (kept inline, later stubbed by layer 2 or summarised), greps and globs.
fn step(i: usize) -> ToolCall {
    let id = format!("toolu_step_{i:03}");
    match i % 4 {
        0 => ToolCall::with_id(
            id,
            "Read",
            json!({"file_path": format!("logs/big-{}.log", i % 5)}),
        ),
        1 => ToolCall::with_id(
            id,
            "Read",
            json!({"file_path": format!("logs/medium-{}.log", i % 7)}),
        ),
        2 => ToolCall::with_id(id, "Grep", json!({"pattern": "ERROR", "path": "logs"})),
        _ => ToolCall::with_id(id, "Glob", json!({"pattern": "logs/*.log"})),
    }
}

/// `n` lines of plain log text (no characters JSON escapes, so bytes ≈ chars).
fn log_text(tag: &str, lines: usize) -> String {
    (0..lines)
        .map(|l| {
            let level = if l % 50 == 0 { "ERROR" } else { "INFO" };
            format!("{level} {tag} line {l:05} the service handled a request in 12 ms ok\n")
        })
        .collect()
}

fn is_summary_call(r: &RecordedRequest) -> bool {
    system_text(&r.body).contains("context compactor")
}

fn messages(r: &RecordedRequest) -> &Vec<Value> {
    r.body["messages"].as_array().expect("messages")
}

fn blocks<'a>(m: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |b| b["type"] == kind)
}

/// A message without its prompt-caching marks (they move with the end of the history).
fn plain(m: &Value) -> Value {
    let mut m = m.clone();
    for b in m["content"].as_array_mut().into_iter().flatten() {
        if let Some(b) = b.as_object_mut() {
            b.remove("cache_control");
        }
    }
    m
}

/// Every tool_use is answered, exactly once, by a tool_result in the next message, and
/// no tool_result answers anything else (the rule providers enforce).
fn assert_chain_valid(msgs: &[Value], which: usize) {
    for (i, m) in msgs.iter().enumerate() {
        let results: Vec<&str> = blocks(m, "tool_result")
            .map(|b| b["tool_use_id"].as_str().expect("tool_use_id"))
            .collect();
        let expected: Vec<&str> = match i.checked_sub(1).map(|p| &msgs[p]) {
            Some(prev) if m["role"] == "user" => blocks(prev, "tool_use")
                .map(|b| b["id"].as_str().expect("id"))
                .collect(),
            _ => Vec::new(),
        };
        assert_eq!(
            results, expected,
            "request {which}, message {i}: results do not answer the calls before them"
        );
        if m["role"] == "assistant" && blocks(m, "tool_use").next().is_some() {
            assert!(
                i + 1 < msgs.len(),
                "request {which}: the last message has unanswered calls"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_iteration_task_with_large_outputs_stays_inside_the_window() {
    let mut script = Script::new()
        .rule("context compactor", Reply::text(SUMMARY))
        .max_input_tokens(WINDOW);
    for i in 0..STEPS {
        script = script.reply(Reply::tool_calls(vec![step(i)]));
    }
    let w = World::new(script.reply(Reply::text("All 200 steps done."))).await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join("logs")).unwrap();
    for n in 0..5 {
        std::fs::write(p.join(format!("logs/big-{n}.log")), log_text("big", 900)).unwrap();
    }
    for n in 0..7 {
        std::fs::write(p.join(format!("logs/medium-{n}.log")), log_text("mid", 90)).unwrap();
    }
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        format!("max_turns: 250\ncontext:\n  window_tokens: {WINDOW}\n"),
    )
    .unwrap();

    let out = w
        .run(&[
            "send",
            "--output",
            "stream-json",
            "Work through all 200 steps: read the logs one by one.",
        ])
        .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = out.json_lines();
    assert!(
        !events.iter().any(|e| e["type"] == "error"),
        "no error event: {:?}",
        events
            .iter()
            .filter(|e| e["type"] == "error")
            .collect::<Vec<_>>()
    );
    let last = events
        .iter()
        .rev()
        .find(|e| e["type"] == "assistant_message")
        .expect("an answer");
    assert_eq!(last["content"][0]["text"], "All 200 steps done.");

    let requests = w.mock.requests();
    let (summaries, loop_calls): (Vec<_>, Vec<_>) = requests
        .iter()
        .enumerate()
        .partition(|(_, r)| is_summary_call(r));
    assert_eq!(loop_calls.len(), STEPS + 1, "one request per iteration");
    assert_eq!(w.mock.remaining(), 0);
    let compactions: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .collect();
    assert!(
        summaries.len() >= 2,
        "the window forces several compactions, saw {}",
        summaries.len()
    );
    assert_eq!(compactions.len(), summaries.len());
    for c in &compactions {
        let (before, after) = (c["before_tokens"].as_u64(), c["after_tokens"].as_u64());
        assert!(after < before, "{c}");
    }

    // No request went over the window (the mock would have refused it and the turn
    // would have failed; this checks the margin too).
    for (i, r) in requests.iter().enumerate() {
        let tokens = r.body.to_string().len() as u64 / 4;
        assert!(tokens <= WINDOW, "request {i}: {tokens} tokens");
    }

    // The summary calls: no tools, the structured sections asked for, the history
    // rendered with its tool calls; the first one holds the task, the later ones the
    // summary they replace.
    for (n, (i, r)) in summaries.iter().enumerate() {
        assert!(
            r.body.get("tools").is_none_or(|t| t == &json!([])),
            "summary call {i} offers no tools"
        );
        let asked = messages(r)[0].to_string();
        for s in [
            "<conversation>",
            "## Goal",
            "## Files read and changed",
            "## Next step",
            "[agent calls Read]",
        ] {
            assert!(asked.contains(s), "summary call {i}: {s}");
        }
        let holds = if n == 0 {
            "Work through all 200 steps"
        } else {
            "Read the next log."
        };
        assert!(asked.contains(holds), "summary call {i}: {holds}");
    }

    // Every loop request is chain-valid; the one after each compaction starts with the
    // summary, then the kept iterations exactly as the provider saw them before.
    let mut after_summary = BTreeSet::new();
    for (i, _) in &summaries {
        after_summary.insert(i + 1);
    }
    let mut previous: Option<&RecordedRequest> = None;
    for (i, r) in &loop_calls {
        let msgs = messages(r);
        assert_chain_valid(msgs, *i);
        if after_summary.contains(i) {
            let first = msgs[0].to_string();
            assert!(first.contains("was compacted") && first.contains("Read the next log."));
            assert_eq!(
                msgs[1]["role"], "assistant",
                "request {i}: the cut falls between iterations of the one turn"
            );
            let prev = messages(previous.expect("a request before the compaction"));
            // kept: the previous request's last iteration (call + results), then the
            // call answered since and its results
            assert_eq!(plain(&msgs[1]), plain(&prev[prev.len() - 2]), "request {i}");
            assert_eq!(plain(&msgs[2]), plain(&prev[prev.len() - 1]), "request {i}");
            assert_eq!(msgs.len(), 5, "request {i}: summary + two iterations");
        }
        previous = Some(r);
    }

    // Layer 1 saved the big reads; layer 2 stubbed old medium ones along the way.
    let session = out.session_id();
    let spilled = std::fs::read_dir(w.home.path().join("data/tool-results").join(&session))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(spilled, STEPS / 4, "each big read was saved to a file");
    let stubbed = loop_calls.iter().any(|(_, r)| {
        r.body["messages"]
            .to_string()
            .contains("[cleared to save context: ")
    });
    assert!(stubbed, "old results were stubbed at some point");
}

/// A window so small that each result is a sizeable part of it (as with local models of
/// 16k tokens): results are still shortened to fit, and compaction does not run at every
/// iteration.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_near_the_size_of_a_small_window_do_not_make_compaction_thrash() {
    const SMALL: u64 = 16_000;
    const STEPS: usize = 60;
    let mut script = Script::new()
        .rule("context compactor", Reply::text(SUMMARY))
        .max_input_tokens(SMALL);
    for i in 0..STEPS {
        script = script.reply(Reply::tool_calls(vec![ToolCall::with_id(
            format!("toolu_small_{i:02}"),
            "Read",
            json!({"file_path": format!("logs/part-{}.log", i % 3)}),
        )]));
    }
    let w = World::new(script.reply(Reply::text("Done."))).await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join("logs")).unwrap();
    for n in 0..3 {
        // about 16k characters: 4k tokens, a quarter of the window
        std::fs::write(p.join(format!("logs/part-{n}.log")), log_text("part", 230)).unwrap();
    }
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        format!("max_turns: 100\ncontext:\n  window_tokens: {SMALL}\n"),
    )
    .unwrap();
    let out = w.run(&["send", "read the parts again and again"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim_end().lines().last(), Some("Done."));
    let summaries = w
        .mock
        .requests()
        .iter()
        .filter(|r| is_summary_call(r))
        .count();
    assert!(
        (1..=STEPS / 4).contains(&summaries),
        "{summaries} compactions for {STEPS} iterations"
    );
}
