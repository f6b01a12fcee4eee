//! The `model_calls` row of one model call — the loop's, compaction's and a tool's own —
//! built in one place so every kind records the same fields the same way.

use crate::llm::{CallOutcome, ResolvedModel};
use crate::store::{ModelCallRow, Purpose};

/// Who made a call: the session, the turn (or [`crate::store::COMPACTION_TURN_ID`],
/// [`crate::store::tool_turn_id`]) and the agent (the session id for the main agent).
pub(super) struct CallOf<'a> {
    pub session_id: &'a str,
    pub turn_id: &'a str,
    pub agent_id: &'a str,
    pub purpose: Purpose,
}

/// The row of a call to `model`: usage, cost, latency and stop reason from `outcome`
/// when it succeeded, `error` when it failed. The id is a fresh one.
pub(super) fn call_row(
    of: CallOf<'_>,
    model: &ResolvedModel,
    outcome: Option<&CallOutcome>,
    error: Option<String>,
) -> ModelCallRow {
    let mut row = ModelCallRow {
        id: uuid::Uuid::now_v7().to_string(),
        session_id: of.session_id.to_string(),
        turn_id: of.turn_id.to_string(),
        agent_id: of.agent_id.to_string(),
        model: model.spec.clone(),
        error,
        purpose: Some(of.purpose.as_str().to_string()),
        ..ModelCallRow::default()
    };
    if let Some(o) = outcome {
        let u = &o.response.usage;
        row.request_bytes = o.request_bytes as i64;
        row.input_tokens = u.input_tokens as i64;
        row.output_tokens = u.output_tokens as i64;
        row.cache_read_tokens = u.cache_read_tokens as i64;
        row.cache_write_tokens = u.cache_write_tokens as i64;
        row.cost_usd = u.cost_usd;
        row.latency_ms = o.latency_ms as i64;
        row.stop_reason = Some(o.response.stop_reason.as_str().to_string());
        row.attempts = i64::from(o.attempts);
    }
    row
}
