//! Wire compatibility: what a newer daemon may add (an event type, a content block, a
//! status, an error kind, a stop reason) decodes into the fallback variants, and the
//! known values around it still decode, so an older client never loses a
//! `turn_completed` to a kind it has never heard of.

// An integration-test crate: clippy.toml's test allowance does not reach its helpers.
#![allow(clippy::unwrap_used)]

use roocode_protocol::content::ContentBlock;
use roocode_protocol::doctor::CheckStatus;
use roocode_protocol::event::{ErrorKind, Event, EventPayload, StopReason};
use roocode_protocol::session::{SessionKind, SessionStatus};

fn decode(line: &str) -> Event {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn an_invented_event_type_beside_known_ones() {
    let log = [
        r#"{"seq":1,"ts":"t","session_id":"S","agent_id":"S","type":"turn_started","turn_id":"T"}"#,
        r#"{"seq":2,"ts":"t","session_id":"S","agent_id":"A","type":"subagent_spawned","agent":"explore","depth":1}"#,
        r#"{"seq":3,"ts":"t","session_id":"S","agent_id":"S","type":"turn_completed","turn_id":"T","stop_reason":"end_turn"}"#,
    ];
    let events: Vec<Event> = log.iter().map(|l| decode(l)).collect();
    assert_eq!(events[1].payload, EventPayload::Unknown);
    assert_eq!(
        events[1].seq, 2,
        "an unknown event keeps its place in the log"
    );
    assert_eq!(
        events[2].payload,
        EventPayload::TurnCompleted {
            turn_id: "T".into(),
            stop_reason: StopReason::EndTurn,
            error: None
        }
    );
}

#[test]
fn invented_values_inside_known_events() {
    let ev = decode(
        r#"{"seq":4,"ts":"t","session_id":"S","agent_id":"S","type":"turn_completed","turn_id":"T","stop_reason":"budget_spent","error":{"kind":"quota_exceeded","message":"m"}}"#,
    );
    let EventPayload::TurnCompleted {
        stop_reason, error, ..
    } = ev.payload
    else {
        panic!("{:?}", ev.payload);
    };
    assert_eq!(stop_reason, StopReason::Unknown);
    assert_eq!(stop_reason.exit_code(), 1);
    assert_eq!(
        error.unwrap().kind,
        ErrorKind::Other("quota_exceeded".into())
    );

    let ev = decode(
        r#"{"seq":5,"ts":"t","session_id":"S","agent_id":"S","type":"assistant_message","message_id":"M","content":[{"type":"server_tool_use","id":"x"},{"type":"text","text":"hi"}]}"#,
    );
    let EventPayload::AssistantMessage { content, .. } = ev.payload else {
        panic!("{:?}", ev.payload);
    };
    assert_eq!(
        content,
        vec![ContentBlock::Unknown, ContentBlock::text("hi")]
    );

    let ev = decode(
        r#"{"seq":6,"ts":"t","session_id":"S","agent_id":"S","type":"error","kind":"auth","message":"no key"}"#,
    );
    assert_eq!(
        ev.payload,
        EventPayload::Error {
            error: roocode_protocol::event::ErrorInfo {
                kind: ErrorKind::Auth,
                message: "no key".into()
            }
        }
    );
}

#[test]
fn invented_statuses_and_kinds() {
    let status: SessionStatus = serde_json::from_str(r#""waiting_for_team""#).unwrap();
    assert_eq!(status, SessionStatus::Unknown);
    let kind: SessionKind = serde_json::from_str(r#""coordinator""#).unwrap();
    assert_eq!(kind, SessionKind::Unknown);
    let check: CheckStatus = serde_json::from_str(r#""skipped""#).unwrap();
    assert_eq!(check, CheckStatus::Unknown);
    let known: SessionStatus = serde_json::from_str(r#""running""#).unwrap();
    assert_eq!(known, SessionStatus::Running);
}
