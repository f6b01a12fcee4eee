//! Layer 3 of context management: summary compaction. Older history is replaced by a
//! structured summary written by the model (goal, decisions, files, open tasks, user
//! preferences, next step). The cut is always on an iteration boundary — before the
//! user message that opens a turn, or before an assistant message that follows tool
//! results — so no tool_use is ever separated from its tool_result; what is kept after
//! the cut is untouched.
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

/// Where history may be cut: one index per iteration (a model call plus the tools it
/// asked for, DESIGN §5), the first message that belongs to it. An iteration that opens
/// a turn starts at the user's message (even before the model answered it); one inside
/// a turn starts at its assistant message, right after the previous iteration's tool
/// results. So a cut never falls between a tool_use and its tool_result, and a long
/// task of one turn can be compacted too. Index 0 is never a cut (there would be
/// nothing to summarise).
pub fn boundaries(messages: &[Message]) -> Vec<usize> {
    let has_results = |m: &Message| {
        m.content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
    };
    (1..messages.len())
        .filter(|&i| {
            let m = &messages[i];
            match m.role {
                Role::User => !has_results(m),
                Role::Assistant => {
                    let before = &messages[i - 1];
                    before.role == Role::User && has_results(before)
                }
            }
        })
        .collect()
}

/// The cut that keeps the last `keep` iterations — or as many of them as fit in
/// `max_kept_tokens`, and at least the last one, so a window filled by a few huge
/// iterations still gets room. Everything before the returned index is summarised.
/// `None` when there is no iteration boundary at all (nothing old to summarise).
pub fn plan_cut_within(messages: &[Message], keep: usize, max_kept_tokens: u64) -> Option<usize> {
    let b = boundaries(messages);
    let candidates = &b[b.len().saturating_sub(keep.max(1))..];
    candidates
        .iter()
        .copied()
        .find(|&cut| estimate(&messages[cut..]) <= max_kept_tokens)
        .or_else(|| candidates.last().copied())
}

/// The user message asking for the summary of `old` (the part before the cut). When
/// the whole request would not fit in `max_tokens`, the oldest messages are left out
/// first (and the request says so).
pub fn summary_request(old: &[Message], focus: Option<&str>, max_tokens: u64) -> Message {
    let mut text = transcript(old, max_tokens);
    text.push_str(
        "Write the summary with these sections, in Markdown:\n\
## Goal\n## Decisions\n## Files read and changed\n## Open tasks\n## User preferences\n## Next step\n",
    );
    if let Some(f) = focus.filter(|f| !f.trim().is_empty()) {
        text.push_str(&format!("\nFocus the summary on: {f}\n"));
    }
    Message::user_text(text)
}

/// The system prompt of recovery's `summarize` call: the agent, whose answers came
/// back empty, states where its task stands (a call with no tools).
pub const PROGRESS_SYSTEM: &str = "You are the progress note writer of RooCode, a coding \
agent whose last answers came back empty. You receive its conversation with the user \
(with its tool calls and their results). Do not call tools.";

/// The request of recovery's `summarize` call: the conversation as a transcript (its
/// oldest part left out past `max_tokens`), and the question of where the task stands.
pub fn progress_request(messages: &[Message], max_tokens: u64) -> Message {
    let mut text = transcript(messages, max_tokens);
    text.push_str(
        "In at most five sentences, state where the task stands: what is done, what is \
         left, and the very next step the agent will take (a tool call, or its final \
         answer). Be concrete: name files and commands.",
    );
    Message::user_text(text)
}

/// `old` as the `<conversation>` block a tool-less call reads, its oldest messages left
/// out (and said so) until it fits in `max_tokens`.
fn transcript(old: &[Message], max_tokens: u64) -> String {
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
    text
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
                content,
                is_error,
                images,
                ..
            } => {
                let head: String = content.chars().take(2_000).collect();
                let tag = if *is_error { "error" } else { "result" };
                let images: String = images
                    .iter()
                    .map(|i| format!(" [image {}]", i.media_type))
                    .collect();
                format!("[tool {tag}] {head}{images}\n")
            }
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Unknown => continue,
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
                images: Vec::new(),
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
    fn cuts_fall_on_iteration_boundaries_never_between_a_call_and_its_result() {
        let h = history();
        // iterations: [0 task one, 1 call a, 2 result a] [3 done one]
        // [4 task two, 5 call b, 6 result b] [7 done two] [8 task three, 9 call c, 10 result c]
        assert_eq!(boundaries(&h), vec![3, 4, 7, 8]);
        let cut = |h: &[Message], keep| plan_cut_within(h, keep, u64::MAX);
        assert_eq!(cut(&h, 1), Some(8));
        assert_eq!(cut(&h, 2), Some(7));
        assert_eq!(cut(&h, 4), Some(3));
        // more than there are: all of them
        assert_eq!(cut(&h, 5), Some(3));
        assert_eq!(cut(&h[..2], 1), None);
        // a message that opens a turn the model has not answered yet is an iteration too
        let mut waiting = h.clone();
        waiting.push(answer("done three"));
        waiting.push(Message::user_text("task four"));
        assert_eq!(boundaries(&waiting), vec![3, 4, 7, 8, 11, 12]);
        assert_eq!(cut(&waiting, 2), Some(11));
        for cut in boundaries(&h) {
            let new = compacted("summary", &h[cut..]);
            chain::validate(&new).unwrap();
            if h[cut].role == Role::User {
                // the summary merges with the kept user text
                assert_eq!(new.len(), h.len() - cut, "cut {cut}");
            } else {
                assert_eq!(new.len(), h.len() - cut + 1, "cut {cut}");
                assert_eq!(new[1], h[cut]);
            }
        }
    }

    #[test]
    fn fewer_iterations_are_kept_when_they_would_not_fit() {
        let h = history();
        let all = estimate(&h);
        // plenty of room: the last two iterations
        assert_eq!(plan_cut_within(&h, 2, all), Some(7));
        // room for the last one only
        let last = estimate(&h[8..]);
        assert_eq!(plan_cut_within(&h, 2, last), Some(8));
        // not even that: still the last one, the best there is
        assert_eq!(plan_cut_within(&h, 2, 1), Some(8));
        // fewer iterations than asked for: what there is
        assert_eq!(plan_cut_within(&h[..4], 3, all), Some(3));
        assert_eq!(plan_cut_within(&h[..3], 3, all), None);
    }

    #[test]
    fn one_long_turn_can_be_cut_between_its_iterations() {
        let mut h = vec![Message::user_text("a long task")];
        for i in 0..5 {
            let id = format!("t{i}");
            h.push(call(&id));
            h.push(result(&id));
        }
        // each later iteration starts at its assistant message
        assert_eq!(boundaries(&h), vec![3, 5, 7, 9]);
        let cut = plan_cut_within(&h, 2, u64::MAX).unwrap();
        assert_eq!(cut, 7);
        let new = compacted("summary", &h[cut..]);
        chain::validate(&new).unwrap();
        assert_eq!(new.len(), 5);
        assert_eq!(new[0].role, Role::User);
        assert!(new[0].text().contains("summary"));
        assert_eq!(&new[1..], &h[7..]);
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

    #[test]
    fn the_summariser_reads_a_note_for_each_image_not_its_bytes() {
        let m = Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: "a".into(),
                content: "one pixel:".into(),
                is_error: false,
                images: vec![roocode_protocol::content::ImageData::new(
                    "image/png",
                    "QUFBQQ==",
                )],
            }],
        };
        let req = summary_request(&[m], None, 1_000_000).text();
        assert!(
            req.contains("[tool result] one pixel: [image image/png]\n"),
            "{req}"
        );
        assert!(!req.contains("QUFBQQ=="));
    }
}
