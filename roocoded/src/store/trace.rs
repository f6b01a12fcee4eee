//! The flight recorder's tables (issue 16): `tool_calls` (per call: who decided it may
//! run, who answered, how long it ran, how it ended) and `trace_bodies` (the raw
//! request and response of a model call, scrubbed of secrets before they get here,
//! kept up to a cap per session, oldest dropped first). The model calls themselves
//! are in `model_calls` (`calls`).

use sqlx::Connection as _;

use super::{Store, StoreError};

/// One tool call as recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct ToolCallRow {
    pub session_id: String,
    pub call_id: String,
    pub turn_id: String,
    pub agent_id: String,
    /// The model call (assistant message) that asked for it.
    pub model_call_id: Option<String>,
    pub tool: String,
    /// Its input as JSON (capped).
    pub input: String,
    /// `allow`, `ask` or `deny`: what the permission layer said.
    pub decision: String,
    /// Who decided, as JSON (`permission::DecidedBy`).
    pub decided_by: String,
    /// When a human was asked: `allow_once`, `allow_always`, `deny`, with who.
    pub answered_by: Option<String>,
    /// `ok`, `error`, `denied`, `cancelled`.
    pub outcome: String,
    pub error: Option<String>,
    pub started_at: i64,
    pub duration_ms: i64,
}

/// The recorded bodies of one model call.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BodyRow {
    pub model_call_id: String,
    pub session_id: String,
    pub request: String,
    pub response: String,
    pub created_at: i64,
}

impl Store {
    pub async fn record_tool_call(&self, c: &ToolCallRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO tool_calls (session_id, call_id, turn_id, agent_id, model_call_id, tool,
                 input, decision, decided_by, answered_by, outcome, error, started_at, duration_ms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (session_id, call_id) DO UPDATE SET
                 decision = excluded.decision, decided_by = excluded.decided_by,
                 answered_by = excluded.answered_by, outcome = excluded.outcome,
                 error = excluded.error, duration_ms = excluded.duration_ms",
        )
        .bind(&c.session_id)
        .bind(&c.call_id)
        .bind(&c.turn_id)
        .bind(&c.agent_id)
        .bind(&c.model_call_id)
        .bind(&c.tool)
        .bind(&c.input)
        .bind(&c.decision)
        .bind(&c.decided_by)
        .bind(&c.answered_by)
        .bind(&c.outcome)
        .bind(&c.error)
        .bind(c.started_at)
        .bind(c.duration_ms)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// The tool calls of a session, in the order they started.
    pub async fn tool_calls(&self, session_id: &str) -> Result<Vec<ToolCallRow>, StoreError> {
        Ok(sqlx::query_as::<_, ToolCallRow>(
            "SELECT session_id, call_id, turn_id, agent_id, model_call_id, tool, input, decision,
                 decided_by, answered_by, outcome, error, started_at, duration_ms
             FROM tool_calls WHERE session_id = ? ORDER BY started_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }

    /// Records a model call's bodies, then drops the session's oldest until the rest
    /// fit in `cap_bytes`, in one transaction.
    pub async fn record_bodies(
        &self,
        session_id: &str,
        model_call_id: &str,
        request: &str,
        response: &str,
        cap_bytes: u64,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin().await?;
        let bytes = (request.len() + response.len()) as i64;
        sqlx::query(
            "INSERT OR REPLACE INTO trace_bodies
                 (model_call_id, session_id, request, response, bytes, created_at)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(model_call_id)
        .bind(session_id)
        .bind(request)
        .bind(response)
        .bind(bytes)
        .bind(crate::clock::now_ms())
        .execute(&mut *tx)
        .await?;
        // The newest rows whose running total (newest first) fits stay.
        sqlx::query(
            "DELETE FROM trace_bodies WHERE session_id = ?1 AND model_call_id IN (
                 SELECT model_call_id FROM (
                     SELECT model_call_id, SUM(bytes) OVER (
                         ORDER BY created_at DESC, rowid DESC) AS total
                     FROM trace_bodies WHERE session_id = ?1)
                 WHERE total > ?2)",
        )
        .bind(session_id)
        .bind(i64::try_from(cap_bytes).unwrap_or(i64::MAX))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The recorded bodies of a session, oldest first.
    pub async fn bodies(&self, session_id: &str) -> Result<Vec<BodyRow>, StoreError> {
        Ok(sqlx::query_as::<_, BodyRow>(
            "SELECT model_call_id, session_id, request, response, created_at
             FROM trace_bodies WHERE session_id = ? ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }

    /// Bytes of the bodies recorded before `cutoff` (Unix ms), and with `delete` removes
    /// them: what `prune` drops of the sessions it keeps.
    pub async fn bodies_before(&self, cutoff: i64, delete: bool) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let (n,): (i64,) =
            sqlx::query_as("SELECT COALESCE(SUM(bytes), 0) FROM trace_bodies WHERE created_at < ?")
                .bind(cutoff)
                .fetch_one(&mut *conn)
                .await?;
        if delete {
            sqlx::query("DELETE FROM trace_bodies WHERE created_at < ?")
                .bind(cutoff)
                .execute(&mut *conn)
                .await?;
        }
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Bytes of recorded bodies in all (for `doctor`).
    pub async fn bodies_bytes(&self) -> Result<u64, StoreError> {
        let (n,): (i64,) = sqlx::query_as("SELECT COALESCE(SUM(bytes), 0) FROM trace_bodies")
            .fetch_one(&mut *self.conn().await?)
            .await?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn tool_calls_are_recorded_and_updated_by_call_id() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&new_session("0191ab-1", "/p"))
            .await
            .unwrap()
            .id;
        let mut row = ToolCallRow {
            session_id: id.clone(),
            call_id: "c1".into(),
            turn_id: "t1".into(),
            agent_id: id.clone(),
            tool: "Bash".into(),
            input: "{}".into(),
            decision: "ask".into(),
            decided_by: "{}".into(),
            outcome: "running".into(),
            started_at: 5,
            ..ToolCallRow::default()
        };
        store.record_tool_call(&row).await.unwrap();
        row.outcome = "ok".into();
        row.duration_ms = 40;
        row.answered_by = Some("allow_once".into());
        store.record_tool_call(&row).await.unwrap();
        assert_eq!(store.tool_calls(&id).await.unwrap(), [row]);
    }

    #[tokio::test]
    async fn bodies_past_the_cap_go_oldest_first() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&new_session("0191ab-2", "/p"))
            .await
            .unwrap()
            .id;
        for n in 0..5 {
            let body = format!("{n}").repeat(100);
            store
                .record_bodies(&id, &format!("m{n}"), &body, "", 250)
                .await
                .unwrap();
        }
        let kept: Vec<String> = store
            .bodies(&id)
            .await
            .unwrap()
            .into_iter()
            .map(|b| b.model_call_id)
            .collect();
        assert_eq!(kept, ["m3", "m4"]);
        assert_eq!(store.bodies_bytes().await.unwrap(), 200);
    }
}
