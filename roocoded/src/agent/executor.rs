//! Runs the tool calls of one model response: each call is looked up, its input
//! validated against the tool's schema, checked by `permission` (the only place that
//! decides), then executed. Consecutive concurrency-safe calls run together; results
//! come back in call order, one per call.

use std::sync::Arc;
use std::time::Instant;

use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::EventPayload;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::runtime::SessionRuntime;
use super::turn::INTERRUPTED_BY_USER;
use super::{AgentError, Agents};
use crate::permission::{Decision, PermissionGate};
use crate::store::SessionRow;
use crate::tools::{self, ToolContext, ToolError};

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

/// Runs `calls` and returns one result per call, in call order.
pub async fn run_calls(
    agents: &Arc<Agents>,
    rt: &Arc<SessionRuntime>,
    row: &SessionRow,
    calls: &[Call],
    cancel: &CancellationToken,
) -> Result<Vec<CallResult>, AgentError> {
    let env = agents.env_of(rt).await;
    let config = agents.config(std::path::Path::new(&row.root))?;
    let ctx = ToolContext {
        session_id: row.id.clone(),
        cwd: row.cwd.clone().into(),
        root: row.root.clone().into(),
        additional_dirs: config.additional_directories(),
        readable_dirs: vec![agents.paths.data_dir.join("tool-results").join(&row.id)],
        cancel: cancel.clone(),
        env: env.vars,
        files: rt.files.clone(),
    };
    let gate = PermissionGate::new(&row.mode);
    let registry = &agents.tools;
    let is_safe = |c: &Call| {
        registry
            .get(&c.name)
            .is_some_and(|t| t.is_concurrency_safe(&c.input))
    };
    let mut results = Vec::with_capacity(calls.len());
    for batch in tools::partition(calls, is_safe) {
        for call in batch {
            agents
                .events()
                .append(
                    &row.id,
                    &row.id,
                    EventPayload::ToolCall {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        input: call.input.clone(),
                    },
                )
                .await?;
        }
        let mut outcomes: Vec<(CallResult, u64)> = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(MAX_PARALLEL) {
            let runs: Vec<_> = chunk
                .iter()
                .map(|call| run_one(agents, &gate, &ctx, call))
                .collect();
            outcomes.extend(futures_util::future::join_all(runs).await);
        }
        for ((result, duration_ms), call) in outcomes.into_iter().zip(batch) {
            if let ContentBlock::ToolResult {
                content, is_error, ..
            } = &result.block
            {
                agents
                    .events()
                    .append(
                        &row.id,
                        &row.id,
                        EventPayload::ToolResult {
                            call_id: call.id.clone(),
                            output: content.clone(),
                            is_error: *is_error,
                            duration_ms,
                        },
                    )
                    .await?;
            }
            results.push(result);
        }
    }
    Ok(results)
}

async fn run_one(
    agents: &Agents,
    gate: &PermissionGate,
    ctx: &ToolContext,
    call: &Call,
) -> (CallResult, u64) {
    let started = Instant::now();
    let span = tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id);
    let (text, is_error, unknown_tool) = execute(agents, gate, ctx, call).instrument(span).await;
    let ms = started.elapsed().as_millis() as u64;
    (
        CallResult {
            block: ContentBlock::ToolResult {
                tool_use_id: call.id.clone(),
                content: text,
                is_error,
            },
            unknown_tool,
        },
        ms,
    )
}

/// (result text, is_error, unknown tool)
async fn execute(
    agents: &Agents,
    gate: &PermissionGate,
    ctx: &ToolContext,
    call: &Call,
) -> (String, bool, bool) {
    let registry = &agents.tools;
    let Some(tool) = registry.get(&call.name) else {
        let known: Vec<String> = registry.defs().into_iter().map(|d| d.name).collect();
        return (
            format!(
                "Unknown tool `{}`. The available tools are: {}.",
                call.name,
                known.join(", ")
            ),
            true,
            true,
        );
    };
    if ctx.cancel.is_cancelled() {
        return (INTERRUPTED_BY_USER.to_string(), true, false);
    }
    if let Err(problems) = registry.validate(&call.name, &call.input) {
        return (
            format!("Invalid input for {}: {problems}", call.name),
            true,
            false,
        );
    }
    match gate.check(tool.as_ref(), &call.input, ctx) {
        Decision::Allow => {}
        Decision::Deny { reason } => {
            tracing::info!(%reason, "denied");
            return (format!("Permission denied: {reason}"), true, false);
        }
        Decision::Ask { reason } => {
            // Asking a human arrives with the permission system's next layers; until
            // then nothing that needs approval may run.
            tracing::info!(%reason, "needs approval, which this build cannot ask for");
            return (
                format!("Permission denied: {reason} (this build cannot ask for approval yet)"),
                true,
                false,
            );
        }
    }
    let result = tokio::select! {
        r = tool.execute(call.input.clone(), ctx) => r,
        _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
    };
    match result {
        Ok(out) => (out.content, out.is_error, false),
        Err(ToolError::Cancelled) => (INTERRUPTED_BY_USER.to_string(), true, false),
        Err(ToolError::InvalidInput(msg)) => (
            format!("Invalid input for {}: {msg}", call.name),
            true,
            false,
        ),
        Err(ToolError::Failed(msg)) => (msg, true, false),
    }
}
