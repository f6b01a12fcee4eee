//! Recovery end to end (DESIGN.md §11): each category's chain run by the daemon against
//! the scripted provider — retries of a 429 storm, a fallback model after 529s, a
//! context overflow truncated or compacted away (or not: an abort that says what was
//! tried), reminders for malformed calls and missed edits, a summary out of empty
//! answers, and attempts counted on across a `kill -9` of the daemon.

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{RecordedRequest, Reply, Script, ScriptedReply, system_text};
use serde_json::{Value, json};

use crate::harness::{World, chain_is_valid, gone, kill9};

/// The `recovery` events of a stream, as (category, strategy, attempt, max).
fn recoveries(events: &[Value]) -> Vec<(String, String, u64, u64)> {
    events
        .iter()
        .filter(|e| e["type"] == "recovery")
        .map(|e| {
            (
                e["category"].as_str().unwrap_or_default().to_string(),
                e["strategy"].as_str().unwrap_or_default().to_string(),
                e["attempt"].as_u64().unwrap_or_default(),
                e["max"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

fn step(category: &str, strategy: &str, attempt: u64, max: u64) -> (String, String, u64, u64) {
    (category.into(), strategy.into(), attempt, max)
}

fn turn_end(events: &[Value]) -> &Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "turn_completed")
        .expect("turn_completed")
}

/// The text of everything a request sent (system prompt, messages, tool results).
fn sent(r: &RecordedRequest) -> String {
    r.body.to_string()
}

fn write_config(w: &World, yaml: &str) {
    let dir = w.project_path().join(".roocode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), yaml).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_storm_is_retried_until_it_passes_and_the_client_says_so() {
    let w = World::new(
        Script::new()
            .reply(Reply::rate_limited("0"))
            .reply(Reply::rate_limited("0"))
            .reply(Reply::rate_limited("0"))
            .reply(Reply::rate_limited("0"))
            .reply(Reply::text("Through at last.")),
    )
    .await;
    let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        (1..=4)
            .map(|a| step("rate_limited", "retry", a, 5))
            .collect::<Vec<_>>()
    );
    assert!(turn_end(&events)["error"].is_null(), "{events:?}");
    // One place retries: five sends in all, not five per attempt.
    assert_eq!(w.mock.request_count(), 5);

    // The text client prints what recovery does.
    w.mock.push(Reply::rate_limited("0"));
    w.mock.push(Reply::text("Again."));
    let out = w.run(&["send", "--continue", "once more"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with("retrying in ") && l.ends_with("(rate limited, attempt 1/5)")),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("Again."), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overloaded_twice_falls_back_to_the_configured_model_for_the_rest_of_the_turn() {
    let w = World::new(
        Script::new()
            .reply(Reply::overloaded())
            .reply(Reply::overloaded())
            .reply(Reply::tool_call("Glob", json!({"pattern": "*.md"})))
            .reply(Reply::text("Answered by the fallback.")),
    )
    .await;
    write_config(
        &w,
        "recovery:\n  fallback_model: anthropic/claude-haiku-4-5\n  chains:\n    overloaded: [{retry: 1}, fallback_model, abort]\n",
    );
    let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [
            step("overloaded", "retry", 1, 1),
            step("overloaded", "fallback_model", 1, 1)
        ]
    );
    let fallback = events
        .iter()
        .find(|e| e["strategy"] == "fallback_model")
        .unwrap();
    let message = fallback["message"].as_str().unwrap();
    assert!(
        message.contains("anthropic/claude-haiku-4-5") && message.contains("rest of the turn"),
        "{message}"
    );
    let models: Vec<String> = w
        .mock
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        models,
        [
            "claude-sonnet-4-5",
            "claude-sonnet-4-5",
            "claude-haiku-4-5",
            "claude-haiku-4-5"
        ]
    );
    // The next turn is the agent's own model again.
    w.mock.push(Reply::text("Back."));
    let out = w.run(&["send", "--continue", "and now?"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let last = w.mock.requests().pop().unwrap();
    assert_eq!(last.body["model"], "claude-sonnet-4-5");
}

/// Reads of three ~20,000-character files: each kept whole by layer 1 (under its
/// 25,000-character threshold), together over the scripted window.
fn big_reads(w: &World) -> Vec<Reply> {
    for n in 0..3 {
        let text: String = (0..400)
            .map(|l| format!("file {n} line {l:04}: {}\n", "x".repeat(32)))
            .collect();
        std::fs::write(w.project_path().join(format!("big-{n}.txt")), text).unwrap();
    }
    (0..3)
        .map(|n| Reply::tool_call("Read", json!({"file_path": format!("big-{n}.txt")})))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_overflow_is_truncated_away_and_the_turn_goes_on() {
    let w = World::new(Script::new().max_input_tokens(12_000)).await;
    for reply in big_reads(&w) {
        w.mock.push(reply);
    }
    w.mock.push(Reply::text("Read them all."));
    let out = w
        .run(&["send", "--output", "stream-json", "read the big files"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    let steps = recoveries(&events);
    assert_eq!(
        steps.first(),
        Some(&step("context_overflow", "truncate", 1, 1)),
        "{steps:?}"
    );
    assert!(turn_end(&events)["error"].is_null(), "{events:?}");
    let requests = w.mock.requests();
    let last = requests.last().unwrap();
    assert!(
        sent(last).contains("Output too large for the conversation"),
        "the big results went to files"
    );
    chain_is_valid(&last.body).unwrap();
    assert!(
        sent(last).contains("file 2 line 0000"),
        "previews keep the start"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_overflow_with_nothing_to_shrink_is_compacted_and_the_turn_goes_on() {
    let mut script = Script::new().rule(
        "context compactor",
        Reply::text("## Goal\nList things.\n## Next step\nAnswer."),
    );
    for _ in 0..4 {
        script = script.reply(Reply::tool_call("Glob", json!({"pattern": "*"})));
    }
    let w = World::new(
        script
            .reply(Reply::error(413))
            .reply(Reply::text("Done after compacting.")),
    )
    .await;
    let out = w.run(&["send", "--output", "stream-json", "list"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [step("context_overflow", "compact", 1, 1)],
        "truncate had nothing to shrink: {events:?}"
    );
    assert!(events.iter().any(|e| e["type"] == "compaction"));
    assert!(turn_end(&events)["error"].is_null(), "{events:?}");
    let compactions = w
        .mock
        .requests()
        .iter()
        .filter(|r| system_text(&r.body).contains("context compactor"))
        .count();
    assert_eq!(compactions, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overflow_nothing_can_fix_aborts_with_what_was_tried() {
    let w = World::new(Script::new().max_input_tokens(500)).await;
    let huge = "a very long request ".repeat(400);
    let out = w.run(&["send", "--output", "stream-json", &huge]).await;
    assert_ne!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [step("context_overflow", "abort", 1, 1)]
    );
    let error = &turn_end(&events)["error"];
    assert_eq!(error["kind"], "context_overflow", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("prompt is too long"), "{message}");
    assert!(
        message.contains("no tool result was large enough to shrink")
            && message.contains("nothing old enough to summarise"),
        "{message}"
    );
    // Nothing was sent again: no strategy could change the request.
    assert_eq!(w.mock.request_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_malformed_calls_in_a_row_get_two_reminders_then_an_abort() {
    let bad = || Reply::tool_call("Read", json!({"file_path": 42}));
    let w = World::new(
        Script::new()
            .reply(bad())
            .reply(bad())
            .reply(bad())
            .reply(Reply::text("never sent")),
    )
    .await;
    let out = w.run(&["send", "--output", "stream-json", "read"]).await;
    assert_ne!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [
            step("malformed_tool_call", "remind_and_retry", 1, 2),
            step("malformed_tool_call", "remind_and_retry", 2, 2),
            step("malformed_tool_call", "abort", 3, 3),
        ]
    );
    let error = &turn_end(&events)["error"];
    assert_eq!(error["kind"], "malformed_tool_call");
    assert!(
        error["message"].as_str().unwrap().contains("reminder ×2"),
        "{error}"
    );
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 3);
    // The reminder names the tool and quotes the schema's complaint.
    let second = sent(&requests[1]);
    assert!(
        second.contains("Your call to Read could not run"),
        "{second}"
    );
    assert!(second.contains("/file_path"), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_edit_gets_a_reminder_naming_the_file() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Read", json!({"file_path": "src/a.rs"})))
            .reply(Reply::tool_call(
                "Edit",
                json!({"file_path": "src/a.rs", "old_string": "fn missing()", "new_string": "fn found()"}),
            ))
            .reply(Reply::text("I will read it again.")),
    )
    .await;
    std::fs::create_dir_all(w.project_path().join("src")).unwrap();
    std::fs::write(w.project_path().join("src/a.rs"), "fn present() {}\n").unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "acceptEdits",
            "--output",
            "stream-json",
            "rename",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [step("edit_error", "remind_and_retry", 1, 2)]
    );
    let message = events.iter().find(|e| e["type"] == "recovery").unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("Edit src/a.rs"), "{message}");
    let last = sent(w.mock.requests().last().unwrap());
    assert!(
        last.contains("Your Edit of src/a.rs did not apply"),
        "{last}"
    );
    assert!(last.contains("old_string was not found in"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_answers_get_a_reminder_then_a_summary_of_where_the_task_stands() {
    let w = World::new(
        Script::new()
            .rule(
                "progress note writer",
                Reply::text("Nothing is done yet; next the agent answers the greeting."),
            )
            .reply(Reply::text(""))
            .reply(Reply::text(""))
            .reply(Reply::text("Hello!")),
    )
    .await;
    let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [
            step("empty_result", "remind_and_retry", 1, 1),
            step("empty_result", "summarize", 1, 1)
        ]
    );
    let requests = w.mock.requests();
    let last = sent(requests.last().unwrap());
    assert!(last.contains("Your last answer was empty"), "{last}");
    assert!(
        last.contains("next the agent answers the greeting"),
        "the summary is in the next request: {last}"
    );
    let summaries = requests
        .iter()
        .filter(|r| system_text(&r.body).contains("progress note writer"))
        .collect::<Vec<_>>();
    assert_eq!(summaries.len(), 1);
    assert!(
        summaries[0].body["tools"]
            .as_array()
            .is_none_or(|t| t.is_empty())
    );
    assert!(out.stdout.contains("Hello!"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_count_on_after_the_daemon_is_killed() {
    let mut w = World::new(
        Script::new()
            .reply(Reply::rate_limited("0"))
            // No retry-after: the wait is the backoff, long enough to kill the daemon in.
            .reply(Reply::error(429))
            .reply(Reply::rate_limited("0"))
            .reply(Reply::text("Finally.")),
    )
    .await;
    w.vars
        .push(("ROOCODE_RETRY_BASE_MS".into(), "20000".into()));
    let mut running = w.start(&["send", "--output", "stream-json", "hi"]);
    let first = running.until_event("recovery").await;
    assert_eq!(first["attempt"], 1);
    let second = running.until_event("recovery").await;
    assert_eq!(second["attempt"], 2, "{second}");
    let session = second["session_id"].as_str().unwrap().to_string();
    let pid = w.daemon_info().await["pid"].as_u64().unwrap();
    running.signal(Signal::SIGKILL);
    let _ = running.finish().await;
    kill9(pid);
    gone(pid).await;

    w.vars.clear();
    let out = w
        .run(&[
            "send",
            "--session",
            &session,
            "--output",
            "stream-json",
            "continue",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(
        recoveries(&events),
        [step("rate_limited", "retry", 3, 5)],
        "the third 429 is the third attempt, after the crash too"
    );
    assert!(out.stdout.contains("Finally."), "{out:?}");

    // A success cleared the count: the next 429 starts again at 1.
    w.mock.push(Reply::rate_limited("0"));
    w.mock.push(Reply::text("Fine."));
    let out = w
        .run(&[
            "send",
            "--session",
            &session,
            "--output",
            "stream-json",
            "again",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        recoveries(&out.json_lines()),
        [step("rate_limited", "retry", 1, 5)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stream_counts_as_a_network_failure_and_is_sent_again() {
    let w = World::new(
        Script::new()
            // Never released: the server holds the request open and sends nothing.
            .reply(ScriptedReply::new(Reply::text("never")).with_gate("held"))
            .reply(Reply::text("Sent again.")),
    )
    .await;
    write_config(&w, "llm:\n  stall_timeout_s: 0.3\n");
    let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(recoveries(&events), [step("network", "retry", 1, 5)]);
    assert!(out.stdout.contains("Sent again."), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_aborts_at_once_naming_the_model() {
    let w = World::new(Script::new().reply(Reply::error(404))).await;
    let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
    assert_ne!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    assert_eq!(recoveries(&events), [step("bad_request", "abort", 1, 1)]);
    let error = &turn_end(&events)["error"];
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("404") && message.contains("(model anthropic/claude-sonnet-4-5)"),
        "{message}"
    );
    assert!(!message.contains("recovery tried"), "{message}");
    assert_eq!(w.mock.request_count(), 1, "never sent again");
}
