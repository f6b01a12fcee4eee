//! A session's transcript for people: what the user said, what the agent answered, each
//! tool call with its result (long results cut), compactions, rewinds and errors, as
//! plain text for a terminal or as Markdown for a file or a pull request (headings per
//! message, tool calls and results in fenced blocks). `roocode-cli show` prints it and
//! the TUI's `/export` writes it; [`load`] reads the whole event log it is made from,
//! page by page through `session.history`.
//!
//! Only the main agent's events are shown: a sub-agent's work is summed up by its
//! result in the parent's conversation.

use roocode_protocol::api::SessionApiClient;
use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::{Event, EventPayload};

use crate::RpcClient;

/// Events per page of `session.history`.
const PAGE: u32 = 500;
/// A tool result longer than this (in characters) is cut in the transcript.
pub const RESULT_CAP: usize = 2_000;

/// How the transcript is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Indented text for a terminal.
    Plain,
    /// Markdown.
    Markdown,
}

/// Every stored event of `session_id`, oldest first.
pub async fn load(
    rpc: &RpcClient,
    session_id: &str,
) -> Result<Vec<Event>, jsonrpsee::core::client::Error> {
    let mut events = Vec::new();
    let mut after = 0;
    loop {
        let page = rpc
            .history(session_id.to_owned(), None, Some(after), Some(PAGE))
            .await?;
        // Until a page comes back empty: a daemon may send fewer than asked.
        let Some(last) = page.events.last() else {
            break;
        };
        after = last.seq;
        events.extend(page.events);
    }
    Ok(events)
}

/// The transcript of `events`, titled `title` (`(untitled)` when empty), of session `id`.
pub fn render(title: &str, id: &str, events: &[Event], format: Format) -> String {
    let mut s = String::new();
    let title = if title.is_empty() {
        "(untitled)"
    } else {
        title
    };
    match format {
        Format::Markdown => s.push_str(&format!("# {title}\n\nSession `{id}`\n\n")),
        Format::Plain => s.push_str(&format!("{title}\nsession {id}\n\n")),
    }
    for ev in events.iter().filter(|e| e.agent_id == e.session_id) {
        match &ev.payload {
            EventPayload::UserMessage { text, .. } => {
                heading(&mut s, format, "You");
                s.push_str(&format!("{}\n\n", text.trim_end()));
            }
            EventPayload::AssistantMessage { content, .. } => {
                let text: Vec<&str> = content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                if !text.is_empty() {
                    heading(&mut s, format, "RooCode");
                    s.push_str(&format!("{}\n\n", text.join("\n").trim_end()));
                }
            }
            EventPayload::ToolCall { name, input, .. } => {
                let shown = serde_json::to_string_pretty(input).unwrap_or_default();
                match format {
                    Format::Markdown => s.push_str(&format!("**{name}**\n\n")),
                    Format::Plain => s.push_str(&format!("● {name}\n")),
                }
                block(&mut s, format, "json", &shown);
            }
            EventPayload::ToolResult {
                output,
                is_error,
                duration_ms,
                ..
            } => {
                let label = if *is_error { "error" } else { "result" };
                let secs = *duration_ms as f64 / 1000.0;
                match format {
                    Format::Markdown => s.push_str(&format!("*{label}, {secs:.1} s*\n\n")),
                    Format::Plain => s.push_str(&format!("  {label}, {secs:.1} s\n")),
                }
                block(&mut s, format, "", &cut(output, RESULT_CAP));
            }
            EventPayload::Compaction {
                before_tokens,
                after_tokens,
                ..
            } => note(
                &mut s,
                format,
                &format!("context compacted: {before_tokens} → {after_tokens} tokens"),
            ),
            EventPayload::Rewound { .. } => {
                if let Some(rewound) = crate::rewind::Rewound::of(&ev.payload) {
                    note(&mut s, format, &rewound.line());
                }
            }
            EventPayload::ContextCleared => note(&mut s, format, "context cleared"),
            EventPayload::Error { error } => {
                note(&mut s, format, &format!("error: {}", error.message));
            }
            _ => {}
        }
    }
    s
}

/// `text` cut to `max` characters, saying so.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!(
            "{}\n… ({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
        None => text.to_string(),
    }
}

/// A fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

fn block(out: &mut String, format: Format, lang: &str, text: &str) {
    match format {
        Format::Markdown => {
            let f = fence(text);
            out.push_str(&format!("{f}{lang}\n{}\n{f}\n\n", text.trim_end()));
        }
        Format::Plain => {
            for line in text.trim_end().lines() {
                out.push_str(&format!("    {line}\n"));
            }
            out.push('\n');
        }
    }
}

fn heading(out: &mut String, format: Format, text: &str) {
    match format {
        Format::Markdown => out.push_str(&format!("### {text}\n\n")),
        Format::Plain => out.push_str(&format!("── {text}\n")),
    }
}

fn note(out: &mut String, format: Format, text: &str) {
    match format {
        Format::Markdown => out.push_str(&format!("> *{text}*\n\n")),
        Format::Plain => out.push_str(&format!("({text})\n\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, payload: EventPayload) -> Event {
        Event {
            seq,
            ts: "2026-12-02T10:00:00.000Z".into(),
            session_id: "S".into(),
            agent_id: "S".into(),
            payload,
        }
    }

    fn transcript() -> Vec<Event> {
        vec![
            ev(
                1,
                EventPayload::UserMessage {
                    turn_id: "t".into(),
                    input_id: "i".into(),
                    text: "list the files".into(),
                },
            ),
            ev(
                2,
                EventPayload::ToolCall {
                    call_id: "c".into(),
                    name: "Bash".into(),
                    input: json!({"command": "ls"}),
                },
            ),
            ev(
                3,
                EventPayload::ToolResult {
                    call_id: "c".into(),
                    output: "a.rs\n```b```".into(),
                    is_error: false,
                    duration_ms: 1200,
                    diff: None,
                },
            ),
            ev(
                4,
                EventPayload::AssistantMessage {
                    message_id: "m".into(),
                    content: vec![ContentBlock::Text {
                        text: "Two files.".into(),
                    }],
                },
            ),
        ]
    }

    #[test]
    fn markdown_has_headings_and_fences_longer_than_the_content() {
        let md = render("files", "S", &transcript(), Format::Markdown);
        assert_eq!(
            md,
            "# files\n\nSession `S`\n\n### You\n\nlist the files\n\n**Bash**\n\n```json\n{\n  \"command\": \"ls\"\n}\n```\n\n*result, 1.2 s*\n\n````\na.rs\n```b```\n````\n\n### RooCode\n\nTwo files.\n\n"
        );
    }

    #[test]
    fn plain_text_indents_tool_io_and_cuts_long_results() {
        let mut events = transcript();
        events[2] = ev(
            3,
            EventPayload::ToolResult {
                call_id: "c".into(),
                output: "x".repeat(RESULT_CAP + 10),
                is_error: true,
                duration_ms: 0,
                diff: None,
            },
        );
        let text = render("", "S", &events, Format::Plain);
        assert!(text.starts_with("(untitled)\nsession S\n\n── You\nlist the files\n\n● Bash\n"));
        assert!(text.contains("  error, 0.0 s\n"), "{text}");
        assert!(text.contains("… (10 more characters)"), "{text}");
    }

    #[test]
    fn sub_agents_events_are_left_out() {
        let mut child = ev(
            5,
            EventPayload::UserMessage {
                turn_id: "t2".into(),
                input_id: "i2".into(),
                text: "the sub-agent's task".into(),
            },
        );
        child.agent_id = "A1".into();
        let mut events = transcript();
        events.push(child);
        let text = render("files", "S", &events, Format::Plain);
        assert!(!text.contains("the sub-agent's task"), "{text}");
    }
}
