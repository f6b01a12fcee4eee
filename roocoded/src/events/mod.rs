//! The session event log: numbers each event, makes it durable in the store, then
//! fans it out to live subscribers — in that order, so a client is never told of an
//! event that a crash could lose, and replay plus live never leaves a gap.
//!
//! Use [`EventLog::append`] from anywhere in the daemon; subscribe *before* reading the
//! store for replay (see `rpc::subscribe`) and drop live events already replayed by seq.
//!
//! A session's events are numbered and written one batch at a time, so appends to one
//! session that arrive together are written together: each waits in the session's
//! queue, and whoever numbers next numbers and writes everything queued (a team lead's
//! stream hears of every message and every teammate's start and end at once; one
//! write each would queue them all behind each other).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::event::{Event, EventPayload};
use tokio::sync::{broadcast, oneshot};

use crate::clock;
use crate::store::{Delivery, Store, StoreError};

/// How many events a live subscriber may fall behind before it is told to re-sync.
pub const LIVE_CAPACITY: usize = 4096;

struct SessionLog {
    /// Seq of the last appended event; `None` until read from the store. Held across
    /// numbering and the write so events are stored and published in seq order.
    last_seq: tokio::sync::Mutex<Option<u64>>,
    /// Appends waiting for `last_seq`: its next holder writes them all.
    waiting: Mutex<Vec<Waiting>>,
    next_id: AtomicU64,
    /// The live channel, only while someone listens: a channel preallocates its whole
    /// buffer, and most sessions of a long-running daemon have nobody attached.
    live: Mutex<Option<broadcast::Sender<Arc<Event>>>>,
}

/// One append waiting in its session's queue, and who waits for it.
struct Waiting {
    /// Unique in its queue: an append given up while queued takes itself out.
    id: u64,
    agent_id: String,
    payloads: Vec<EventPayload>,
    written: oneshot::Sender<Result<Vec<Event>, StoreError>>,
}

/// An append of [`SessionLog::push`], taken out of the queue when dropped if still
/// there (one whose caller gave up is not written later behind its back).
struct Queued<'a> {
    log: &'a SessionLog,
    id: u64,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.log.waiting().retain(|w| w.id != self.id);
    }
}

impl SessionLog {
    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(
        &self,
        agent_id: &str,
        payloads: Vec<EventPayload>,
    ) -> (
        Queued<'_>,
        oneshot::Receiver<Result<Vec<Event>, StoreError>>,
    ) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (written, rx) = oneshot::channel();
        self.waiting().push(Waiting {
            id,
            agent_id: agent_id.to_string(),
            payloads,
            written,
        });
        (Queued { log: self, id }, rx)
    }

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

/// `payloads` as events of `agent_id` in `session_id`, timed now, not numbered yet.
fn unnumbered(session_id: &str, agent_id: &str, payloads: Vec<EventPayload>) -> Vec<Event> {
    let ts = clock::rfc3339(clock::now_ms());
    payloads
        .into_iter()
        .map(|payload| Event {
            seq: 0,
            ts: ts.clone(),
            session_id: session_id.to_string(),
            agent_id: agent_id.to_string(),
            payload,
        })
        .collect()
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
                    waiting: Mutex::new(Vec::new()),
                    next_id: AtomicU64::new(0),
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

    /// Appends several events in one transaction (used to batch streamed deltas),
    /// with whatever other appends to the session are waiting (see the module's doc).
    pub async fn append_many(
        &self,
        session_id: &str,
        agent_id: &str,
        payloads: Vec<EventPayload>,
    ) -> Result<Vec<Event>, StoreError> {
        let log = self.log(session_id);
        let (_queued, mut written) = log.push(agent_id, payloads);
        tokio::select! {
            biased;
            // Written by the holder of the numbering before us.
            result = &mut written => return result.unwrap_or(Err(StoreError::Closed)),
            mut last = log.last_seq.lock() => {
                let batch = std::mem::take(&mut *log.waiting());
                self.write_batch(&log, &mut last, session_id, batch).await;
            }
        }
        written.await.unwrap_or(Err(StoreError::Closed))
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
        let log = self.log(session_id);
        let mut last = log.last_seq.lock().await;
        let mut seq = self.last_seq(&last, session_id).await?;
        let mut events = unnumbered(session_id, session_id, payloads);
        for ev in &mut events {
            seq += 1;
            ev.seq = seq;
        }
        self.store.deliver(delivery, &events).await?;
        *last = Some(seq);
        self.publish(&log, &events);
        Ok(events)
    }

    /// Writes the appends of `batch` (taken from the queue of `session_id`'s `log`,
    /// whose `last` seq is held) in one transaction and tells each its events. If the
    /// batch fails, each is written alone, so that one bad append fails by itself.
    async fn write_batch(
        &self,
        log: &SessionLog,
        last: &mut Option<u64>,
        session_id: &str,
        batch: Vec<Waiting>,
    ) {
        let (mut told, mut appends) = (Vec::new(), Vec::new());
        for waiting in batch {
            told.push(waiting.written);
            appends.push(unnumbered(session_id, &waiting.agent_id, waiting.payloads));
        }
        if appends.len() > 1 {
            match self.write(log, last, session_id, appends).await {
                Ok(written) => {
                    for (tx, events) in told.into_iter().zip(written) {
                        let _ = tx.send(Ok(events));
                    }
                    return;
                }
                Err((_, back)) => appends = back,
            }
        }
        for (tx, events) in told.into_iter().zip(appends) {
            let result = self.write(log, last, session_id, vec![events]).await;
            let _ = tx.send(
                result
                    .map(|mut written| written.pop().unwrap_or_default())
                    .map_err(|(e, _)| e),
            );
        }
    }

    /// Numbers the events of `appends` after `last`, stores them in one transaction,
    /// then publishes them. On an error the appends come back, to be tried again.
    async fn write(
        &self,
        log: &SessionLog,
        last: &mut Option<u64>,
        session_id: &str,
        mut appends: Vec<Vec<Event>>,
    ) -> Result<Vec<Vec<Event>>, (StoreError, Vec<Vec<Event>>)> {
        let mut seq = match self.last_seq(last, session_id).await {
            Ok(seq) => seq,
            Err(e) => return Err((e, appends)),
        };
        for ev in appends.iter_mut().flatten() {
            seq += 1;
            ev.seq = seq;
        }
        let sizes: Vec<usize> = appends.iter().map(Vec::len).collect();
        let all: Vec<Event> = appends.into_iter().flatten().collect();
        let stored = self.store.append_events(&all).await;
        let mut events = all.into_iter();
        let appends: Vec<Vec<Event>> = sizes
            .iter()
            .map(|&n| events.by_ref().take(n).collect())
            .collect();
        if let Err(e) = stored {
            return Err((e, appends));
        }
        *last = Some(seq);
        for events in &appends {
            self.publish(log, events);
        }
        Ok(appends)
    }

    /// The session's last seq: `last` if known, else the store's.
    async fn last_seq(&self, last: &Option<u64>, session_id: &str) -> Result<u64, StoreError> {
        match *last {
            Some(seq) => Ok(seq),
            None => self.store.last_event_seq(session_id).await,
        }
    }

    /// Tells the session's live subscribers, and the daemon's for overview events.
    fn publish(&self, log: &SessionLog, events: &[Event]) {
        log.publish(events);
        if self.global.receiver_count() > 0 {
            for ev in events.iter().filter(|e| is_global(&e.payload)) {
                let _ = self.global.send(Arc::new(ev.clone()));
            }
        }
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

    async fn store_with_session() -> Store {
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
        store
    }

    #[tokio::test]
    async fn durable_before_published_and_numbered_from_the_store() {
        let store = store_with_session().await;
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

    #[tokio::test]
    async fn appends_to_one_session_that_arrive_together_are_written_together_in_order() {
        let store = store_with_session().await;
        let log = Arc::new(EventLog::new(store.clone()));
        let mut rx = log.subscribe("s");
        // Held: every append below queues behind it.
        let held = store.hold_for_test().await;
        let appends: Vec<_> = (0..20)
            .map(|i| {
                let log = log.clone();
                let payloads = vec![EventPayload::ContextCleared; 1 + i % 3];
                tokio::spawn(async move { log.append_many("s", &format!("a{i}"), payloads).await })
            })
            .collect();
        // Each queued (its task ran up to its wait) before the store is let go.
        while log.log("s").waiting().len() < 19 {
            tokio::task::yield_now().await;
        }
        drop(held);
        let mut seqs = Vec::new();
        for (i, append) in appends.into_iter().enumerate() {
            let events = append.await.unwrap().unwrap();
            assert_eq!(events.len(), 1 + i % 3);
            assert!(events.iter().all(|e| e.agent_id == format!("a{i}")));
            // An append's events are consecutive.
            assert!(events.windows(2).all(|w| w[1].seq == w[0].seq + 1));
            seqs.extend(events.iter().map(|e| e.seq));
        }
        seqs.sort();
        let total = seqs.len() as u64;
        assert_eq!(seqs, (1..=total).collect::<Vec<_>>());
        let stored = store.events_after("s", 0, 100).await.unwrap();
        assert_eq!(stored.len() as u64, total);
        // Published in seq order.
        for seq in 1..=total {
            assert_eq!(rx.recv().await.unwrap().seq, seq);
        }
    }

    #[tokio::test]
    async fn an_append_given_up_while_queued_is_never_written() {
        let store = store_with_session().await;
        let log = Arc::new(EventLog::new(store.clone()));
        let first = log.clone();
        // The first append holds the numbering while the store is held.
        let held = store.hold_for_test().await;
        let writer =
            tokio::spawn(async move { first.append("s", "s", EventPayload::ContextCleared).await });
        while log.log("s").last_seq.try_lock().is_ok() {
            tokio::task::yield_now().await;
        }
        let given_up = tokio::time::timeout(
            std::time::Duration::from_millis(1),
            log.append("s", "s", EventPayload::ContextCleared),
        )
        .await;
        assert!(given_up.is_err());
        assert!(log.log("s").waiting().is_empty());
        drop(held);
        assert_eq!(writer.await.unwrap().unwrap().seq, 1);
        let next = log
            .append("s", "s", EventPayload::ContextCleared)
            .await
            .unwrap();
        assert_eq!(next.seq, 2);
        assert_eq!(store.events_after("s", 0, 10).await.unwrap().len(), 2);
    }
}
