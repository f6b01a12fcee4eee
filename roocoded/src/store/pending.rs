//! The `pending_requests` table: permission requests and questions waiting for a human.

use roocode_protocol::session::PendingRequest;

use super::{Store, StoreError};
use crate::clock;

/// What waits for a human (`pending_requests.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingKind {
    /// A tool call the permission gate asks about (answered allow / always / deny).
    Permission,
    /// An `AskUserQuestion` (answered with one answer per question).
    Question,
}

impl PendingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PendingKind::Permission => "permission",
            PendingKind::Question => "question",
        }
    }
}

/// Where a request is in its life (`pending_requests.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingStatus {
    /// Nobody has answered yet.
    Waiting,
    /// Answered (the decision says how).
    Resolved,
    /// Withdrawn: its turn was cancelled.
    Cancelled,
    /// Its turn ended (or the daemon stopped) without an answer.
    Expired,
}

impl PendingStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PendingStatus::Waiting => "waiting",
            PendingStatus::Resolved => "resolved",
            PendingStatus::Cancelled => "cancelled",
            PendingStatus::Expired => "expired",
        }
    }
}

#[derive(sqlx::FromRow)]
struct PendingRow {
    id: String,
    session_id: String,
    kind: String,
    tool: String,
    summary: String,
    payload: String,
    created_at: i64,
    /// The asking sub-agent's name (None: a main agent).
    agent_name: Option<String>,
}

/// A request to store.
#[derive(Debug, Clone)]
pub struct NewPending<'a> {
    pub id: &'a str,
    pub session_id: &'a str,
    pub kind: PendingKind,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub summary: &'a str,
    pub reason: &'a str,
    pub input: &'a serde_json::Value,
}

impl Store {
    pub async fn insert_pending(&self, p: &NewPending<'_>) -> Result<(), StoreError> {
        let payload = serde_json::json!({"reason": p.reason, "input": p.input}).to_string();
        sqlx::query(
            "INSERT INTO pending_requests (id, session_id, kind, call_id, tool, summary, payload, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(p.id)
        .bind(p.session_id)
        .bind(p.kind.as_str())
        .bind(p.call_id)
        .bind(p.tool)
        .bind(p.summary)
        .bind(payload)
        .bind(clock::now_ms())
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// Marks a waiting request answered, withdrawn or expired (`status`). Returns false
    /// when it was not waiting (unknown, or answered already).
    pub async fn resolve_pending(
        &self,
        id: &str,
        status: PendingStatus,
        decision: Option<&str>,
    ) -> Result<bool, StoreError> {
        let r = sqlx::query(
            "UPDATE pending_requests SET status = ?, decision = ?, resolved_at = ? WHERE id = ? AND status = ?",
        )
        .bind(status.as_str())
        .bind(decision)
        .bind(clock::now_ms())
        .bind(id)
        .bind(PendingStatus::Waiting.as_str())
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(r.rows_affected() > 0)
    }

    /// Whether a request with this id was ever made.
    pub async fn pending_exists(&self, id: &str) -> Result<bool, StoreError> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM pending_requests WHERE id = ?")
            .bind(id)
            .fetch_one(&mut *self.conn().await?)
            .await?;
        Ok(n > 0)
    }

    /// The session a request belongs to.
    pub async fn pending_session(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT session_id FROM pending_requests WHERE id = ?")
                .bind(id)
                .fetch_optional(&mut *self.conn().await?)
                .await?;
        Ok(row.map(|(s,)| s))
    }

    /// Expires every waiting request of a session (its turn ended without an answer).
    pub async fn expire_pending(&self, session_id: &str) -> Result<u64, StoreError> {
        let r = sqlx::query(
            "UPDATE pending_requests SET status = ?, resolved_at = ? WHERE session_id = ? AND status = ?",
        )
        .bind(PendingStatus::Expired.as_str())
        .bind(clock::now_ms())
        .bind(session_id)
        .bind(PendingStatus::Waiting.as_str())
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(r.rows_affected())
    }

    /// Waiting requests, oldest first, of one session (with its sub-agents', labelled
    /// with their names) or of all.
    pub async fn pending_requests(
        &self,
        session_id: Option<&str>,
    ) -> Result<Vec<PendingRequest>, StoreError> {
        let rows = sqlx::query_as::<_, PendingRow>(
            "SELECT p.id, p.session_id, p.kind, p.tool, p.summary, p.payload, p.created_at, a.name AS agent_name
             FROM pending_requests p LEFT JOIN agents a ON a.session_id = p.session_id
             WHERE p.status = ?2 AND (?1 IS NULL OR p.session_id = ?1 OR a.parent_id = ?1)
             ORDER BY p.created_at, p.rowid",
        )
        .bind(session_id)
        .bind(PendingStatus::Waiting.as_str())
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                // payload: {"reason": "...", "input": {...}}
                let mut payload: serde_json::Value =
                    serde_json::from_str(&r.payload).unwrap_or_default();
                PendingRequest {
                    agent_id: r.agent_name.is_some().then(|| r.session_id.clone()),
                    agent_name: r.agent_name,
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
    use super::*;
    use crate::store::sessions::tests::new_session;

    #[tokio::test]
    async fn insert_resolve_expire() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        let input = serde_json::json!({"command": "ls"});
        let p = NewPending {
            id: "r1",
            session_id: "s1",
            kind: PendingKind::Permission,
            call_id: "c1",
            tool: "Bash",
            summary: "ls",
            reason: "Bash wants to run: ls",
            input: &input,
        };
        store.insert_pending(&p).await.unwrap();
        store
            .insert_pending(&NewPending {
                id: "r2",
                ..p.clone()
            })
            .await
            .unwrap();
        let listed = store.pending_requests(Some("s1")).await.unwrap();
        assert_eq!(listed[0].kind, "permission");
        assert_eq!(listed[0].reason, "Bash wants to run: ls");
        assert_eq!(listed[0].input, input);
        assert!(
            store
                .resolve_pending("r1", PendingStatus::Resolved, Some("allow"))
                .await
                .unwrap()
        );
        assert!(
            !store
                .resolve_pending("r1", PendingStatus::Resolved, Some("deny"))
                .await
                .unwrap(),
            "first answer wins"
        );
        assert!(store.pending_exists("r1").await.unwrap());
        assert!(!store.pending_exists("nope").await.unwrap());
        assert_eq!(store.expire_pending("s1").await.unwrap(), 1);
        assert!(store.pending_requests(None).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn waiting_requests_are_listed() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        sqlx::query("INSERT INTO pending_requests (id, session_id, kind, call_id, tool, summary, payload, created_at) VALUES ('r1','s1','permission','c','Bash','ls','{}',0)")
            .execute(&mut *store.conn().await.unwrap()).await.unwrap();
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
