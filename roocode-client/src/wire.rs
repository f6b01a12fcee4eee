//! Decoding a session event from the wire, field by field: the envelope (`seq`, `ts`,
//! `session_id`, `agent_id`) and the payload (tagged by `type`) are read from the same
//! JSON object separately.
//!
//! Why not `serde_json::from_value::<Event>`: the sub-agent payloads (`agent_spawned`,
//! `agent_progress`, `agent_backgrounded`, `agent_completed`) carry an `agent_id` of
//! their own, the same key as the envelope's, so the daemon's JSON has `agent_id`
//! twice (with the same value). Serde rejects the duplicate, and with it every such
//! event; read into a map, the key appears once and both sides can take it.

use roocode_protocol::event::{Event, EventPayload};
use serde_json::Value;

/// The event in `value` (a JSON object as the daemon sends it).
pub fn decode_event(value: Value) -> Result<Event, serde_json::Error> {
    let field = |name: &str| value.get(name).cloned().unwrap_or(Value::Null);
    let seq: u64 = serde_json::from_value(field("seq"))?;
    let ts: String = serde_json::from_value(field("ts"))?;
    let session_id: String = serde_json::from_value(field("session_id"))?;
    let agent_id: String = serde_json::from_value(field("agent_id"))?;
    let payload: EventPayload = serde_json::from_value(value)?;
    Ok(Event {
        seq,
        ts,
        session_id,
        agent_id,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::agents::AgentState;
    use roocode_protocol::content::Usage;

    #[test]
    fn every_event_the_daemon_writes_is_read_back() {
        let payloads = [
            EventPayload::AgentSpawned {
                agent_id: "A1".into(),
                name: "scout".into(),
                agent_type: "Explore".into(),
                description: "find tests".into(),
                background: true,
            },
            EventPayload::AgentBackgrounded {
                agent_id: "A1".into(),
            },
            EventPayload::AgentCompleted {
                agent_id: "A1".into(),
                state: AgentState::Completed,
                summary: "3 files".into(),
                usage: Usage::default(),
            },
            EventPayload::TextDelta {
                message_id: "M".into(),
                text: "hi".into(),
            },
        ];
        for payload in payloads {
            let ev = Event {
                seq: 7,
                ts: "2026-11-30T10:00:00.000Z".into(),
                session_id: "P".into(),
                agent_id: "A1".into(),
                payload,
            };
            // As the daemon writes it (the duplicate key included), then as a client
            // reads it.
            let text = serde_json::to_string(&ev).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(decode_event(value).unwrap(), ev, "{text}");
        }
    }

    #[test]
    fn an_unknown_type_is_kept_as_unknown_and_a_broken_envelope_is_an_error() {
        let value = serde_json::json!({
            "seq": 1, "ts": "t", "session_id": "S", "agent_id": "S", "type": "from_the_future", "x": 1
        });
        assert_eq!(decode_event(value).unwrap().payload, EventPayload::Unknown);
        let value = serde_json::json!({"seq": "one", "type": "context_cleared"});
        assert!(decode_event(value).is_err());
    }
}
