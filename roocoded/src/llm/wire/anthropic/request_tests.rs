//! The request encoder against the one it replaced, which built a `serde_json::Value`
//! tree and serialised it: the bytes must be the same (the provider's prompt cache
//! keys on them), on a rich history and on every prefix of it.

use roocode_protocol::content::{ContentBlock, Message};

use super::request::encode;
use crate::llm::ModelRequest;
use crate::llm::test_history::{image_result_history, rich_history, variants};

/// The encoder before it serialised from borrowed fields, unchanged but for its
/// visibility: the reference the new one must match byte for byte.
mod reference {
    use roocode_protocol::content::{ContentBlock, Message, Role};
    use serde_json::{Map, Value, json};

    use crate::llm::ModelRequest;

    /// The JSON body for `req`.
    pub(super) fn build_body(req: &ModelRequest<'_>) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(req.model));
        body.insert("max_tokens".into(), json!(req.max_tokens));
        if !req.system.is_empty() {
            body.insert(
                "system".into(),
                json!([{"type": "text", "text": req.system, "cache_control": ephemeral()}]),
            );
        }
        let mut messages: Vec<Value> = req.messages.iter().map(|m| message(m)).collect();
        let n = messages.len();
        // Older history (everything before the newest message), then the newest message.
        for i in [n.checked_sub(2), n.checked_sub(1)].into_iter().flatten() {
            mark_last_cacheable(&mut messages[i]);
        }
        body.insert("messages".into(), Value::Array(messages));
        if !req.tools.is_empty() {
            let mut tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| {
                    let (name, description): (&str, &str) = (&t.name, &t.description);
                    let schema: &Value = &t.input_schema;
                    json!({
                        "name": name,
                        "description": description,
                        "input_schema": schema,
                    })
                })
                .collect();
            if let Some(Value::Object(last)) = tools.last_mut() {
                last.insert("cache_control".into(), ephemeral());
            }
            body.insert("tools".into(), Value::Array(tools));
        }
        body.insert("stream".into(), Value::Bool(true));
        Value::Object(body)
    }

    fn ephemeral() -> Value {
        json!({"type": "ephemeral"})
    }

    fn message(m: &Message) -> Value {
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let mut content: Vec<Value> = m.content.iter().filter_map(block).collect();
        if content.is_empty() {
            // The API rejects empty messages; keep the turn structure valid.
            content.push(json!({"type": "text", "text": "(empty)"}));
        }
        json!({"role": role, "content": content})
    }

    /// One block in Anthropic's format; `None` for blocks the API would reject (empty
    /// text, thinking without the signature that proves it came from Anthropic).
    fn block(b: &ContentBlock) -> Option<Value> {
        Some(match b {
            ContentBlock::Text { text } if text.is_empty() => return None,
            ContentBlock::Text { text } => json!({"type": "text", "text": text}),
            ContentBlock::Thinking {
                thinking,
                signature: Some(signature),
            } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
            ContentBlock::Thinking {
                signature: None, ..
            } => return None,
            ContentBlock::RedactedThinking { data } => {
                json!({"type": "redacted_thinking", "data": data})
            }
            ContentBlock::ToolUse { id, name, input } => json!({
                "type": "tool_use",
                "id": id,
                "name": name,
                "input": object_input(input),
            }),
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => {
                let mut r = Map::new();
                r.insert("type".into(), json!("tool_result"));
                r.insert("tool_use_id".into(), json!(tool_use_id));
                if !content.is_empty() {
                    r.insert("content".into(), json!(content));
                }
                if *is_error {
                    r.insert("is_error".into(), Value::Bool(true));
                }
                Value::Object(r)
            }
            ContentBlock::Image { media_type, data } => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": media_type, "data": data},
            }),
            ContentBlock::Unknown => return None,
        })
    }

    /// Tool inputs must be objects on the wire. An input kept raw because it was not valid
    /// JSON (or any other non-object) is wrapped so the model still sees what it sent.
    pub(super) fn object_input(input: &Value) -> Value {
        match input {
            Value::Object(_) => input.clone(),
            Value::Null => json!({}),
            other => json!({ "_invalid_input": other }),
        }
    }

    /// Puts a cache breakpoint on the last block that may carry one (not thinking).
    fn mark_last_cacheable(message: &mut Value) {
        let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
            return;
        };
        let last = blocks.iter_mut().rev().find(|b| {
            !matches!(
                b.get("type").and_then(Value::as_str),
                Some("thinking" | "redacted_thinking")
            )
        });
        if let Some(Value::Object(block)) = last {
            block.insert("cache_control".into(), ephemeral());
        }
    }
}

#[test]
fn encodes_byte_for_byte_as_the_value_tree_encoder() {
    let history = rich_history();
    let requests = variants(&history);
    assert!(requests.len() > 10);
    for req in &requests {
        let new = String::from_utf8(encode(req).unwrap()).unwrap();
        let old = serde_json::to_string(&reference::build_body(req)).unwrap();
        assert_eq!(new, old, "{} messages", req.messages.len());
    }
    // The rich request exercises what the encoder treats specially.
    let full = String::from_utf8(encode(&requests[requests.len() - 3]).unwrap()).unwrap();
    for needle in [
        "cache_control",
        "\"redacted_thinking\"",
        "\"signature\":\"sig/+=\"",
        "\"is_error\":true",
        "\"_invalid_input\":\"{bad json\"",
        "\"input\":{}",
        "\"media_type\":\"image/png\"",
        "(empty)",
    ] {
        assert!(full.contains(needle), "{needle}: {full}");
    }
    assert!(!full.contains("from another provider"));
}

/// The encoded body of a bare request of `history`.
fn body_of(history: &[Message]) -> String {
    let req = ModelRequest {
        model: "m".into(),
        messages: history.iter().map(std::borrow::Cow::Borrowed).collect(),
        max_tokens: 10,
        ..ModelRequest::default()
    };
    String::from_utf8(encode(&req).unwrap()).unwrap()
}

#[test]
fn a_result_with_images_is_a_text_block_and_image_blocks() {
    let mut history = image_result_history();
    let body = body_of(&history);
    let last = r#"{"content":[{"content":[{"text":"one pixel:","type":"text"},{"source":{"data":"AAAA","media_type":"image/png","type":"base64"},"type":"image"}],"tool_use_id":"t2","type":"tool_result"},{"content":"plain","tool_use_id":"t1","type":"tool_result"},{"cache_control":{"type":"ephemeral"},"text":"and this","type":"text"}],"role":"user"}"#;
    assert!(body.contains(last), "{body}");

    // Only images: no empty text block before them.
    if let ContentBlock::ToolResult { content, .. } = &mut history[2].content[0] {
        content.clear();
    }
    let body = body_of(&history);
    assert!(
        body.contains(r#"{"content":[{"source":{"data":"AAAA","media_type":"image/png","type":"base64"},"type":"image"}],"tool_use_id":"t2","type":"tool_result"}"#),
        "{body}"
    );
}
