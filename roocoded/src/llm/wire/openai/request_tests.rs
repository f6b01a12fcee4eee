//! The request encoder against the one it replaced, which built a `serde_json::Value`
//! tree and serialised it: the bytes must be the same, on a rich history and on every
//! prefix of it, with either output-limit field.

use roocode_protocol::content::Message;

use super::request::encode;
use crate::llm::ModelRequest;
use crate::llm::test_history::{image_result_history, rich_history, variants};
use crate::llm::wire::MaxTokensField;

/// The encoder before it serialised from borrowed fields, unchanged but for its
/// visibility (and its own copy of `object_input` and `MaxTokensField`): the
/// reference the new one must match byte for byte.
mod reference {
    use roocode_protocol::content::{ContentBlock, Message, Role};
    use serde_json::{Map, Value, json};

    use crate::llm::ModelRequest;

    /// Which field carries the output limit: OpenAI's own API wants
    /// `max_completion_tokens` (reasoning models reject `max_tokens`); compatible servers
    /// know `max_tokens`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum MaxTokensField {
        MaxTokens,
        MaxCompletionTokens,
    }

    /// The JSON body for `req`.
    pub(super) fn build_body(req: &ModelRequest<'_>, max_field: MaxTokensField) -> Value {
        let mut messages = Vec::new();
        if !req.system.is_empty() {
            messages.push(json!({"role": "system", "content": req.system}));
        }
        let mut call_order: Vec<String> = Vec::new();
        for m in &req.messages {
            match m.role {
                Role::Assistant => {
                    call_order = m.tool_uses().map(|(id, _, _)| id.to_string()).collect();
                    messages.push(assistant(m));
                }
                Role::User => user(m, &call_order, &mut messages),
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(req.model));
        body.insert("messages".into(), Value::Array(messages));
        if !req.tools.is_empty() {
            let tools = req
                .tools
                .iter()
                .map(|t| {
                    let (name, description): (&str, &str) = (&t.name, &t.description);
                    let schema: &Value = &t.input_schema;
                    json!({
                        "type": "function",
                        "function": {
                            "name": name,
                            "description": description,
                            "parameters": schema,
                        },
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        let field = match max_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(req.max_tokens));
        body.insert("stream".into(), Value::Bool(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
        Value::Object(body)
    }

    fn assistant(m: &Message) -> Value {
        let text = m.text();
        let calls: Vec<Value> = m
            .tool_uses()
            .map(|(id, name, input)| {
                json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": object_input(input).to_string()},
                })
            })
            .collect();
        let mut out = Map::new();
        out.insert("role".into(), json!("assistant"));
        out.insert(
            "content".into(),
            match (text.is_empty(), calls.is_empty()) {
                (true, false) => Value::Null,
                _ => json!(text),
            },
        );
        if !calls.is_empty() {
            out.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(out)
    }

    /// Tool results first (as `tool` messages, in the order of the preceding assistant
    /// message's calls), then the user's own text and images as one `user` message.
    fn user(m: &Message, call_order: &[String], out: &mut Vec<Value>) {
        let mut results: Vec<(usize, Value)> = Vec::new();
        let mut parts: Vec<Value> = Vec::new();
        for b in &m.content {
            match b {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => {
                    let position = call_order
                        .iter()
                        .position(|id| id == tool_use_id)
                        .unwrap_or(usize::MAX);
                    let content = match (*is_error, content.starts_with("Error")) {
                        (true, false) => format!("Error: {content}"),
                        _ => content.clone(),
                    };
                    results.push((
                        position,
                        json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}),
                    ));
                }
                ContentBlock::Text { text } if !text.is_empty() => {
                    parts.push(json!({"type": "text", "text": text}));
                }
                ContentBlock::Image { media_type, data } => parts.push(json!({
                    "type": "image_url",
                    "image_url": {"url": format!("data:{media_type};base64,{data}")},
                })),
                _ => {}
            }
        }
        results.sort_by_key(|(position, _)| *position); // stable: unknown ids keep their order
        out.extend(results.into_iter().map(|(_, v)| v));
        let only_text = parts.iter().all(|p| p["type"] == "text");
        match (parts.is_empty(), only_text) {
            (true, _) => {}
            (false, true) => {
                let text: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                out.push(json!({"role": "user", "content": text.join("\n\n")}));
            }
            (false, false) => out.push(json!({"role": "user", "content": parts})),
        }
    }

    pub(super) fn object_input(input: &Value) -> Value {
        match input {
            Value::Object(_) => input.clone(),
            Value::Null => json!({}),
            other => json!({ "_invalid_input": other }),
        }
    }
}

#[test]
fn encodes_byte_for_byte_as_the_value_tree_encoder() {
    let history = rich_history();
    let requests = variants(&history);
    let fields = [
        (
            MaxTokensField::MaxTokens,
            reference::MaxTokensField::MaxTokens,
        ),
        (
            MaxTokensField::MaxCompletionTokens,
            reference::MaxTokensField::MaxCompletionTokens,
        ),
    ];
    for (field, old_field) in fields {
        for req in &requests {
            let new = String::from_utf8(encode(req, field).unwrap()).unwrap();
            let old = serde_json::to_string(&reference::build_body(req, old_field)).unwrap();
            assert_eq!(new, old, "{} messages", req.messages.len());
        }
    }
    let full = encode(&requests[requests.len() - 3], MaxTokensField::MaxTokens).unwrap();
    let full = String::from_utf8(full).unwrap();
    for needle in [
        "\"tool_calls\"",
        "\"content\":null",
        "\"role\":\"tool\"",
        "Error: invalid input",
        "\"image_url\"",
        "also this\\n\\nand that",
        "{\\\"_invalid_input\\\":\\\"{bad json\\\"}",
    ] {
        assert!(full.contains(needle), "{needle}: {full}");
    }
}

/// The encoded messages of a bare request of `history`.
fn messages_of(history: &[Message]) -> String {
    let req = ModelRequest {
        model: "m".into(),
        messages: history.iter().map(std::borrow::Cow::Borrowed).collect(),
        max_tokens: 10,
        ..ModelRequest::default()
    };
    let text = String::from_utf8(encode(&req, MaxTokensField::MaxTokens).unwrap()).unwrap();
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    let messages = body["messages"].to_string();
    assert!(text.contains(&messages), "the bytes as written: {text}");
    messages
}

#[test]
fn a_result_s_images_follow_the_tool_messages_in_one_user_message() {
    let mut history = image_result_history();
    let calls = r#"{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"Read"},"id":"t1","type":"function"},{"function":{"arguments":"{}","name":"Read"},"id":"t2","type":"function"}]}"#;
    let tools = r#"{"content":"plain","role":"tool","tool_call_id":"t1"},{"content":"one pixel:","role":"tool","tool_call_id":"t2"}"#;
    let images = r#"{"text":"(images returned by tool call t2)","type":"text"},{"image_url":{"url":"data:image/png;base64,AAAA"},"type":"image_url"}"#;
    assert_eq!(
        messages_of(&history),
        format!(
            r#"[{{"content":"show me","role":"user"}},{calls},{tools},{{"content":[{images},{{"text":"and this","type":"text"}}],"role":"user"}}]"#
        )
    );
    // Without the user's line, the images are the user message alone.
    history[2].content.pop();
    assert_eq!(
        messages_of(&history),
        format!(
            r#"[{{"content":"show me","role":"user"}},{calls},{tools},{{"content":[{images}],"role":"user"}}]"#
        )
    );
}
