//! Tests of turn following: which events are ours, and each output mode.

use super::*;
use crate::output::Captured;
use crate::test_support::*;
use roocode_protocol::event::DecidedBy;
use roocode_protocol::session::SessionStatus;
use serde_json::{Value, json};

fn sent(input: &str, turn: Option<&str>) -> SendResponse {
    SendResponse {
        input_id: input.into(),
        turn_id: turn.map(str::to_owned),
        queued: turn.is_none(),
    }
}

/// Feeds events until the follower says our turn is over; returns the exit status
/// and how many events were consumed.
fn run(output: SendOutput, resp: &SendResponse, events: &[Event]) -> (Captured, i32, usize) {
    let session = session("/w/p", SessionStatus::Idle, 0);
    let mut f = TurnFollower::new(output, &session, resp);
    let mut sink = Captured::default();
    let mut used = 0;
    for e in events {
        used += 1;
        if f.on_event(e, &mut sink) {
            let code = f.finish(&mut sink);
            return (sink, code, used);
        }
    }
    let code = f.fail(
        &Failure::daemon_gone(std::path::Path::new("/l/d.log")),
        &mut sink,
    );
    (sink, code, used)
}

fn our_turn() -> Vec<Event> {
    vec![
        snapshot(0, "/w/p", SessionStatus::Idle, 0),
        ev(1, user("T1", "I1", "fix it")),
        ev(2, started("T1")),
        ev(3, delta("M1", "Let me ")),
        ev(4, delta("M1", "lo")),
        ev(
            5,
            EventPayload::StreamReset {
                message_id: "M1".into(),
            },
        ),
        ev(6, delta("M1", "Let me look.")),
        ev(
            7,
            message(
                "M1",
                "Let me look.",
                &[("C1", "Read", read_input("/w/p/src/a.rs"))],
            ),
        ),
        ev(8, tool_call("C1", "Read", read_input("/w/p/src/a.rs"))),
        ev(9, tool_result("C1", "fn main() {}", false)),
        ev(10, usage(100, 20, Some(0.01))),
        ev(11, delta("M2", "Done.")),
        ev(12, message("M2", "Done.", &[])),
        ev(13, usage(150, 10, Some(0.02))),
        ev(14, completed("T1", StopReason::EndTurn)),
        ev(15, user("T2", "I9", "someone else")),
    ]
}

#[test]
fn text_mode_streams_the_answer_and_lists_tools_on_stderr() {
    let (c, code, used) = run(SendOutput::Text, &sent("I1", Some("T1")), &our_turn());
    assert_eq!(code, 0);
    assert_eq!(used, 15, "stops at our turn_completed");
    assert_eq!(c.out, "Let me lo\nLet me look.\nDone.\n");
    assert_eq!(c.err, format!("{RESET_NOTE}\n● Read src/a.rs\n"));
}

#[test]
fn json_mode_prints_one_summary() {
    let (c, code, _) = run(SendOutput::Json, &sent("I1", Some("T1")), &our_turn());
    assert_eq!(code, 0);
    assert_eq!(c.err, format!("{RESET_NOTE}\n"), "no tool lines");
    assert_eq!(c.out.lines().count(), 1);
    let v: Value = serde_json::from_str(&c.out).unwrap();
    assert_eq!(v["session_id"], SID);
    assert_eq!(v["turn_id"], "T1");
    assert_eq!(v["stop_reason"], "end_turn");
    assert_eq!(v["text"], "Done.");
    assert_eq!(v["usage"]["input_tokens"], 250);
    assert_eq!(v["usage"]["output_tokens"], 30);
    assert!((v["usage"]["cost_usd"].as_f64().unwrap() - 0.03).abs() < 1e-9);
    assert!(v.get("error").is_none());
}

#[test]
fn a_queued_message_waits_for_its_user_message() {
    let events = vec![
        snapshot(0, "/w/p", SessionStatus::Running, 3),
        ev(4, delta("M0", "other turn's text")),
        ev(5, tool_call("C0", "Bash", json!({"command": "ls"}))),
        ev(6, usage(1000, 1000, None)),
        ev(7, completed("T0", StopReason::EndTurn)),
        ev(8, user("T1", "I1", "mine")),
        ev(9, started("T1")),
        ev(10, delta("M1", "ok")),
        ev(11, message("M1", "ok", &[])),
        ev(12, usage(1, 2, Some(0.5))),
        ev(13, completed("T1", StopReason::MaxTurns)),
    ];
    let (c, code, _) = run(SendOutput::Text, &sent("I1", None), &events);
    assert_eq!(code, 3);
    assert_eq!(c.out, "ok\n");
    assert_eq!(c.err, "stopped: max_turns\n");

    let (c, _, _) = run(SendOutput::Json, &sent("I1", None), &events);
    let v: Value = serde_json::from_str(&c.out).unwrap();
    assert_eq!(v["usage"]["input_tokens"], 1, "only our turn's usage");
    assert_eq!(v["usage"]["cost_usd"], 0.5);

    // stream-json: every event after subscribing but the snapshot, as received.
    let (c, code, _) = run(SendOutput::StreamJson, &sent("I1", None), &events);
    assert_eq!(code, 3);
    let lines: Vec<&str> = c.out.lines().collect();
    assert_eq!(lines.len(), events.len() - 1);
    for (line, e) in lines.iter().zip(&events[1..]) {
        assert_eq!(*line, serde_json::to_string(e).unwrap());
    }
    assert!(lines.last().unwrap().contains(r#""type":"turn_completed""#));
    assert_eq!(c.err, "stopped: max_turns\n");
}

#[test]
fn a_failed_turn_reports_its_error_once() {
    let err = ErrorInfo {
        kind: "auth".into(),
        message: "invalid x-api-key: check ANTHROPIC_API_KEY".into(),
    };
    let events = vec![
        ev(1, user("T1", "I1", "hi")),
        ev(2, started("T1")),
        ev(3, EventPayload::Error { error: err.clone() }),
        ev(
            4,
            EventPayload::TurnCompleted {
                turn_id: "T1".into(),
                stop_reason: StopReason::Error,
                error: Some(err.clone()),
            },
        ),
    ];
    let (c, code, _) = run(SendOutput::Text, &sent("I1", Some("T1")), &events);
    assert_eq!(code, 1);
    assert_eq!(c.out, "", "no text, no newline");
    assert_eq!(c.err, "error: invalid x-api-key: check ANTHROPIC_API_KEY\n");

    let (c, code, _) = run(SendOutput::Json, &sent("I1", Some("T1")), &events);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&c.out).unwrap();
    assert_eq!(v["stop_reason"], "error");
    assert_eq!(v["error"], json!({"kind": "auth", "message": err.message}));
}

#[test]
fn a_daemon_that_goes_away_is_an_error() {
    let events = &our_turn()[..8];
    let (c, code, _) = run(SendOutput::Text, &sent("I1", Some("T1")), events);
    assert_eq!(code, 1);
    assert_eq!(c.out, "Let me lo\nLet me look.\n");
    assert!(
        c.err.ends_with(
            "error: the daemon went away before the turn completed; its log is /l/d.log\n"
        )
    );
    let (c, code, _) = run(SendOutput::Json, &sent("I1", Some("T1")), events);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&c.out).unwrap();
    assert_eq!(v["stop_reason"], "error");
    assert_eq!(v["turn_id"], "T1");
    assert_eq!(v["error"]["kind"], "disconnected");
}

#[test]
fn cancelled_turns_exit_130_and_permission_waits_show() {
    let events = vec![
        ev(1, user("T1", "I1", "hi")),
        ev(2, started("T1")),
        ev(
            3,
            EventPayload::PermissionRequest {
                request_id: "R1".into(),
                call_id: "C1".into(),
                tool: "Edit".into(),
                input: read_input("/w/p/src/a.rs"),
                reason: "edits need approval".into(),
            },
        ),
        ev(4, completed("T1", StopReason::Cancelled)),
    ];
    let (c, code, _) = run(SendOutput::Json, &sent("I1", Some("T1")), &events);
    assert_eq!(code, 130);
    assert_eq!(c.err, "permission: R1 Edit src/a.rs\nstopped: cancelled\n");
}

fn waits() -> Vec<Event> {
    let mut snap = snapshot(0, "/w/p", SessionStatus::Running, 2);
    if let EventPayload::Snapshot { pending: p, .. } = &mut snap.payload {
        p.push(pending("R0", "permission"));
    }
    let decided = |kind: &str, pid| DecidedBy {
        kind: kind.into(),
        pid,
    };
    vec![
        snap.clone(),
        ev(3, user("T1", "I1", "hi")),
        ev(4, started("T1")),
        ev(
            5,
            EventPayload::PermissionRequest {
                request_id: "R1".into(),
                call_id: "C1".into(),
                tool: "Bash".into(),
                input: json!({"command": "rm -rf build\nmake"}),
                reason: "commands need approval".into(),
            },
        ),
        ev(
            6,
            EventPayload::PermissionResolved {
                request_id: "R1".into(),
                decision: "allow_always".into(),
                decided_by: decided("cli", Some(77)),
            },
        ),
        // A resync: the new snapshot lists R0 again.
        snap,
        ev(
            7,
            EventPayload::Question {
                request_id: "Q1".into(),
                call_id: "C2".into(),
                questions: questions_input()["questions"].clone(),
            },
        ),
        ev(
            8,
            EventPayload::QuestionResolved {
                request_id: "Q1".into(),
                answers: json!(["SQLite", "auth"]),
                decided_by: decided("tui", None),
            },
        ),
        ev(9, completed("T1", StopReason::EndTurn)),
    ]
}

#[test]
fn waits_on_a_human_and_their_outcomes_in_text_mode() {
    let (c, code, _) = run(SendOutput::Text, &sent("I1", Some("T1")), &waits());
    assert_eq!(code, 0);
    assert_eq!(
        c.err,
        "\
permission: R0 Bash cargo test
permission: R1 Bash rm -rf build…
permission R1: allow_always by cli
question: Q1 Which database?
question Q1: answered by tui
"
    );
}

#[test]
fn other_modes_show_the_waits_only() {
    for output in [SendOutput::Json, SendOutput::StreamJson] {
        let (c, _, _) = run(output, &sent("I1", Some("T1")), &waits());
        assert_eq!(
            c.err,
            "permission: R0 Bash cargo test\npermission: R1 Bash rm -rf build…\nquestion: Q1 Which database?\n",
            "{output:?}"
        );
    }
}

/// An event of sub-agent `A1` on the parent's stream.
fn child_ev(seq: u64, payload: EventPayload) -> Event {
    Event {
        agent_id: "A1".into(),
        ..ev(seq, payload)
    }
}

fn child_turn() -> Vec<Event> {
    let mut child_pending = pending("R0", "permission");
    child_pending.session_id = "A0".into();
    child_pending.agent_id = Some("A0".into());
    child_pending.agent_name = Some("old-scout".into());
    let mut snap = snapshot(0, "/w/p", SessionStatus::Idle, 0);
    if let EventPayload::Snapshot { pending, .. } = &mut snap.payload {
        pending.push(child_pending);
    }
    vec![
        snap,
        ev(1, user("T1", "I1", "look")),
        ev(2, started("T1")),
        child_ev(
            3,
            EventPayload::AgentSpawned {
                name: "Explore".into(),
                agent_type: "Explore".into(),
                description: "find tests".into(),
                background: false,
            },
        ),
        child_ev(
            4,
            EventPayload::PermissionRequest {
                request_id: "R1".into(),
                call_id: "CX".into(),
                tool: "Bash".into(),
                input: json!({"command": "rm -rf x"}),
                reason: "commands need approval".into(),
            },
        ),
        child_ev(
            5,
            EventPayload::PermissionResolved {
                request_id: "R1".into(),
                decision: "deny".into(),
                decided_by: DecidedBy {
                    kind: "cli".into(),
                    pid: None,
                },
            },
        ),
        child_ev(
            6,
            EventPayload::AgentProgress {
                tool_calls: 3,
                tokens: 100,
                last_activity: "Grep".into(),
            },
        ),
        child_ev(
            7,
            EventPayload::AgentCompleted {
                state: roocode_protocol::agents::AgentState::Completed,
                summary: "Found 3 test files.".into(),
                usage: Default::default(),
            },
        ),
        ev(8, delta("M1", "There are 3.")),
        ev(9, completed("T1", StopReason::EndTurn)),
    ]
}

#[test]
fn a_childs_waits_are_labelled_and_its_events_get_one_line_each() {
    let (c, code, _) = run(SendOutput::Text, &sent("I1", Some("T1")), &child_turn());
    assert_eq!(code, 0);
    assert_eq!(
        c.out, "There are 3.\n",
        "a child's events print no answer text"
    );
    assert_eq!(
        c.err,
        "\
[old-scout] permission: R0 Bash cargo test
⟶ agent Explore \"find tests\" started
[Explore] permission: R1 Bash rm -rf x
[Explore] permission R1: deny by cli
⟵ agent Explore completed: Found 3 test files.
"
    );
    // Other modes: the (labelled) waits only.
    let (c, _, _) = run(SendOutput::Json, &sent("I1", Some("T1")), &child_turn());
    assert_eq!(
        c.err,
        "[old-scout] permission: R0 Bash cargo test\n[Explore] permission: R1 Bash rm -rf x\n"
    );
}

#[test]
fn a_next_turn_follower_adopts_the_turn_a_notification_woke() {
    let session = session("/w/p", SessionStatus::Idle, 0);
    let mut f = TurnFollower::next_turn(SendOutput::Text, &session);
    let mut sink = Captured::default();
    let events = [
        child_ev(
            10,
            EventPayload::AgentCompleted {
                state: roocode_protocol::agents::AgentState::Completed,
                summary: "BG done".into(),
                usage: Default::default(),
            },
        ),
        // As the daemon does it: the woken turn's injection first.
        ev(
            11,
            EventPayload::Injected {
                turn_id: "T2".into(),
                kind: "task_notification".into(),
                text: "<task-notification>\n<task-id>A1</task-id>\n<name>bg</name>\n<status>completed</status>\n</task-notification>".into(),
            },
        ),
        ev(12, started("T2")),
        ev(13, delta("M2", "The agent finished.")),
        ev(14, completed("T2", StopReason::EndTurn)),
    ];
    assert!(!f.has_turn());
    let mut done = vec![];
    for e in &events {
        done.push(f.on_event(e, &mut sink));
    }
    assert_eq!(done, [false, false, false, false, true]);
    assert_eq!(f.finish(&mut sink), 0);
    assert_eq!(sink.out, "The agent finished.\n");
    assert_eq!(
        sink.err,
        "⟵ agent sub-agent A1 completed: BG done\n⟵ task notification: agent bg completed\n"
    );
}
