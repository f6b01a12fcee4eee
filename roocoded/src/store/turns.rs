//! The `turns` and `inputs` tables: turn state, and user messages waiting for delivery.

use roocode_protocol::event::StopReason;
use roocode_protocol::session::SessionStatus;
use sqlx::Connection as _;

use super::spelling::status_name;
use super::{Store, StoreError};
use crate::clock;

/// Where a turn's state machine is (`turns.state`), spelled as the database stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnState {
    /// Building and sending the model request (also the state of a new turn).
    Requesting,
    /// Reading the model's answer.
    Streaming,
    /// Running the tool calls of the answer.
    ExecutingTools,
    /// Ended; `stop_reason` says how.
    Done,
}

impl TurnState {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnState::Requesting => "requesting",
            TurnState::Streaming => "streaming",
            TurnState::ExecutingTools => "executing_tools",
            TurnState::Done => "done",
        }
    }
}

/// A user message accepted while a turn was running, not yet delivered to the model.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct InputRow {
    pub id: String,
    pub text: String,
    /// What the slash command that queued it sets for its turn (a `TurnScope` as JSON).
    pub scope: Option<String>,
}

/// A new turn's row: `requesting`, no iterations yet.
async fn insert_turn(
    conn: &mut sqlx::SqliteConnection,
    id: &str,
    session_id: &str,
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO turns (id, session_id, state, started_at) VALUES (?, ?, ?, ?)")
        .bind(id)
        .bind(session_id)
        .bind(TurnState::Requesting.as_str())
        .bind(now)
        .execute(conn)
        .await?;
    Ok(())
}

impl Store {
    /// A turn's row alone, the session left as it is (tests that need a turn to point
    /// at; the daemon starts turns with [`Store::begin_turn`]).
    pub async fn insert_turn(&self, id: &str, session_id: &str) -> Result<(), StoreError> {
        insert_turn(&mut *self.conn().await?, id, session_id, clock::now_ms()).await
    }

    /// Starts turn `id` of the session: its row (`requesting`) and the session marked
    /// running it, in one transaction.
    pub async fn begin_turn(&self, id: &str, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin().await?;
        let now = clock::now_ms();
        insert_turn(&mut tx, id, session_id, now).await?;
        sqlx::query(
            "UPDATE sessions SET status = ?, running_turn_id = ?, last_activity = ? WHERE id = ?",
        )
        .bind(status_name(SessionStatus::Running))
        .bind(id)
        .bind(now)
        .bind(session_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records the turn's state-machine state.
    pub async fn set_turn_state(
        &self,
        id: &str,
        state: TurnState,
        iterations: u32,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE turns SET state = ?, iterations = ? WHERE id = ?")
            .bind(state.as_str())
            .bind(i64::from(iterations))
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    pub async fn finish_turn(
        &self,
        id: &str,
        stop_reason: StopReason,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE turns SET state = ?, stop_reason = ?, error = ?, ended_at = ? WHERE id = ?",
        )
        .bind(TurnState::Done.as_str())
        .bind(stop_reason.as_str())
        .bind(error)
        .bind(clock::now_ms())
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// How the session's newest finished turn ended: (stop reason, error).
    pub async fn last_turn_end(
        &self,
        session_id: &str,
    ) -> Result<Option<(String, Option<String>)>, StoreError> {
        let row: Option<(String, Option<String>)> = sqlx::query_as(
            "SELECT stop_reason, error FROM turns WHERE session_id = ? AND stop_reason IS NOT NULL
             ORDER BY started_at DESC, rowid DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(&mut *self.conn().await?)
        .await?;
        Ok(row)
    }

    pub async fn count_running_turns(&self) -> Result<u64, StoreError> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions WHERE status = ?")
            .bind(status_name(SessionStatus::Running))
            .fetch_one(&mut *self.conn().await?)
            .await?;
        Ok(n as u64)
    }

    /// Stores a queued user message.
    pub async fn queue_input(
        &self,
        session_id: &str,
        id: &str,
        text: &str,
        scope: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO inputs (id, session_id, text, status, created_at, scope) VALUES (?, ?, ?, 'queued', ?, ?)")
            .bind(id)
            .bind(session_id)
            .bind(text)
            .bind(clock::now_ms())
            .bind(scope)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Queued messages of a session, oldest first.
    pub async fn queued_inputs(&self, session_id: &str) -> Result<Vec<InputRow>, StoreError> {
        Ok(sqlx::query_as::<_, InputRow>(
            "SELECT id, text, scope FROM inputs WHERE session_id = ? AND status = 'queued' ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }

    pub async fn mark_input_delivered(&self, id: &str, turn_id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE inputs SET status = 'delivered', turn_id = ? WHERE id = ?")
            .bind(turn_id)
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sessions::tests::new_session;

    #[tokio::test]
    async fn a_turn_begins_with_its_session_marked_running_it() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store.begin_turn("t1", "s1").await.unwrap();
        let row = store.session("s1").await.unwrap().unwrap();
        assert_eq!(row.status, SessionStatus::Running);
        assert_eq!(row.running_turn_id.as_deref(), Some("t1"));
        let (state, iterations): (String, i64) =
            sqlx::query_as("SELECT state, iterations FROM turns WHERE id = 't1'")
                .fetch_one(&mut *store.conn().await.unwrap())
                .await
                .unwrap();
        assert_eq!((state.as_str(), iterations), ("requesting", 0));
        // A turn id taken before: neither the row nor the session changes.
        store
            .insert_session(&new_session("s2", "/p"))
            .await
            .unwrap();
        assert!(store.begin_turn("t1", "s2").await.is_err());
        let other = store.session("s2").await.unwrap().unwrap();
        assert_ne!(other.status, SessionStatus::Running);
    }

    #[tokio::test]
    async fn turns_and_queue() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store.insert_turn("t1", "s1").await.unwrap();
        store
            .set_turn_state("t1", TurnState::Streaming, 1)
            .await
            .unwrap();
        store
            .finish_turn("t1", StopReason::EndTurn, None)
            .await
            .unwrap();
        let (state, stop): (String, String) =
            sqlx::query_as("SELECT state, stop_reason FROM turns WHERE id = 't1'")
                .fetch_one(&mut *store.conn().await.unwrap())
                .await
                .unwrap();
        assert_eq!((state.as_str(), stop.as_str()), ("done", "end_turn"));
        store.queue_input("s1", "i1", "first", None).await.unwrap();
        store.queue_input("s1", "i2", "second", None).await.unwrap();
        let q = store.queued_inputs("s1").await.unwrap();
        assert_eq!(
            q.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            vec!["i1", "i2"]
        );
        store.mark_input_delivered("i1", "t1").await.unwrap();
        assert_eq!(store.queued_inputs("s1").await.unwrap().len(), 1);
    }
}
