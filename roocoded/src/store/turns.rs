//! The `turns` and `inputs` tables: turn state, and user messages waiting for delivery.

use super::{Store, StoreError};
use crate::clock;

/// A user message accepted while a turn was running, not yet delivered to the model.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct InputRow {
    pub id: String,
    pub text: String,
}

impl Store {
    pub async fn insert_turn(&self, id: &str, session_id: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO turns (id, session_id, state, started_at) VALUES (?, ?, 'requesting', ?)",
        )
        .bind(id)
        .bind(session_id)
        .bind(clock::now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Records the turn's state-machine state (`requesting`, `streaming`, `executing_tools`, …).
    pub async fn set_turn_state(
        &self,
        id: &str,
        state: &str,
        iterations: u32,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE turns SET state = ?, iterations = ? WHERE id = ?")
            .bind(state)
            .bind(i64::from(iterations))
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn finish_turn(
        &self,
        id: &str,
        stop_reason: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE turns SET state = 'done', stop_reason = ?, error = ?, ended_at = ? WHERE id = ?")
            .bind(stop_reason)
            .bind(error)
            .bind(clock::now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn count_running_turns(&self) -> Result<u64, StoreError> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions WHERE status = 'running'")
            .fetch_one(&self.pool)
            .await?;
        Ok(n as u64)
    }

    /// Stores a queued user message.
    pub async fn queue_input(
        &self,
        session_id: &str,
        id: &str,
        text: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO inputs (id, session_id, text, status, created_at) VALUES (?, ?, ?, 'queued', ?)")
            .bind(id)
            .bind(session_id)
            .bind(text)
            .bind(clock::now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Queued messages of a session, oldest first.
    pub async fn queued_inputs(&self, session_id: &str) -> Result<Vec<InputRow>, StoreError> {
        Ok(sqlx::query_as::<_, InputRow>(
            "SELECT id, text FROM inputs WHERE session_id = ? AND status = 'queued' ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn mark_input_delivered(&self, id: &str, turn_id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE inputs SET status = 'delivered', turn_id = ? WHERE id = ?")
            .bind(turn_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::sessions::tests::new_session;

    #[tokio::test]
    async fn turns_and_queue() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store.insert_turn("t1", "s1").await.unwrap();
        store.set_turn_state("t1", "streaming", 1).await.unwrap();
        store.finish_turn("t1", "end_turn", None).await.unwrap();
        store.queue_input("s1", "i1", "first").await.unwrap();
        store.queue_input("s1", "i2", "second").await.unwrap();
        let q = store.queued_inputs("s1").await.unwrap();
        assert_eq!(
            q.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            vec!["i1", "i2"]
        );
        store.mark_input_delivered("i1", "t1").await.unwrap();
        assert_eq!(store.queued_inputs("s1").await.unwrap().len(), 1);
    }
}
