//! Provider behaviour seen through the daemon: retries, withdrawn partial answers,
//! thinking kept verbatim, usage recorded.

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{Api, World};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_then_success_is_retried_with_a_retrying_event() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let w = World::with_api(
            api,
            Script::new()
                .reply(Reply::rate_limited("0"))
                .reply(Reply::overloaded())
                .reply(Reply::text("Made it.")),
        )
        .await;
        let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
        assert_eq!(out.code, 0, "{out:?}");
        let events = out.json_lines();
        let retries: Vec<_> = events.iter().filter(|e| e["type"] == "retrying").collect();
        assert_eq!(retries.len(), 2, "{events:?}");
        // `attempt` numbers the send about to start; a 429 and a 529 are two
        // categories, each at its first retry.
        assert_eq!(retries[0]["attempt"], 2);
        assert_eq!(retries[1]["attempt"], 2);
        let recoveries: Vec<_> = events.iter().filter(|e| e["type"] == "recovery").collect();
        let seen: Vec<_> = recoveries
            .iter()
            .map(|e| {
                (
                    e["category"].as_str(),
                    e["strategy"].as_str(),
                    e["attempt"].as_u64(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (Some("rate_limited"), Some("retry"), Some(1)),
                (Some("overloaded"), Some("retry"), Some(1))
            ]
        );
        let line = recoveries[0]["message"].as_str().unwrap();
        assert!(
            line.starts_with("retrying in ") && line.ends_with("(rate limited, attempt 1/5)"),
            "{line}"
        );
        assert!(
            retries[0]["reason"].as_str().unwrap().contains("429"),
            "{}",
            retries[0]
        );
        let done = events
            .iter()
            .find(|e| e["type"] == "assistant_message")
            .unwrap();
        assert_eq!(done["content"][0]["text"], "Made it.");
        assert_eq!(w.mock.request_count(), 3);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_stream_is_withdrawn_and_the_answer_appears_once() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let w = World::with_api(
            api,
            Script::new()
                .reply(Reply::disconnect("Partial words that will be withdrawn"))
                .reply(Reply::mid_stream_error("Another partial"))
                .reply(Reply::text("The complete answer.")),
        )
        .await;
        let out = w.run(&["send", "--output", "stream-json", "hi"]).await;
        assert_eq!(out.code, 0, "{out:?}");
        let events = out.json_lines();
        let resets = events
            .iter()
            .filter(|e| e["type"] == "stream_reset")
            .count();
        assert_eq!(resets, 2, "{events:?}");
        let finals: Vec<_> = events
            .iter()
            .filter(|e| e["type"] == "assistant_message")
            .collect();
        assert_eq!(finals.len(), 1);
        assert_eq!(finals[0]["content"][0]["text"], "The complete answer.");
        // A client replaying deltas and honouring resets sees the answer once.
        let mut text = String::new();
        for e in &events {
            match e["type"].as_str().unwrap() {
                "text_delta" => text.push_str(e["text"].as_str().unwrap()),
                "stream_reset" => text.clear(),
                _ => {}
            }
        }
        assert_eq!(text, "The complete answer.");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auth_error_is_not_retried() {
    let w = World::new(Script::new().reply(Reply::error(401))).await;
    let out = w.run(&["send", "--output", "json", "hi"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.json()["error"]["kind"], "auth");
    assert_eq!(w.mock.request_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_and_its_signature_go_back_verbatim() {
    let w = World::new(
        Script::new()
            .reply(
                ScriptedReply::new(Reply::tool_calls(vec![ToolCall::new(
                    "Glob",
                    json!({"pattern": "*"}),
                )]))
                .with_thinking("I should list the files.")
                .with_signature("sig-abc"),
            )
            .reply(Reply::text("Listed.")),
    )
    .await;
    let out = w.run(&["send", "list"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let msgs = &w.mock.requests()[1].body["messages"];
    let assistant = &msgs[1]["content"][0];
    assert_eq!(assistant["type"], "thinking");
    assert_eq!(assistant["thinking"], "I should list the files.");
    assert_eq!(assistant["signature"], "sig-abc");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_tokens_is_reported_with_exit_1() {
    let w = World::new(Script::new().reply(Reply::max_tokens("Cut off mid"))).await;
    let out = w.run(&["send", "--output", "json", "write a lot"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.json()["stop_reason"], "max_tokens");
}
