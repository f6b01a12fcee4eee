//! The human in the loop of an interactive `send`: which prompt is open, which wait
//! their turn, and what closes them. Every `permission_request` and `question` of the
//! session (and every request a snapshot lists) gets a [`Prompt`], one at a time, in
//! order of arrival. A prompt closes when the user answers it (the caller sends the
//! [`Reply`]), when another client answers first (its `*_resolved` event arrives:
//! `answered elsewhere by <kind> (pid N)`), or when the turn ends. A sub-agent's
//! requests (on the parent's stream, with the child's `agent_id`) are prompted for the
//! same way, introduced by `[<name>] asks:`; they do not close when the parent's turn
//! ends, since the child may run on in the background.
//!
//! Independent of the terminal: lines come in as [`InputLine`]s and output goes to a
//! [`Sink`]; a line read before the open prompt appeared answers nothing.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::time::Instant;

use roocode_client::agents::{AgentNames, is_child_event, unnamed};
use roocode_protocol::event::{DecidedBy, Event, EventPayload};

use crate::output::Sink;
use crate::prompt::{Prompt, Reply, Step};
use crate::render::answered_elsewhere_line;
use crate::terminal::InputLine;

/// What the caller must do after an event or a line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// A prompt has just appeared: prepare the terminal for an answer.
    pub opened: bool,
    /// Send this answer to the daemon.
    pub reply: Option<Reply>,
}

/// The open prompt, since when it waits.
#[derive(Debug)]
struct Open {
    prompt: Prompt,
    since: Instant,
}

/// Prompts of one `send` on a terminal.
#[derive(Debug)]
pub struct HumanLoop {
    session_id: String,
    cwd: PathBuf,
    open: Option<Open>,
    queue: VecDeque<Prompt>,
    /// Requests already prompted for or resolved: never prompted (again).
    known: HashSet<String>,
    /// False once input ended or the turn is being cancelled.
    enabled: bool,
    /// The session's sub-agents, and the name of the one asking, by request id.
    names: AgentNames,
    askers: HashMap<String, String>,
}

impl HumanLoop {
    pub fn new(session_id: &str, cwd: PathBuf) -> Self {
        HumanLoop {
            session_id: session_id.to_owned(),
            cwd,
            open: None,
            queue: VecDeque::new(),
            known: HashSet::new(),
            enabled: true,
            names: AgentNames::default(),
            askers: HashMap::new(),
        }
    }

    /// The request whose prompt is open.
    pub fn open_request(&self) -> Option<&str> {
        self.open.as_ref().map(|o| o.prompt.request_id())
    }

    /// Takes one event of the session into account. `foreground`: whether the
    /// terminal may be read now (a prompt opens only then).
    pub fn on_event(
        &mut self,
        ev: &Event,
        now: Instant,
        foreground: bool,
        sink: &mut dyn Sink,
    ) -> Effects {
        let cwd = self.cwd.clone();
        self.names.observe(ev);
        if is_child_event(ev)
            && let EventPayload::PermissionRequest { request_id, .. }
            | EventPayload::Question { request_id, .. } = &ev.payload
        {
            self.askers
                .insert(request_id.clone(), self.names.name(&ev.agent_id));
        }
        match &ev.payload {
            EventPayload::Snapshot { pending, .. } => {
                let session_id = self.session_id.clone();
                for p in pending
                    .iter()
                    .filter(|p| p.session_id == session_id || p.agent_id.is_some())
                {
                    if let Some(id) = &p.agent_id {
                        let name = p.agent_name.clone().unwrap_or_else(|| unnamed(id));
                        self.askers.insert(p.request_id.clone(), name);
                    }
                    self.add(&p.request_id, || Prompt::pending(p, Some(&cwd)));
                }
            }
            EventPayload::PermissionRequest {
                request_id,
                tool,
                input,
                reason,
                ..
            } => self.add(request_id, || {
                Some(Prompt::permission(
                    request_id,
                    tool,
                    input,
                    reason,
                    Some(&cwd),
                ))
            }),
            EventPayload::Question {
                request_id,
                questions,
                ..
            } => self.add(request_id, || Prompt::question(request_id, questions)),
            EventPayload::PermissionResolved {
                request_id,
                decision,
                decided_by,
            } => self.resolved(request_id, decision == "cancelled", decided_by, sink),
            EventPayload::QuestionResolved {
                request_id,
                answers,
                decided_by,
            } => self.resolved(request_id, answers.is_null(), decided_by, sink),
            // The turn is over: what it waited for no longer matters (a sub-agent's
            // requests still do).
            EventPayload::TurnCompleted { .. } => {
                let askers = &self.askers;
                if self
                    .open
                    .take_if(|o| !askers.contains_key(o.prompt.request_id()))
                    .is_some()
                {
                    sink.err_line("the turn ended; the prompt is closed");
                }
                self.queue.retain(|p| askers.contains_key(p.request_id()));
            }
            _ => {}
        }
        let opened = foreground && self.open_next(now, sink);
        self.show_cursor(sink);
        Effects {
            opened,
            reply: None,
        }
    }

    /// Takes one line typed by the user (`now`: when a next prompt would open).
    pub fn on_input(
        &mut self,
        input: InputLine,
        now: Instant,
        foreground: bool,
        sink: &mut dyn Sink,
    ) -> Effects {
        let Some(line) = input.line else {
            sink.input_received();
            if let Some(open) = self.open.take() {
                sink.err_line(&format!(
                    "no answer (end of input); {} stays pending: answer it with `roocode-cli {}`",
                    open.prompt.request_id(),
                    match open.prompt {
                        Prompt::Question { .. } => "answer",
                        Prompt::Permission { .. } => "approve|deny",
                    }
                ));
            }
            self.stop();
            return Effects::default();
        };
        let Some(open) = self.open.as_mut().filter(|o| input.at >= o.since) else {
            // Typed while no prompt was showing: it answers nothing.
            return Effects::default();
        };
        sink.input_received();
        match open.prompt.on_input(&line) {
            Step::Ask(lines) => {
                for l in &lines {
                    sink.err_line(l);
                }
                self.show_cursor(sink);
                Effects::default()
            }
            Step::Done(reply) => {
                self.open = None;
                let opened = foreground && self.open_next(now, sink);
                self.show_cursor(sink);
                Effects {
                    opened,
                    reply: Some(reply),
                }
            }
        }
    }

    /// Sending an answer failed (another client was faster, or the connection broke).
    pub fn reply_failed(&mut self, reply: &Reply, message: &str, sink: &mut dyn Sink) {
        sink.err_line(&format!(
            "error: cannot answer {}: {message}",
            reply.request_id()
        ));
        self.show_cursor(sink);
    }

    /// No more prompts (Ctrl+C is cancelling the turn, or input ended).
    pub fn stop(&mut self) {
        self.enabled = false;
        self.open = None;
        self.queue.clear();
    }

    fn add(&mut self, request_id: &str, prompt: impl FnOnce() -> Option<Prompt>) {
        if !self.enabled || !self.known.insert(request_id.to_owned()) {
            return;
        }
        if let Some(p) = prompt() {
            self.queue.push_back(p);
        }
    }

    /// `withdrawn`: nobody answered, the daemon dropped the request (its turn was
    /// cancelled).
    fn resolved(&mut self, request_id: &str, withdrawn: bool, by: &DecidedBy, sink: &mut dyn Sink) {
        self.known.insert(request_id.to_owned());
        if self.open_request() == Some(request_id) {
            self.open = None;
            if withdrawn {
                sink.err_line("the request was withdrawn (its turn was cancelled)");
            } else {
                sink.err_line(&answered_elsewhere_line(by));
            }
        }
        self.queue.retain(|p| p.request_id() != request_id);
    }

    /// Opens the next waiting prompt when none is open; true when one opened.
    fn open_next(&mut self, now: Instant, sink: &mut dyn Sink) -> bool {
        if self.open.is_some() || !self.enabled {
            return false;
        }
        let Some(prompt) = self.queue.pop_front() else {
            return false;
        };
        if let Some(name) = self.askers.get(prompt.request_id()) {
            sink.err_line(&format!("[{name}] asks:"));
        }
        for line in prompt.opening() {
            sink.err_line(&line);
        }
        self.open = Some(Open { prompt, since: now });
        true
    }

    /// Shows the open prompt's cursor again when other output ended its line.
    fn show_cursor(&self, sink: &mut dyn Sink) {
        if let Some(open) = &self.open
            && !sink.prompt_shown()
        {
            sink.prompt(open.prompt.cursor());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Captured;
    use crate::test_support::*;
    use roocode_protocol::event::StopReason;
    use roocode_protocol::session::{PermissionDecision, SessionStatus};
    use serde_json::json;
    use std::time::Duration;

    fn request(seq: u64, id: &str) -> Event {
        ev(
            seq,
            EventPayload::PermissionRequest {
                request_id: id.into(),
                call_id: "C".into(),
                tool: "Bash".into(),
                input: json!({"command": "make"}),
                reason: "commands need approval".into(),
            },
        )
    }

    fn resolved(seq: u64, id: &str) -> Event {
        ev(
            seq,
            EventPayload::PermissionResolved {
                request_id: id.into(),
                decision: "allow".into(),
                decided_by: DecidedBy {
                    kind: "tui".into(),
                    pid: Some(4242),
                },
            },
        )
    }

    fn typed(at: Instant, line: &str) -> InputLine {
        InputLine {
            at,
            line: Some(line.into()),
        }
    }

    fn human() -> HumanLoop {
        HumanLoop::new(SID, "/w".into())
    }

    #[test]
    fn a_request_opens_a_prompt_and_an_answer_closes_it() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        assert!(h.on_event(&request(1, "R1"), t0, true, &mut sink).opened);
        assert_eq!(
            sink.err,
            "  Bash: make\n  reason: commands need approval\n  [y] allow once  [a] allow always  [n] deny (with optional feedback)\n> "
        );
        let fx = h.on_input(typed(t0, "a"), t0, true, &mut sink);
        assert_eq!(
            fx.reply,
            Some(Reply::Permission {
                request_id: "R1".into(),
                decision: PermissionDecision::AllowAlways,
                feedback: None
            })
        );
        assert!(h.open_request().is_none());
        // Our own answer comes back as an event: nothing more is printed.
        let before = sink.err.clone();
        h.on_event(&resolved(2, "R1"), t0, true, &mut sink);
        assert_eq!(sink.err, before);
    }

    #[test]
    fn an_answer_from_elsewhere_closes_the_prompt() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        h.on_event(&request(1, "R1"), t0, true, &mut sink);
        h.on_event(&resolved(2, "R1"), t0, true, &mut sink);
        assert!(
            sink.err
                .ends_with("> \nanswered elsewhere by tui (pid 4242)\n")
        );
        assert!(h.open_request().is_none());
        // A line typed afterwards answers nothing.
        assert_eq!(
            h.on_input(typed(t0, "y"), t0, true, &mut sink),
            Effects::default()
        );
    }

    #[test]
    fn a_withdrawn_request_closes_the_prompt() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        h.on_event(&request(1, "R1"), t0, true, &mut sink);
        let mut cancelled = resolved(2, "R1");
        if let EventPayload::PermissionResolved { decision, .. } = &mut cancelled.payload {
            *decision = "cancelled".into();
        }
        h.on_event(&cancelled, t0, true, &mut sink);
        assert!(
            sink.err
                .ends_with("> \nthe request was withdrawn (its turn was cancelled)\n")
        );
        assert!(h.open_request().is_none());
    }

    #[test]
    fn prompts_wait_their_turn() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        h.on_event(&request(1, "R1"), t0, true, &mut sink);
        assert!(!h.on_event(&request(2, "R2"), t0, true, &mut sink).opened);
        assert!(!h.on_event(&request(3, "R3"), t0, true, &mut sink).opened);
        // R3 is answered elsewhere while it waits: it never opens.
        h.on_event(&resolved(4, "R3"), t0, true, &mut sink);
        let fx = h.on_input(typed(t0, "y"), t0, true, &mut sink);
        assert!(fx.opened);
        assert_eq!(fx.reply.unwrap().request_id(), "R1");
        assert_eq!(h.open_request(), Some("R2"));
        h.on_input(typed(t0, "n"), t0, true, &mut sink);
        let fx = h.on_input(typed(t0, "too slow"), t0, true, &mut sink);
        assert!(!fx.opened);
        assert_eq!(
            fx.reply,
            Some(Reply::Permission {
                request_id: "R2".into(),
                decision: PermissionDecision::Deny,
                feedback: Some("too slow".into())
            })
        );
        assert!(h.open_request().is_none());
    }

    #[test]
    fn lines_typed_before_the_prompt_are_ignored() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        h.on_event(
            &request(1, "R1"),
            t0 + Duration::from_secs(1),
            true,
            &mut sink,
        );
        assert_eq!(
            h.on_input(typed(t0, "y"), t0, true, &mut sink),
            Effects::default()
        );
        assert_eq!(h.open_request(), Some("R1"));
    }

    #[test]
    fn snapshots_do_not_prompt_twice() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        let mut snap = snapshot(0, "/w", SessionStatus::Running, 3);
        if let EventPayload::Snapshot { pending: p, .. } = &mut snap.payload {
            p.push(pending("R1", "permission"));
            let mut other = pending("R9", "permission");
            other.session_id = "another".into();
            p.push(other);
        }
        assert!(h.on_event(&snap, t0, true, &mut sink).opened);
        assert_eq!(h.open_request(), Some("R1"));
        h.on_input(typed(t0, "y"), t0, true, &mut sink);
        assert!(
            !h.on_event(&snap, t0, true, &mut sink).opened,
            "after a resync"
        );
        assert!(!h.on_event(&request(4, "R1"), t0, true, &mut sink).opened);
    }

    #[test]
    fn a_childs_request_is_introduced_by_its_name_and_outlives_the_parents_turn() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        let spawned = child_ev(
            1,
            "A1",
            EventPayload::AgentSpawned {
                name: "Explore".into(),
                agent_type: "Explore".into(),
                description: "d".into(),
                background: true,
            },
        );
        h.on_event(&spawned, t0, true, &mut sink);
        let mut child = request(2, "R1");
        child.agent_id = "A1".into();
        assert!(h.on_event(&child, t0, true, &mut sink).opened);
        assert!(
            sink.err.starts_with(
                "[Explore] asks:
  Bash: make
"
            ),
            "{}",
            sink.err
        );
        // The parent's turn ends: the child's prompt stays open.
        h.on_event(
            &ev(3, completed("T", StopReason::EndTurn)),
            t0,
            true,
            &mut sink,
        );
        assert_eq!(h.open_request(), Some("R1"));
        assert!(!sink.err.contains("the turn ended"), "{}", sink.err);
        // And is answered like the parent's own.
        let fx = h.on_input(typed(t0, "y"), t0, true, &mut sink);
        assert_eq!(fx.reply.unwrap().request_id(), "R1");
    }

    #[test]
    fn a_snapshot_lists_childrens_requests_with_their_names() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        let mut snap = snapshot(0, "/w", SessionStatus::Running, 3);
        if let EventPayload::Snapshot { pending: p, .. } = &mut snap.payload {
            let mut child = pending("R7", "permission");
            child.session_id = "A1".into();
            child.agent_id = Some("A1".into());
            child.agent_name = Some("scout".into());
            p.push(child);
        }
        assert!(h.on_event(&snap, t0, true, &mut sink).opened);
        assert_eq!(h.open_request(), Some("R7"));
        assert!(
            sink.err.starts_with(
                "[scout] asks:
"
            ),
            "{}",
            sink.err
        );
    }

    #[test]
    fn questions_are_answered_line_by_line() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        let q = ev(
            1,
            EventPayload::Question {
                request_id: "Q1".into(),
                call_id: "C".into(),
                questions: questions_input()["questions"].clone(),
            },
        );
        assert!(h.on_event(&q, t0, true, &mut sink).opened);
        assert!(
            h.on_input(typed(t0, "postgres"), t0, true, &mut sink)
                .reply
                .is_none()
        );
        assert_eq!(
            h.on_input(typed(t0, "2,3"), t0, true, &mut sink).reply,
            Some(Reply::Question {
                request_id: "Q1".into(),
                answers: vec!["Postgres".into(), "search, a, b".into()]
            })
        );
    }

    #[test]
    fn no_prompt_in_the_background_end_of_input_or_after_the_turn() {
        let (mut h, mut sink, t0) = (human(), Captured::default(), Instant::now());
        assert!(!h.on_event(&request(1, "R1"), t0, false, &mut sink).opened);
        assert!(sink.err.is_empty());
        assert!(h.on_event(&ev(2, started("T")), t0, true, &mut sink).opened);
        h.on_event(
            &ev(3, completed("T", StopReason::Cancelled)),
            t0,
            true,
            &mut sink,
        );
        assert!(
            sink.err
                .ends_with("> \nthe turn ended; the prompt is closed\n")
        );

        h.on_event(&request(4, "R2"), t0, true, &mut sink);
        h.on_input(InputLine { at: t0, line: None }, t0, true, &mut sink);
        assert!(sink.err.ends_with(
            "no answer (end of input); R2 stays pending: answer it with `roocode-cli approve|deny`\n"
        ));
        assert!(!h.on_event(&request(5, "R3"), t0, true, &mut sink).opened);
    }
}
