//! A rich request for encoder tests: every kind of block, in every place an encoder
//! treats specially (empty and unsigned blocks, non-object tool inputs, results out
//! of call order, errors, images, text that needs escaping, a message that ends up
//! empty, a last message ending in thinking).

use roocode_protocol::content::{ContentBlock, ImageData, Message, Role};
use serde_json::json;

use super::{ModelRequest, ToolSpec, owned_messages};

/// A tool spec; the one place tests build [`ToolSpec`] from plain values.
pub(crate) fn tool_spec(
    name: &str,
    description: &str,
    input_schema: serde_json::Value,
) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema,
    }
}

fn user(content: Vec<ContentBlock>) -> Message {
    Message {
        role: Role::User,
        content,
    }
}

fn assistant(content: Vec<ContentBlock>) -> Message {
    Message {
        role: Role::Assistant,
        content,
    }
}

fn call(id: &str, input: serde_json::Value) -> ContentBlock {
    ContentBlock::ToolUse {
        id: id.into(),
        name: "Read".into(),
        input,
    }
}

fn result(id: &str, content: &str, is_error: bool) -> ContentBlock {
    ContentBlock::ToolResult {
        tool_use_id: id.into(),
        content: content.into(),
        is_error,
        images: Vec::new(),
    }
}

fn image(data: &str) -> ContentBlock {
    ContentBlock::Image {
        media_type: "image/png".into(),
        data: data.into(),
    }
}

/// The history of [`rich_request`].
pub(crate) fn rich_history() -> Vec<Message> {
    vec![
        user(vec![
            ContentBlock::text("<system-reminder>\nAnswer \"tersely\".\n</system-reminder>"),
            ContentBlock::text("read a — «ünïcode» \u{1F980}\ttabs\\ and \u{0007}"),
            image("iVBORw0KGgo="),
        ]),
        assistant(vec![
            ContentBlock::Thinking {
                thinking: "let me think".into(),
                signature: Some("sig/+=".into()),
            },
            ContentBlock::Thinking {
                thinking: "from another provider".into(),
                signature: None,
            },
            ContentBlock::RedactedThinking {
                data: "opaque".into(),
            },
            ContentBlock::text("Reading."),
            ContentBlock::text(""),
            call(
                "t1",
                json!({"file_path": "a", "z": [1, 2.5, -3, null, true], "a": {"nested": "x"}}),
            ),
            call("t2", json!("{bad json")),
            call("t3", serde_json::Value::Null),
            call("t4", json!([1, 2])),
        ]),
        user(vec![
            result("t3", "", false),
            result("t1", "line 1\nline 2", false),
            result("t4", "Error: already said", true),
            result("t2", "invalid input", true),
            ContentBlock::text("also this"),
            ContentBlock::text(""),
            ContentBlock::text("and that"),
        ]),
        assistant(vec![ContentBlock::Thinking {
            thinking: "unsigned only".into(),
            signature: None,
        }]),
        user(vec![ContentBlock::text("look at this"), image("AAAA")]),
        // Only a call: `content` is null for OpenAI.
        assistant(vec![call("t5", json!({"path": "b"}))]),
        user(vec![result("t5", "B", false)]),
        assistant(vec![
            ContentBlock::text("Done. "),
            ContentBlock::text("Really."),
            ContentBlock::Thinking {
                thinking: "trailing".into(),
                signature: Some("s2".into()),
            },
        ]),
    ]
}

/// Two calls answered in one message: `t2` (answered first) returned text and an
/// image, `t1` only text, and the user added a line.
pub(crate) fn image_result_history() -> Vec<Message> {
    vec![
        user(vec![ContentBlock::text("show me")]),
        assistant(vec![call("t1", json!({})), call("t2", json!({}))]),
        user(vec![
            ContentBlock::ToolResult {
                tool_use_id: "t2".into(),
                content: "one pixel:".into(),
                is_error: false,
                images: vec![ImageData::new("image/png", "AAAA")],
            },
            result("t1", "plain", false),
            ContentBlock::text("and this"),
        ]),
    ]
}

/// A request with a system prompt, tools, and [`rich_history`].
pub(crate) fn rich_request(history: &[Message]) -> ModelRequest<'_> {
    ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "You are RooCode.\n\"Quotes\" and \\ backslashes.".into(),
        messages: history.iter().map(std::borrow::Cow::Borrowed).collect(),
        tools: vec![
            tool_spec(
                "Read",
                "Read a file",
                json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            ),
            tool_spec(
                "Write",
                "Write a file",
                json!({"type": "object", "additionalProperties": false}),
            ),
        ],
        max_tokens: 16_384,
    }
}

/// Shorter variants: every prefix of the history, with and without system and tools.
pub(crate) fn variants(history: &[Message]) -> Vec<ModelRequest<'_>> {
    let mut out = Vec::new();
    for n in 0..=history.len() {
        let mut full = rich_request(history);
        full.messages.truncate(n);
        let bare = ModelRequest {
            model: "m".into(),
            messages: full.messages.clone(),
            max_tokens: 10,
            ..ModelRequest::default()
        };
        out.push(full);
        out.push(bare);
    }
    out.push(ModelRequest {
        messages: owned_messages(vec![user(vec![])]),
        ..ModelRequest::default()
    });
    out
}
