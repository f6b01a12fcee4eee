//! Following the turn of one `send`, event by event, independent of where the events
//! come from: which turn is ours, what goes to stdout and stderr in each output mode,
//! and the exit status at the end.
//!
//! Our turn is the one whose `user_message` carries our `input_id` (the send response
//! names it directly when the message was not queued), or for `--wait-agents` the next
//! turn that starts ([`TurnFollower::next_turn`]: a turn a task notification woke).
//! Events between that turn's start and its `turn_completed` belong to it.
//!
//! A sub-agent's waits on a human come on the parent's stream with the child's
//! `agent_id`: they are announced like the parent's own, labelled with the child's
//! name (`[Explore] permission: …`), and answered the same way (request ids are
//! global). Sub-agent events (`agent_spawned`, `agent_completed`, …) get one stderr
//! line each in text mode.

use std::collections::HashSet;
use std::path::PathBuf;

use roocode_client::agents::AgentNames;
use roocode_protocol::agents::AgentInfo;
use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::{ErrorInfo, Event, EventPayload, StopReason};
use roocode_protocol::session::{SendResponse, SessionInfo};

use crate::failure::Failure;
use crate::output::Sink;
use crate::render::{
    agent_event_line, error_line, message_text, pending_line, permission_line,
    permission_resolved_line, question_line, question_resolved_line, tool_line,
};
use crate::summary::SummaryBuilder;

/// What `send` prints (`--output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SendOutput {
    /// The answer's text on stdout, tool calls and problems on stderr.
    Text,
    /// One JSON object at the end.
    Json,
    /// Every event as one JSON object per line.
    StreamJson,
}

/// The stderr note for a withdrawn partial answer.
pub const RESET_NOTE: &str =
    "note: the answer was interrupted and is being retried; text above may repeat";

/// How our turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub turn_id: String,
    pub stop: StopReason,
    pub error: Option<ErrorInfo>,
}

/// What a wait on a human asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitKind {
    Permission,
    Question,
}

/// How to answer a wait from another terminal (one line, after the wait's own line).
fn answer_hint(request_id: &str, kind: WaitKind) -> String {
    match kind {
        WaitKind::Permission => format!(
            "  waiting for an answer: run `roocode-cli approve {request_id}` or `roocode-cli deny {request_id}` in another terminal (or re-run with `--mode dontAsk` to refuse whatever would ask)"
        ),
        WaitKind::Question => format!(
            "  waiting for an answer: run `roocode-cli answer {request_id} ANSWER...` in another terminal (or re-run with `--mode dontAsk` to go on without asking)"
        ),
    }
}

/// The state of one `send` while its turn runs.
#[derive(Debug)]
pub struct TurnFollower {
    output: SendOutput,
    session_id: String,
    cwd: PathBuf,
    input_id: String,
    turn_id: Option<String>,
    /// The turn the events currently belong to.
    current: Option<String>,
    summary: SummaryBuilder,
    streamed: HashSet<String>,
    last_message: Option<String>,
    out_mid_line: bool,
    wrote_text: bool,
    after_reset: bool,
    last_error: Option<String>,
    outcome: Option<Outcome>,
    /// Requests whose wait was printed (a resync's snapshot lists them again).
    announced: HashSet<String>,
    /// Nobody is asked here (not a terminal): say how to answer from elsewhere.
    answer_hints: bool,
    /// Follow the next turn that starts, whatever started it.
    adopt_next: bool,
    /// The session's sub-agents, for labels.
    names: AgentNames,
}

impl TurnFollower {
    pub fn new(output: SendOutput, session: &SessionInfo, sent: &SendResponse) -> Self {
        TurnFollower {
            output,
            session_id: session.id.clone(),
            cwd: PathBuf::from(&session.cwd),
            input_id: sent.input_id.clone(),
            turn_id: sent.turn_id.clone(),
            current: None,
            summary: SummaryBuilder::default(),
            streamed: HashSet::new(),
            last_message: None,
            out_mid_line: false,
            wrote_text: false,
            after_reset: false,
            last_error: None,
            outcome: None,
            announced: HashSet::new(),
            answer_hints: false,
            adopt_next: false,
            names: AgentNames::default(),
        }
    }

    /// Follows the next turn of `session` that starts (no message of ours: a turn a task
    /// notification woke, for `send --wait-agents`).
    pub fn next_turn(output: SendOutput, session: &SessionInfo) -> Self {
        let sent = SendResponse {
            input_id: String::new(),
            turn_id: None,
            queued: true,
        };
        let mut f = TurnFollower::new(output, session, &sent);
        f.adopt_next = true;
        f
    }

    /// The names of the session's sub-agents known before subscribing (`agent.list`).
    pub fn learn_agents(&mut self, agents: &[AgentInfo]) {
        self.names.learn(agents);
    }

    /// Carries what one follower learnt (names, announced waits) over to the next.
    pub fn carry_over(&mut self, previous: &TurnFollower) {
        self.names = previous.names.clone();
        self.announced = previous.announced.clone();
        self.answer_hints = previous.answer_hints;
    }

    /// Whether a turn has been adopted (a `--wait-agents` follower is following one).
    pub fn has_turn(&self) -> bool {
        self.turn_id.is_some()
    }

    /// Follow each wait's line with how to answer it from another terminal: for a
    /// `send` that cannot ask the user itself.
    pub fn with_answer_hints(mut self, on: bool) -> Self {
        self.answer_hints = on;
        self
    }

    /// Whether our turn has started (a cancel would stop it).
    pub fn turn_started(&self) -> bool {
        self.turn_id.is_some() && self.current == self.turn_id
    }

    /// Handles one event; true once our turn has completed.
    pub fn on_event(&mut self, ev: &Event, sink: &mut dyn Sink) -> bool {
        self.names.observe(ev);
        if self.outcome.is_none()
            && let EventPayload::Snapshot { pending, .. } = &ev.payload
        {
            // Waits that began before we subscribed: the session's own and its
            // sub-agents' (the daemon lists no other session's here).
            for p in pending {
                if p.session_id == self.session_id || p.agent_id.is_some() {
                    let kind = match p.kind.as_str() {
                        "question" => WaitKind::Question,
                        _ => WaitKind::Permission,
                    };
                    self.announce(&p.request_id, &pending_line(p), kind, sink);
                }
            }
        }
        if self.outcome.is_some() || ev.payload.is_per_subscription() {
            return self.outcome.is_some();
        }
        match &ev.payload {
            EventPayload::UserMessage {
                turn_id, input_id, ..
            } => {
                if *input_id == self.input_id || (self.adopt_next && self.turn_id.is_none()) {
                    self.turn_id = Some(turn_id.clone());
                }
                self.current = Some(turn_id.clone());
            }
            // A woken turn's injections come before its `turn_started`.
            EventPayload::TurnStarted { turn_id } | EventPayload::Injected { turn_id, .. } => {
                if self.adopt_next && self.turn_id.is_none() {
                    self.turn_id = Some(turn_id.clone());
                }
                self.current = Some(turn_id.clone());
            }
            _ => {}
        }
        let ours = self.turn_started();
        // An event this build cannot read would print without its fields.
        if self.output == SendOutput::StreamJson && !matches!(ev.payload, EventPayload::Unknown) {
            match serde_json::to_string(ev) {
                Ok(line) => sink.out(&format!("{line}\n")),
                Err(e) => sink.err_line(&format!("error: cannot encode event {}: {e}", ev.seq)),
            }
        }
        if ours {
            self.summary.observe(ev);
        }
        self.show(ev, ours, sink);
        if let EventPayload::TurnCompleted {
            turn_id,
            stop_reason,
            error,
        } = &ev.payload
        {
            if self.current.as_ref() == Some(turn_id) {
                self.current = None;
            }
            if ours && self.turn_id.as_ref() == Some(turn_id) {
                self.outcome = Some(Outcome {
                    turn_id: turn_id.clone(),
                    stop: *stop_reason,
                    error: error.clone(),
                });
            }
        }
        self.outcome.is_some()
    }

    /// What one event shows on stdout (text mode) and stderr.
    fn show(&mut self, ev: &Event, ours: bool, sink: &mut dyn Sink) {
        let text_mode = self.output == SendOutput::Text;
        let main_agent = ev.agent_id == ev.session_id;
        let label = self.names.label_of(ev);
        // Sub-agents' lines: of our turn, and between turns (a background agent ends).
        if text_mode
            && (ours || self.current.is_none())
            && let Some(line) = agent_event_line(ev, &self.names)
        {
            sink.err_line(&line);
            return;
        }
        match &ev.payload {
            // Waits on a human hold us up even in a turn we are queued behind.
            EventPayload::PermissionRequest {
                request_id,
                tool,
                input,
                ..
            } => {
                let line = permission_line(request_id, tool, input, Some(&self.cwd));
                self.announce(
                    request_id,
                    &format!("{label}{line}"),
                    WaitKind::Permission,
                    sink,
                );
            }
            EventPayload::Question {
                request_id,
                questions,
                ..
            } => self.announce(
                request_id,
                &format!("{label}{}", question_line(request_id, questions)),
                WaitKind::Question,
                sink,
            ),
            EventPayload::PermissionResolved {
                request_id,
                decision,
                decided_by,
            } if text_mode => sink.err_line(&format!(
                "{label}{}",
                permission_resolved_line(request_id, decision, decided_by)
            )),
            EventPayload::QuestionResolved {
                request_id,
                answers,
                decided_by,
            } if text_mode => sink.err_line(&format!(
                "{label}{}",
                question_resolved_line(request_id, answers, decided_by)
            )),
            _ if !ours => {}
            EventPayload::TextDelta { message_id, text } if text_mode && main_agent => {
                self.streamed.insert(message_id.clone());
                self.answer_text(message_id, text, sink);
            }
            EventPayload::AssistantMessage {
                message_id,
                content,
            } if text_mode && main_agent => self.whole_message(message_id, content, sink),
            EventPayload::ToolCall { name, input, .. } if text_mode => {
                sink.err_line(&tool_line(name, input, Some(&self.cwd)));
            }
            // What recovery does (the `retrying` event that comes with a retry's is
            // for older clients).
            EventPayload::Recovery { message, .. } => sink.err_line(message),
            EventPayload::StreamReset { message_id } => {
                self.streamed.remove(message_id);
                self.after_reset = true;
                sink.err_line(RESET_NOTE);
            }
            EventPayload::Error { error } => self.error(error, sink),
            EventPayload::TurnCompleted {
                stop_reason, error, ..
            } => {
                if let Some(e) = error {
                    self.error(e, sink);
                }
                if !matches!(stop_reason, StopReason::EndTurn | StopReason::Error) {
                    sink.err_line(&format!("stopped: {}", stop_reason.as_str()));
                }
            }
            _ => {}
        }
    }

    /// Prints the line of a wait on a human, once per request.
    fn announce(&mut self, request_id: &str, line: &str, kind: WaitKind, sink: &mut dyn Sink) {
        if self.announced.insert(request_id.to_owned()) {
            sink.err_line(line);
            if self.answer_hints {
                sink.err_line(&answer_hint(request_id, kind));
            }
        }
    }

    /// Streams answer text; a new message (or a retried one) starts on a new line.
    fn answer_text(&mut self, message_id: &str, text: &str, sink: &mut dyn Sink) {
        if text.is_empty() {
            return;
        }
        let new_message = self.last_message.as_deref() != Some(message_id);
        if self.wrote_text && self.out_mid_line && (new_message || self.after_reset) {
            sink.out("\n");
        }
        sink.out(text);
        self.out_mid_line = !text.ends_with('\n');
        self.wrote_text = true;
        self.after_reset = false;
        self.last_message = Some(message_id.to_owned());
    }

    /// A complete message: printed only if its text did not stream as deltas.
    fn whole_message(&mut self, message_id: &str, content: &[ContentBlock], sink: &mut dyn Sink) {
        if !self.streamed.remove(message_id) {
            self.answer_text(message_id, &message_text(content), sink);
        }
    }

    fn error(&mut self, error: &ErrorInfo, sink: &mut dyn Sink) {
        if self.last_error.as_deref() != Some(error.message.as_str()) {
            sink.err_line(&error_line(error));
            self.last_error = Some(error.message.clone());
        }
    }

    /// Prints what comes at the end of a completed turn; returns the exit status.
    pub fn finish(&mut self, sink: &mut dyn Sink) -> i32 {
        let Some(outcome) = self.outcome.clone() else {
            return self.fail(&Failure::new("error", "the turn did not complete"), sink);
        };
        match self.output {
            SendOutput::Text => self.end_text(sink),
            SendOutput::Json => {
                let summary = self.summary.completed(
                    &self.session_id,
                    &outcome.turn_id,
                    outcome.stop,
                    outcome.error.clone(),
                );
                print_json(&summary, sink);
            }
            SendOutput::StreamJson => {}
        }
        outcome.stop.exit_code()
    }

    /// Reports a failure to see the turn to its end; returns the exit status (1).
    pub fn fail(&mut self, failure: &Failure, sink: &mut dyn Sink) -> i32 {
        self.end_text(sink);
        sink.err_line(&format!("error: {failure}"));
        if self.output == SendOutput::Json {
            let summary =
                self.summary
                    .failed(Some(&self.session_id), self.turn_id.as_deref(), failure);
            print_json(&summary, sink);
        }
        1
    }

    /// Ends the answer with exactly one newline (nothing when there was no text).
    fn end_text(&mut self, sink: &mut dyn Sink) {
        if self.out_mid_line {
            sink.out("\n");
            self.out_mid_line = false;
        }
    }
}

/// Prints a JSON value as one line on stdout.
pub fn print_json<T: serde::Serialize>(value: &T, sink: &mut dyn Sink) {
    match serde_json::to_string(value) {
        Ok(line) => sink.out(&format!("{line}\n")),
        Err(e) => sink.err_line(&format!("error: cannot encode the summary: {e}")),
    }
}

#[cfg(test)]
mod tests;
