//! The fork path: a child with no `subagent_type` inherits its parent's system prompt,
//! tool array and conversation unchanged (so the provider's prompt cache hits), then
//! reads placeholder results for the tool calls of the parent's last message (the
//! `Agent` call among them, so its first request is chain-valid) and a directive saying
//! it is a fork that must not talk to the user.

use roocode_protocol::content::{ContentBlock, Message, Role};

/// The result a fork reads for each tool call of its parent's last message.
pub const PLACEHOLDER_RESULT: &str =
    "Fork started: this call's result goes to the parent agent, not to you.";

/// Marks a fork's directive (tests and the mock tell forks apart by it).
pub const DIRECTIVE_TAG: &str = "fork-directive";

/// The directive that ends a fork's first message.
pub fn directive(task: &str) -> String {
    format!(
        "<{DIRECTIVE_TAG}>\nYou are a fork of the agent whose conversation is above: a copy that \
runs in the background and reports to it, not to the user. Do not address the user and do \
not ask questions: nobody will answer. Do only this task, then answer with your result, \
briefly, for the agent that forked you:\n\n{task}\n</{DIRECTIVE_TAG}>"
    )
}

/// The fork's first context: the parent's `messages` (ending with its assistant message
/// that made the `Agent` call), placeholder results for every call of that message, and
/// the directive. `None` when the parent's context does not end with tool calls.
pub fn first_context(mut messages: Vec<Message>, task: &str) -> Option<Vec<Message>> {
    let last = messages.last().filter(|m| m.role == Role::Assistant)?;
    let mut blocks: Vec<ContentBlock> = last
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, .. } => Some(ContentBlock::ToolResult {
                tool_use_id: id.clone(),
                content: PLACEHOLDER_RESULT.to_string(),
                is_error: false,
                images: Vec::new(),
            }),
            _ => None,
        })
        .collect();
    if blocks.is_empty() {
        return None;
    }
    blocks.push(ContentBlock::text(directive(task)));
    messages.push(Message {
        role: Role::User,
        content: blocks,
    });
    Some(messages)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::chain;

    #[test]
    fn a_fork_starts_chain_valid_with_the_parent_s_conversation() {
        let parent = vec![
            Message::user_text("find the bug"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::text("forking"),
                    ContentBlock::ToolUse {
                        id: "c1".into(),
                        name: "Agent".into(),
                        input: json!({"prompt": "look", "description": "d"}),
                    },
                    ContentBlock::ToolUse {
                        id: "c2".into(),
                        name: "Read".into(),
                        input: json!({"file_path": "/x"}),
                    },
                ],
            },
        ];
        let fork = first_context(parent.clone(), "look in src/").unwrap();
        assert_eq!(&fork[..2], &parent[..]);
        assert!(chain::validate(&fork).is_ok());
        let last = fork.last().unwrap().text();
        assert!(
            last.contains("<fork-directive>") && last.contains("look in src/"),
            "{last}"
        );
        assert!(first_context(vec![Message::user_text("hi")], "x").is_none());
    }
}
