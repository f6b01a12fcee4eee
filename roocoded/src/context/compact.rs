//! Layer 3 of context management: summary compaction. Older history is replaced by a
//! structured summary written by the model (goal, decisions, files, open tasks, user
//! preferences, next step). The cut is always on an iteration boundary — before a user
//! message that carries no tool results — so no tool_use is ever separated from its
//! tool_result; what is kept after the cut is untouched.
//!
//! This module plans the cut and builds the summary request and the new history; the
//! agent makes the model call (`agent::compaction`).

use roocode_protocol::content::{ContentBlock, Message, Role};

use super::budget::{estimate_message, estimate_messages};
use super::chain;

/// Iterations kept verbatim after the cut.
pub const KEEP_RECENT: usize = 2;

/// The system prompt of the summary call (a call with no tools, saying what it is).
pub const SUMMARY_SYSTEM: &str = "You are the context compactor of RooCode, a coding agent. \
You receive the earlier part of a conversation between a user and the agent (with the \
agent's tool calls and their results) and write a summary that will replace it, so the \
agent can continue the task without it. Be precise: keep file paths, function names, \
commands, error messages and decisions exactly. Do not call tools.";

/// Where history may be cut: indices of user messages that carry no tool results.
pub fn boundaries(messages: &[Message]) -> Vec<usize> {
    messages
        .iter()
        .enumerate()
        .filter(|(i, m)| {
            *i > 0
                && m.role == Role::User
                && !m
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The cut that keeps the last `keep` iterations: everything before the returned index
/// is summarised. `None` when there is nothing old enough to summarise.
pub fn plan_cut(messages: &[Message], keep: usize) -> Option<usize> {
    let b = boundaries(messages);
    if b.len() < keep.max(1) {
        return None;
    }
    Some(b[b.len() - keep.max(1)])
}

/// The user message asking for the summary of `old` (the part before the cut). When
/// the whole request would not fit in `max_tokens`, the oldest messages are left out
/// first (and the request says so).
pub fn summary_request(old: &[Message], focus: Option<&str>, max_tokens: u64) -> Message {
    let mut start = 0;
    while start < old.len() && estimate_messages(&old[start..]) + 2_000 > max_tokens {
        start += 1;
    }
    let mut text = String::new();
    if start > 0 {
        text.push_str(&format!(
            "(The {start} oldest messages did not fit and are left out.)\n\n"
        ));
    }
    text.push_str("<conversation>\n");
    for m in &old[start..] {
        text.push_str(&render(m));
    }
    text.push_str("</conversation>\n\n");
    text.push_str(
        "Write the summary with these sections, in Markdown:\n\
## Goal\n## Decisions\n## Files read and changed\n## Open tasks\n## User preferences\n## Next step\n",
    );
    if let Some(f) = focus.filter(|f| !f.trim().is_empty()) {
        text.push_str(&format!("\nFocus the summary on: {f}\n"));
    }
    Message::user_text(text)
}

/// One message of the transcript the summariser reads.
fn render(m: &Message) -> String {
    let who = match m.role {
        Role::User => "user",
        Role::Assistant => "agent",
    };
    let mut out = String::new();
    for b in &m.content {
        let line = match b {
            ContentBlock::Text { text } => format!("[{who}] {text}\n"),
            ContentBlock::ToolUse { name, input, .. } => format!("[{who} calls {name}] {input}\n"),
            ContentBlock::ToolResult {
                content, is_error, ..
            } => {
                let head: String = content.chars().take(2_000).collect();
                let tag = if *is_error { "error" } else { "result" };
                format!("[tool {tag}] {head}\n")
            }
            ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => continue,
            ContentBlock::Image { .. } => format!("[{who} image]\n"),
        };
        out.push_str(&line);
    }
    out
}

/// The history after compaction: the summary as the first user message, then what was
/// kept. Always chain-valid.
pub fn compacted(summary: &str, kept: &[Message]) -> Vec<Message> {
    let mut out = Vec::with_capacity(kept.len() + 1);
    out.push(Message::user_text(format!(
        "<system-reminder>\nThe earlier part of this conversation was compacted. Its summary:\n\n{summary}\n</system-reminder>"
    )));
    out.extend_from_slice(kept);
    chain::repair(&mut out, "This tool call's result was lost in compaction.");
    out
}

/// Estimated tokens of a history (for the `compaction` event).
pub fn estimate(messages: &[Message]) -> u64 {
    messages.iter().map(estimate_message).sum()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: id.into(),
                name: "Read".into(),
                input: json!({"file_path": "a"}),
            }],
        }
    }
    fn result(id: &str) -> Message {
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: id.into(),
                content: "x".repeat(100),
                is_error: false,
            }],
        }
    }
    fn answer(t: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text(t)],
        }
    }

    fn history() -> Vec<Message> {
        vec![
            Message::user_text("task one"),
            call("a"),
            result("a"),
            answer("done one"),
            Message::user_text("task two"),
            call("b"),
            result("b"),
            answer("done two"),
            Message::user_text("task three"),
            call("c"),
            result("c"),
        ]
    }

    #[test]
    fn cuts_fall_only_before_user_text_never_between_a_call_and_its_result() {
        let h = history();
        assert_eq!(boundaries(&h), vec![4, 8]);
        assert_eq!(plan_cut(&h, 1), Some(8));
        assert_eq!(plan_cut(&h, 2), Some(4));
        assert_eq!(plan_cut(&h, 3), None);
        for cut in boundaries(&h) {
            let new = compacted("summary", &h[cut..]);
            chain::validate(&new).unwrap();
            // Every call kept has its result kept.
            assert_eq!(
                new.len(),
                h.len() - cut + 1 - 1,
                "summary merges with the kept user text"
            );
        }
    }

    #[test]
    fn the_request_names_the_sections_and_the_focus_and_drops_the_oldest_first() {
        let h = history();
        let req = summary_request(&h[..8], Some("the parser"), 1_000_000).text();
        for s in [
            "## Goal",
            "## Decisions",
            "## Files read and changed",
            "## Open tasks",
            "## User preferences",
            "## Next step",
            "Focus the summary on: the parser",
            "task one",
        ] {
            assert!(req.contains(s), "{s}");
        }
        let small = summary_request(&h[..8], None, 2_100).text();
        assert!(small.contains("oldest messages did not fit"), "{small}");
        assert!(!small.contains("task one"));
    }
}
