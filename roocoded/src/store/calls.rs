//! The `model_calls` table: one row per provider request, so a session can be traced
//! call by call (model, size, tokens, latency, stop reason, attempts), and summed per
//! agent, purpose and model for `/cost` ([`Store::call_totals`]).
//!
//! What a call was for is read from its `turn_id`: the agent loop records the turn it
//! belongs to; calls made outside the loop record their purpose instead —
//! [`COMPACTION_TURN_ID`] for summary compaction, [`tool_turn_id`] (`tool:WebFetch`)
//! for a model call a tool makes itself.

use super::{Store, StoreError};
use crate::clock;

/// `turn_id` of the calls summary compaction makes (by hand or automatically).
pub const COMPACTION_TURN_ID: &str = "compaction";

/// Prefix of the `turn_id` of a model call made by a tool (see [`tool_turn_id`]).
const TOOL_TURN_PREFIX: &str = "tool:";

/// The `turn_id` recorded for a model call the tool `tool` makes (`tool:WebFetch`).
pub fn tool_turn_id(tool: &str) -> String {
    format!("{TOOL_TURN_PREFIX}{tool}")
}

/// What [`Store::call_totals`] names the agent loop's own calls.
pub const CONVERSATION_PURPOSE: &str = "conversation";

/// What a model call was for, as its `purpose` column says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The agent loop's call of an iteration.
    Conversation,
    /// Recovery's tool-less note of where the task stands (`summarize`).
    Summarize,
    /// Summary compaction.
    Compaction,
    /// WebFetch's reading of a page.
    WebFetch,
    /// A collaboration graph's `converged` judge.
    Judge,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Conversation => CONVERSATION_PURPOSE,
            Purpose::Summarize => "summarize",
            Purpose::Compaction => COMPACTION_TURN_ID,
            Purpose::WebFetch => "tool:WebFetch",
            Purpose::Judge => "workflow:judge",
        }
    }
}

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
    /// The loop's iteration in its turn (1 for the first call), for loop calls.
    pub iteration: Option<i64>,
    /// From sending the request to its stream's first event.
    pub ttft_ms: Option<i64>,
    /// The request's size by part, as JSON (`trace::parts::RequestParts`).
    pub parts: Option<String>,
    /// What the call was for (see [`Purpose`]); `None` in rows older than the column.
    pub purpose: Option<String>,
    /// When it was recorded (its end); set by the store.
    pub created_at: i64,
}

impl Store {
    pub async fn record_model_call(&self, c: &ModelCallRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO model_calls (id, session_id, turn_id, agent_id, model, request_bytes, input_tokens,
                output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, stop_reason,
                attempts, error, created_at, iteration, ttft_ms, parts, purpose)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        .bind(c.iteration)
        .bind(c.ttft_ms)
        .bind(&c.parts)
        .bind(&c.purpose)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// The model calls of a session, oldest first.
    pub async fn model_calls(&self, session_id: &str) -> Result<Vec<ModelCallRow>, StoreError> {
        Ok(sqlx::query_as::<_, ModelCallRow>(
            "SELECT id, session_id, turn_id, agent_id, model, request_bytes, input_tokens, output_tokens,
                cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, stop_reason, attempts, error,
                iteration, ttft_ms, parts, purpose, created_at
             FROM model_calls WHERE session_id = ? ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }
}

/// The sums of a session's model calls made by one agent, for one purpose, with one
/// model (a row of [`Store::call_totals`]).
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct CallTotals {
    pub agent_id: String,
    /// [`CONVERSATION_PURPOSE`] (the agent loop), [`COMPACTION_TURN_ID`], or the name of
    /// the tool that made the calls (`WebFetch`).
    pub purpose: String,
    pub model: String,
    pub calls: i64,
    /// Calls that ended in an error (they recorded no tokens).
    pub failed_calls: i64,
    /// Calls that succeeded without a cost: their model has no known price.
    pub unpriced_calls: i64,
    /// Requests repeated by the calls that succeeded (after rate limits, overload or
    /// broken streams); a failed call records no count of its attempts.
    pub retries: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
    /// The sum of the known costs; `None` when no call has one. The group's whole cost
    /// only when `unpriced_calls` is 0.
    pub known_cost_usd: Option<f64>,
    pub latency_ms: i64,
}

impl Store {
    /// A session's model calls summed per agent, purpose and model, in the order each
    /// group was first used. Sums are made by SQLite: the calls are never loaded.
    /// Its sub-agents' calls (recorded in their own sessions) roll up into it.
    pub async fn call_totals(&self, session_id: &str) -> Result<Vec<CallTotals>, StoreError> {
        // The purpose expression must match COMPACTION_TURN_ID, TOOL_TURN_PREFIX and
        // CONVERSATION_PURPOSE above (the tests below record with those). Grouped by
        // position: the name `purpose` is also a column (what the flight recorder keeps,
        // which sums a recovery summary with the conversation here).
        Ok(sqlx::query_as::<_, CallTotals>(
            "SELECT agent_id,
                CASE WHEN turn_id = 'compaction' THEN 'compaction'
                     WHEN substr(turn_id, 1, 5) = 'tool:' THEN substr(turn_id, 6)
                     ELSE 'conversation' END AS purpose,
                model,
                COUNT(*) AS calls,
                COUNT(error) AS failed_calls,
                SUM(error IS NULL AND cost_usd IS NULL) AS unpriced_calls,
                SUM(CASE WHEN error IS NULL THEN attempts - 1 ELSE 0 END) AS retries,
                SUM(input_tokens) AS input_tokens,
                SUM(output_tokens) AS output_tokens,
                SUM(cache_read_tokens) AS cache_read_tokens,
                SUM(cache_write_tokens) AS cache_write_tokens,
                SUM(cost_usd) AS known_cost_usd,
                SUM(latency_ms) AS latency_ms
             FROM model_calls
             WHERE session_id = ?1
                OR session_id IN (SELECT session_id FROM agents WHERE parent_id = ?1)
             GROUP BY 1, 2, 3
             ORDER BY MIN(created_at), MIN(rowid)",
        )
        .bind(session_id)
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }
}

#[cfg(test)]
mod tests {
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
        let got = store.model_calls("s1").await.unwrap();
        assert!(got[0].created_at > 0, "the store stamps it");
        let call = ModelCallRow {
            created_at: got[0].created_at,
            ..call
        };
        assert_eq!(got, vec![call]);
    }

    /// A successful call of `agent` for `turn` with `model`, `input` tokens and `cost`.
    fn call(
        id: &str,
        agent: &str,
        turn: &str,
        model: &str,
        input: i64,
        cost: Option<f64>,
    ) -> ModelCallRow {
        ModelCallRow {
            id: id.into(),
            session_id: "s1".into(),
            turn_id: turn.into(),
            agent_id: agent.into(),
            model: model.into(),
            input_tokens: input,
            output_tokens: input / 10,
            cache_read_tokens: 1,
            cache_write_tokens: 2,
            cost_usd: cost,
            latency_ms: 100,
            attempts: 1,
            ..ModelCallRow::default()
        }
    }

    #[tokio::test]
    async fn totals_per_agent_purpose_and_model_keep_unknown_costs_apart() {
        let store = Store::memory().await.unwrap();
        for s in ["s1", "other"] {
            store.insert_session(&new_session(s, "/p")).await.unwrap();
        }
        let webfetch = tool_turn_id("WebFetch");
        let calls = [
            call("c1", "s1", "t1", "a/priced", 1000, Some(0.5)),
            call("c2", "s1", "t1", "a/priced", 2000, Some(0.25)),
            call("c3", "s1", COMPACTION_TURN_ID, "a/priced", 300, Some(0.125)),
            call("c4", "s1", &webfetch, "a/priced", 40, Some(0.0625)),
            // A sub-agent on a model without a price: a call that succeeded on its third
            // attempt, and one that failed.
            ModelCallRow {
                attempts: 3,
                ..call("c5", "agent-7", "t2", "b/unpriced", 500, None)
            },
            ModelCallRow {
                error: Some("overloaded".into()),
                attempts: 5,
                ..call("c6", "agent-7", "t2", "b/unpriced", 0, None)
            },
            // The same sub-agent also on the priced model.
            call("c7", "agent-7", "t2", "a/priced", 10, Some(1.0)),
        ];
        for c in &calls {
            store.record_model_call(c).await.unwrap();
        }
        store
            .record_model_call(&ModelCallRow {
                session_id: "other".into(),
                ..call("x1", "other", "t9", "a/priced", 99, Some(9.0))
            })
            .await
            .unwrap();

        let totals = store.call_totals("s1").await.unwrap();
        let keys: Vec<_> = totals
            .iter()
            .map(|t| {
                (
                    t.agent_id.as_str(),
                    t.purpose.as_str(),
                    t.model.as_str(),
                    t.calls,
                )
            })
            .collect();
        assert_eq!(
            keys,
            vec![
                ("s1", CONVERSATION_PURPOSE, "a/priced", 2),
                ("s1", COMPACTION_TURN_ID, "a/priced", 1),
                ("s1", "WebFetch", "a/priced", 1),
                ("agent-7", CONVERSATION_PURPOSE, "b/unpriced", 2),
                ("agent-7", CONVERSATION_PURPOSE, "a/priced", 1),
            ]
        );
        assert_eq!(
            totals[0],
            CallTotals {
                agent_id: "s1".into(),
                purpose: CONVERSATION_PURPOSE.into(),
                model: "a/priced".into(),
                calls: 2,
                failed_calls: 0,
                unpriced_calls: 0,
                retries: 0,
                input_tokens: 3000,
                output_tokens: 300,
                cache_read_tokens: 2,
                cache_write_tokens: 4,
                known_cost_usd: Some(0.75),
                latency_ms: 200,
            }
        );
        let unpriced = &totals[3];
        assert_eq!(
            (
                unpriced.failed_calls,
                unpriced.unpriced_calls,
                unpriced.retries
            ),
            (1, 1, 2),
            "the failed call is counted as failed, neither as unpriced nor as retried"
        );
        assert_eq!(unpriced.known_cost_usd, None, "no known cost is not $0");
        assert_eq!(unpriced.input_tokens, 500);
        assert!(store.call_totals("nobody").await.unwrap().is_empty());
    }
}
