//! OpenAI-compatible parser tests on canned SSE split at awkward points, and
//! request-body tests.

use roocode_protocol::content::{ContentBlock, Message, Role};
use serde_json::{Value, json};

use super::parser::OpenAiParser;
use super::request::encode;
use crate::llm::error::{ErrorContext, LlmError};
use crate::llm::sse::testing::{assemble, run_split};
use crate::llm::test_history::tool_spec;
use crate::llm::wire::MaxTokensField;
use crate::llm::{ModelRequest, ModelResponse, ModelStopReason, StreamEvent, TokenUsage};

fn sse(chunks: &[Value], done: bool) -> String {
    let mut out: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    out
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn tc(index: Option<u64>, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
    let mut call = json!({"type": "function", "function": {"arguments": args}});
    if let Some(i) = index {
        call["index"] = json!(i);
    }
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    call
}

fn usage_chunk() -> Value {
    json!({"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 30,
        "total_tokens": 150, "prompt_tokens_details": {"cached_tokens": 100}}})
}

async fn parse(text: &str) -> Vec<Result<StreamEvent, LlmError>> {
    run_split(
        || OpenAiParser::with_id_seed(ErrorContext::test("openai"), 0xabc),
        text,
    )
    .await
}

fn tool_uses(r: &ModelResponse) -> Vec<(String, String, Value)> {
    r.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => {
                Some((id.clone(), name.clone(), input.clone()))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn text_with_role_delta_null_content_extra_fields_and_usage() {
    let text = sse(
        &[
            chunk(json!({"role": "assistant", "content": null}), None),
            chunk(json!({"content": "Grüße, "}), None),
            json!({"choices": [{"index": 0, "delta": {"content": "wörld"}, "finish_reason": null}],
                "timings": {"predicted_ms": 12.5}, "system_fingerprint": "x"}),
            chunk(json!({}), Some("stop")),
            usage_chunk(),
        ],
        true,
    );
    let out = parse(&text).await;
    assert!(out.contains(&Ok(StreamEvent::Usage(TokenUsage {
        input_tokens: Some(20),
        output_tokens: Some(30),
        cache_read_tokens: Some(100),
        cache_write_tokens: None,
    }))));
    let r = assemble(out);
    assert_eq!(r.content, vec![ContentBlock::text("Grüße, wörld")]);
    assert_eq!(r.stop_reason, ModelStopReason::EndTurn);
    assert_eq!((r.usage.input_tokens, r.usage.cache_read_tokens), (20, 100));
}

#[tokio::test]
async fn two_tool_calls_interleaved_by_index() {
    let text = sse(
        &[
            chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [tc(Some(0), Some("call_a"), Some("Read"), "")]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [tc(Some(1), Some("call_b"), Some("Grep"), "")]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [tc(Some(0), None, None, "{\"path\":")]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [tc(Some(1), None, None, "{\"pattern\":\"fn\"}")]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [tc(Some(0), None, None, "\"a.rs\"}")]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
        ],
        true,
    );
    let r = assemble(parse(&text).await);
    assert_eq!(
        tool_uses(&r),
        vec![
            ("call_a".into(), "Read".into(), json!({"path": "a.rs"})),
            ("call_b".into(), "Grep".into(), json!({"pattern": "fn"})),
        ]
    );
    assert_eq!(r.stop_reason, ModelStopReason::ToolUse);
}

#[tokio::test]
async fn repeated_ids_and_names_on_every_delta() {
    let text = sse(
        &[
            chunk(
                json!({"tool_calls": [tc(Some(0), Some("call_a"), Some("Read"), "{\"pa")]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [tc(Some(0), Some("call_a"), Some("Read"), "th\": 1}")]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
        ],
        true,
    );
    let r = assemble(parse(&text).await);
    assert_eq!(
        tool_uses(&r),
        vec![("call_a".into(), "Read".into(), json!({"path": 1}))]
    );
}

#[tokio::test]
async fn omitted_ids_and_indexes() {
    // No id at all, and a server that sends no index (each new call brings a new id).
    let text = sse(
        &[
            chunk(
                json!({"tool_calls": [tc(None, None, Some("Read"), "{}")]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [tc(None, Some("c2"), Some("Ls"), "{\"a\"")]}),
                None,
            ),
            chunk(json!({"tool_calls": [tc(None, None, None, ": 2}")]}), None),
            chunk(json!({}), Some("stop")),
        ],
        true,
    );
    let r = assemble(parse(&text).await);
    let uses = tool_uses(&r);
    assert_eq!(uses.len(), 2);
    assert_eq!(uses[0].0, "call_00000abc_0", "generated id");
    assert_eq!((uses[0].1.as_str(), &uses[0].2), ("Read", &json!({})));
    assert_eq!(uses[1], ("c2".into(), "Ls".into(), json!({"a": 2})));
    assert_eq!(
        r.stop_reason,
        ModelStopReason::ToolUse,
        "stop with tool calls is tool use"
    );
}

#[tokio::test]
async fn reasoning_content_and_refusal() {
    let text = sse(
        &[
            chunk(
                json!({"role": "assistant", "reasoning_content": "Think", "content": null}),
                None,
            ),
            chunk(json!({"reasoning_content": "ing…", "content": ""}), None),
            chunk(json!({"content": "Answer. "}), None),
            chunk(json!({"refusal": "I can't do that."}), None),
            chunk(json!({}), Some("stop")),
        ],
        true,
    );
    let r = assemble(parse(&text).await);
    assert_eq!(
        r.content,
        vec![
            ContentBlock::Thinking {
                thinking: "Thinking…".into(),
                signature: None
            },
            ContentBlock::text("Answer. I can't do that."),
        ]
    );
}

#[tokio::test]
async fn finish_reason_length_drops_the_cut_tool_call() {
    let text = sse(
        &[
            chunk(json!({"content": "Let me write it."}), None),
            chunk(
                json!({"tool_calls": [tc(Some(0), Some("call_w"), Some("Write"), "{\"content\": \"fn ma")]}),
                None,
            ),
            chunk(json!({}), Some("length")),
            usage_chunk(),
        ],
        true,
    );
    let r = assemble(parse(&text).await);
    assert_eq!(r.content, vec![ContentBlock::text("Let me write it.")]);
    assert_eq!(r.stop_reason, ModelStopReason::MaxTokens);
}

#[tokio::test]
async fn missing_done_and_finish_reason_is_a_stream_error() {
    let text = sse(&[chunk(json!({"content": "Hel"}), None)], false);
    let out = parse(&text).await;
    assert_eq!(out[0], Ok(StreamEvent::TextDelta("Hel".into())));
    let err = out.last().unwrap().clone().unwrap_err();
    assert_eq!(err.kind(), "stream");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn finish_reason_without_done_is_complete() {
    let text = sse(&[chunk(json!({"content": "Hi"}), Some("stop"))], false);
    let r = assemble(parse(&text).await);
    assert_eq!(r.content, vec![ContentBlock::text("Hi")]);
    assert_eq!(r.stop_reason, ModelStopReason::EndTurn);
}

#[tokio::test]
async fn error_chunk_mid_stream() {
    let text = sse(
        &[
            chunk(json!({"content": "Hel"}), None),
            json!({"error": {"message": "The server is overloaded", "type": "server_error"}}),
        ],
        false,
    );
    let err = parse(&text).await.last().unwrap().clone().unwrap_err();
    assert_eq!(err.kind(), "server_error");
    assert!(err.is_retryable());
}

/// The encoded body, parsed back for inspection.
fn build_body(req: &ModelRequest<'_>, field: MaxTokensField) -> Value {
    serde_json::from_slice(&encode(req, field).unwrap()).unwrap()
}

fn req() -> ModelRequest<'static> {
    ModelRequest {
        model: "gpt-4.1".into(),
        system: "You are RooCode.".into(),
        messages: crate::llm::owned_messages(vec![
            Message::user_text("look"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "private".into(),
                        signature: None,
                    },
                    ContentBlock::ToolUse {
                        id: "c1".into(),
                        name: "Read".into(),
                        input: json!({"path": "a"}),
                    },
                    ContentBlock::ToolUse {
                        id: "c2".into(),
                        name: "Read".into(),
                        input: json!({"path": "b"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    // Results out of call order, plus the user's own words.
                    ContentBlock::ToolResult {
                        tool_use_id: "c2".into(),
                        content: "B".into(),
                        is_error: true,
                        images: Vec::new(),
                    },
                    ContentBlock::ToolResult {
                        tool_use_id: "c1".into(),
                        content: "A".into(),
                        is_error: false,
                        images: Vec::new(),
                    },
                    ContentBlock::text("also check c"),
                ],
            },
        ]),
        tools: vec![tool_spec("Read", "Read a file", json!({"type": "object"}))],
        max_tokens: 4096,
    }
}

#[test]
fn request_body_messages_tools_and_stream_options() {
    let body = build_body(&req(), MaxTokensField::MaxTokens);
    assert_eq!(body["model"], "gpt-4.1");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {"name": "Read", "description": "Read a file", "parameters": {"type": "object"}}}])
    );
    let m = body["messages"].as_array().unwrap();
    assert_eq!(
        m[0],
        json!({"role": "system", "content": "You are RooCode."})
    );
    assert_eq!(m[1], json!({"role": "user", "content": "look"}));
    assert_eq!(m[2]["role"], "assistant");
    assert_eq!(m[2]["content"], Value::Null);
    assert_eq!(
        m[2]["tool_calls"][0],
        json!({"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"a\"}"}})
    );
    assert_eq!(
        m[3],
        json!({"role": "tool", "tool_call_id": "c1", "content": "A"})
    );
    assert_eq!(
        m[4],
        json!({"role": "tool", "tool_call_id": "c2", "content": "Error: B"})
    );
    assert_eq!(m[5], json!({"role": "user", "content": "also check c"}));
    assert_eq!(m.len(), 6);
    assert!(
        !body.to_string().contains("private"),
        "thinking is not sent"
    );
}

#[test]
fn openai_itself_gets_max_completion_tokens() {
    let body = build_body(&req(), MaxTokensField::MaxCompletionTokens);
    assert_eq!(body["max_completion_tokens"], 4096);
    assert!(body.get("max_tokens").is_none());
}
