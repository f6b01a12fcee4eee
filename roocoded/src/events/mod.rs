//! The session event log: numbers each event, makes it durable in the store, then
//! fans it out to live subscribers — in that order, so a client is never told of an
//! event that a crash could lose, and replay plus live never leaves a gap.
//!
//! Use [`EventLog::append`] from anywhere in the daemon; subscribe *before* reading the
//! store for replay (see `rpc::subscribe`) and drop live events already replayed by seq.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::event::{Event, EventPayload};
use tokio::sync::broadcast;

use crate::clock;
use crate::store::{Delivery, Store, StoreError};

/// How many events a live subscriber may fall behind before it is told to re-sync.
pub const LIVE_CAPACITY: usize = 4096;

struct SessionLog {
    /// Seq of the last appended event; `None` until read from the store. Held across
    /// numbering and the write so events are stored and published in seq order.
    last_seq: tokio::sync::Mutex<Option<u64>>,
    /// The live channel, only while someone listens: a channel preallocates its whole
    /// buffer, and most sessions of a long-running daemon have nobody attached.
    live: Mutex<Option<broadcast::Sender<Arc<Event>>>>,
}

impl SessionLog {
    fn publish(&self, events: &[Event]) {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(tx) = live.as_ref() else {
            return;
        };
        if tx.receiver_count() == 0 {
            *live = None;
            return;
        }
        for ev in events {
            // A receiver that went away meanwhile is fine.
            let _ = tx.send(Arc::new(ev.clone()));
        }
    }
}

/// All sessions' event logs.
pub struct EventLog {
    store: Store,
    sessions: Mutex<HashMap<String, Arc<SessionLog>>>,
    /// Events of any session that matter outside it (see [`EventLog::subscribe_all`]).
    global: broadcast::Sender<Arc<Event>>,
}

/// How many global events a daemon subscriber may fall behind (it then skips).
const GLOBAL_CAPACITY: usize = 256;

/// Whether an event is of interest to overviews of all sessions.
fn is_global(payload: &EventPayload) -> bool {
    matches!(
        payload,
        EventPayload::TurnStarted { .. }
            | EventPayload::TurnCompleted { .. }
            | EventPayload::PermissionRequest { .. }
            | EventPayload::PermissionResolved { .. }
            | EventPayload::Question { .. }
            | EventPayload::QuestionResolved { .. }
            | EventPayload::AgentSpawned { .. }
            | EventPayload::AgentCompleted { .. }
    )
}

impl EventLog {
    pub fn new(store: Store) -> Self {
        EventLog {
            store,
            sessions: Mutex::new(HashMap::new()),
            global: broadcast::channel(GLOBAL_CAPACITY).0,
        }
    }

    fn log(&self, session_id: &str) -> Arc<SessionLog> {
        let mut map = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        map.entry(session_id.to_string())
            .or_insert_with(|| {
                Arc::new(SessionLog {
                    last_seq: tokio::sync::Mutex::new(None),
                    live: Mutex::new(None),
                })
            })
            .clone()
    }

    /// Live events of a session from now on.
    pub fn subscribe(&self, session_id: &str) -> broadcast::Receiver<Arc<Event>> {
        let log = self.log(session_id);
        let mut live = log.live.lock().unwrap_or_else(PoisonError::into_inner);
        match live.as_ref() {
            Some(tx) => tx.subscribe(),
            None => {
                let (tx, rx) = broadcast::channel(LIVE_CAPACITY);
                *live = Some(tx);
                rx
            }
        }
    }

    /// Overview events of every session from now on.
    pub fn subscribe_all(&self) -> broadcast::Receiver<Arc<Event>> {
        self.global.subscribe()
    }

    /// Frees a session's live channel once its last subscriber has gone (call after
    /// dropping a receiver): an idle session then costs almost nothing.
    pub fn release(&self, session_id: &str) {
        let log = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(session_id)
            .cloned();
        if let Some(log) = log {
            let mut live = log.live.lock().unwrap_or_else(PoisonError::into_inner);
            if live.as_ref().is_some_and(|tx| tx.receiver_count() == 0) {
                *live = None;
            }
        }
    }

    /// Appends one event.
    pub async fn append(
        &self,
        session_id: &str,
        agent_id: &str,
        payload: EventPayload,
    ) -> Result<Event, StoreError> {
        let mut events = self
            .append_many(session_id, agent_id, vec![payload])
            .await?;
        events
            .pop()
            .ok_or(StoreError::Sqlx(sqlx::Error::RowNotFound))
    }

    /// Appends several events in one transaction (used to batch streamed deltas).
    pub async fn append_many(
        &self,
        session_id: &str,
        agent_id: &str,
        payloads: Vec<EventPayload>,
    ) -> Result<Vec<Event>, StoreError> {
        self.append_inner(session_id, agent_id, payloads, None)
            .await
    }

    /// Appends a delivery's events (a queued input's `user_message`, injections'
    /// `injected`) in the same transaction as the delivery and its context row
    /// ([`Store::deliver`]).
    pub async fn append_delivery(
        &self,
        delivery: Delivery<'_>,
        payloads: Vec<EventPayload>,
    ) -> Result<Vec<Event>, StoreError> {
        let session_id = delivery.session_id;
        self.append_inner(session_id, session_id, payloads, Some(delivery))
            .await
    }

    async fn append_inner(
        &self,
        session_id: &str,
        agent_id: &str,
        payloads: Vec<EventPayload>,
        delivery: Option<Delivery<'_>>,
    ) -> Result<Vec<Event>, StoreError> {
        let log = self.log(session_id);
        let mut last = log.last_seq.lock().await;
        let mut seq = match *last {
            Some(seq) => seq,
            None => self.store.last_event_seq(session_id).await?,
        };
        let ts = clock::rfc3339(clock::now_ms());
        let events: Vec<Event> = payloads
            .into_iter()
            .map(|payload| {
                seq += 1;
                Event {
                    seq,
                    ts: ts.clone(),
                    session_id: session_id.to_string(),
                    agent_id: agent_id.to_string(),
                    payload,
                }
            })
            .collect();
        match delivery {
            Some(delivery) => self.store.deliver(delivery, &events).await?,
            None => self.store.append_events(&events).await?,
        }
        *last = Some(seq);
        log.publish(&events);
        if self.global.receiver_count() > 0 {
            for ev in events.iter().filter(|e| is_global(&e.payload)) {
                let _ = self.global.send(Arc::new(ev.clone()));
            }
        }
        Ok(events)
    }

    /// Drops a deleted session's log; its live subscribers see the stream close.
    pub fn forget(&self, session_id: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewSession;

    #[tokio::test]
    async fn durable_before_published_and_numbered_from_the_store() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&NewSession {
                id: "s".into(),
                parent_session_id: None,
                kind: roocode_protocol::session::SessionKind::Main,
                title: String::new(),
                cwd: "/p".into(),
                root: "/p".into(),
                model: "m".into(),
                mode: roocode_protocol::Mode::Default,
            })
            .await
            .unwrap();
        let log = EventLog::new(store.clone());
        let mut rx = log.subscribe("s");
        log.append("s", "s", EventPayload::ContextCleared)
            .await
            .unwrap();
        let live = rx.recv().await.unwrap();
        assert_eq!(live.seq, 1);
        assert_eq!(store.events_after("s", 0, 10).await.unwrap().len(), 1);

        // A new log (a restarted daemon) continues the numbering.
        let log2 = EventLog::new(store.clone());
        let evs = log2
            .append_many(
                "s",
                "s",
                vec![EventPayload::ContextCleared, EventPayload::ContextCleared],
            )
            .await
            .unwrap();
        assert_eq!(evs.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
    }
}
