//! `roocode-cli show SESSION [--markdown]`: a session's transcript, readable — what
//! you said, what the agent answered, each tool call with its result (long results
//! cut), compactions, rewinds and errors — from the event log, paged through
//! `session.history`. `--markdown` writes it as Markdown (headings per message, tool
//! calls and results in fenced blocks) for a file or a pull request; the default is
//! plain text for a terminal.

use clap::Args;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::{Event, EventPayload};

use crate::connect;
use crate::failure::Failure;
use crate::output::out;

/// Events per page of `session.history`.
const PAGE: u32 = 500;
/// A tool result longer than this is cut in the transcript.
const RESULT_CAP: usize = 2_000;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    pub id: String,
    /// Print it as Markdown.
    #[arg(long)]
    pub markdown: bool,
}

pub async fn run(args: &ShowArgs) -> anyhow::Result<i32> {
    let conn = connect::connect(&connect::paths()?).await?;
    let info = conn.rpc.get(args.id.clone()).await.map_err(Failure::from)?;
    let mut events = Vec::new();
    let mut after = 0;
    loop {
        let page = conn
            .rpc
            .history(info.id.clone(), None, Some(after), Some(PAGE))
            .await
            .map_err(Failure::from)?;
        let Some(last) = page.events.last() else {
            break;
        };
        after = last.seq;
        let full = page.events.len() as u32 == PAGE;
        events.extend(page.events);
        if !full {
            break;
        }
    }
    let style = if args.markdown {
        Style::Markdown
    } else {
        Style::Plain
    };
    out(&render(&info.title, &info.id, &events, style));
    Ok(0)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Markdown,
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

fn block(out: &mut String, style: Style, lang: &str, text: &str) {
    match style {
        Style::Markdown => {
            let f = fence(text);
            out.push_str(&format!("{f}{lang}\n{}\n{f}\n\n", text.trim_end()));
        }
        Style::Plain => {
            for line in text.trim_end().lines() {
                out.push_str(&format!("    {line}\n"));
            }
            out.push('\n');
        }
    }
}

fn heading(out: &mut String, style: Style, text: &str) {
    match style {
        Style::Markdown => out.push_str(&format!("### {text}\n\n")),
        Style::Plain => out.push_str(&format!("── {text}\n")),
    }
}

fn note(out: &mut String, style: Style, text: &str) {
    match style {
        Style::Markdown => out.push_str(&format!("> *{text}*\n\n")),
        Style::Plain => out.push_str(&format!("({text})\n\n")),
    }
}

/// The transcript of `events`.
pub fn render(title: &str, id: &str, events: &[Event], style: Style) -> String {
    let mut s = String::new();
    let title = if title.is_empty() {
        "(untitled)"
    } else {
        title
    };
    match style {
        Style::Markdown => s.push_str(&format!("# {title}\n\nSession `{id}`\n\n")),
        Style::Plain => s.push_str(&format!("{title}\nsession {id}\n\n")),
    }
    for ev in events.iter().filter(|e| e.agent_id == e.session_id) {
        match &ev.payload {
            EventPayload::UserMessage { text, .. } => {
                heading(&mut s, style, "You");
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
                    heading(&mut s, style, "RooCode");
                    s.push_str(&format!("{}\n\n", text.join("\n").trim_end()));
                }
            }
            EventPayload::ToolCall { name, input, .. } => {
                let shown = serde_json::to_string_pretty(input).unwrap_or_default();
                match style {
                    Style::Markdown => s.push_str(&format!("**{name}**\n\n")),
                    Style::Plain => s.push_str(&format!("● {name}\n")),
                }
                block(&mut s, style, "json", &shown);
            }
            EventPayload::ToolResult {
                output,
                is_error,
                duration_ms,
                ..
            } => {
                let label = if *is_error { "error" } else { "result" };
                let secs = *duration_ms as f64 / 1000.0;
                match style {
                    Style::Markdown => s.push_str(&format!("*{label}, {secs:.1} s*\n\n")),
                    Style::Plain => s.push_str(&format!("  {label}, {secs:.1} s\n")),
                }
                block(&mut s, style, "", &cut(output, RESULT_CAP));
            }
            EventPayload::Compaction {
                before_tokens,
                after_tokens,
            } => note(
                &mut s,
                style,
                &format!("context compacted: {before_tokens} → {after_tokens} tokens"),
            ),
            EventPayload::Rewound { turn, .. } => {
                note(&mut s, style, &format!("rewound to before turn {turn}"))
            }
            EventPayload::ContextCleared => note(&mut s, style, "context cleared"),
            EventPayload::Error { error } => {
                note(&mut s, style, &format!("error: {}", error.message))
            }
            _ => {}
        }
    }
    s
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
        let md = render("files", "S", &transcript(), Style::Markdown);
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
        let text = render("", "S", &events, Style::Plain);
        assert!(text.starts_with("(untitled)\nsession S\n\n── You\nlist the files\n\n● Bash\n"));
        assert!(text.contains("  error, 0.0 s\n"), "{text}");
        assert!(text.contains("… (10 more characters)"), "{text}");
    }
}
