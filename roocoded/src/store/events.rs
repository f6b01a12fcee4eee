//! The `events` table: each session's append-only event log, the source of replay.
//!
//! Replay reads events either decoded ([`Store::events_after`]) or as the JSON that
//! goes on the wire ([`Store::wire_events_after`]): the payload is stored as its JSON
//! text, and an event on the wire is that payload with the header fields before it, so
//! the wire form is assembled from the stored text without decoding and re-encoding.

use std::fmt::Write as _;

use roocode_protocol::event::{Event, EventPayload};
use serde_json::value::RawValue;

use super::event_batch::{Row, insert_rows};
use super::{Store, StoreError};

#[derive(sqlx::FromRow)]
struct EventRow {
    session_id: String,
    seq: i64,
    ts: String,
    agent_id: String,
    payload: String,
}

/// A stored event ready to send: its seq and its JSON, exactly what serialising it as
/// an [`Event`] gives.
#[derive(Debug)]
pub struct WireEvent {
    pub seq: u64,
    pub json: Box<RawValue>,
}

impl EventRow {
    /// The event's JSON without decoding its payload. `Event` is the header fields
    /// (`seq`, `ts`, `session_id`, `agent_id`, in that order) with the payload flattened
    /// after them, and the payload was stored by the same serializer
    /// ([`Store::append_events`]), so header + the stored object's members is byte for
    /// byte what `serde_json::to_string(&event)` writes. The result is checked to be
    /// well-formed JSON: a corrupt row fails here as it would when decoded.
    fn into_wire(self) -> Result<WireEvent, StoreError> {
        let members = self
            .payload
            .strip_prefix('{')
            .filter(|rest| !rest.trim_start().starts_with('}'))
            .ok_or_else(|| StoreError::CorruptEvent {
                session_id: self.session_id.clone(),
                seq: self.seq,
            })?;
        let mut json = String::with_capacity(
            self.payload.len() + self.ts.len() + self.session_id.len() + self.agent_id.len() + 64,
        );
        // Writing to a String cannot fail.
        let _ = write!(json, "{{\"seq\":{},\"ts\":", self.seq);
        json.push_str(&serde_json::to_string(&self.ts)?);
        json.push_str(",\"session_id\":");
        json.push_str(&serde_json::to_string(&self.session_id)?);
        json.push_str(",\"agent_id\":");
        json.push_str(&serde_json::to_string(&self.agent_id)?);
        json.push(',');
        json.push_str(members);
        Ok(WireEvent {
            seq: self.seq as u64,
            json: RawValue::from_string(json)?,
        })
    }

    fn into_event(self) -> Result<Event, StoreError> {
        Ok(Event {
            seq: self.seq as u64,
            ts: self.ts,
            session_id: self.session_id,
            agent_id: self.agent_id,
            payload: serde_json::from_str::<EventPayload>(&self.payload)?,
        })
    }
}

impl Store {
    /// The session's events of the given kinds (`compaction`, `turn_started`, …),
    /// oldest first: what a trace reads without the stream's deltas.
    pub async fn events_of_kinds(
        &self,
        session_id: &str,
        kinds: &[&str],
    ) -> Result<Vec<Event>, StoreError> {
        let mut query = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "SELECT session_id, seq, ts, agent_id, payload FROM events WHERE session_id = ",
        );
        query.push_bind(session_id).push(" AND kind IN (");
        let mut list = query.separated(", ");
        for kind in kinds {
            list.push_bind(*kind);
        }
        query.push(") ORDER BY seq");
        let rows = query
            .build_query_as::<EventRow>()
            .fetch_all(&mut *self.conn().await?)
            .await?;
        rows.into_iter().map(EventRow::into_event).collect()
    }

    /// Events with `seq > after`, oldest first, at most `limit`.
    pub async fn events_after(
        &self,
        session_id: &str,
        after: u64,
        limit: u32,
    ) -> Result<Vec<Event>, StoreError> {
        let rows = sqlx::query_as::<_, EventRow>(
            "SELECT session_id, seq, ts, agent_id, payload FROM events
             WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(session_id)
        .bind(after as i64)
        .bind(i64::from(limit))
        .fetch_all(&mut *self.conn().await?)
        .await?;
        rows.into_iter().map(EventRow::into_event).collect()
    }

    /// Like [`Store::events_after`], as the JSON sent to subscribers (see
    /// [`WireEvent`]): replay without decoding and re-encoding every event.
    pub async fn wire_events_after(
        &self,
        session_id: &str,
        after: u64,
        limit: u32,
    ) -> Result<Vec<WireEvent>, StoreError> {
        let rows = sqlx::query_as::<_, EventRow>(
            "SELECT session_id, seq, ts, agent_id, payload FROM events
             WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(session_id)
        .bind(after as i64)
        .bind(i64::from(limit))
        .fetch_all(&mut *self.conn().await?)
        .await?;
        rows.into_iter().map(EventRow::into_wire).collect()
    }

    /// The newest `limit` events with `seq < before` (all when `None`), oldest first,
    /// and whether older ones remain.
    pub async fn events_before(
        &self,
        session_id: &str,
        before: Option<u64>,
        limit: u32,
    ) -> Result<(Vec<Event>, bool), StoreError> {
        let before = before.map_or(i64::MAX, |b| b as i64);
        let mut rows = sqlx::query_as::<_, EventRow>(
            "SELECT session_id, seq, ts, agent_id, payload FROM events
             WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
        )
        .bind(session_id)
        .bind(before)
        .bind(i64::from(limit) + 1)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        let has_more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        rows.reverse();
        let events = rows
            .into_iter()
            .map(EventRow::into_event)
            .collect::<Result<_, _>>()?;
        Ok((events, has_more))
    }

    /// Seq of the newest stored event of a session (0 when none).
    pub async fn last_event_seq(&self, session_id: &str) -> Result<u64, StoreError> {
        let (seq,): (Option<i64>,) =
            sqlx::query_as("SELECT MAX(seq) FROM events WHERE session_id = ?")
                .bind(session_id)
                .fetch_one(&mut *self.conn().await?)
                .await?;
        Ok(seq.unwrap_or(0) as u64)
    }
}

/// Inserts numbered events inside the caller's transaction (so other writes can
/// commit with them, see `store::delivery`).
pub(super) async fn insert_events(
    conn: &mut sqlx::SqliteConnection,
    events: &[Event],
) -> Result<(), StoreError> {
    let rows = events.iter().map(Row::of).collect::<Result<Vec<_>, _>>()?;
    let rows: Vec<&Row> = rows.iter().collect();
    insert_rows(conn, &rows).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock;
    use crate::store::sessions::tests::new_session;

    fn ev(seq: u64, text: &str) -> Event {
        Event {
            seq,
            ts: clock::rfc3339(0),
            session_id: "s1".into(),
            agent_id: "s1".into(),
            payload: EventPayload::TextDelta {
                message_id: "m".into(),
                text: text.into(),
            },
        }
    }

    #[tokio::test]
    async fn append_and_page() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        let batch: Vec<Event> = (1..=10).map(|i| ev(i, &i.to_string())).collect();
        store.append_events(&batch[..4]).await.unwrap();
        store.append_events(&batch[4..]).await.unwrap();
        assert_eq!(store.last_event_seq("s1").await.unwrap(), 10);
        assert_eq!(store.session("s1").await.unwrap().unwrap().last_seq, 10);
        let after = store.events_after("s1", 3, 4).await.unwrap();
        assert_eq!(
            after.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![4, 5, 6, 7]
        );
        assert_eq!(after[0], batch[3]);
        let (page, more) = store.events_before("s1", Some(9), 3).await.unwrap();
        assert_eq!(
            page.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![6, 7, 8]
        );
        assert!(more);
        let (all, more) = store.events_before("s1", None, 100).await.unwrap();
        assert_eq!(all.len(), 10);
        assert!(!more);
        // A duplicate seq is refused: the log never silently rewrites history.
        assert!(store.append_events(&batch[..1]).await.is_err());
    }

    #[tokio::test]
    async fn a_batch_longer_than_one_insert_is_stored_whole_or_not_at_all() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        let n = crate::store::event_batch::ROWS_PER_INSERT as u64 * 2 + 7;
        let batch: Vec<Event> = (1..=n).map(|i| ev(i, "x")).collect();
        store.append_events(&batch).await.unwrap();
        assert_eq!(store.last_event_seq("s1").await.unwrap(), n);
        assert_eq!(
            store.session("s1").await.unwrap().unwrap().last_seq,
            n as i64
        );
        // A long batch whose last event collides is refused entirely.
        let mut more: Vec<Event> = (n + 1
            ..=n + crate::store::event_batch::ROWS_PER_INSERT as u64 + 1)
            .map(|i| ev(i, "y"))
            .collect();
        more.push(ev(n, "dup"));
        assert!(store.append_events(&more).await.is_err());
        assert_eq!(store.last_event_seq("s1").await.unwrap(), n);
        assert_eq!(
            store.session("s1").await.unwrap().unwrap().last_seq,
            n as i64
        );
    }

    /// One payload of every stored kind, with strings that need escaping, nested
    /// values, optional fields both ways and numbers at their limits.
    fn every_payload() -> Vec<EventPayload> {
        use roocode_protocol::content::{ContentBlock, Usage};
        use roocode_protocol::event::{DecidedBy, ErrorInfo, StopReason};
        use serde_json::json;
        let odd = "quote \" backslash \\ newline \n tab \t nul \u{0} é 🦀 </script>";
        let by = DecidedBy {
            kind: "cli".into(),
            pid: Some(42),
        };
        vec![
            EventPayload::UserMessage {
                turn_id: "T".into(),
                input_id: "I".into(),
                text: odd.into(),
            },
            EventPayload::MessageQueued {
                input_id: "I".into(),
                text: String::new(),
            },
            EventPayload::TurnStarted {
                turn_id: "T".into(),
            },
            EventPayload::TextDelta {
                message_id: "M".into(),
                text: odd.into(),
            },
            EventPayload::ThinkingDelta {
                message_id: "M".into(),
                text: "hm".into(),
            },
            EventPayload::AssistantMessage {
                message_id: "M".into(),
                content: vec![
                    ContentBlock::text(odd),
                    ContentBlock::ToolUse {
                        id: "c1".into(),
                        name: "Read".into(),
                        input: json!({"z": [1, 2.5, -3e300, null, true], "a": {"b": "c"}}),
                    },
                ],
            },
            EventPayload::ToolCall {
                call_id: "c1".into(),
                name: "Bash".into(),
                input: json!({"command": odd, "timeout": u64::MAX}),
            },
            EventPayload::ToolOutput {
                call_id: "c1".into(),
                text: "out".into(),
            },
            EventPayload::ToolResult {
                call_id: "c1".into(),
                output: odd.into(),
                is_error: true,
                duration_ms: 12,
                diff: None,
            },
            EventPayload::ToolResult {
                call_id: "c2".into(),
                output: String::new(),
                is_error: false,
                duration_ms: 0,
                diff: Some("--- a\n+++ b\n".into()),
            },
            EventPayload::PermissionRequest {
                request_id: "R".into(),
                call_id: "c1".into(),
                tool: "Bash".into(),
                input: json!({"command": "rm -rf /"}),
                reason: odd.into(),
            },
            EventPayload::PermissionResolved {
                request_id: "R".into(),
                decision: "allow".into(),
                decided_by: by,
            },
            EventPayload::Question {
                request_id: "Q".into(),
                call_id: "c3".into(),
                questions: json!([{"question": "?", "options": []}]),
            },
            EventPayload::QuestionResolved {
                request_id: "Q".into(),
                answers: json!({}),
                decided_by: DecidedBy {
                    kind: "tui".into(),
                    pid: None,
                },
            },
            EventPayload::Usage {
                message_id: "M".into(),
                model: "anthropic/m".into(),
                usage: Usage {
                    input_tokens: 1,
                    output_tokens: u64::MAX,
                    cache_read_tokens: 0,
                    cache_write_tokens: 3,
                    cost_usd: Some(0.1 + 0.2),
                },
            },
            EventPayload::Usage {
                message_id: "M".into(),
                model: "m".into(),
                usage: Usage::default(),
            },
            EventPayload::Compaction {
                before_tokens: 866_263,
                after_tokens: 227,
                summarized: 40,
                kept: 3,
                how: Some("summary".into()),
            },
            EventPayload::Retrying {
                attempt: 1,
                max_attempts: 5,
                delay_ms: 250,
                reason: "overloaded".into(),
            },
            EventPayload::StreamReset {
                message_id: "M".into(),
            },
            EventPayload::ModeChanged {
                mode: roocode_protocol::Mode::Plan,
            },
            EventPayload::ModelChanged {
                model: "m".into(),
                context_window: Some(200_000),
            },
            EventPayload::ContextCleared,
            EventPayload::TurnCompleted {
                turn_id: "T".into(),
                stop_reason: StopReason::Error,
                error: Some(ErrorInfo {
                    kind: "network".into(),
                    message: odd.into(),
                }),
            },
            EventPayload::TurnCompleted {
                turn_id: "T".into(),
                stop_reason: StopReason::EndTurn,
                error: None,
            },
            EventPayload::Error {
                error: ErrorInfo {
                    kind: "internal".into(),
                    message: "x".into(),
                },
            },
            EventPayload::Resync { last_seq: 9 },
        ]
    }

    #[tokio::test]
    async fn wire_events_are_byte_for_byte_the_serialised_events() {
        let store = Store::memory().await.unwrap();
        // Ids and timestamps that need escaping too.
        let id = "s \"1\" é";
        store.insert_session(&new_session(id, "/p")).await.unwrap();
        let events: Vec<Event> = every_payload()
            .into_iter()
            .enumerate()
            .map(|(i, payload)| Event {
                seq: i as u64 + 1,
                ts: clock::rfc3339(1_796_000_000_000 + i as i64),
                session_id: id.into(),
                agent_id: format!("agent\t{i}"),
                payload,
            })
            .collect();
        store.append_events(&events).await.unwrap();
        let wire = store.wire_events_after(id, 0, 1000).await.unwrap();
        assert_eq!(wire.len(), events.len());
        for (ev, w) in events.iter().zip(&wire) {
            assert_eq!(w.seq, ev.seq);
            assert_eq!(
                w.json.get(),
                serde_json::to_string(ev).unwrap(),
                "{}",
                ev.payload.kind()
            );
            assert_eq!(&serde_json::from_str::<Event>(w.json.get()).unwrap(), ev);
        }
        let page = store.wire_events_after(id, 3, 2).await.unwrap();
        assert_eq!(page.iter().map(|w| w.seq).collect::<Vec<_>>(), vec![4, 5]);
    }

    #[tokio::test]
    async fn a_corrupt_stored_payload_fails_the_replay() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        for (seq, payload) in [
            (1, "{}"),
            (2, "[]"),
            (3, "{\"type\":"),
            (4, "{\"type\":\"x\"} tail"),
        ] {
            sqlx::query(
                "INSERT INTO events (session_id, seq, ts, agent_id, kind, payload) VALUES ('s1', ?, 't', 's1', 'x', ?)",
            )
            .bind(seq as i64)
            .bind(payload)
            .execute(&mut *store.conn().await.unwrap())
            .await
            .unwrap();
            let replay = store.wire_events_after("s1", seq - 1, 1).await;
            assert!(replay.is_err(), "{payload}: {replay:?}");
        }
    }
}
