//! Anthropic parser tests on canned SSE split at awkward points, and request-body tests.

use roocode_protocol::content::{ContentBlock, Message, Role};
use serde_json::{Value, json};

use super::parser::AnthropicParser;
use super::request::encode;
use crate::llm::error::{ErrorContext, LlmError};
use crate::llm::sse::testing::{assemble, run_split};
use crate::llm::test_history::tool_spec;
use crate::llm::{ModelRequest, ModelStopReason, StreamEvent, TokenUsage, ToolSpec};

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn message_start() -> (&'static str, Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "content": [], "model": "claude-sonnet-4-5", "stop_reason": null,
            "usage": {"input_tokens": 25, "output_tokens": 1, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 50}}}),
    )
}

fn block_start(index: usize, block: Value) -> (&'static str, Value) {
    (
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn delta(index: usize, delta: Value) -> (&'static str, Value) {
    (
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn block_stop(index: usize) -> (&'static str, Value) {
    (
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    )
}

fn message_end(reason: &str, output: u64) -> [(&'static str, Value); 2] {
    [
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null}, "usage": {"output_tokens": output}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]
}

async fn parse(text: &str) -> Vec<Result<StreamEvent, LlmError>> {
    run_split(
        || AnthropicParser::new(ErrorContext::test("anthropic")),
        text,
    )
    .await
}

#[tokio::test]
async fn text_with_ping_unknown_events_and_usage() {
    let mut events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": ""})),
        ("ping", json!({"type": "ping"})),
        delta(0, json!({"type": "text_delta", "text": "Héllo "})),
        (
            "brand_new_event",
            json!({"type": "brand_new_event", "x": 1}),
        ),
        delta(0, json!({"type": "text_delta", "text": "wörld 🌍"})),
        block_stop(0),
    ];
    events.extend(message_end("end_turn", 15));
    let out = parse(&sse(&events)).await;
    assert_eq!(
        out[0],
        Ok(StreamEvent::Usage(TokenUsage {
            input_tokens: Some(25),
            output_tokens: Some(1),
            cache_read_tokens: Some(100),
            cache_write_tokens: Some(50),
        }))
    );
    let r = assemble(out);
    assert_eq!(r.content, vec![ContentBlock::text("Héllo wörld 🌍")]);
    assert_eq!(r.stop_reason, ModelStopReason::EndTurn);
    assert_eq!(
        (
            r.usage.input_tokens,
            r.usage.output_tokens,
            r.usage.cache_read_tokens,
            r.usage.cache_write_tokens
        ),
        (25, 15, 100, 50)
    );
}

#[tokio::test]
async fn crlf_line_endings() {
    let mut events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "ok"})),
        block_stop(0),
    ];
    events.extend(message_end("end_turn", 2));
    let text = sse(&events).replace('\n', "\r\n");
    let r = assemble(parse(&text).await);
    assert_eq!(r.content, vec![ContentBlock::text("ok")]);
}

#[tokio::test]
async fn tool_use_with_input_json_pieces() {
    let mut events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "Reading."})),
        block_stop(0),
        block_start(
            1,
            json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}),
        ),
        delta(1, json!({"type": "input_json_delta", "partial_json": ""})),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "{\"file_pa"}),
        ),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "th\": \"src/é.rs\"}"}),
        ),
        block_stop(1),
    ];
    events.extend(message_end("tool_use", 40));
    let r = assemble(parse(&sse(&events)).await);
    assert_eq!(
        r.content,
        vec![
            ContentBlock::text("Reading."),
            ContentBlock::ToolUse {
                id: "toolu_1".into(),
                name: "Read".into(),
                input: json!({"file_path": "src/é.rs"}),
            },
        ]
    );
    assert_eq!(r.stop_reason, ModelStopReason::ToolUse);
}

#[tokio::test]
async fn thinking_signature_and_redacted_kept_verbatim() {
    let mut events = vec![
        message_start(),
        block_start(0, json!({"type": "thinking", "thinking": ""})),
        delta(0, json!({"type": "thinking_delta", "thinking": "Let me "})),
        delta(0, json!({"type": "thinking_delta", "thinking": "think."})),
        delta(
            0,
            json!({"type": "signature_delta", "signature": "EqQBCgIYAhIM+/sig=="}),
        ),
        block_stop(0),
        block_start(
            1,
            json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
        ),
        block_stop(1),
        block_start(2, json!({"type": "text", "text": ""})),
        delta(2, json!({"type": "text_delta", "text": "Done."})),
        block_stop(2),
    ];
    events.extend(message_end("end_turn", 9));
    let r = assemble(parse(&sse(&events)).await);
    assert_eq!(
        r.content,
        vec![
            ContentBlock::Thinking {
                thinking: "Let me think.".into(),
                signature: Some("EqQBCgIYAhIM+/sig==".into()),
            },
            ContentBlock::RedactedThinking {
                data: "EmwKAhgBEgy3va3pzix".into()
            },
            ContentBlock::text("Done."),
        ]
    );
}

#[tokio::test]
async fn mid_stream_error_event_is_retryable() {
    let events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "Hel"})),
        (
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ];
    let out = parse(&sse(&events)).await;
    assert_eq!(out[out.len() - 2], Ok(StreamEvent::TextDelta("Hel".into())));
    let err = out.last().unwrap().clone().unwrap_err();
    assert_eq!(err.kind(), "overloaded");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn truncated_stream_is_a_retryable_stream_error() {
    let events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "Hel"})),
    ];
    // Cut in the middle of the next event, too.
    let text = sse(&events) + "event: content_block_delta\ndata: {\"type\":\"content_bl";
    let out = parse(&text).await;
    let err = out.last().unwrap().clone().unwrap_err();
    assert_eq!(err.kind(), "stream");
    assert!(err.is_retryable());
    assert!(err.to_string().contains("message_stop"), "{err}");
}

#[tokio::test]
async fn max_tokens_drops_the_cut_tool_call() {
    let mut events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": "Writing"})),
        block_stop(0),
        block_start(
            1,
            json!({"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {}}),
        ),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "{\"content\": \"fn main() {"}),
        ),
        block_stop(1),
    ];
    events.extend(message_end("max_tokens", 4096));
    let r = assemble(parse(&sse(&events)).await);
    assert_eq!(r.content, vec![ContentBlock::text("Writing")]);
    assert_eq!(r.stop_reason, ModelStopReason::MaxTokens);
}

/// The encoded body, parsed back for inspection.
fn build_body(req: &ModelRequest<'_>) -> Value {
    serde_json::from_slice(&encode(req).unwrap()).unwrap()
}

fn tool(name: &str) -> ToolSpec {
    tool_spec(
        name,
        &format!("{name} a file"),
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )
}

#[test]
fn request_body_shape_and_cache_breakpoints() {
    let req = ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "You are RooCode.".into(),
        messages: crate::llm::owned_messages(vec![
            Message::user_text("read a"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "hm".into(),
                        signature: Some("sig".into()),
                    },
                    ContentBlock::Thinking {
                        thinking: "from another provider".into(),
                        signature: None,
                    },
                    ContentBlock::text("ok"),
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "Read".into(),
                        input: json!({"path": "a"}),
                    },
                    ContentBlock::ToolUse {
                        id: "t2".into(),
                        name: "Read".into(),
                        input: json!("{bad json"),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "t1".into(),
                        content: "A".into(),
                        is_error: false,
                        images: Vec::new(),
                    },
                    ContentBlock::ToolResult {
                        tool_use_id: "t2".into(),
                        content: "invalid input".into(),
                        is_error: true,
                        images: Vec::new(),
                    },
                ],
            },
        ]),
        tools: vec![tool("Read"), tool("Write")],
        max_tokens: 8192,
    };
    let body = build_body(&req);
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 8192);
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "You are RooCode.", "cache_control": {"type": "ephemeral"}}])
    );
    let tools = body["tools"].as_array().unwrap();
    let schema: &Value = &req.tools[0].input_schema;
    assert_eq!(
        tools[0],
        json!({"name": "Read", "description": "Read a file", "input_schema": schema})
    );
    assert_eq!(tools[1]["cache_control"], json!({"type": "ephemeral"}));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert!(messages[0]["content"][0].get("cache_control").is_none());
    let assistant = messages[1]["content"].as_array().unwrap();
    assert_eq!(assistant.len(), 4, "unsigned thinking is not sent");
    assert_eq!(
        assistant[0],
        json!({"type": "thinking", "thinking": "hm", "signature": "sig"})
    );
    assert_eq!(assistant[2]["input"], json!({"path": "a"}));
    assert_eq!(
        assistant[3]["input"],
        json!({"_invalid_input": "{bad json"})
    );
    assert_eq!(
        assistant[3]["cache_control"],
        json!({"type": "ephemeral"}),
        "older history"
    );
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(
        results[0],
        json!({"type": "tool_result", "tool_use_id": "t1", "content": "A"})
    );
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(
        results[1]["cache_control"],
        json!({"type": "ephemeral"}),
        "newest message"
    );
    let breakpoints = body.to_string().matches("cache_control").count();
    assert_eq!(breakpoints, 4);
}

#[test]
fn request_without_system_or_tools_omits_them() {
    let req = ModelRequest {
        model: "m".into(),
        messages: crate::llm::owned_messages(vec![Message {
            role: Role::User,
            content: vec![
                ContentBlock::text(""),
                ContentBlock::Image {
                    media_type: "image/png".into(),
                    data: "iVBOR".into(),
                },
            ],
        }]),
        max_tokens: 10,
        ..ModelRequest::default()
    };
    let body = build_body(&req);
    assert!(body.get("system").is_none() && body.get("tools").is_none());
    assert_eq!(
        body["messages"][0]["content"],
        json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}, "cache_control": {"type": "ephemeral"}}])
    );
}

#[tokio::test]
async fn unknown_event_with_non_json_payload_is_ignored() {
    let mut events = vec![
        message_start(),
        block_start(0, json!({"type": "text", "text": "ok"})),
        block_stop(0),
    ];
    events.extend(message_end("end_turn", 1));
    let text = sse(&events[..1]) + "event: future_thing\ndata: not json\n\n" + &sse(&events[1..]);
    let r = assemble(parse(&text).await);
    assert_eq!(r.content, vec![ContentBlock::text("ok")]);
}
