//! Event reduction: what each event does to the conversation, the dialogs and the
//! status.

use roocode_protocol::content::{ContentBlock, Usage};
use roocode_protocol::event::{DecidedBy, ErrorInfo, Event, EventPayload, StopReason};
use roocode_protocol::session::{PendingRequest, PermissionDecision};
use serde_json::json;

use super::*;
use crate::test_support::{app, ev, key, session};
use crate::transcript::RenderCtx;
use crate::wrap::line_text;
use crossterm::event::KeyCode;

/// The conversation's text at width 60.
pub(super) fn lines(app: &mut App) -> Vec<String> {
    let ctx = RenderCtx {
        width: 60,
        expand_all: app.expand_all,
        tick: app.tick,
    };
    (0..app.transcript.blocks())
        .flat_map(|i| {
            app.transcript
                .block_lines(i, &ctx)
                .iter()
                .map(line_text)
                .collect::<Vec<_>>()
        })
        .collect()
}

pub(super) fn delta(seq: u64, text: &str) -> Event {
    ev(
        seq,
        EventPayload::TextDelta {
            message_id: "M".into(),
            text: text.into(),
        },
    )
}

pub(super) fn permission_request(seq: u64, id: &str) -> Event {
    ev(
        seq,
        EventPayload::PermissionRequest {
            request_id: id.into(),
            call_id: "C".into(),
            tool: "Bash".into(),
            input: json!({"command": "cargo test"}),
            reason: "commands need approval in default mode".into(),
        },
    )
}

pub(super) fn resolved(seq: u64, id: &str, kind: &str, pid: Option<u32>) -> Event {
    ev(
        seq,
        EventPayload::PermissionResolved {
            request_id: id.into(),
            decision: "allow".into(),
            decided_by: DecidedBy {
                kind: kind.into(),
                pid,
            },
        },
    )
}

pub(super) fn tool_call(seq: u64) -> Event {
    ev(
        seq,
        EventPayload::ToolCall {
            call_id: "C".into(),
            name: "Bash".into(),
            input: json!({"command": "cargo test"}),
        },
    )
}

fn snapshot(last_seq: u64, pending: Vec<PendingRequest>) -> Event {
    let mut s = session("S", "fix the parser");
    s.last_seq = last_seq;
    ev(
        0,
        EventPayload::Snapshot {
            session: Box::new(s),
            pending,
        },
    )
}

fn pending(id: &str) -> PendingRequest {
    PendingRequest {
        request_id: id.into(),
        session_id: "S".into(),
        kind: "permission".into(),
        tool: "Bash".into(),
        summary: "cargo test".into(),
        reason: "why".into(),
        input: json!({"command": "cargo test"}),
        created_at: "2026-11-30T10:00:00Z".into(),
        agent_id: None,
        agent_name: None,
    }
}

#[test]
fn text_deltas_build_one_message() {
    let mut a = app();
    a.on_event(&delta(1, "Let me "));
    a.on_event(&delta(2, "look."));
    assert_eq!(lines(&mut a), ["Let me look."]);
    a.on_event(&ev(
        3,
        EventPayload::AssistantMessage {
            message_id: "M".into(),
            content: vec![ContentBlock::text("Let me look.")],
        },
    ));
    assert_eq!(lines(&mut a), ["Let me look."]);
}

#[test]
fn stream_reset_clears_the_partial_text() {
    let mut a = app();
    a.on_event(&delta(1, "half an ans"));
    a.on_event(&ev(
        2,
        EventPayload::StreamReset {
            message_id: "M".into(),
        },
    ));
    assert!(lines(&mut a).is_empty());
    a.on_event(&ev(
        3,
        EventPayload::Recovery {
            category: "overloaded".into(),
            strategy: "retry".into(),
            attempt: 2,
            max: 5,
            delay_ms: 1500,
            message: "retrying in 1.5 s (overloaded, attempt 2/5)".into(),
        },
    ));
    a.on_event(&delta(4, "whole answer"));
    assert_eq!(
        lines(&mut a),
        [
            "retrying in 1.5 s (overloaded, attempt 2/5)",
            "",
            "whole answer"
        ]
    );
}

#[test]
fn a_tool_call_gets_its_result_and_duration() {
    let mut a = app();
    a.on_event(&tool_call(1));
    assert!(a.transcript.animating());
    a.on_event(&ev(
        2,
        EventPayload::ToolResult {
            call_id: "C".into(),
            output: "ok".into(),
            is_error: false,
            duration_ms: 1234,
            diff: None,
        },
    ));
    assert_eq!(lines(&mut a), ["● Bash cargo test  ✓ 1.2 s"]);
    assert!(!a.transcript.animating());
}

#[test]
fn a_permission_answered_elsewhere_closes_the_dialog_with_a_notice() {
    let mut a = app();
    a.on_event(&tool_call(1));
    a.on_event(&permission_request(2, "R"));
    assert_eq!(a.prompts.shown().map(|p| p.request_id.as_str()), Some("R"));
    assert_eq!(lines(&mut a), ["● Bash cargo test  ⏸ waiting for you"]);
    a.on_event(&resolved(3, "R", "cli", Some(4242)));
    assert!(a.prompts.shown().is_none());
    let flash = a.flash.as_ref().map(|f| f.text.clone());
    assert_eq!(
        flash.as_deref(),
        Some("answered elsewhere by cli (pid 4242): allow")
    );
    a.expand_all = true;
    assert!(lines(&mut a).contains(&"  │ permission: allow by cli (pid 4242)".to_owned()));
}

#[test]
fn a_permission_answered_here_needs_no_notice() {
    let mut a = app();
    a.on_event(&permission_request(1, "R"));
    let actions = a.on_key(key(KeyCode::Char('a')));
    assert_eq!(
        actions,
        [Action::RespondPermission {
            request_id: "R".into(),
            decision: PermissionDecision::AllowAlways,
            feedback: None,
        }]
    );
    assert!(a.prompts.shown().is_none());
    a.on_event(&resolved(2, "R", "tui", Some(1)));
    assert!(a.flash.is_none());
}

#[test]
fn replayed_events_are_ignored() {
    let mut a = app();
    let events = [
        delta(1, "one "),
        delta(2, "two"),
        ev(
            3,
            EventPayload::UserMessage {
                turn_id: "T".into(),
                input_id: "I".into(),
                text: "hi".into(),
            },
        ),
    ];
    for e in &events {
        a.on_event(e);
    }
    assert_eq!(a.last_seq(), 3);
    let before = lines(&mut a);
    // A reconnect replays from an older seq: nothing is duplicated.
    a.on_event(&snapshot(3, vec![]));
    for e in &events {
        a.on_event(e);
    }
    assert_eq!(lines(&mut a), before);
    assert_eq!(a.last_seq(), 3);
}

#[test]
fn queued_messages_wait_for_their_delivery() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::MessageQueued {
            input_id: "I2".into(),
            text: "and the docs".into(),
        },
    ));
    assert_eq!(lines(&mut a), ["", "> and the docs  (queued)"]);
    a.on_event(&ev(
        2,
        EventPayload::UserMessage {
            turn_id: "T".into(),
            input_id: "I2".into(),
            text: "and the docs".into(),
        },
    ));
    assert_eq!(lines(&mut a), ["> and the docs"]);
}

#[test]
fn the_snapshot_resets_pending_dialogs() {
    let mut a = app();
    a.on_event(&snapshot(5, vec![pending("R1")]));
    assert_eq!(a.prompts.shown().map(|p| p.request_id.as_str()), Some("R1"));
    // Replayed: R0 was answered before the snapshot, R1 is the pending one.
    a.on_event(&permission_request(2, "R0"));
    a.on_event(&permission_request(4, "R1"));
    assert_eq!(a.prompts.iter().count(), 1);
    // A request after the snapshot opens.
    a.on_event(&permission_request(6, "R2"));
    assert_eq!(a.prompts.iter().count(), 2);
    // After a reconnect, the new snapshot says nothing waits any more.
    a.on_event(&snapshot(9, vec![]));
    assert!(a.prompts.shown().is_none());
}

#[test]
fn turn_ends_other_than_end_turn_are_shown() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::TurnStarted {
            turn_id: "T".into(),
        },
    ));
    assert!(a.working());
    a.on_event(&ev(
        2,
        EventPayload::TurnCompleted {
            turn_id: "T".into(),
            stop_reason: StopReason::Cancelled,
            error: None,
        },
    ));
    assert!(!a.working());
    a.on_event(&ev(
        3,
        EventPayload::TurnCompleted {
            turn_id: "T2".into(),
            stop_reason: StopReason::Error,
            error: Some(ErrorInfo {
                kind: "auth".into(),
                message: "bad key".into(),
            }),
        },
    ));
    a.on_event(&ev(
        4,
        EventPayload::TurnCompleted {
            turn_id: "T3".into(),
            stop_reason: StopReason::EndTurn,
            error: None,
        },
    ));
    assert_eq!(lines(&mut a), ["(cancelled)", "error: bad key", "(error)"]);
}

#[test]
fn mode_model_and_usage_reach_the_status() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::ModeChanged {
            mode: roocode_protocol::Mode::Plan,
        },
    ));
    a.on_event(&ev(
        2,
        EventPayload::ModelChanged {
            model: "gpt-5".into(),
            context_window: None,
        },
    ));
    a.on_event(&ev(
        3,
        EventPayload::Usage {
            message_id: "M".into(),
            model: "gpt-5".into(),
            usage: Usage {
                input_tokens: 60_000,
                output_tokens: 100,
                cache_read_tokens: 4_000,
                cache_write_tokens: 0,
                cost_usd: Some(0.25),
            },
        },
    ));
    assert_eq!(a.session().mode, roocode_protocol::Mode::Plan);
    let (model, window) = (&a.session().model, a.session().context_window);
    assert_eq!(a.status.context_text(model, window), "ctx 64.0k (50%)");
    assert_eq!(a.status.cost_text(), "$0.25");
    assert_eq!(lines(&mut a), ["mode: plan", "model: gpt-5"]);
}

#[test]
fn events_of_other_sessions_are_ignored() {
    let mut a = app();
    let mut e = delta(1, "not mine");
    e.session_id = "OTHER".into();
    a.on_event(&e);
    assert!(lines(&mut a).is_empty());
    assert_eq!(a.last_seq(), 0);
}

#[test]
fn questions_are_answered_in_the_dialog_and_close_when_answered_elsewhere() {
    let mut a = app();
    let question = |seq, id: &str| {
        ev(
            seq,
            EventPayload::Question {
                request_id: id.into(),
                call_id: "Q".into(),
                questions: json!({"questions": [{"question": "Which db?",
                    "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]}),
            },
        )
    };
    a.on_event(&question(1, "R1"));
    assert_eq!(
        a.on_key(key(KeyCode::Char('2'))),
        [Action::AnswerQuestion {
            request_id: "R1".into(),
            answers: vec!["SQLite".into()],
        }]
    );
    a.on_event(&question(2, "R2"));
    a.on_event(&ev(
        3,
        EventPayload::QuestionResolved {
            request_id: "R2".into(),
            answers: json!(["Postgres"]),
            decided_by: DecidedBy {
                kind: "cli".into(),
                pid: Some(7),
            },
        },
    ));
    assert!(a.prompts.shown().is_none());
    assert_eq!(
        a.flash.as_ref().map(|f| f.text.as_str()),
        Some("answered elsewhere by cli (pid 7)")
    );
}

#[test]
fn resolutions_without_a_tool_call_become_notices() {
    let mut a = app();
    a.on_event(&permission_request(1, "R"));
    a.on_event(&resolved(2, "R", "rule", None));
    assert_eq!(lines(&mut a), ["permission: allow by rule"]);
}
