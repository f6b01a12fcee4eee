//! The flight recorder's tables (issue 16): `tool_calls` (per call: who decided it may
//! run, who answered, how long it ran, how it ended) and `trace_bodies` with
//! `trace_parts` (the raw request and response of a model call, scrubbed of secrets
//! before they get here, the request's shared parts kept once per session, all kept up
//! to a cap per session, oldest dropped first). The model calls themselves
//! are in `model_calls` (`calls`).

use sqlx::Connection as _;

use super::{Store, StoreError};
use std::collections::{HashMap, HashSet};

use crate::trace::bodies::{SplitRequest, part_hashes};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyRow {
    pub model_call_id: String,
    pub session_id: String,
    /// The request with its parts named, not included (see `trace::bodies::split`).
    pub skeleton: String,
    /// The parts the skeleton names, by hash.
    pub parts: HashMap<String, String>,
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

    /// Records a model call's bodies — the request's skeleton, the parts it names not
    /// kept yet, the response — then, past `cap_bytes`, drops the session's oldest
    /// bodies (and the parts only they named) until the rest take 90% of it, in one
    /// transaction.
    pub async fn record_bodies(
        &self,
        session_id: &str,
        model_call_id: &str,
        request: &SplitRequest,
        response: &str,
        cap_bytes: u64,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin().await?;
        // Only the parts not kept yet are sent to the database.
        let hashes: Vec<&str> = request.parts.iter().map(|(h, _)| h.as_str()).collect();
        let known: HashSet<String> = known_parts(&mut tx, session_id, &hashes).await?;
        let mut new: Vec<&(String, String)> = request
            .parts
            .iter()
            .filter(|(h, _)| !known.contains(h))
            .collect();
        new.dedup_by(|a, b| a.0 == b.0);
        for chunk in new.chunks(PARTS_PER_STATEMENT) {
            let mut insert = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
                "INSERT OR IGNORE INTO trace_parts (session_id, hash, bytes, text) ",
            );
            insert.push_values(chunk, |mut row, (hash, text)| {
                row.push_bind(session_id)
                    .push_bind(hash)
                    .push_bind(text.len() as i64)
                    .push_bind(text);
            });
            insert.build().execute(&mut *tx).await?;
        }
        sqlx::query(
            "INSERT OR REPLACE INTO trace_bodies
                 (model_call_id, session_id, bytes, created_at, request, response)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(model_call_id)
        .bind(session_id)
        .bind((request.skeleton.len() + response.len()) as i64)
        .bind(crate::clock::now_ms())
        .bind(&request.skeleton)
        .bind(response)
        .execute(&mut *tx)
        .await?;
        let cap = i64::try_from(cap_bytes).unwrap_or(i64::MAX);
        if session_body_bytes(&mut tx, session_id).await? > cap {
            // Down to 90% at once, so a session at its cap is not trimmed at every call.
            let target = cap / 10 * 9;
            while session_body_bytes(&mut tx, session_id).await? > target {
                let (count,): (i64,) =
                    sqlx::query_as("SELECT COUNT(*) FROM trace_bodies WHERE session_id = ?")
                        .bind(session_id)
                        .fetch_one(&mut *tx)
                        .await?;
                if count == 0 {
                    break;
                }
                sqlx::query(
                    "DELETE FROM trace_bodies WHERE model_call_id IN (
                         SELECT model_call_id FROM trace_bodies WHERE session_id = ?
                         ORDER BY created_at, rowid LIMIT ?)",
                )
                .bind(session_id)
                .bind((count / 10).max(1))
                .execute(&mut *tx)
                .await?;
                drop_unnamed_parts(&mut tx, session_id).await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// The recorded answers of a session (`model_call_id`, response), oldest first.
    pub async fn responses(&self, session_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT model_call_id, response FROM trace_bodies
             WHERE session_id = ? ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }

    /// The model calls of a session whose bodies are kept.
    pub async fn body_ids(&self, session_id: &str) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT model_call_id FROM trace_bodies WHERE session_id = ?")
                .bind(session_id)
                .fetch_all(&mut *self.conn().await?)
                .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// The kept bodies of model call `model_call_id`: its skeleton with the parts it
    /// names (see `trace::bodies::join`), and its response.
    pub async fn body(&self, model_call_id: &str) -> Result<Option<BodyRow>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(String, String, String, i64)> = sqlx::query_as(
            "SELECT session_id, request, response, created_at FROM trace_bodies
             WHERE model_call_id = ?",
        )
        .bind(model_call_id)
        .fetch_optional(&mut *conn)
        .await?;
        let Some((session_id, skeleton, response, created_at)) = row else {
            return Ok(None);
        };
        let mut parts = HashMap::new();
        for chunk in part_hashes(&skeleton).chunks(PARTS_PER_STATEMENT) {
            let mut select = of_parts("SELECT hash, text", &session_id, chunk);
            let rows: Vec<(String, String)> = select.build_query_as().fetch_all(&mut *conn).await?;
            parts.extend(rows);
        }
        Ok(Some(BodyRow {
            model_call_id: model_call_id.to_string(),
            session_id,
            skeleton,
            parts,
            response,
            created_at,
        }))
    }

    /// Bytes of the bodies recorded before `cutoff` (Unix ms) with the parts only they
    /// name, and with `delete` removes them: what `prune` drops of the sessions it
    /// keeps.
    pub async fn bodies_before(&self, cutoff: i64, delete: bool) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin().await?;
        let sessions: Vec<(String,)> =
            sqlx::query_as("SELECT DISTINCT session_id FROM trace_bodies WHERE created_at < ?")
                .bind(cutoff)
                .fetch_all(&mut *tx)
                .await?;
        let mut freed = 0;
        for (session_id,) in sessions {
            let before = session_body_bytes(&mut tx, &session_id).await?;
            sqlx::query("DELETE FROM trace_bodies WHERE session_id = ? AND created_at < ?")
                .bind(&session_id)
                .bind(cutoff)
                .execute(&mut *tx)
                .await?;
            drop_unnamed_parts(&mut tx, &session_id).await?;
            freed += before - session_body_bytes(&mut tx, &session_id).await?;
        }
        // A dry run measures by doing it, then takes it back.
        if delete {
            tx.commit().await?;
        } else {
            tx.rollback().await?;
        }
        Ok(u64::try_from(freed).unwrap_or(0))
    }

    /// Bytes of recorded bodies in all, their parts included (for `doctor`).
    pub async fn bodies_bytes(&self) -> Result<u64, StoreError> {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT (SELECT COALESCE(SUM(bytes), 0) FROM trace_bodies)
                  + (SELECT COALESCE(SUM(bytes), 0) FROM trace_parts)",
        )
        .fetch_one(&mut *self.conn().await?)
        .await?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

/// Parts named in one statement at most (four values each, under SQLite's limit).
const PARTS_PER_STATEMENT: usize = 500;

/// `<verb> FROM trace_parts` of session `session_id` whose hash is one of `hashes`.
fn of_parts(
    verb: &str,
    session_id: &str,
    hashes: &[impl AsRef<str>],
) -> sqlx::QueryBuilder<sqlx::Sqlite> {
    let mut query = sqlx::QueryBuilder::new(format!("{verb} FROM trace_parts WHERE session_id = "));
    query
        .push_bind(session_id.to_string())
        .push(" AND hash IN (");
    let mut list = query.separated(", ");
    for hash in hashes {
        list.push_bind(hash.as_ref().to_string());
    }
    query.push(")");
    query
}

/// What a session's kept bodies take: skeletons, responses and parts.
async fn session_body_bytes(
    conn: &mut sqlx::SqliteConnection,
    session_id: &str,
) -> Result<i64, StoreError> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT (SELECT COALESCE(SUM(bytes), 0) FROM trace_bodies WHERE session_id = ?1)
              + (SELECT COALESCE(SUM(bytes), 0) FROM trace_parts WHERE session_id = ?1)",
    )
    .bind(session_id)
    .fetch_one(conn)
    .await?;
    Ok(n)
}

/// Which of `hashes` the session keeps already.
async fn known_parts(
    conn: &mut sqlx::SqliteConnection,
    session_id: &str,
    hashes: &[&str],
) -> Result<HashSet<String>, StoreError> {
    let mut known = HashSet::new();
    for chunk in hashes.chunks(PARTS_PER_STATEMENT) {
        let mut select = of_parts("SELECT hash", session_id, chunk);
        let rows: Vec<(String,)> = select.build_query_as().fetch_all(&mut *conn).await?;
        known.extend(rows.into_iter().map(|(h,)| h));
    }
    Ok(known)
}

/// Removes the session's parts that no kept body names.
async fn drop_unnamed_parts(
    conn: &mut sqlx::SqliteConnection,
    session_id: &str,
) -> Result<(), StoreError> {
    let skeletons: Vec<(String,)> =
        sqlx::query_as("SELECT request FROM trace_bodies WHERE session_id = ?")
            .bind(session_id)
            .fetch_all(&mut *conn)
            .await?;
    let named: HashSet<String> = skeletons
        .iter()
        .flat_map(|(skeleton,)| part_hashes(skeleton))
        .collect();
    let kept: Vec<(String,)> = sqlx::query_as("SELECT hash FROM trace_parts WHERE session_id = ?")
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
    let unnamed: Vec<String> = kept
        .into_iter()
        .map(|(h,)| h)
        .filter(|h| !named.contains(h))
        .collect();
    for chunk in unnamed.chunks(PARTS_PER_STATEMENT) {
        of_parts("DELETE", session_id, chunk)
            .build()
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;
    use crate::trace::bodies::{join, split};

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
                .record_bodies(&id, &format!("m{n}"), &split(&body), "", 250)
                .await
                .unwrap();
        }
        let mut kept = store.body_ids(&id).await.unwrap();
        kept.sort();
        assert_eq!(kept, ["m3", "m4"]);
        assert_eq!(store.bodies_bytes().await.unwrap(), 200);
    }

    /// A request whose conversation has `n` messages of its own.
    fn request(n: usize) -> String {
        let messages: Vec<serde_json::Value> = (0..n)
            .map(|i| serde_json::json!({"role": "user", "content": format!("message {i} {}", "x".repeat(100))}))
            .collect();
        serde_json::json!({"system": "s".repeat(1_000), "tools": [], "messages": messages})
            .to_string()
    }

    #[tokio::test]
    async fn shared_parts_are_kept_once_and_go_with_the_last_body_naming_them() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&new_session("0191ab-3", "/p"))
            .await
            .unwrap()
            .id;
        for n in 1..=20 {
            store
                .record_bodies(
                    &id,
                    &format!("m{n:02}"),
                    &split(&request(n)),
                    "{}",
                    u64::MAX,
                )
                .await
                .unwrap();
        }
        // Twenty requests resend the system prompt and the conversation: each part is
        // kept once, and a request only names them.
        let whole: usize = (1..=20).map(|n| request(n).len()).sum();
        let kept = store.bodies_bytes().await.unwrap() as usize;
        assert!(kept * 3 < whole, "{kept} of {whole}");
        let body = store.body("m20").await.unwrap().unwrap();
        assert_eq!(join(&body.skeleton, &body.parts), request(20));
        // Pruning them all takes their parts too.
        let cutoff = crate::clock::now_ms() + 1;
        let freed = store.bodies_before(cutoff, false).await.unwrap();
        assert_eq!(freed as usize, kept, "everything is older than the cutoff");
        let last = store.body("m20").await.unwrap().unwrap();
        store.bodies_before(cutoff, true).await.unwrap();
        assert_eq!(store.bodies_bytes().await.unwrap(), 0);
        assert!(store.body("m20").await.unwrap().is_none());
        assert_eq!(join(&last.skeleton, &last.parts), request(20));
    }
}
