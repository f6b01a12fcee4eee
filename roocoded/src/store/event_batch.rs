//! Event appends that arrive together commit together.
//!
//! Every event is durable before anyone hears of it, so each append is a commit, and
//! a commit is the store's dearest operation (its pages written to the WAL, its locks
//! taken and released). Appends queue here while the connection is busy; whichever
//! append gets the connection next writes everything queued, its own and the others',
//! in one statement, and tells each waiting append its result. Each session's events
//! still go in seq order: the event log numbers a session's events and appends them
//! one batch at a time.

use std::sync::{Mutex, PoisonError};

use roocode_protocol::event::Event;
use sqlx::Connection as _;
use sqlx::SqliteConnection;
use tokio::sync::oneshot;

use super::{Store, StoreError};

/// Events per `INSERT` statement: six bound values each, far below SQLite's limit of
/// 32,766 per statement.
pub(super) const ROWS_PER_INSERT: usize = 500;

/// An event as its row.
pub(super) struct Row {
    session_id: String,
    seq: i64,
    ts: String,
    agent_id: String,
    kind: &'static str,
    payload: String,
}

impl Row {
    pub(super) fn of(ev: &Event) -> Result<Row, StoreError> {
        Ok(Row {
            session_id: ev.session_id.clone(),
            seq: ev.seq as i64,
            ts: ev.ts.clone(),
            agent_id: ev.agent_id.clone(),
            kind: ev.payload.kind(),
            payload: serde_json::to_string(&ev.payload)?,
        })
    }
}

/// One queued append and who waits for it.
struct Append {
    /// Unique in its queue: an append given up while queued takes itself out.
    id: u64,
    rows: Vec<Row>,
    written: oneshot::Sender<Result<(), StoreError>>,
}

/// The appends waiting for the connection.
#[derive(Default)]
pub(super) struct Queue {
    waiting: Mutex<Vec<Append>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Queue")
    }
}

impl Queue {
    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<Append>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `rows`; the guard takes them out again if it is dropped before a writer
    /// took them (an append whose caller gave up is not written later behind its back,
    /// where the session's next append would collide with its seqs).
    fn push(&self, rows: Vec<Row>) -> (Queued<'_>, oneshot::Receiver<Result<(), StoreError>>) {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (written, rx) = oneshot::channel();
        self.waiting().push(Append { id, rows, written });
        (Queued { queue: self, id }, rx)
    }

    fn take(&self) -> Vec<Append> {
        std::mem::take(&mut *self.waiting())
    }
}

/// An append of [`Queue::push`], taken out of the queue when dropped if still there.
struct Queued<'a> {
    queue: &'a Queue,
    id: u64,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.queue.waiting().retain(|a| a.id != self.id);
    }
}

impl Store {
    /// Appends events (already numbered), all or none, with whatever other appends
    /// are waiting (see the module's doc); the session's `last_seq` follows (migration
    /// 0006's trigger). Durable when this returns.
    pub async fn append_events(&self, events: &[Event]) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let rows = events.iter().map(Row::of).collect::<Result<Vec<_>, _>>()?;
        let (_queued, mut written) = self.events.push(rows);
        tokio::select! {
            biased;
            // Written by the holder of the connection before us.
            result = &mut written => return result.unwrap_or(Err(StoreError::Closed)),
            conn = self.conn() => {
                let mut conn = conn?;
                write_batch(&mut conn, self.events.take()).await;
            }
        }
        written.await.unwrap_or(Err(StoreError::Closed))
    }
}

/// Writes the appends of `batch` in one statement (one transaction past
/// `ROWS_PER_INSERT` rows) and tells each its result. If the batch fails, each append
/// is written alone, so that one bad append (a seq stored before) fails by itself.
async fn write_batch(conn: &mut SqliteConnection, batch: Vec<Append>) {
    if batch.is_empty() {
        return;
    }
    let all: Vec<&Row> = batch.iter().flat_map(|a| &a.rows).collect();
    if batch.len() > 1 && insert_atomically(conn, &all).await.is_ok() {
        for append in batch {
            let _ = append.written.send(Ok(()));
        }
        return;
    }
    for append in batch {
        let rows: Vec<&Row> = append.rows.iter().collect();
        let result = insert_atomically(conn, &rows).await;
        let _ = append.written.send(result);
    }
}

/// `rows` all or none: one statement, or a transaction of several.
async fn insert_atomically(conn: &mut SqliteConnection, rows: &[&Row]) -> Result<(), StoreError> {
    if rows.len() <= ROWS_PER_INSERT {
        return insert_rows(conn, rows).await;
    }
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    insert_rows(&mut tx, rows).await?;
    tx.commit().await?;
    Ok(())
}

/// Inserts `rows`, `ROWS_PER_INSERT` per statement, inside the caller's transaction if
/// it has one; each insert advances its session's `last_seq` (migration 0006).
pub(super) async fn insert_rows(
    conn: &mut SqliteConnection,
    rows: &[&Row],
) -> Result<(), StoreError> {
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut insert = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT INTO events (session_id, seq, ts, agent_id, kind, payload) ",
        );
        insert.push_values(chunk, |mut row, ev| {
            row.push_bind(&ev.session_id)
                .push_bind(ev.seq)
                .push_bind(&ev.ts)
                .push_bind(&ev.agent_id)
                .push_bind(ev.kind)
                .push_bind(&ev.payload);
        });
        insert.build().execute(&mut *conn).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use roocode_protocol::event::EventPayload;

    use super::*;
    use crate::clock;
    use crate::store::sessions::tests::new_session;

    fn ev(session: &str, seq: u64) -> Event {
        Event {
            seq,
            ts: clock::rfc3339(0),
            session_id: session.into(),
            agent_id: session.into(),
            payload: EventPayload::TextDelta {
                message_id: "m".into(),
                text: format!("{session} {seq}"),
            },
        }
    }

    #[tokio::test]
    async fn appends_at_once_are_all_stored_and_a_bad_one_fails_alone() {
        let store = Store::memory().await.unwrap();
        for s in ["a", "b", "c", "d"] {
            store.insert_session(&new_session(s, "/p")).await.unwrap();
        }
        store.append_events(&[ev("a", 1)]).await.unwrap();
        // Held, so that every append below queues behind it.
        let held = store.conn().await.unwrap();
        let mut appends = tokio::task::JoinSet::new();
        for s in ["a", "b", "c", "d"] {
            for seq in 2..=11 {
                let store = store.clone();
                appends.spawn(async move { store.append_events(&[ev(s, seq)]).await });
            }
        }
        let dup = {
            let store = store.clone();
            tokio::spawn(async move { store.append_events(&[ev("a", 1)]).await })
        };
        // Every append is queued (each waits for the connection) before it is released.
        while store.events.waiting().len() < 41 {
            tokio::task::yield_now().await;
        }
        drop(held);
        while let Some(done) = appends.join_next().await {
            done.unwrap().unwrap();
        }
        assert!(dup.await.unwrap().is_err(), "seq 1 of a was stored before");
        for s in ["a", "b", "c", "d"] {
            let stored = store.events_after(s, 0, 100).await.unwrap();
            let first = if s == "a" { 1 } else { 2 };
            assert_eq!(
                stored.iter().map(|e| e.seq).collect::<Vec<_>>(),
                (first..=11).collect::<Vec<_>>()
            );
            assert_eq!(store.session(s).await.unwrap().unwrap().last_seq, 11);
        }
    }

    #[tokio::test]
    async fn an_append_given_up_while_queued_is_never_written() {
        let store = Store::memory().await.unwrap();
        store.insert_session(&new_session("a", "/p")).await.unwrap();
        let held = store.conn().await.unwrap();
        let append = {
            let store = store.clone();
            tokio::spawn(async move { store.append_events(&[ev("a", 1)]).await })
        };
        while store.events.waiting().is_empty() {
            tokio::task::yield_now().await;
        }
        append.abort();
        let _ = append.await;
        assert!(store.events.waiting().is_empty());
        drop(held);
        // Its seq is free for the session's next append.
        store.append_events(&[ev("a", 1)]).await.unwrap();
        assert_eq!(store.events_after("a", 0, 10).await.unwrap().len(), 1);
    }
}
