//! Reducing the session's events into the UI state. Stored events apply once, in seq
//! order (a replay after a reconnect never duplicates lines); each costs O(1) apart
//! from the text it carries. The snapshot resets the pending dialogs.

use roocode_client::agents::{self as shown, is_child_event};
use roocode_protocol::event::{DecidedBy, Event, EventPayload, StopReason};
use roocode_protocol::session::SessionStatus;
use serde_json::Value;

use super::App;
use super::status::tokens;
use crate::dialog::Prompt;
use crate::theme;
use crate::transcript::ToolResult;

impl App {
    /// Applies a daemon event of the attached session (events of other sessions and
    /// stored events at or below [`App::last_seq`] are ignored).
    pub fn on_event(&mut self, ev: &Event) {
        if ev.session_id != self.session.id {
            return;
        }
        if !ev.payload.is_per_subscription() {
            if ev.seq <= self.last_seq {
                return;
            }
            self.last_seq = ev.seq;
            self.agents.on_event(ev, self.tick);
            self.team.on_event(ev);
        }
        // The child asking, for a request's label.
        let asker = is_child_event(ev).then(|| self.agents.names().name(&ev.agent_id));
        let t = &mut self.transcript;
        match &ev.payload {
            EventPayload::UserMessage { input_id, text, .. } => {
                t.deliver(input_id);
                t.user(text);
            }
            EventPayload::MessageQueued { input_id, text } => t.queue(input_id, text),
            EventPayload::TurnStarted { .. } => {
                self.status.running = true;
                self.session.status = SessionStatus::Running;
            }
            EventPayload::TextDelta { message_id, text } => t.text_delta(message_id, text),
            EventPayload::ThinkingDelta { message_id, text } => {
                t.thinking_delta(message_id, text);
            }
            EventPayload::AssistantMessage {
                message_id,
                content,
            } => t.assistant_message(message_id, content),
            EventPayload::ToolCall {
                call_id,
                name,
                input,
            } => t.tool_call(call_id, name, input, &self.session.cwd),
            EventPayload::ToolOutput { call_id, text } => t.tool_output(call_id, text),
            EventPayload::ToolResult {
                call_id,
                output,
                is_error,
                duration_ms,
                diff,
            } => t.tool_result(
                call_id,
                ToolResult {
                    output: output.clone(),
                    is_error: *is_error,
                    duration_ms: *duration_ms,
                    diff: diff.clone(),
                },
            ),
            EventPayload::PermissionRequest {
                request_id,
                call_id,
                tool,
                input,
                reason,
            } => {
                let prompt = Prompt::permission(request_id, &ev.session_id, tool, input, reason)
                    .asked_by(asker);
                self.request(ev.seq, call_id, prompt);
            }
            EventPayload::Question {
                request_id,
                call_id,
                questions,
            } => {
                let prompt =
                    Prompt::question(request_id, &ev.session_id, questions).asked_by(asker);
                self.request(ev.seq, call_id, prompt);
            }
            EventPayload::PermissionResolved {
                request_id,
                decision,
                decided_by,
            } => {
                let label = asker.map(|n| format!("[{n}] ")).unwrap_or_default();
                let verdict = format!("{label}permission: {decision} {}", by(decided_by));
                let flash = format!("answered elsewhere {}: {decision}", by(decided_by));
                self.resolved(request_id, flash, verdict);
            }
            EventPayload::QuestionResolved {
                request_id,
                answers,
                decided_by,
            } => {
                let label = asker.map(|n| format!("[{n}] ")).unwrap_or_default();
                let (flash, verdict) = match answers {
                    Value::Null => {
                        let v = format!("{label}question withdrawn {}", by(decided_by));
                        (v.clone(), v)
                    }
                    a => (
                        format!("answered elsewhere {}", by(decided_by)),
                        format!("{label}answered {}: {}", by(decided_by), answers_text(a)),
                    ),
                };
                self.resolved(request_id, flash, verdict);
            }
            EventPayload::Usage { usage, .. } => self.status.usage(usage, ev.seq),
            EventPayload::Compaction {
                before_tokens,
                after_tokens,
                ..
            } => t.notice(
                format!(
                    "context compacted: {} → {} tokens",
                    tokens(*before_tokens),
                    tokens(*after_tokens)
                ),
                theme::DIM,
            ),
            // A retry's `retrying` event comes with its `recovery` event, shown here.
            EventPayload::Retrying { .. } => {}
            EventPayload::Recovery {
                strategy, message, ..
            } => t.notice(
                message.clone(),
                if strategy == "abort" {
                    theme::ERROR
                } else {
                    theme::DIM
                },
            ),
            EventPayload::StreamReset { message_id } => t.stream_reset(message_id),
            EventPayload::ModeChanged { mode } => {
                self.session.mode = *mode;
                t.notice(format!("mode: {mode}"), theme::DIM);
            }
            EventPayload::ModelChanged {
                model,
                context_window,
            } => {
                self.session.model = model.clone();
                self.session.context_window = *context_window;
                t.notice(format!("model: {model}"), theme::DIM);
            }
            EventPayload::ContextCleared => {
                self.status.context_tokens = None;
                t.notice("context cleared", theme::DIM);
            }
            // A rewind of the conversation is a rule across the transcript: what is
            // above it from that turn on is no longer in the model's context.
            EventPayload::Rewound { conversation, .. } => {
                if let Some(r) = roocode_client::rewind::Rewound::of(&ev.payload) {
                    if *conversation {
                        self.status.context_tokens = None;
                        t.divider(r.line(), theme::WARN);
                    } else {
                        t.notice(r.line(), theme::DIM);
                    }
                }
            }
            EventPayload::ReplayDivergence { .. } | EventPayload::ReplayFinished { .. } => {
                if let Some(line) = roocode_client::replay::line(&ev.payload) {
                    let style = match &ev.payload {
                        EventPayload::ReplayFinished {
                            divergences: 0,
                            stopped: None,
                            ..
                        } => theme::DIM,
                        _ => theme::WARN,
                    };
                    t.notice(line, style);
                }
            }
            EventPayload::Workflow { .. } => {
                if let Some(line) = roocode_client::workflow::line(&ev.payload) {
                    t.notice(line, theme::DIM);
                }
            }
            EventPayload::TurnCompleted {
                stop_reason, error, ..
            } => {
                self.status.running = false;
                self.session.status = match stop_reason {
                    StopReason::Interrupted => SessionStatus::Interrupted,
                    _ => SessionStatus::Idle,
                };
                t.end_turn();
                if let Some(e) = error {
                    t.notice(format!("error: {}", e.message), theme::ERROR);
                }
                if *stop_reason != StopReason::EndTurn {
                    let style = match stop_reason {
                        StopReason::Error => theme::ERROR,
                        _ => theme::WARN,
                    };
                    t.notice(format!("({})", stop_reason.as_str()), style);
                }
            }
            EventPayload::Error { error } => {
                t.notice(format!("error: {}", error.message), theme::ERROR);
            }
            EventPayload::Snapshot { session, pending } => {
                self.apply_session(session);
                // The session's own requests and its sub-agents' (which belong to it
                // here: they came on its stream).
                let prompts = pending
                    .iter()
                    .filter(|p| p.session_id == session.id || p.agent_id.is_some())
                    .map(|p| {
                        let mut prompt = Prompt::from_pending(p);
                        prompt.session_id = session.id.clone();
                        prompt
                    })
                    .collect();
                self.prompts.reset_session(&session.id, prompts);
            }
            EventPayload::AgentSpawned {
                name,
                agent_type,
                description,
                background,
                ..
            } => t.notice(
                shown::spawned_line(name, agent_type, description, *background),
                theme::DIM,
            ),
            EventPayload::AgentBackgrounded => t.notice(
                shown::backgrounded_line(&self.agents.names().name(&ev.agent_id)),
                theme::DIM,
            ),
            EventPayload::AgentCompleted { state, summary, .. } => {
                let style = match state {
                    roocode_protocol::agents::AgentState::Completed => theme::DIM,
                    _ => theme::WARN,
                };
                let name = self.agents.names().name(&ev.agent_id);
                t.notice(shown::completed_line(&name, *state, summary), style);
            }
            EventPayload::Injected { kind, text, .. } => {
                t.notice(shown::injected_line(kind, text), theme::DIM);
            }
            // Progress: the agents panel only, never a flood of lines.
            EventPayload::AgentProgress { .. } => {}
            // Team events: one line each (the panel's team section has the details).
            EventPayload::TeamMember { .. }
            | EventPayload::TaskUpdated { .. }
            | EventPayload::MailboxMessage { .. } => {
                if let Some(line) = roocode_client::teams::event_line(ev) {
                    t.notice(line, theme::DIM);
                }
            }
            // A newer daemon's event type: nothing this build can show.
            EventPayload::Resync { .. } | EventPayload::Unknown => {}
        }
    }

    /// A permission request or question: its tool call waits, and the dialog opens
    /// unless the request was answered before the snapshot.
    fn request(&mut self, seq: u64, call_id: &str, prompt: Prompt) {
        let pending = self.prompts.contains(&prompt.request_id) || seq > self.historic_until;
        if let Some(tool) = self.transcript.tool_mut(call_id) {
            tool.waiting = pending;
        }
        self.calls_of_requests
            .insert(prompt.request_id.clone(), call_id.to_owned());
        if pending {
            self.prompts.add(prompt);
        }
    }

    /// A request was answered: its dialog closes (with a notice when another client
    /// answered it), its tool call records the verdict.
    fn resolved(&mut self, request_id: &str, flash: String, verdict: String) {
        let open = self.prompts.remove(request_id).is_some();
        let here = self.prompts.answered_here(request_id);
        if open && !here {
            self.flash(flash, theme::WARN);
        }
        let tool = self
            .calls_of_requests
            .remove(request_id)
            .and_then(|call| self.transcript.tool_mut(&call));
        match tool {
            Some(t) => {
                t.waiting = false;
                t.verdict = Some(verdict);
            }
            None => self.transcript.notice(verdict, theme::DIM),
        }
    }
}

/// `by cli (pid 4242)`.
fn by(d: &DecidedBy) -> String {
    match d.pid {
        Some(pid) => format!("by {} (pid {pid})", d.kind),
        None => format!("by {}", d.kind),
    }
}

/// The answers of a `question_resolved`, on one line.
fn answers_text(answers: &Value) -> String {
    match answers {
        Value::Array(items) => items
            .iter()
            .map(|a| match a {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("; "),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
