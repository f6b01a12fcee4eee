//! Runs the tool calls of one model response: each call is looked up, its input
//! validated against the tool's schema, checked by `permission` (the only place that
//! decides), then executed. Consecutive concurrency-safe calls run together; results
//! come back in call order, one per call.

use std::sync::Arc;
use std::time::Instant;

use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::EventPayload;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::runtime::SessionRuntime;
use super::turn::INTERRUPTED_BY_USER;
use super::{AgentError, Agents};
use crate::permission::{Decision, PermissionGate};
use crate::store::SessionRow;
use crate::tools::{self, ProgressFn, ToolContext, ToolError, ToolOutput};

/// How many safe calls of one batch run at once.
const MAX_PARALLEL: usize = 8;

/// A tool call asked for by the model.
#[derive(Debug, Clone)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// The result of one call.
pub struct CallResult {
    pub block: ContentBlock,
    /// The tool does not exist or is disabled (three in a row end the turn).
    pub unknown_tool: bool,
}

/// What one call produced, before it becomes a content block and an event.
struct Outcome {
    output: ToolOutput,
    unknown_tool: bool,
    duration_ms: u64,
}

/// Runs `calls` and returns one result per call, in call order.
pub async fn run_calls(
    agents: &Arc<Agents>,
    rt: &Arc<SessionRuntime>,
    row: &SessionRow,
    turn_id: &str,
    calls: &[Call],
    cancel: &CancellationToken,
) -> Result<Vec<CallResult>, AgentError> {
    let env = agents.env_of(rt).await;
    let config = agents.config(std::path::Path::new(&row.root))?;
    let base = ToolContext {
        session_id: row.id.clone(),
        cwd: row.cwd.clone().into(),
        root: row.root.clone().into(),
        additional_dirs: config.additional_directories(),
        readable_dirs: vec![agents.paths.data_dir.join("tool-results").join(&row.id)],
        cancel: cancel.clone(),
        env: env.vars,
        files: rt.files.clone(),
        turn_id: turn_id.to_string(),
        data_dir: agents.paths.data_dir.clone(),
        progress: None,
        shell: rt.shell.clone(),
        processes: None,
    };
    let gate = PermissionGate::new(&row.mode);
    let registry = &agents.tools;
    let is_safe = |c: &Call| {
        registry
            .get(&c.name)
            .is_some_and(|t| t.is_concurrency_safe(&c.input))
    };

    // Live output of running calls becomes `tool_output` events, in arrival order.
    let (live_tx, mut live_rx) = mpsc::unbounded_channel::<(String, String)>();
    let forward = async {
        while let Some((call_id, text)) = live_rx.recv().await {
            let ev = EventPayload::ToolOutput { call_id, text };
            if let Err(e) = agents.events().append(&row.id, &row.id, ev).await {
                tracing::error!("cannot record tool output: {e}");
            }
        }
    };
    let gate = &gate;
    let base = &base;
    let run = async move {
        let mut results = Vec::with_capacity(calls.len());
        for batch in tools::partition(calls, is_safe) {
            for call in batch {
                let ev = EventPayload::ToolCall {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    input: call.input.clone(),
                };
                agents.events().append(&row.id, &row.id, ev).await?;
            }
            let mut outcomes: Vec<Outcome> = Vec::with_capacity(batch.len());
            for chunk in batch.chunks(MAX_PARALLEL) {
                let runs: Vec<_> = chunk
                    .iter()
                    .map(|call| {
                        let tx = live_tx.clone();
                        let call_id = call.id.clone();
                        let ctx = ToolContext {
                            progress: Some(ProgressFn(Arc::new(move |text: &str| {
                                let _ = tx.send((call_id.clone(), text.to_string()));
                            }))),
                            ..base.clone()
                        };
                        async move { run_one(agents, gate, &ctx, call).await }
                    })
                    .collect();
                outcomes.extend(futures_util::future::join_all(runs).await);
            }
            for (outcome, call) in outcomes.into_iter().zip(batch) {
                let out = outcome.output;
                let ev = EventPayload::ToolResult {
                    call_id: call.id.clone(),
                    output: out.content.clone(),
                    is_error: out.is_error,
                    duration_ms: outcome.duration_ms,
                    diff: out.diff,
                };
                agents.events().append(&row.id, &row.id, ev).await?;
                results.push(CallResult {
                    block: ContentBlock::ToolResult {
                        tool_use_id: call.id.clone(),
                        content: out.content,
                        is_error: out.is_error,
                    },
                    unknown_tool: outcome.unknown_tool,
                });
            }
        }
        drop(live_tx);
        Ok(results)
    };
    let (results, ()) = tokio::join!(run, forward);
    results
}

async fn run_one(
    agents: &Agents,
    gate: &PermissionGate,
    ctx: &ToolContext,
    call: &Call,
) -> Outcome {
    let started = Instant::now();
    let span = tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id);
    let (output, unknown_tool) = execute(agents, gate, ctx, call).instrument(span).await;
    Outcome {
        output,
        unknown_tool,
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

/// (output, unknown tool)
async fn execute(
    agents: &Agents,
    gate: &PermissionGate,
    ctx: &ToolContext,
    call: &Call,
) -> (ToolOutput, bool) {
    let registry = &agents.tools;
    let Some(tool) = registry.get(&call.name) else {
        let known: Vec<String> = registry.defs().into_iter().map(|d| d.name).collect();
        let text = format!(
            "Unknown tool `{}`. The available tools are: {}.",
            call.name,
            known.join(", ")
        );
        return (ToolOutput::error(text), true);
    };
    if ctx.cancel.is_cancelled() {
        return (ToolOutput::error(INTERRUPTED_BY_USER), false);
    }
    if let Err(problems) = registry.validate(&call.name, &call.input) {
        return (ToolOutput::error(problems), false);
    }
    match gate.check(tool.as_ref(), &call.input, ctx) {
        Decision::Allow => {}
        Decision::Deny { reason } => {
            tracing::info!(%reason, "denied");
            return (
                ToolOutput::error(format!("Permission denied: {reason}")),
                false,
            );
        }
        Decision::Ask { reason } => {
            // Asking a human arrives with the permission system's next layers; until
            // then nothing that needs approval may run.
            tracing::info!(%reason, "needs approval, which this build cannot ask for");
            return (
                ToolOutput::error(format!(
                    "Permission denied: {reason} (this build cannot ask for approval yet)"
                )),
                false,
            );
        }
    }
    let result = tokio::select! {
        r = tool.execute(call.input.clone(), ctx) => r,
        _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
    };
    match result {
        Ok(out) => (out, false),
        Err(ToolError::Cancelled) => (ToolOutput::error(INTERRUPTED_BY_USER), false),
        Err(e) => (e.into_output(), false),
    }
}
