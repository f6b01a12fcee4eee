//! `roocode-cli send`: outputs, exit statuses and error messages (DESIGN.md §3, §12).

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{Api, World};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_answer_streams_to_stdout() {
    let w = World::new(Script::new().reply(Reply::text("Hello from the mock, in several chunks.")))
        .await;
    let out = w.run(&["send", "say hello"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Hello from the mock, in several chunks.\n");
    let (id, short) = (out.session_id(), out.short_session_id());
    assert!(
        out.stderr.starts_with(&format!("session: {short} ({id})")),
        "{}",
        out.stderr
    );
    let req = &w.mock.requests()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("test-key"));
    assert_eq!(req.body["messages"][0]["role"], "user");
    assert!(req.body["messages"][0].to_string().contains("say hello"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_output_reports_text_usage_and_stop_reason() {
    let w = World::new(Script::new().reply(Reply::text("Forty-two."))).await;
    let out = w.run(&["send", "--output", "json", "the answer?"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let v = out.json();
    assert_eq!(v["stop_reason"], "end_turn");
    assert_eq!(v["text"], "Forty-two.");
    assert_eq!(v["session_id"], out.session_id());
    assert!(v["turn_id"].is_string());
    assert!(v["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert!(v["usage"]["output_tokens"].as_u64().unwrap() > 0);
    assert!(
        v["usage"]["cost_usd"].as_f64().is_some(),
        "known model has a cost: {v}"
    );
    assert!(v.get("error").is_none_or(|e| e.is_null()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_json_prints_every_event_of_the_turn_in_order() {
    let w = World::with_api(Api::OpenAi, Script::new().reply(Reply::text("Hi there."))).await;
    let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.json_lines();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"user_message"), "{types:?}");
    // The first turn tells the model the skills (an `injected` skill listing).
    assert_eq!(types.get(1), Some(&"injected"), "{types:?}");
    assert_eq!(types.get(2), Some(&"turn_started"), "{types:?}");
    assert!(types.contains(&"text_delta"));
    assert!(types.contains(&"assistant_message"));
    assert!(types.contains(&"usage"));
    assert_eq!(types.last(), Some(&"turn_completed"));
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|p| p[1] == p[0] + 1), "{seqs:?}");
    let sid = out.session_id();
    for e in &events {
        assert_eq!(e["session_id"], sid.as_str());
        assert_eq!(e["agent_id"], sid.as_str());
        assert!(e["ts"].as_str().unwrap().ends_with('Z'));
    }
    assert_eq!(events.last().unwrap()["stop_reason"], "end_turn");
    let req = &w.mock.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert_eq!(req.body["stream_options"]["include_usage"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_wait_returns_at_once_and_the_turn_finishes_in_the_daemon() {
    let w = World::new(
        Script::new().reply(ScriptedReply::new(Reply::text("Background answer.")).with_gate("g")),
    )
    .await;
    let out = w
        .run(&["send", "--no-wait", "work in the background"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "");
    let id = out.session_id();
    w.mock.wait_for_gate_reached("g").await;
    w.mock.open_gate("g");
    let attached = w.run(&["attach", &id, "--until-idle"]).await;
    assert_eq!(attached.code, 0, "{attached:?}");
    assert!(
        attached.stdout.contains("Background answer."),
        "{}",
        attached.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_is_one_clear_line_and_exit_1() {
    let mut w = World::new(Script::new()).await;
    w.vars.push(("ANTHROPIC_API_KEY".into(), String::new()));
    let out = w.run(&["send", "hi"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let errors: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", out.stderr);
    assert!(errors[0].contains("ANTHROPIC_API_KEY"), "{}", errors[0]);
    assert_eq!(w.mock.request_count(), 0);
    // Refused before a session was created: nothing is left behind.
    let list = w.run(&["sessions", "--json"]).await;
    assert_eq!(list.json().as_array().unwrap().len(), 0, "{list:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_endpoint_names_the_url_and_exits_1() {
    let mut w = World::new(Script::new()).await;
    // A port nothing listens on: bind, note it, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    w.vars.push((
        "ANTHROPIC_BASE_URL".into(),
        format!("http://127.0.0.1:{port}"),
    ));
    let out = w.run(&["send", "--output", "json", "hi"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let v = out.json();
    assert_eq!(v["stop_reason"], "error");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains(&format!("127.0.0.1:{port}")), "{msg}");
    assert_eq!(v["error"]["kind"], "network");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_turns_stops_with_exit_3() {
    let mut w =
        World::new(Script::new().fallback(Reply::tool_call("Glob", json!({"pattern": "*.txt"}))))
            .await;
    w.vars.push(("ROOCODE_MAX_TURNS".into(), "2".into()));
    let out = w.run(&["send", "--output", "json", "loop forever"]).await;
    assert_eq!(out.code, 3, "{out:?}");
    assert_eq!(out.json()["stop_reason"], "max_turns");
    assert_eq!(w.mock.request_count(), 2);
    assert!(out.stderr.contains("max_turns"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_unknown_tools_in_a_row_end_the_turn() {
    let w = World::new(Script::new().fallback(Reply::tool_calls(vec![ToolCall::new(
        "Teleport",
        json!({}),
    )])))
    .await;
    let out = w.run(&["send", "--output", "json", "go"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let v = out.json();
    assert_eq!(v["stop_reason"], "error");
    assert_eq!(v["error"]["kind"], "unknown_tool");
    assert_eq!(w.mock.request_count(), 3);
    // The model was told, each time, which tools exist.
    let second = &w.mock.requests()[1].body["messages"];
    assert!(
        second.to_string().contains("Unknown tool `Teleport`"),
        "{second}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_errors_exit_2() {
    let w = World::new(Script::new()).await;
    let out = w.run(&["send", "--session", "x", "--new", "hi"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    let out = w.run(&["send", "--output", "yaml", "hi"]).await;
    assert_eq!(out.code, 2, "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_and_session_prefix_reuse_a_session() {
    let w = World::new(Script::always(Reply::text("ok"))).await;
    let first = w.run(&["send", "one"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    let second = w.run(&["send", "--continue", "two"]).await;
    assert_eq!(second.session_id(), id);
    let third = w.run(&["send", "--session", &id[..13], "three"]).await;
    assert_eq!(third.code, 0, "{third:?}");
    assert_eq!(third.session_id(), id);
    // The third request carries the whole conversation.
    let body = w.mock.requests()[2].body["messages"].to_string();
    assert!(
        body.contains("one") && body.contains("two") && body.contains("three"),
        "{body}"
    );
    let new = w.run(&["send", "--new", "four"]).await;
    assert_ne!(new.session_id(), id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_commands_run_in_the_daemon_and_never_reach_the_model() {
    let w = World::new(Script::always(Reply::text("Answer."))).await;
    let first = w.run(&["send", "hello"]).await;
    let id = first.session_id();
    let cost = w.run(&["send", "--session", &id, "/cost"]).await;
    assert_eq!(cost.code, 0, "{cost:?}");
    assert!(cost.stdout.starts_with("Cost: $"), "{}", cost.stdout);
    // the session row: cost, input, output, cache read, cache write, calls, time
    let session_row: Vec<&str> = cost
        .stdout
        .lines()
        .find(|l| l.starts_with("Session"))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    assert_eq!(session_row.get(6), Some(&"1"), "{}", cost.stdout);
    let mode = w.run(&["send", "--session", &id, "/mode plan"]).await;
    assert_eq!(mode.stdout, "Mode set to plan.\n");
    let bad = w.run(&["send", "--session", &id, "/mode sideways"]).await;
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.contains("unknown mode `sideways`"),
        "{}",
        bad.stderr
    );
    let help = w.run(&["send", "--session", &id, "/help"]).await;
    for name in ["/clear", "/cost", "/mode", "/model", "/help"] {
        assert!(help.stdout.contains(name), "{}", help.stdout);
    }
    let model = w
        .run(&["send", "--session", &id, "/model openai/gpt-4.1"])
        .await;
    assert_eq!(model.stdout, "Model set to openai/gpt-4.1.\n");
    let clear = w.run(&["send", "--session", &id, "/clear"]).await;
    assert_eq!(clear.code, 0, "{clear:?}");
    let export = w.run(&["export", &id]).await;
    assert_eq!(export.stdout, "", "the context is empty after /clear");
    // A message that merely starts with a path is a message.
    let path = w
        .run(&[
            "send",
            "--session",
            &id,
            "--model",
            "anthropic/claude-sonnet-4-5",
            "/etc/hosts looks odd",
        ])
        .await;
    assert_eq!(path.code, 0, "{path:?}");
    assert_eq!(w.mock.request_count(), 2);
    let info = w.run(&["sessions", "--json"]).await.json();
    assert_eq!(info[0]["mode"], "plan");
}
