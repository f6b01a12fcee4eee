//! Events as text: the one-line forms shared by `send` and `attach` (tool calls,
//! retries, permission waits and their outcomes, errors, sub-agents, teams) and the
//! [`Transcript`] that `attach` prints. A sub-agent's waits on a human, which also show
//! on its parent's stream, are labelled with its name (`[Explore] permission: …`).
//!
//! The transcript is a pure function of the event sequence (the session's working
//! directory comes from the snapshot), so two clients that saw the same events print
//! byte-identical output.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::{DecidedBy, ErrorInfo, Event, EventPayload};
use roocode_protocol::session::PendingRequest;
use serde_json::Value;

use roocode_client::agents::{self, AgentNames};
pub use roocode_client::display::{MAX_ARG, clip, main_arg};

/// `● Read src/a.rs`: a tool name and its main argument.
pub fn tool_line(name: &str, input: &Value, cwd: Option<&Path>) -> String {
    match main_arg(input, cwd) {
        Some(arg) => format!("● {name} {arg}"),
        None => format!("● {name}"),
    }
}

/// `  ⎿ first line (+N lines)` for a tool result.
pub fn result_line(output: &str, is_error: bool) -> String {
    let mut lines = output.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().map(|l| clip(l.trim_end(), 120));
    let more = lines.count();
    let mut line = match (first, is_error) {
        (Some(l), false) => format!("  ⎿ {l}"),
        (Some(l), true) => format!("  ⎿ error: {l}"),
        (None, false) => "  ⎿ (no output)".to_owned(),
        (None, true) => "  ⎿ error".to_owned(),
    };
    if more > 0 {
        line.push_str(&format!(" (+{more} lines)"));
    }
    line
}

/// `permission: <request_id> <tool> <summary>`: the line scripts parse, so nothing
/// follows the summary (the reason goes elsewhere).
pub fn permission_line(request_id: &str, tool: &str, input: &Value, cwd: Option<&Path>) -> String {
    with_summary(
        format!("permission: {request_id} {tool}"),
        main_arg(input, cwd).as_deref(),
    )
}

/// The line announcing a request listed by a snapshot or `pending.list`: the same
/// shapes as [`permission_line`] and [`question_line`], with the daemon's summary,
/// labelled with the sub-agent's name when a sub-agent asks.
pub fn pending_line(p: &PendingRequest) -> String {
    let label = match (&p.agent_id, &p.agent_name) {
        (Some(_), Some(name)) => format!("[{name}] "),
        (Some(id), None) => format!("[{}] ", agents::unnamed(id)),
        (None, _) => String::new(),
    };
    format!("{label}{}", pending_line_unlabelled(p))
}

fn pending_line_unlabelled(p: &PendingRequest) -> String {
    let summary = p.summary.lines().next().map(|l| clip(l.trim(), MAX_ARG));
    match p.kind.as_str() {
        "question" => with_summary(format!("question: {}", p.request_id), summary.as_deref()),
        _ => with_summary(
            format!("permission: {} {}", p.request_id, p.tool),
            summary.as_deref(),
        ),
    }
}

fn with_summary(mut line: String, summary: Option<&str>) -> String {
    if let Some(s) = summary.filter(|s| !s.is_empty()) {
        line.push(' ');
        line.push_str(s);
    }
    line
}

/// `permission <request_id>: <decision> by <kind>`.
pub fn permission_resolved_line(request_id: &str, decision: &str, by: &DecidedBy) -> String {
    format!("permission {request_id}: {decision} by {}", by.kind)
}

/// `question <request_id>: answered by <kind>` (`withdrawn by` when the answers are
/// null: its turn was cancelled).
pub fn question_resolved_line(request_id: &str, answers: &Value, by: &DecidedBy) -> String {
    let what = if answers.is_null() {
        "withdrawn"
    } else {
        "answered"
    };
    format!("question {request_id}: {what} by {}", by.kind)
}

/// `answered elsewhere by <kind> (pid N)`: an open prompt closed by another client.
pub fn answered_elsewhere_line(by: &DecidedBy) -> String {
    match by.pid {
        Some(pid) => format!("answered elsewhere by {} (pid {pid})", by.kind),
        None => format!("answered elsewhere by {}", by.kind),
    }
}

/// `question: <request_id> <first question>`.
pub fn question_line(request_id: &str, questions: &Value) -> String {
    let questions = match questions {
        Value::Object(o) if o.get("questions").is_some_and(Value::is_array) => &o["questions"],
        other => other,
    };
    let first = match questions {
        Value::Array(items) => items.first(),
        other => Some(other),
    };
    let text = match first {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(o)) => o
            .get("question")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| Value::Object(o.clone()).to_string()),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    format!("question: {request_id} {}", clip(&text, 200))
}

/// The marker printed where a failed attempt's partial answer was withdrawn.
pub const STREAM_RESET_LINE: &str =
    "[stream reset: the partial answer above was discarded; retrying]";

/// `error: <message>`.
pub fn error_line(error: &ErrorInfo) -> String {
    format!("error: {}", error.message)
}

/// The text blocks of an assistant message, joined.
pub fn message_text(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The line of a sub-agent event on its parent's stream (`agent_spawned`,
/// `agent_backgrounded`, `agent_completed`, `injected`) or of a team event
/// (`team_member`, `task_updated`, `mailbox_message`: `roocode_client::teams`); `None`
/// for other events and for `agent_progress`, which would flood a transcript.
pub fn agent_event_line(ev: &Event, names: &AgentNames) -> Option<String> {
    // Sub-agent events carry the child's id as the event's agent id.
    let agent_id = &ev.agent_id;
    match &ev.payload {
        EventPayload::AgentSpawned {
            name,
            agent_type,
            description,
            background,
            ..
        } => Some(agents::spawned_line(
            name,
            agent_type,
            description,
            *background,
        )),
        EventPayload::AgentBackgrounded => Some(agents::backgrounded_line(&names.name(agent_id))),
        EventPayload::AgentCompleted { state, summary, .. } => Some(agents::completed_line(
            &names.name(agent_id),
            *state,
            summary,
        )),
        EventPayload::Injected { kind, text, .. } => Some(agents::injected_line(kind, text)),
        EventPayload::Workflow { .. } => roocode_client::workflow::line(&ev.payload),
        EventPayload::TeamMember { .. }
        | EventPayload::TaskUpdated { .. }
        | EventPayload::MailboxMessage { .. } => roocode_client::teams::event_line(ev),
        _ => None,
    }
}

/// The text transcript of a session, built event by event.
#[derive(Debug, Default)]
pub struct Transcript {
    cwd: Option<PathBuf>,
    /// The names of the session's sub-agents, for their events' labels.
    names: AgentNames,
    mid_line: bool,
    wrote: bool,
    /// Messages whose text arrived as deltas (their final message is not reprinted).
    streamed: HashSet<String>,
}

impl Transcript {
    /// The text to print for `ev` (often empty).
    pub fn render(&mut self, ev: &Event) -> String {
        let mut out = String::new();
        let cwd = self.cwd.clone();
        let cwd = cwd.as_deref();
        self.names.observe(ev);
        let label = self.names.label_of(ev);
        if let Some(line) = agent_event_line(ev, &self.names) {
            self.line(&mut out, &line);
            return out;
        }
        match &ev.payload {
            EventPayload::Snapshot { session, .. } => {
                self.cwd = Some(PathBuf::from(&session.cwd));
            }
            EventPayload::UserMessage { text, .. } => {
                if self.wrote {
                    self.line(&mut out, "");
                }
                for l in text.lines() {
                    self.line(&mut out, &format!("> {l}"));
                }
                if text.lines().next().is_none() {
                    self.line(&mut out, ">");
                }
            }
            EventPayload::TextDelta { message_id, text } => {
                self.streamed.insert(message_id.clone());
                self.text(&mut out, text);
            }
            EventPayload::AssistantMessage {
                message_id,
                content,
            } => {
                if !self.streamed.remove(message_id) {
                    self.text(&mut out, &message_text(content));
                }
                self.end_line(&mut out);
            }
            EventPayload::StreamReset { message_id } => {
                self.streamed.remove(message_id);
                self.line(&mut out, STREAM_RESET_LINE);
            }
            EventPayload::ToolCall { name, input, .. } => {
                self.line(&mut out, &tool_line(name, input, cwd));
            }
            EventPayload::ToolResult {
                output, is_error, ..
            } => self.line(&mut out, &result_line(output, *is_error)),
            EventPayload::PermissionRequest {
                request_id,
                tool,
                input,
                reason,
                ..
            } => {
                let mut line = format!("{label}{}", permission_line(request_id, tool, input, cwd));
                if !reason.is_empty() {
                    line.push_str(&format!(" ({reason})"));
                }
                self.line(&mut out, &line);
            }
            EventPayload::PermissionResolved {
                request_id,
                decision,
                decided_by,
            } => self.line(
                &mut out,
                &format!(
                    "  ⎿ {label}permission {request_id}: {decision} (by {})",
                    decided_by.kind
                ),
            ),
            EventPayload::Question {
                request_id,
                questions,
                ..
            } => self.line(
                &mut out,
                &format!("{label}{}", question_line(request_id, questions)),
            ),
            EventPayload::QuestionResolved {
                request_id,
                answers,
                decided_by,
            } => {
                let what = if answers.is_null() {
                    "withdrawn"
                } else {
                    "answered"
                };
                self.line(
                    &mut out,
                    &format!(
                        "  ⎿ {label}question {request_id} {what} (by {})",
                        decided_by.kind
                    ),
                );
            }
            EventPayload::Compaction {
                before_tokens,
                after_tokens,
                ..
            } => self.line(
                &mut out,
                &format!("(context compacted: {before_tokens} → {after_tokens} tokens)"),
            ),
            // What recovery does, as the daemon words it (`retrying in 4 s (rate
            // limited, attempt 2/5)`); the `retrying` event sent with a retry's, for
            // older clients, is not shown again.
            EventPayload::Recovery { message, .. } => self.line(&mut out, message),
            EventPayload::Retrying { .. } => {}
            EventPayload::ModeChanged { mode } => self.line(&mut out, &format!("(mode: {mode})")),
            EventPayload::ModelChanged { model, .. } => {
                self.line(&mut out, &format!("(model: {model})"));
            }
            EventPayload::ContextCleared => self.line(&mut out, "(context cleared)"),
            EventPayload::Rewound { .. } => {
                if let Some(rewound) = roocode_client::rewind::Rewound::of(&ev.payload) {
                    self.line(&mut out, &format!("({})", rewound.line()));
                }
            }
            // A replay's findings, as the TUI shows them (`roocode_client::replay`).
            EventPayload::ReplayDivergence { .. } | EventPayload::ReplayFinished { .. } => {
                if let Some(line) = roocode_client::replay::line(&ev.payload) {
                    self.line(&mut out, &line);
                }
                for detail in roocode_client::replay::details(&ev.payload) {
                    self.line(&mut out, &detail);
                }
            }
            EventPayload::TurnCompleted {
                stop_reason, error, ..
            } => {
                if let Some(e) = error {
                    self.line(&mut out, &error_line(e));
                }
                self.line(&mut out, &format!("({})", stop_reason.as_str()));
            }
            EventPayload::Error { error } => self.line(&mut out, &error_line(error)),
            EventPayload::MessageQueued { .. }
            | EventPayload::TurnStarted { .. }
            | EventPayload::ThinkingDelta { .. }
            | EventPayload::ToolOutput { .. }
            | EventPayload::Usage { .. }
            | EventPayload::Resync { .. }
            // Sub-agent events: shown above (progress: by `roocode-cli agents`).
            | EventPayload::AgentSpawned { .. }
            | EventPayload::AgentProgress { .. }
            | EventPayload::AgentBackgrounded
            | EventPayload::AgentCompleted { .. }
            | EventPayload::Injected { .. }
            | EventPayload::Workflow { .. }
            // Team events: shown above too.
            | EventPayload::TeamMember { .. }
            | EventPayload::TaskUpdated { .. }
            | EventPayload::MailboxMessage { .. }
            | EventPayload::Unknown => {}
        }
        out
    }

    /// Whether the output so far leaves a line open.
    pub fn mid_line(&self) -> bool {
        self.mid_line
    }

    fn text(&mut self, out: &mut String, text: &str) {
        if text.is_empty() {
            return;
        }
        out.push_str(text);
        self.mid_line = !text.ends_with('\n');
        self.wrote = true;
    }

    fn end_line(&mut self, out: &mut String) {
        if self.mid_line {
            out.push('\n');
            self.mid_line = false;
        }
    }

    fn line(&mut self, out: &mut String, line: &str) {
        self.end_line(out);
        out.push_str(line);
        out.push('\n');
        self.wrote = true;
    }
}

#[cfg(test)]
mod tests;
