//! What a model request is made of: its size in characters and estimated tokens,
//! split into the system prompt, the tool definitions, the conversation's messages,
//! the tool results among them and the injections (reminders the daemon added:
//! `<system-reminder>` blocks — notifications, mail, corrections, skills, memory).
//! Recorded per model call so a trace shows where a context's weight is.

use roocode_protocol::content::{ContentBlock, Message};
pub use roocode_protocol::trace::{PartSize as Size, RequestParts};

use crate::context::budget::{estimate_block, estimate_tokens};
use crate::llm::ModelRequest;

fn of_text(text: &str) -> Size {
    Size {
        chars: text.chars().count() as u64,
        tokens: estimate_tokens(text),
    }
}

fn add(to: &mut Size, other: Size) {
    to.chars += other.chars;
    to.tokens += other.tokens;
}

/// The parts of `request`.
pub fn measure(request: &ModelRequest<'_>) -> RequestParts {
    let mut parts = RequestParts {
        system: of_text(&request.system),
        ..RequestParts::default()
    };
    for tool in &request.tools {
        let json = serde_json::to_string(tool).unwrap_or_default();
        add(&mut parts.tools, of_text(&json));
    }
    for message in &request.messages {
        add_message(&mut parts, message);
    }
    parts
}

fn add_message(parts: &mut RequestParts, message: &Message) {
    for block in &message.content {
        let size = Size {
            chars: block_chars(block),
            tokens: estimate_block(block),
        };
        let part = match block {
            ContentBlock::ToolResult { .. } => &mut parts.tool_results,
            ContentBlock::Text { text } if is_injection(text) => &mut parts.injections,
            _ => &mut parts.messages,
        };
        add(part, size);
    }
}

/// All parts together.
pub fn total(parts: &RequestParts) -> Size {
    let mut all = Size::default();
    for part in [
        parts.system,
        parts.tools,
        parts.messages,
        parts.tool_results,
        parts.injections,
    ] {
        add(&mut all, part);
    }
    all
}

/// A reminder the daemon put in the conversation.
fn is_injection(text: &str) -> bool {
    text.trim_start().starts_with("<system-reminder>")
}

fn block_chars(block: &ContentBlock) -> u64 {
    let n = |s: &str| s.chars().count() as u64;
    match block {
        ContentBlock::Text { text } => n(text),
        ContentBlock::Thinking { thinking, .. } => n(thinking),
        ContentBlock::RedactedThinking { data } => n(data),
        ContentBlock::ToolUse { name, input, .. } => n(name) + n(&input.to_string()),
        ContentBlock::ToolResult { content, .. } => n(content),
        ContentBlock::Image { data, .. } => data.len() as u64,
        ContentBlock::Unknown => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::owned_messages;
    use roocode_protocol::content::Role;

    #[test]
    fn a_request_splits_into_its_parts() {
        let messages = owned_messages(vec![
            Message::user_text("fix it"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "Read".into(),
                    input: serde_json::json!({"file_path": "a"}),
                }],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "t1".into(),
                        content: "12345678".into(),
                        is_error: false,
                        images: Vec::new(),
                    },
                    ContentBlock::Text {
                        text: "<system-reminder>mail</system-reminder>".into(),
                    },
                ],
            },
        ]);
        let request = ModelRequest {
            model: String::new(),
            system: "You are RooCode.".into(),
            messages,
            tools: Vec::new(),
            max_tokens: 100,
        };
        let parts = measure(&request);
        assert_eq!(parts.system.chars, 16);
        assert_eq!(parts.tool_results.chars, 8);
        assert_eq!(parts.injections.chars, 39);
        assert_eq!(
            parts.messages.chars,
            "fix it".len() as u64 + "Read".len() as u64 + 17
        );
        assert_eq!(parts.tools, Size::default());
        assert_eq!(
            total(&parts).chars,
            16 + 8 + 39 + parts.messages.chars,
            "the parts add up"
        );
    }
}
