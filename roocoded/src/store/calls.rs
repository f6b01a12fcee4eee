//! The `model_calls` table: one row per provider request, so a session can be traced
//! call by call (model, size, tokens, latency, stop reason, attempts).

use super::{Store, StoreError};
use crate::clock;

/// One recorded model call.
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct ModelCallRow {
    pub id: String,
    pub session_id: String,
    pub turn_id: String,
    pub agent_id: String,
    pub model: String,
    pub request_bytes: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
    pub cost_usd: Option<f64>,
    pub latency_ms: i64,
    pub stop_reason: Option<String>,
    pub attempts: i64,
    pub error: Option<String>,
}

impl Store {
    pub async fn record_model_call(&self, c: &ModelCallRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO model_calls (id, session_id, turn_id, agent_id, model, request_bytes, input_tokens,
                output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, stop_reason,
                attempts, error, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&c.id)
        .bind(&c.session_id)
        .bind(&c.turn_id)
        .bind(&c.agent_id)
        .bind(&c.model)
        .bind(c.request_bytes)
        .bind(c.input_tokens)
        .bind(c.output_tokens)
        .bind(c.cache_read_tokens)
        .bind(c.cache_write_tokens)
        .bind(c.cost_usd)
        .bind(c.latency_ms)
        .bind(&c.stop_reason)
        .bind(c.attempts)
        .bind(&c.error)
        .bind(clock::now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The model calls of a session, oldest first.
    pub async fn model_calls(&self, session_id: &str) -> Result<Vec<ModelCallRow>, StoreError> {
        Ok(sqlx::query_as::<_, ModelCallRow>(
            "SELECT id, session_id, turn_id, agent_id, model, request_bytes, input_tokens, output_tokens,
                cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, stop_reason, attempts, error
             FROM model_calls WHERE session_id = ? ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::sessions::tests::new_session;

    #[tokio::test]
    async fn record_and_read() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        let call = ModelCallRow {
            id: "c1".into(),
            session_id: "s1".into(),
            turn_id: "t1".into(),
            agent_id: "s1".into(),
            model: "m".into(),
            input_tokens: 7,
            attempts: 2,
            ..ModelCallRow::default()
        };
        store.record_model_call(&call).await.unwrap();
        assert_eq!(store.model_calls("s1").await.unwrap(), vec![call]);
    }
}
