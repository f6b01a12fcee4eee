//! End-to-end tests of the mock LLM over real loopback HTTP: both protocols' SSE, the
//! quirk options, gates, errors, recording and the exhausted / fallback behaviour.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::test_client::{Response, post, send, within};
use super::*;

fn anthropic_request() -> Value {
    json!({"model": "claude-test", "max_tokens": 1024, "stream": true,
        "messages": [{"role": "user", "content": "hi"}]})
}

fn openai_request(include_usage: bool) -> Value {
    let mut req = json!({"model": "gpt-test", "stream": true,
        "messages": [{"role": "user", "content": "hi"}]});
    if include_usage {
        req["stream_options"] = json!({"include_usage": true});
    }
    req
}

/// The `data:` payloads of an OpenAI stream, `[DONE]` excluded.
fn chunks(resp: &Response) -> Vec<Value> {
    resp.sse()
        .iter()
        .filter(|e| e.data != "[DONE]")
        .map(|e| e.json())
        .collect()
}

fn event_types(resp: &Response) -> Vec<String> {
    resp.sse()
        .iter()
        .map(|e| e.event.clone().unwrap())
        .collect()
}

#[tokio::test]
async fn anthropic_tool_call_streams_input_json_in_pieces() {
    let input = json!({"file_path": "src/main.rs", "limit": 20, "note": "ünïcode"});
    let reply = ScriptedReply::new(Reply::ToolCalls {
        text: Some("Let me read it.".into()),
        calls: vec![ToolCall::with_id("toolu_1", "Read", input.clone())],
    })
    .with_thinking("I should read the file.");
    let mock = MockLlm::start(Script::new().reply(reply)).await.unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("text/event-stream"));
    assert!(resp.complete);

    let events = resp.sse();
    for e in &events {
        assert_eq!(
            e.json()["type"],
            e.event.clone().unwrap(),
            "event line matches data type"
        );
    }
    let types = event_types(&resp);
    assert_eq!(types.first().map(String::as_str), Some("message_start"));
    assert!(types.contains(&"ping".to_owned()));
    assert_eq!(&types[types.len() - 2..], ["message_delta", "message_stop"]);
    let start = events[0].json();
    assert_eq!(start["message"]["model"], "claude-test");
    assert!(start["message"]["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(start["message"]["usage"]["cache_read_input_tokens"], 0);

    let deltas: Vec<Value> = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .map(|e| e.json())
        .collect();
    let of_kind = |kind: &str, field: &str| -> Vec<String> {
        deltas
            .iter()
            .filter(|d| d["delta"]["type"] == kind)
            .map(|d| d["delta"][field].as_str().unwrap().to_owned())
            .collect()
    };
    let json_pieces = of_kind("input_json_delta", "partial_json");
    assert!(
        json_pieces.iter().filter(|p| !p.is_empty()).count() >= 2,
        "{json_pieces:?}"
    );
    let joined: Value = serde_json::from_str(&json_pieces.concat()).unwrap();
    assert_eq!(joined, input);
    assert_eq!(of_kind("text_delta", "text").concat(), "Let me read it.");
    assert_eq!(
        of_kind("thinking_delta", "thinking").concat(),
        "I should read the file."
    );
    assert_eq!(of_kind("signature_delta", "signature").len(), 1);

    let blocks: Vec<Value> = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_start"))
        .map(|e| e.json()["content_block"].clone())
        .collect();
    assert_eq!(blocks[0]["type"], "thinking");
    assert_eq!(blocks[1]["type"], "text");
    assert_eq!(
        blocks[2],
        json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}})
    );
    let message_delta = events[events.len() - 2].json();
    assert_eq!(message_delta["delta"]["stop_reason"], "tool_use");
    assert!(message_delta["usage"]["output_tokens"].as_u64().unwrap() >= 1);
}

#[tokio::test]
async fn openai_interleaved_calls_reassemble_by_index() {
    let calls = vec![
        ToolCall::new("Read", json!({"file_path": "a.txt"})),
        ToolCall::new("Grep", json!({"pattern": "fn main", "path": "src"})),
    ];
    let reply = ScriptedReply::new(Reply::tool_calls(calls))
        .with_interleave()
        .with_chunk_chars(5);
    let mock = MockLlm::start(Script::new().reply(reply)).await.unwrap();
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.sse().last().unwrap().data, "[DONE]");
    let chunks = chunks(&resp);
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": null})
    );
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    assert!(
        chunks.iter().any(|c| c.get("timings").is_some()),
        "unknown field present"
    );

    let mut order = Vec::new();
    let mut acc: BTreeMap<u64, (Option<String>, Option<String>, String, usize)> = BTreeMap::new();
    for chunk in &chunks {
        for tc in chunk["choices"][0]["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let index = tc["index"].as_u64().unwrap();
            order.push(index);
            let entry = acc.entry(index).or_default();
            if let Some(id) = tc["id"].as_str() {
                entry.0 = Some(id.to_owned());
                entry.3 += 1;
            }
            if let Some(name) = tc["function"]["name"].as_str() {
                entry.1 = Some(name.to_owned());
            }
            entry
                .2
                .push_str(tc["function"]["arguments"].as_str().unwrap());
        }
    }
    assert_eq!(&order[..4], [0, 1, 0, 1], "deltas interleave by index");
    assert_eq!(acc.len(), 2);
    let (id0, name0, args0, ids0) = &acc[&0];
    assert_eq!(
        (id0.as_deref(), name0.as_deref(), *ids0),
        (Some("call_mock_1_0"), Some("Read"), 1)
    );
    assert_eq!(
        serde_json::from_str::<Value>(args0).unwrap(),
        json!({"file_path": "a.txt"})
    );
    let (_, name1, args1, ids1) = &acc[&1];
    assert_eq!((name1.as_deref(), *ids1), (Some("Grep"), 1));
    assert_eq!(
        serde_json::from_str::<Value>(args1).unwrap(),
        json!({"pattern": "fn main", "path": "src"})
    );
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );
}

#[tokio::test]
async fn openai_repeat_ids_puts_id_and_name_on_every_delta() {
    let reply = ScriptedReply::new(Reply::tool_call("Read", json!({"file_path": "a.txt"})))
        .with_repeat_ids();
    let mock = MockLlm::start(Script::new().reply(reply)).await.unwrap();
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    let deltas: Vec<Value> = chunks(&resp)
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0).cloned())
        .collect();
    assert!(deltas.len() >= 3);
    assert!(
        deltas
            .iter()
            .all(|d| d["id"] == "call_mock_1_0" && d["function"]["name"] == "Read")
    );
}

#[tokio::test]
async fn openai_include_usage_adds_usage_chunk() {
    let reply = ScriptedReply::new(Reply::text("Hello there, world!")).with_usage(UsageSpec {
        input_tokens: Some(100),
        cache_read_input_tokens: Some(40),
        ..UsageSpec::default()
    });
    let mock = MockLlm::start(Script::new().reply(reply).reply(Reply::text("again")))
        .await
        .unwrap();
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(true)).await;
    let chunks = chunks(&resp);
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Hello there, world!");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"], json!([]));
    assert_eq!(last["usage"]["prompt_tokens"], 140);
    assert_eq!(last["usage"]["prompt_tokens_details"]["cached_tokens"], 40);
    assert_eq!(last["usage"]["completion_tokens"], 4);
    assert_eq!(
        chunks[chunks.len() - 2]["choices"][0]["finish_reason"],
        "stop"
    );

    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert!(chunks_have_no_usage(&resp));
}

fn chunks_have_no_usage(resp: &Response) -> bool {
    chunks(resp)
        .iter()
        .all(|c| c.get("usage").is_none() && c["choices"] != json!([]))
}

#[tokio::test]
async fn rate_limit_carries_retry_after() {
    let mock = MockLlm::start(Script::new().reply(Reply::rate_limited("0")))
        .await
        .unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert_eq!(resp.status, 429);
    assert_eq!(resp.header("retry-after"), Some("0"));
    assert_eq!(resp.json()["error"]["type"], "rate_limit_error");
}

#[tokio::test]
async fn scripted_error_bodies() {
    let script = Script::new()
        .reply(Reply::overloaded())
        .reply(Reply::Error {
            status: 500,
            body: json!("boom"),
            retry_after: None,
        })
        .reply(Reply::Error {
            status: 503,
            body: json!({"custom": 1}),
            retry_after: None,
        });
    let mock = MockLlm::start(script).await.unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert_eq!(
        (resp.status, resp.json()["error"]["type"].clone()),
        (529, json!("overloaded_error"))
    );
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert_eq!((resp.status, resp.body.as_str()), (500, "boom"));
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert_eq!((resp.status, resp.json()), (503, json!({"custom": 1})));
}

#[tokio::test]
async fn gate_holds_stream_until_opened() {
    let reply = ScriptedReply::new(Reply::text("first part, then the rest")).with_gate("g1");
    let mock = MockLlm::start(Script::new().reply(reply)).await.unwrap();
    let body = anthropic_request().to_string();
    let mut conn = send(mock.addr(), "POST", "/v1/messages", &body, &[]).await;
    assert!(within(conn.read_until("text_delta")).await);
    within(mock.wait_for_gate_reached("g1")).await;
    assert!(
        !conn.received().contains("message_stop"),
        "held at the gate"
    );
    mock.open_gate("g1");
    let resp = within(conn.finish()).await;
    assert!(resp.complete);
    assert_eq!(
        event_types(&resp).last().map(String::as_str),
        Some("message_stop")
    );
    let text: String = resp
        .sse()
        .iter()
        .filter_map(|e| e.json()["delta"]["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(text, "first part, then the rest");

    // An opened gate stays open for later streams.
    mock.push(ScriptedReply::new(Reply::text("later")).with_gate("g1"));
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert_eq!(resp.sse().last().unwrap().data, "[DONE]");
}

#[tokio::test]
async fn exhausted_script_then_fallback() {
    let mock = MockLlm::start(Script::new()).await.unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert_eq!(resp.status, 500);
    assert!(resp.body.contains(SCRIPT_EXHAUSTED), "{}", resp.body);
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert_eq!(resp.status, 500);
    assert!(resp.body.contains(SCRIPT_EXHAUSTED), "{}", resp.body);

    mock.set_fallback(Some(Reply::text("ok").into()));
    for _ in 0..3 {
        let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
        assert_eq!(resp.status, 200);
        assert!(resp.body.contains(r#""text":"ok""#));
    }
    assert_eq!(mock.request_count(), 5);
}

#[tokio::test]
async fn malformed_requests_get_400_and_pop_nothing() {
    let mock = MockLlm::start(Script::new().reply(Reply::text("kept")))
        .await
        .unwrap();
    let resp = within(
        send(mock.addr(), "POST", "/v1/messages", "{not json", &[])
            .await
            .finish(),
    )
    .await;
    assert_eq!(resp.status, 400);
    assert!(resp.body.contains("malformed JSON"), "{}", resp.body);
    let resp = post(
        mock.addr(),
        "/v1/messages",
        &json!({"model": "m", "stream": true}),
    )
    .await;
    assert_eq!(resp.status, 400);
    assert!(resp.body.contains("`messages`"), "{}", resp.body);
    let resp = post(
        mock.addr(),
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [1]}),
    )
    .await;
    assert!(
        resp.status == 400 && resp.body.contains("stream"),
        "{}",
        resp.body
    );
    let resp = post(mock.addr(), "/v2/other", &json!({})).await;
    assert_eq!(resp.status, 404);
    assert_eq!(mock.remaining(), 1);
    assert_eq!(mock.requests()[0].body, json!("{not json"));
}

#[tokio::test]
async fn records_headers_and_bodies_in_order() {
    let mock = MockLlm::start(Script::always(Reply::text("hi")))
        .await
        .unwrap();
    let body = anthropic_request().to_string();
    let headers = [
        ("X-Api-Key", "sk-test"),
        ("Anthropic-Version", "2023-06-01"),
    ];
    let conn = send(mock.addr(), "POST", "/v1/messages", &body, &headers).await;
    within(conn.finish()).await;
    let headers = [("Authorization", "Bearer sk-oai")];
    let body = openai_request(false).to_string();
    let conn = send(mock.addr(), "POST", "/v1/chat/completions", &body, &headers).await;
    within(conn.finish()).await;
    within(mock.wait_for_requests(2)).await;
    let requests = mock.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some("sk-test"));
    assert_eq!(
        requests[0]
            .headers
            .get("anthropic-version")
            .map(String::as_str),
        Some("2023-06-01")
    );
    assert_eq!(requests[0].body, anthropic_request());
    assert_eq!(requests[1].path, "/v1/chat/completions");
    assert_eq!(requests[1].header("Authorization"), Some("Bearer sk-oai"));
    assert_eq!(requests[1].method, "POST");
}

#[tokio::test]
async fn disconnect_drops_connection_without_terminal_event() {
    let script = Script::new()
        .reply(Reply::disconnect("abcdefghijklmnopqrstuvwxyz"))
        .reply(Reply::disconnect("abcdefghijklmnopqrstuvwxyz"));
    let mock = MockLlm::start(script).await.unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert!(!resp.complete, "chunked body must be cut off");
    assert!(resp.body.contains("text_delta"));
    assert!(!resp.body.contains("message_stop") && !resp.body.contains("message_delta"));
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(true)).await;
    assert!(!resp.complete);
    assert!(resp.body.contains("\"content\":\"abcdefgh\""));
    assert!(!resp.body.contains("[DONE]") && !resp.body.contains("finish_reason\":\"stop"));
}

#[tokio::test]
async fn mid_stream_error_events() {
    let script = Script::new()
        .reply(Reply::mid_stream_error("partial answer here"))
        .reply(Reply::mid_stream_error("partial answer here"));
    let mock = MockLlm::start(script).await.unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    let last = resp.sse().last().cloned().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    assert_eq!(last.json()["error"]["type"], "overloaded_error");
    assert!(!resp.body.contains("message_stop"));
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    let last = resp.sse().last().cloned().unwrap();
    assert!(last.json()["error"]["message"].is_string());
    assert!(!resp.body.contains("[DONE]"));
}

#[tokio::test]
async fn max_tokens_stop_reasons() {
    let script = Script::new()
        .reply(Reply::max_tokens("cut off"))
        .reply(Reply::max_tokens("cut"));
    let mock = MockLlm::start(script).await.unwrap();
    let resp = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert!(resp.body.contains(r#""stop_reason":"max_tokens""#));
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert!(resp.body.contains(r#""finish_reason":"length""#));
}

#[tokio::test]
async fn openai_reasoning_content_and_push_while_running() {
    let mock = MockLlm::start(Script::new()).await.unwrap();
    mock.push(ScriptedReply::new(Reply::text("answer")).with_thinking("hmm, let me think"));
    let resp = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    let reasoning: String = chunks(&resp)
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["reasoning_content"].as_str())
        .collect();
    assert_eq!(reasoning, "hmm, let me think");
}

#[tokio::test]
async fn shutdown_closes_the_port() {
    let mock = MockLlm::start(Script::new()).await.unwrap();
    let addr = mock.addr();
    mock.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn rules_answer_by_system_prompt_without_taking_from_the_queue() {
    let mock = MockLlm::start(
        Script::new()
            .reply(Reply::text("first in the queue"))
            .reply(Reply::text("second in the queue"))
            .rule("context compactor", Reply::text("## Goal\nsummary")),
    )
    .await
    .unwrap();
    let mut summary = anthropic_request();
    summary["system"] = json!("You are the context compactor.");
    let mut openai_summary = openai_request(false);
    openai_summary["messages"] = json!([{"role": "system", "content": "the context compactor"}, {"role": "user", "content": "x"}]);

    let text = |resp: &Response| -> String {
        resp.sse()
            .iter()
            .filter(|e| e.data != "[DONE]")
            .filter_map(|e| {
                let v = e.json();
                v["delta"]["text"]
                    .as_str()
                    .or(v["choices"][0]["delta"]["content"].as_str())
                    .map(str::to_owned)
            })
            .collect()
    };
    let a = post(mock.addr(), "/v1/messages", &summary).await;
    assert_eq!(text(&a), "## Goal\nsummary");
    let b = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert_eq!(text(&b), "first in the queue");
    let c = post(mock.addr(), "/v1/chat/completions", &openai_summary).await;
    assert_eq!(text(&c), "## Goal\nsummary");
    let d = post(mock.addr(), "/v1/chat/completions", &openai_request(false)).await;
    assert_eq!(text(&d), "second in the queue");
    assert_eq!(mock.remaining(), 0);
    assert_eq!(mock.request_count(), 4);
}

#[tokio::test]
async fn requests_over_the_window_are_refused_like_a_provider_does() {
    let mock = MockLlm::start(Script::always(Reply::text("ok")).max_input_tokens(100))
        .await
        .unwrap();
    let small = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    assert_eq!(small.status, 200);
    let mut big = anthropic_request();
    big["messages"][0]["content"] = json!("word ".repeat(200));
    let refused = post(mock.addr(), "/v1/messages", &big).await;
    assert_eq!(refused.status, 400);
    let error = &refused.json()["error"];
    assert_eq!(error["type"], "invalid_request_error");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("prompt is too long: "), "{message}");
    assert!(message.ends_with(" tokens > 100 maximum"), "{message}");
    // refused requests are recorded and take no reply
    assert_eq!(mock.request_count(), 2);
}

#[tokio::test]
async fn raw_records_keep_the_bytes_and_parse_back_to_the_body() {
    let mock = MockLlm::start(
        Script::new()
            .route(
                RouteMatch::FirstUserContains("hi".into()),
                [Reply::text("routed")],
            )
            .raw_records(),
    )
    .await
    .unwrap();
    let answer = post(mock.addr(), "/v1/messages", &anthropic_request()).await;
    // Routed by its body before the body was let go.
    assert!(answer.body.contains("routed"), "{}", answer.body);
    let recorded = &mock.requests()[0];
    assert_eq!(recorded.body, Value::Null);
    assert_eq!(recorded.parse(), anthropic_request());
}
