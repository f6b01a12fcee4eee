//! Tests of the text forms of events and of the attach transcript.

use super::*;
use crate::test_support::*;
use roocode_protocol::event::{DecidedBy, StopReason};
use roocode_protocol::session::SessionStatus;
use serde_json::json;

fn transcript(events: &[Event]) -> String {
    let mut t = Transcript::default();
    events.iter().map(|e| t.render(e)).collect()
}

fn session_events() -> Vec<Event> {
    vec![
        snapshot(0, "/home/u/proj", SessionStatus::Idle, 0),
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
        ev(
            6,
            EventPayload::Recovery {
                category: "overloaded".into(),
                strategy: "retry".into(),
                attempt: 2,
                max: 5,
                delay_ms: 1500,
                message: "retrying in 1.5 s (overloaded, attempt 2/5)".into(),
            },
        ),
        ev(7, delta("M1", "Let me look.")),
        ev(
            8,
            message(
                "M1",
                "Let me look.",
                &[("C1", "Read", read_input("/home/u/proj/src/a.rs"))],
            ),
        ),
        ev(
            9,
            tool_call("C1", "Read", read_input("/home/u/proj/src/a.rs")),
        ),
        ev(10, tool_result("C1", "fn main() {}\n\nfn b() {}\n", false)),
        ev(
            11,
            tool_call("C2", "Bash", json!({"command": "cargo test\n--quiet"})),
        ),
        ev(
            12,
            EventPayload::PermissionRequest {
                request_id: "R1".into(),
                call_id: "C2".into(),
                tool: "Bash".into(),
                input: json!({"command": "cargo test"}),
                reason: "commands need approval".into(),
            },
        ),
        ev(
            13,
            EventPayload::PermissionResolved {
                request_id: "R1".into(),
                decision: "deny".into(),
                decided_by: DecidedBy {
                    kind: "tui".into(),
                    pid: Some(7),
                },
            },
        ),
        ev(14, tool_result("C2", "denied by the user", true)),
        ev(15, tool_call("C3", "Read", read_input("/etc/hosts"))),
        ev(16, tool_result("C3", "", false)),
        ev(17, usage(10, 5, None)),
        ev(18, message("M2", "Done.", &[])),
        ev(19, completed("T1", StopReason::EndTurn)),
        ev(20, user("T2", "I2", "and\nthen")),
        ev(21, started("T2")),
        ev(22, delta("M3", "Partial")),
        ev(
            23,
            EventPayload::TurnCompleted {
                turn_id: "T2".into(),
                stop_reason: StopReason::Error,
                error: Some(ErrorInfo {
                    kind: "auth".into(),
                    message: "bad key".into(),
                }),
            },
        ),
    ]
}

#[test]
fn the_transcript_of_a_fixed_sequence() {
    let expected = "\
> fix it
Let me lo
[stream reset: the partial answer above was discarded; retrying]
retrying in 1.5 s (overloaded, attempt 2/5)
Let me look.
● Read src/a.rs
  ⎿ fn main() {} (+1 lines)
● Bash cargo test…
permission: R1 Bash cargo test (commands need approval)
  ⎿ permission R1: deny (by tui)
  ⎿ error: denied by the user
● Read /etc/hosts
  ⎿ (no output)
Done.
(end_turn)

> and
> then
Partial
error: bad key
(error)
";
    assert_eq!(transcript(&session_events()), expected);
}

#[test]
fn the_transcript_depends_only_on_the_events() {
    let events = session_events();
    // A client that saw the same events through two subscriptions (a resync) prints
    // the same bytes: snapshots and resync markers add nothing.
    let mut split = events[..10].to_vec();
    split.push(ev(10, EventPayload::Resync { last_seq: 9 }));
    split.push(snapshot(0, "/home/u/proj", SessionStatus::Running, 9));
    split.extend_from_slice(&events[10..]);
    assert_eq!(transcript(&split), transcript(&events));
}

#[test]
fn a_message_without_deltas_is_printed_whole() {
    let out = transcript(&[
        ev(1, user("T", "I", "hi")),
        ev(2, message("M", "Hello there.", &[])),
        ev(3, completed("T", StopReason::Cancelled)),
    ]);
    assert_eq!(out, "> hi\nHello there.\n(cancelled)\n");
}

#[test]
fn main_arguments_and_relative_paths() {
    let cwd = Some(Path::new("/w/p"));
    assert_eq!(
        tool_line("Read", &read_input("/w/p/a/b.rs"), cwd),
        "● Read a/b.rs"
    );
    assert_eq!(
        tool_line("Read", &read_input("/w/pq/b.rs"), cwd),
        "● Read /w/pq/b.rs"
    );
    assert_eq!(
        tool_line("Glob", &json!({"path": "/w/p", "pattern": "*.rs"}), cwd),
        "● Glob ."
    );
    assert_eq!(
        tool_line("Grep", &json!({"pattern": "fn main"}), cwd),
        "● Grep fn main"
    );
    assert_eq!(
        tool_line(
            "WebFetch",
            &json!({"url": "https://x.dev", "prompt": "p"}),
            cwd
        ),
        "● WebFetch https://x.dev"
    );
    assert_eq!(
        tool_line("Custom", &json!({"n": 1, "what": "x"}), cwd),
        "● Custom x"
    );
    assert_eq!(
        tool_line("TodoWrite", &json!({"todos": []}), cwd),
        "● TodoWrite"
    );
    let long = "x".repeat(300);
    let line = tool_line("Bash", &json!({"command": long}), None);
    assert_eq!(line.chars().count(), "● Bash ".len() - 2 + MAX_ARG);
    assert!(line.ends_with('…'));
}

#[test]
fn one_line_forms() {
    assert_eq!(result_line("a\nb\nc", false), "  ⎿ a (+2 lines)");
    assert_eq!(result_line("", true), "  ⎿ error");
    assert_eq!(
        question_line("Q1", &json!([{"question": "Which DB?", "options": []}])),
        "question: Q1 Which DB?"
    );
    assert_eq!(question_line("Q2", &json!("Go on?")), "question: Q2 Go on?");
}

#[test]
fn the_stderr_lines_of_waits_on_a_human() {
    let cwd = Some(Path::new("/w/p"));
    assert_eq!(
        permission_line("R1", "Write", &read_input("a.txt"), cwd),
        "permission: R1 Write a.txt"
    );
    assert_eq!(
        permission_line("R1", "Edit", &read_input("/w/p/src/a.rs"), cwd),
        "permission: R1 Edit src/a.rs"
    );
    assert_eq!(
        permission_line("R2", "Bash", &json!({"command": "make\ntest"}), cwd),
        "permission: R2 Bash make…"
    );
    assert_eq!(
        permission_line("R3", "Odd", &json!({}), cwd),
        "permission: R3 Odd"
    );
    assert_eq!(
        question_line("Q1", &crate::test_support::questions_input()),
        "question: Q1 Which database?"
    );
    assert_eq!(
        pending_line(&pending("R4", "permission")),
        "permission: R4 Bash cargo test"
    );
    assert_eq!(
        pending_line(&pending("Q2", "question")),
        "question: Q2 Which database?"
    );
    let by = |kind: &str, pid| DecidedBy {
        kind: kind.into(),
        pid,
    };
    assert_eq!(
        permission_resolved_line("R1", "allow_always", &by("cli", Some(9))),
        "permission R1: allow_always by cli"
    );
    assert_eq!(
        question_resolved_line("Q1", &json!(["SQLite"]), &by("tui", None)),
        "question Q1: answered by tui"
    );
    assert_eq!(
        question_resolved_line("Q1", &Value::Null, &by("daemon", Some(1))),
        "question Q1: withdrawn by daemon"
    );
    assert_eq!(
        answered_elsewhere_line(&by("tui", Some(4242))),
        "answered elsewhere by tui (pid 4242)"
    );
    assert_eq!(
        answered_elsewhere_line(&by("hook", None)),
        "answered elsewhere by hook"
    );
}

#[test]
fn the_transcript_shows_waits_and_their_outcomes() {
    let by = DecidedBy {
        kind: "daemon".into(),
        pid: Some(1),
    };
    let out = transcript(&[
        ev(
            1,
            EventPayload::Question {
                request_id: "Q1".into(),
                call_id: "C".into(),
                questions: crate::test_support::questions_input()["questions"].clone(),
            },
        ),
        ev(
            2,
            EventPayload::QuestionResolved {
                request_id: "Q1".into(),
                answers: Value::Null,
                decided_by: by.clone(),
            },
        ),
        ev(
            3,
            EventPayload::QuestionResolved {
                request_id: "Q2".into(),
                answers: json!(["a"]),
                decided_by: by,
            },
        ),
    ]);
    assert_eq!(
        out,
        "question: Q1 Which database?\n  ⎿ question Q1 withdrawn (by daemon)\n  ⎿ question Q2 answered (by daemon)\n"
    );
}

#[test]
fn the_transcript_shows_sub_agents_on_the_parents_stream() {
    let child = |seq, payload| Event {
        agent_id: "A1".into(),
        ..ev(seq, payload)
    };
    let events = [
        snapshot(0, "/w", SessionStatus::Idle, 0),
        child(
            1,
            EventPayload::AgentSpawned {
                name: "scout".into(),
                agent_type: "Explore".into(),
                description: "find tests".into(),
                background: true,
            },
        ),
        child(
            2,
            EventPayload::AgentProgress {
                tool_calls: 1,
                tokens: 10,
                last_activity: "Grep".into(),
            },
        ),
        child(
            3,
            EventPayload::PermissionRequest {
                request_id: "R1".into(),
                call_id: "C".into(),
                tool: "Bash".into(),
                input: json!({"command": "make"}),
                reason: String::new(),
            },
        ),
        child(
            4,
            EventPayload::AgentCompleted {
                state: roocode_protocol::agents::AgentState::Failed,
                summary: "it ran out of time".into(),
                usage: Default::default(),
            },
        ),
        ev(
            5,
            EventPayload::Injected {
                turn_id: "T".into(),
                kind: "task_notification".into(),
                text: "<task-notification><task-id>A1</task-id><name>scout</name><status>failed</status></task-notification>".into(),
            },
        ),
    ];
    assert_eq!(
        transcript(&events),
        "\
⟶ agent scout (Explore) \"find tests\" started (background)
[scout] permission: R1 Bash make
⟵ agent scout failed: it ran out of time
⟵ task notification: agent scout failed
"
    );
}

#[test]
fn team_events_are_one_line_notices_without_control_sequences() {
    let out = transcript(&[
        child_ev(
            1,
            "A1",
            EventPayload::TeamMember {
                team: "alpha".into(),
                name: "builder".into(),
                agent_type: "general-purpose".into(),
                state: roocode_protocol::teams::MemberState::Active,
                joined: true,
            },
        ),
        child_ev(
            2,
            "A1",
            EventPayload::TaskUpdated {
                team: "alpha".into(),
                task_id: 3,
                subject: "parse\x1b[2J the input".into(),
                status: "in_progress".into(),
                owner: Some("builder".into()),
                blocked_by: vec![],
            },
        ),
        child_ev(
            3,
            "A1",
            EventPayload::MailboxMessage {
                team: "alpha".into(),
                from: "builder".into(),
                to: "lead".into(),
                kind: "status_update".into(),
                summary: "half done\r\x1b]0;title\x07".into(),
            },
        ),
    ]);
    assert_eq!(
        out,
        "⟶ teammate builder (general-purpose) joined team alpha\n\
         ◦ task #3 \"parse[2J the input\" in progress: builder\n\
         ✉ builder → lead (status update): half done]0;title\n"
    );
}

#[test]
fn a_rewind_is_one_line_saying_what_came_back() {
    let out = transcript(&[
        ev(1, user("T", "I", "hi")),
        ev(2, message("M", "Hello there.", &[])),
        ev(3, completed("T", StopReason::EndTurn)),
        ev(
            4,
            EventPayload::Rewound {
                turn: 1,
                files: true,
                conversation: true,
                restored: 2,
                removed: 1,
                kept: 0,
                messages_removed: 2,
            },
        ),
    ]);
    assert!(
        out.ends_with(
            "(rewound to before turn 1: 2 files restored, 1 removed, conversation cut by 2 messages)\n"
        ),
        "{out}"
    );
}
