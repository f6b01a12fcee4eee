//! A session's timeline as `session.trace` answers it (`roocode_protocol::trace`),
//! assembled from what the recorder and the event log keep: the turns, the model calls
//! of each (iterations), the tool calls each answer asked for, the compactions,
//! recoveries, injections and rewinds of the log, and — recursively — the sub-agents
//! and teammates, each under the turn of the agent that started it.
//!
//! Everything is matched by time and log order, not by ids a crash could leave
//! unwritten: a model call belongs to the turn it names, a tool call to the last model
//! call of its turn recorded before it started, an event to the turn whose
//! `turn_started` precedes it in the log, an agent to the turn of its parent running
//! when it started.

use std::future::Future;
use std::pin::Pin;

use roocode_protocol::event::{Event, EventPayload};
use roocode_protocol::session::SessionKind;
use roocode_protocol::trace::{
    AgentTrace, IterationTrace, RequestParts, SessionTrace, StepTrace, ToolTrace, TurnTrace,
};

use crate::store::{ModelCallRow, Store, StoreError, ToolCallRow};

/// The format version `SessionTrace::version` carries.
pub const VERSION: u32 = 1;

/// Event kinds a trace shows as steps, with the turn markers that place them.
const STEP_KINDS: &[&str] = &[
    "turn_started",
    "compaction",
    "recovery",
    "injected",
    "rewound",
    "context_cleared",
    "error",
];

/// The timeline of session `id` (the main agent's session, or any agent's).
pub async fn session_trace(store: &Store, id: &str) -> Result<SessionTrace, StoreError> {
    let agent = agent_trace(store, id.to_string(), 0).await?;
    Ok(SessionTrace {
        session_id: id.to_string(),
        version: VERSION,
        agent,
    })
}

/// Agents nest this deep at most (a loop in the rows cannot recurse forever).
const MAX_DEPTH: u32 = 16;

fn agent_trace(
    store: &Store,
    id: String,
    depth: u32,
) -> Pin<Box<dyn Future<Output = Result<AgentTrace, StoreError>> + Send + '_>> {
    Box::pin(async move {
        let session = store.session(&id).await?;
        let agent = store.agent(&id).await?;
        let kind = match session.as_ref().map(|s| s.kind) {
            Some(SessionKind::SubAgent) => "sub_agent",
            Some(SessionKind::Teammate) => "teammate",
            _ => "main",
        };
        let turns = store.session_turns(&id).await?;
        let calls = store.model_calls(&id).await?;
        let tools = store.tool_calls(&id).await?;
        let events = store.events_of_kinds(&id, STEP_KINDS).await?;
        let mut traced: Vec<TurnTrace> = turns
            .iter()
            .enumerate()
            .map(|(i, t)| TurnTrace {
                number: i as u32 + 1,
                turn_id: t.turn_id.clone(),
                started_at: t.started_at,
                ended_at: t.ended_at,
                stop_reason: t.stop_reason.clone(),
                prompt: t.prompt.clone().unwrap_or_default(),
                iterations: Vec::new(),
                steps: Vec::new(),
                agents: Vec::new(),
            })
            .collect();
        let with_bodies: std::collections::HashSet<String> =
            store.body_ids(&id).await?.into_iter().collect();
        for call in &calls {
            if let Some(turn) = traced.iter_mut().find(|t| t.turn_id == call.turn_id) {
                let mut it = iteration(call);
                it.has_bodies = with_bodies.contains(&call.id);
                turn.iterations.push(it);
            }
        }
        let answerers = answerers(store, &id).await?;
        for tool in &tools {
            let Some(turn) = traced.iter_mut().find(|t| t.turn_id == tool.turn_id) else {
                continue;
            };
            let at = |c: &IterationTrace| c.at <= tool.started_at;
            let slot = match turn.iterations.iter().rposition(at) {
                Some(i) => i,
                None if !turn.iterations.is_empty() => 0,
                None => continue,
            };
            let mut traced_tool = tool_trace(tool);
            if let (Some(answer), Some(by)) =
                (&traced_tool.answered_by, answerers.get(&tool.call_id))
            {
                traced_tool.answered_by = Some(format!("{answer} by {by}"));
            }
            turn.iterations[slot].tools.push(traced_tool);
        }
        place_steps(&mut traced, &events);
        let mut unplaced = Vec::new();
        if depth < MAX_DEPTH {
            for child in store.children(&id).await? {
                let started = child.started_at;
                let child_trace = agent_trace(store, child.id.clone(), depth + 1).await?;
                let turn = traced.iter_mut().rev().find(|t| {
                    t.started_at <= started && t.ended_at.is_none_or(|end| started <= end)
                });
                match turn {
                    Some(turn) => turn.agents.push(child_trace),
                    None => unplaced.push(child_trace),
                }
            }
        }
        Ok(AgentTrace {
            agent_id: id.clone(),
            kind: kind.to_string(),
            name: agent.as_ref().map(|a| a.name.clone()).unwrap_or_default(),
            agent_type: agent.map(|a| a.agent_type).unwrap_or_default(),
            turns: traced,
            agents: unplaced,
        })
    })
}

/// Who answered each call's permission request (`cli (pid 4242)`), by call id, from
/// the log's `permission_request` and `permission_resolved` events.
async fn answerers(
    store: &Store,
    id: &str,
) -> Result<std::collections::HashMap<String, String>, StoreError> {
    let events = store
        .events_of_kinds(id, &["permission_request", "permission_resolved"])
        .await?;
    let mut calls = std::collections::HashMap::new();
    let mut out = std::collections::HashMap::new();
    for ev in events {
        match ev.payload {
            EventPayload::PermissionRequest {
                request_id,
                call_id,
                ..
            } => {
                calls.insert(request_id, call_id);
            }
            EventPayload::PermissionResolved {
                request_id,
                decided_by,
                ..
            } => {
                if let Some(call_id) = calls.get(&request_id) {
                    let by = match decided_by.pid {
                        Some(pid) => format!("{} (pid {pid})", decided_by.kind),
                        None => decided_by.kind,
                    };
                    out.insert(call_id.clone(), by);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn iteration(call: &ModelCallRow) -> IterationTrace {
    let n = |v: i64| u64::try_from(v).unwrap_or(0);
    let (read, write, input) = (
        n(call.cache_read_tokens),
        n(call.cache_write_tokens),
        n(call.input_tokens),
    );
    let all = read + write + input;
    IterationTrace {
        model_call_id: call.id.clone(),
        iteration: call
            .iteration
            .and_then(|i| u32::try_from(i).ok())
            .unwrap_or(0),
        model: call.model.clone(),
        at: call.created_at,
        request_bytes: n(call.request_bytes),
        parts: call
            .parts
            .as_deref()
            .and_then(|p| serde_json::from_str::<RequestParts>(p).ok())
            .unwrap_or_default(),
        input_tokens: input,
        output_tokens: n(call.output_tokens),
        cache_read_tokens: read,
        cache_write_tokens: write,
        cache_hit_ratio: if all == 0 {
            0.0
        } else {
            read as f64 / all as f64
        },
        ttft_ms: call.ttft_ms.map(n),
        latency_ms: n(call.latency_ms),
        stop_reason: call.stop_reason.clone(),
        error: call.error.clone(),
        cost_usd: call.cost_usd,
        tools: Vec::new(),
        has_bodies: false,
    }
}

fn tool_trace(row: &ToolCallRow) -> ToolTrace {
    let decided_by: serde_json::Value =
        serde_json::from_str(&row.decided_by).unwrap_or(serde_json::Value::Null);
    let layer = decided_by
        .get("layer")
        .and_then(|l| l.as_str())
        .unwrap_or("unknown")
        .to_string();
    let why = decided_by
        .get("why")
        .and_then(|w| w.as_str())
        .unwrap_or_default()
        .to_string();
    ToolTrace {
        call_id: row.call_id.clone(),
        tool: row.tool.clone(),
        input: row.input.clone(),
        decision: row.decision.clone(),
        layer,
        decided_by,
        why,
        answered_by: row.answered_by.clone(),
        outcome: row.outcome.clone(),
        error: row.error.clone(),
        started_at: row.started_at,
        duration_ms: u64::try_from(row.duration_ms).unwrap_or(0),
    }
}

/// Puts each step event under the turn whose `turn_started` came before it.
fn place_steps(turns: &mut [TurnTrace], events: &[Event]) {
    let mut current: Option<usize> = None;
    for ev in events {
        if let EventPayload::TurnStarted { turn_id } = &ev.payload {
            current = turns.iter().position(|t| &t.turn_id == turn_id);
            continue;
        }
        let Some(text) = step_text(&ev.payload) else {
            continue;
        };
        // An injection names its turn; the rest go with the turn running then.
        let slot = match &ev.payload {
            EventPayload::Injected { turn_id, .. } => {
                turns.iter().position(|t| &t.turn_id == turn_id).or(current)
            }
            _ => current,
        };
        let Some(turn) = slot.and_then(|i| turns.get_mut(i)) else {
            continue;
        };
        turn.steps.push(StepTrace {
            kind: ev.payload.kind().to_string(),
            seq: ev.seq,
            ts: ev.ts.clone(),
            text,
            detail: serde_json::to_value(&ev.payload).unwrap_or_default(),
        });
    }
}

/// One line for a step event; `None` for the events that are not steps.
fn step_text(payload: &EventPayload) -> Option<String> {
    Some(match payload {
        EventPayload::Compaction {
            before_tokens,
            after_tokens,
            summarized,
            kept,
            how,
        } => {
            let cut = match how.as_deref() {
                Some("dropped") => format!(", {summarized} messages dropped, {kept} kept"),
                Some(_) => format!(", {summarized} messages summarized, {kept} kept"),
                None => String::new(),
            };
            format!("compacted: {before_tokens} → {after_tokens} tokens{cut}")
        }
        EventPayload::Recovery {
            category,
            strategy,
            attempt,
            max,
            message,
            ..
        } => format!("recovery: {category}, {strategy} {attempt}/{max}: {message}"),
        EventPayload::Injected { kind, text, .. } => {
            let first = text.lines().next().unwrap_or("");
            format!("injected ({kind}): {first}")
        }
        EventPayload::Rewound {
            turn,
            restored,
            removed,
            messages_removed,
            ..
        } => format!(
            "rewound to before turn {turn}: {restored} restored, {removed} removed, {messages_removed} messages cut"
        ),
        EventPayload::ContextCleared => "context cleared".to_string(),
        EventPayload::Error { error } => format!("error: {}", error.message),
        _ => return None,
    })
}
