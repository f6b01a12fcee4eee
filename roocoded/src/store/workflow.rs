//! The state of workflow functions (migration 0013): per agent and function a
//! `workflow_functions` row (phase, membership of the active set, where it was
//! activated, evidence, tools seen, continuations, key-value store, what the model was
//! last told), per agent its counters (`workflow_agents`), and per session the
//! artifacts captured (`workflow_artifacts`; their text is a file, see
//! `agent::workflow::artifacts`). A phase this build does not know reads as gated.

use std::collections::BTreeMap;

use roocode_protocol::workflow::FunctionPhase;
use sqlx::{Connection as _, SqliteConnection};

use super::{Store, StoreError};

/// One function's state in one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionRow {
    pub name: String,
    pub phase: FunctionPhase,
    /// In the agent's active set.
    pub active: bool,
    pub locked: bool,
    /// The activation's arguments, as JSON.
    pub args: String,
    /// The agent's model-call count when it was activated.
    pub activated_at: u32,
    /// The agent's genuine user-message count when it was activated.
    pub activated_message: u32,
    pub evidence: Vec<String>,
    pub tools: Vec<String>,
    pub continuations: u32,
    pub kv: BTreeMap<String, String>,
    /// A digest of what the model was last told of it.
    pub told: Option<String>,
}

impl FunctionRow {
    /// A function activated now (`counters`: the agent's).
    pub fn new(name: &str, locked: bool, args: String, counters: &AgentCounters) -> Self {
        FunctionRow {
            name: name.to_string(),
            phase: FunctionPhase::Active,
            active: true,
            locked,
            args,
            activated_at: counters.iteration,
            activated_message: counters.user_messages,
            evidence: Vec::new(),
            tools: Vec::new(),
            continuations: 0,
            kv: BTreeMap::new(),
            told: None,
        }
    }
}

/// An agent's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AgentCounters {
    /// Model calls so far.
    pub iteration: u32,
    /// Genuine user messages delivered so far.
    pub user_messages: u32,
    /// The number of the user message the current turn delivered last (0: none).
    pub turn_message: u32,
}

/// An artifact's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactRow {
    pub name: String,
    pub function: Option<String>,
    pub bytes: u64,
    pub digest: String,
    pub updated_at: i64,
}

type FunctionTuple = (
    String,
    String,
    bool,
    bool,
    String,
    i64,
    i64,
    String,
    String,
    i64,
    String,
    Option<String>,
);

fn to_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

/// A JSON column; a damaged one reads as empty (the state starts that part again).
fn json_or_default<T: serde::de::DeserializeOwned + Default>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_default()
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// Inserts or replaces one function's row.
async fn upsert_function(
    conn: &mut SqliteConnection,
    session_id: &str,
    row: &FunctionRow,
    iteration: u32,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO workflow_functions (session_id, name, phase, active, locked, args,
             activated_at, activated_message, iteration, evidence, tools, continuations,
             kv, told, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?15, ?9, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT (session_id, name) DO UPDATE SET
             phase = excluded.phase, active = excluded.active, locked = excluded.locked,
             args = excluded.args, activated_at = excluded.activated_at,
             activated_message = excluded.activated_message, iteration = excluded.iteration,
             evidence = excluded.evidence, tools = excluded.tools,
             continuations = excluded.continuations, kv = excluded.kv, told = excluded.told,
             updated_at = excluded.updated_at",
    )
    .bind(session_id)
    .bind(&row.name)
    .bind(row.phase.as_str())
    .bind(row.active)
    .bind(row.locked)
    .bind(&row.args)
    .bind(i64::from(row.activated_at))
    .bind(i64::from(row.activated_message))
    .bind(to_json(&row.evidence))
    .bind(to_json(&row.tools))
    .bind(i64::from(row.continuations))
    .bind(to_json(&row.kv))
    .bind(&row.told)
    .bind(crate::clock::now_ms())
    .bind(i64::from(iteration))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

impl Store {
    /// The functions of `session_id`, by name.
    pub async fn workflow_functions(
        &self,
        session_id: &str,
    ) -> Result<Vec<FunctionRow>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<FunctionTuple> = sqlx::query_as(
            "SELECT name, phase, active, locked, args, activated_at, activated_message,
                    evidence, tools, continuations, kv, told
             FROM workflow_functions WHERE session_id = ? ORDER BY name",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| FunctionRow {
                name: r.0,
                phase: FunctionPhase::parse(&r.1).unwrap_or(FunctionPhase::Gated),
                active: r.2,
                locked: r.3,
                args: r.4,
                activated_at: to_u32(r.5),
                activated_message: to_u32(r.6),
                evidence: json_or_default(&r.7),
                tools: json_or_default(&r.8),
                continuations: to_u32(r.9),
                kv: json_or_default(&r.10),
                told: r.11,
            })
            .collect())
    }

    /// Writes `row` (inserted, or replacing the function's row).
    pub async fn save_function(
        &self,
        session_id: &str,
        row: &FunctionRow,
    ) -> Result<(), StoreError> {
        self.save_workflow(session_id, &[row], row.activated_at, &[])
            .await
    }

    /// Writes the functions' `rows` (the agent at model call `iteration`) and queues
    /// `texts` in the agent's inbox, in one transaction: what the rows say the model was
    /// told is never recorded without the texts that tell it.
    pub async fn save_workflow(
        &self,
        session_id: &str,
        rows: &[&FunctionRow],
        iteration: u32,
        texts: &[String],
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        for row in rows {
            upsert_function(&mut tx, session_id, row, iteration).await?;
        }
        for text in texts {
            super::inbox::insert_injection(
                &mut tx,
                session_id,
                super::InjectionKind::Workflow,
                text,
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Forgets what the model was told of the agent's functions (`/clear`, a
    /// compaction): the next model call tells it again.
    pub async fn forget_told_functions(&self, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query("UPDATE workflow_functions SET told = NULL WHERE session_id = ?")
            .bind(session_id)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// A genuine user message: every function's continuations start over.
    pub async fn reset_continuations(&self, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query("UPDATE workflow_functions SET continuations = 0 WHERE session_id = ?")
            .bind(session_id)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// The agent's counters (zero before its first).
    pub async fn workflow_counters(&self, session_id: &str) -> Result<AgentCounters, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(i64, i64, i64)> = sqlx::query_as(
            "SELECT iteration, user_messages, turn_message FROM workflow_agents WHERE session_id = ?",
        )
        .bind(session_id)
        .fetch_optional(&mut *conn)
        .await?;
        Ok(
            row.map_or_else(AgentCounters::default, |(i, u, t)| AgentCounters {
                iteration: to_u32(i),
                user_messages: to_u32(u),
                turn_message: to_u32(t),
            }),
        )
    }

    /// Adds to the agent's counters: `calls` model calls, `messages` genuine user
    /// messages (a message also becomes the turn's); `new_turn` clears the turn's
    /// message first. Returns the counters after.
    pub async fn count_workflow(
        &self,
        session_id: &str,
        calls: u32,
        messages: u32,
        new_turn: bool,
    ) -> Result<AgentCounters, StoreError> {
        let mut conn = self.conn().await?;
        let (i, u, t): (i64, i64, i64) = sqlx::query_as(
            "INSERT INTO workflow_agents (session_id, iteration, user_messages, turn_message)
             VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT (session_id) DO UPDATE SET
                 iteration = iteration + ?2,
                 user_messages = user_messages + ?3,
                 turn_message = CASE WHEN ?3 > 0 THEN user_messages + ?3
                                     WHEN ?4 THEN 0 ELSE turn_message END
             RETURNING iteration, user_messages, turn_message",
        )
        .bind(session_id)
        .bind(i64::from(calls))
        .bind(i64::from(messages))
        .bind(new_turn)
        .fetch_one(&mut *conn)
        .await?;
        Ok(AgentCounters {
            iteration: to_u32(i),
            user_messages: to_u32(u),
            turn_message: to_u32(t),
        })
    }

    /// Records that the artifact `name` of `session_id` was (re)written.
    pub async fn record_artifact(
        &self,
        session_id: &str,
        name: &str,
        function: Option<&str>,
        bytes: u64,
        digest: &str,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query(
            "INSERT INTO workflow_artifacts (session_id, name, function, bytes, digest, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (session_id, name) DO UPDATE SET
                 function = excluded.function, bytes = excluded.bytes,
                 digest = excluded.digest, updated_at = excluded.updated_at",
        )
        .bind(session_id)
        .bind(name)
        .bind(function)
        .bind(i64::try_from(bytes).unwrap_or(i64::MAX))
        .bind(digest)
        .bind(crate::clock::now_ms())
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// The artifacts of `session_id`, by name.
    pub async fn artifacts(&self, session_id: &str) -> Result<Vec<ArtifactRow>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(String, Option<String>, i64, String, i64)> = sqlx::query_as(
            "SELECT name, function, bytes, digest, updated_at FROM workflow_artifacts
             WHERE session_id = ? ORDER BY name",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(name, function, bytes, digest, updated_at)| ArtifactRow {
                name,
                function,
                bytes: u64::try_from(bytes.max(0)).unwrap_or(0),
                digest,
                updated_at,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn a_function_row_round_trips_and_counters_count() {
        let store = Store::memory().await.unwrap();
        let session = store
            .insert_session(&new_session("0191ab-1", "/p"))
            .await
            .unwrap()
            .id;
        let counters = store.count_workflow(&session, 2, 1, true).await.unwrap();
        assert_eq!(
            counters,
            AgentCounters {
                iteration: 2,
                user_messages: 1,
                turn_message: 1
            }
        );
        let mut row = FunctionRow::new("plan", false, "{}".into(), &counters);
        row.evidence.push("tests_pass".into());
        row.kv.insert("review".into(), "passed".into());
        row.phase = FunctionPhase::Gated;
        row.told = Some("abc".into());
        store.save_function(&session, &row).await.unwrap();
        assert_eq!(
            store.workflow_functions(&session).await.unwrap(),
            [row.clone()]
        );
        store.forget_told_functions(&session).await.unwrap();
        assert_eq!(
            store.workflow_functions(&session).await.unwrap()[0].told,
            None
        );
        // A new turn without a message clears the turn's message; a message sets it.
        let after = store.count_workflow(&session, 1, 0, true).await.unwrap();
        assert_eq!((after.iteration, after.turn_message), (3, 0));
        let after = store.count_workflow(&session, 0, 1, false).await.unwrap();
        assert_eq!((after.user_messages, after.turn_message), (2, 2));
        store
            .record_artifact(&session, "plan", Some("plan"), 12, "d1")
            .await
            .unwrap();
        store
            .record_artifact(&session, "plan", None, 14, "d2")
            .await
            .unwrap();
        let artifacts = store.artifacts(&session).await.unwrap();
        assert_eq!(artifacts.len(), 1);
        assert_eq!(
            (artifacts[0].bytes, artifacts[0].digest.as_str()),
            (14, "d2")
        );
    }
}
