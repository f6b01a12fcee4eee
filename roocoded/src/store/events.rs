//! The `events` table: each session's append-only event log, the source of replay.

use roocode_protocol::event::{Event, EventPayload};

use super::{Store, StoreError};
use crate::clock;

#[derive(sqlx::FromRow)]
struct EventRow {
    session_id: String,
    seq: i64,
    ts: String,
    agent_id: String,
    payload: String,
}

impl EventRow {
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
    /// Appends events (already numbered) in one transaction and advances the
    /// session's `last_seq`. Durable when this returns.
    pub async fn append_events(&self, events: &[Event]) -> Result<(), StoreError> {
        let Some(last) = events.last() else {
            return Ok(());
        };
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        for ev in events {
            sqlx::query(
                "INSERT INTO events (session_id, seq, ts, agent_id, kind, payload) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(&ev.session_id)
            .bind(ev.seq as i64)
            .bind(&ev.ts)
            .bind(&ev.agent_id)
            .bind(ev.payload.kind())
            .bind(serde_json::to_string(&ev.payload)?)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("UPDATE sessions SET last_seq = ?, last_activity = ? WHERE id = ?")
            .bind(last.seq as i64)
            .bind(clock::now_ms())
            .bind(&last.session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
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
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(EventRow::into_event).collect()
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
        .fetch_all(&self.pool)
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
                .fetch_one(&self.pool)
                .await?;
        Ok(seq.unwrap_or(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
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
}
