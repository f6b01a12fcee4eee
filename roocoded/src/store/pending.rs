//! The `pending_requests` table: permission requests and questions waiting for a human.

use roocode_protocol::session::PendingRequest;

use super::{Store, StoreError};
use crate::clock;

#[derive(sqlx::FromRow)]
struct PendingRow {
    id: String,
    session_id: String,
    kind: String,
    tool: String,
    summary: String,
    payload: String,
    created_at: i64,
}

impl Store {
    /// Waiting requests, oldest first, of one session or of all.
    pub async fn pending_requests(
        &self,
        session_id: Option<&str>,
    ) -> Result<Vec<PendingRequest>, StoreError> {
        let rows = sqlx::query_as::<_, PendingRow>(
            "SELECT id, session_id, kind, tool, summary, payload, created_at FROM pending_requests
             WHERE status = 'waiting' AND (?1 IS NULL OR session_id = ?1) ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                // payload: {"reason": "...", "input": {...}}
                let mut payload: serde_json::Value =
                    serde_json::from_str(&r.payload).unwrap_or_default();
                PendingRequest {
                    request_id: r.id,
                    session_id: r.session_id,
                    kind: r.kind,
                    tool: r.tool,
                    summary: r.summary,
                    reason: payload["reason"].as_str().unwrap_or_default().to_string(),
                    input: payload
                        .get_mut("input")
                        .map(serde_json::Value::take)
                        .unwrap_or_default(),
                    created_at: clock::rfc3339(r.created_at),
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::sessions::tests::new_session;

    #[tokio::test]
    async fn waiting_requests_are_listed() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        sqlx::query("INSERT INTO pending_requests (id, session_id, kind, call_id, tool, summary, payload, created_at) VALUES ('r1','s1','permission','c','Bash','ls','{}',0)")
            .execute(&store.pool).await.unwrap();
        assert_eq!(store.pending_requests(None).await.unwrap().len(), 1);
        assert_eq!(
            store.pending_requests(Some("s1")).await.unwrap()[0].tool,
            "Bash"
        );
        assert!(
            store
                .pending_requests(Some("other"))
                .await
                .unwrap()
                .is_empty()
        );
    }
}
