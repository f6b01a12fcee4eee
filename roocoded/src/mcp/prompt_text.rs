//! An MCP prompt's messages as the text of one user message ([`to_text`]).
//!
//! The format: each message gives the text of its content — text as it is, an
//! embedded resource's text, `[image]` for an image, `[audio]` for audio, and
//! `[resource <uri>]` for a binary resource or a resource link; a message whose role
//! is not `user` starts with its role (`assistant: `); the messages are joined with a
//! blank line. No messages give an empty text.

use super::client::McpContent;

/// Who a prompt message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptRole {
    User,
    Assistant,
}

impl PromptRole {
    pub fn as_str(self) -> &'static str {
        match self {
            PromptRole::User => "user",
            PromptRole::Assistant => "assistant",
        }
    }
}

/// One message of a prompt, as the server sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPromptMessage {
    pub role: PromptRole,
    pub content: McpContent,
}

/// The messages as one text (see the module doc for the format).
pub fn to_text(messages: &[McpPromptMessage]) -> String {
    messages
        .iter()
        .map(|m| {
            let text = content_text(&m.content);
            match m.role {
                PromptRole::User => text,
                other => format!("{}: {text}", other.as_str()),
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn content_text(content: &McpContent) -> String {
    match content {
        McpContent::Text(text) | McpContent::ResourceText { text, .. } => text.clone(),
        McpContent::Image { .. } => "[image]".into(),
        McpContent::Audio { .. } => "[audio]".into(),
        McpContent::ResourceBlob { uri, .. } | McpContent::Link { uri, .. } => {
            format!("[resource {uri}]")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(content: McpContent) -> McpPromptMessage {
        McpPromptMessage {
            role: PromptRole::User,
            content,
        }
    }

    #[test]
    fn messages_become_one_text() {
        let messages = [
            user(McpContent::Text("Review this:".into())),
            user(McpContent::ResourceText {
                uri: "file:///a.rs".into(),
                mime_type: Some("text/x-rust".into()),
                text: "fn main() {}".into(),
            }),
            McpPromptMessage {
                role: PromptRole::Assistant,
                content: McpContent::Text("I will.\nTwo lines.".into()),
            },
            user(McpContent::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            }),
            user(McpContent::ResourceBlob {
                uri: "file:///b.bin".into(),
                mime_type: None,
                blob: "AAAA".into(),
            }),
            user(McpContent::Link {
                uri: "file:///c.md".into(),
                name: "c".into(),
                description: None,
            }),
            user(McpContent::Audio {
                data: "AAAA".into(),
                mime_type: "audio/wav".into(),
            }),
        ];
        assert_eq!(
            to_text(&messages),
            "Review this:\n\nfn main() {}\n\nassistant: I will.\nTwo lines.\n\n[image]\n\n\
             [resource file:///b.bin]\n\n[resource file:///c.md]\n\n[audio]"
        );
        assert_eq!(to_text(&[]), "");
        assert_eq!(to_text(&messages[..1]), "Review this:");
    }
}
