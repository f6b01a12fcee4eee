//! Tools: the capability boundary of an agent.
//!
//! This module owns the [`Tool`] trait every built-in, MCP and skill tool implements,
//! the [`Registry`] (registration, enable/disable, strict schema validation, API
//! export), the per-call [`ToolContext`], and the batching helper [`partition`].
//! The built-in tools live one per file (`read.rs`, `glob.rs`, `grep.rs`, `write.rs`,
//! `edit.rs`, `webfetch.rs`, `todo.rs`, `ask_user.rs`, `exit_plan_mode.rs`, `memory.rs`), or one per
//! directory when they need several files (`bash/`); `checkpoint.rs` keeps what Write
//! and Edit change, per turn, for `/rewind`.
//!
//! Tools never decide whether they may run: the agent loop asks
//! [`crate::permission::PermissionGate::check`] first, using
//! [`Tool::permission_target`]. File tools still resolve their paths through
//! [`crate::permission::sandbox`] when they execute, so a call that somehow skipped the
//! gate cannot leave the sandbox either.

mod ask_user;
mod bash;
mod batch;
mod checkpoint;
mod context;
mod edit;
mod exit_plan_mode;
mod glob;
mod grep;
mod human;
mod memory;
mod output;
mod read;
pub mod redact;
mod registry;
#[cfg(test)]
mod schema_tests;
mod todo;
mod walk;
mod webfetch;
mod write;

#[cfg(test)]
pub(crate) mod test_support;

use futures_util::future::BoxFuture;
use serde_json::Value;

pub use ask_user::AskUserQuestionTool;
pub use bash::{
    BashOutputTool, BashTool, KillShellTool, ProcessRecorder, ShellState, kill_group,
    terminate_group,
};
pub use batch::partition;
pub use checkpoint::{CheckpointError, Checkpoints, RestoreAction, RestoredFile, restore_turn};
pub use context::{FileStamp, FileState, ProgressFn, ReadStatus, ToolContext};
pub use edit::EditTool;
pub use exit_plan_mode::ExitPlanModeTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use human::{Approval, Human, PlanVerdict};
pub use memory::MemoryTool;
pub use output::MAX_OUTPUT_CHARS;
pub use read::ReadTool;
pub use registry::{Registry, RegistryError};
pub use todo::{TodoItem, TodoList, TodoStatus, TodoWriteTool};
pub use webfetch::{Summarizer, WebFetchTool};

pub use crate::permission::{Effect, PermissionTarget};
pub use write::WriteTool;

/// Broad kind of a tool, used by permission modes and by UIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCategory {
    /// Reads or writes files (Read, Glob, Grep, Write, Edit).
    File,
    /// Runs commands (Bash and its helpers).
    Command,
    /// Talks to the network (WebFetch).
    Network,
    /// Starts or drives agents (Agent).
    Agent,
    /// Coordination between agents and the user (SendMessage, TodoWrite, …).
    Coordination,
}

/// The result of a successful tool call, as shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    /// The call ran but its result is an error for the model (e.g. a failed command).
    pub is_error: bool,
    /// A unified diff of what the call changed, for clients to show (never sent to
    /// the model).
    pub diff: Option<String>,
}

impl ToolOutput {
    /// A normal result.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            diff: None,
        }
    }

    /// Attaches the diff of what the call changed.
    pub fn with_diff(mut self, diff: impl Into<String>) -> Self {
        self.diff = Some(diff.into());
        self
    }

    /// A result flagged as an error.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            diff: None,
        }
    }
}

/// Why a tool call produced no normal result. Every variant goes back to the model as
/// an error tool result (see [`ToolError::into_output`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments cannot be acted on as given (bad regex, a directory passed to
    /// Read, an unknown file type, …). The message tells the model what to change.
    #[error("{0}")]
    InvalidInput(String),
    /// The tool tried and failed (file missing, I/O error, path outside the sandbox).
    #[error("{0}")]
    Failed(String),
    /// The call was cancelled through `ctx.cancel`.
    #[error("cancelled by user")]
    Cancelled,
}

impl ToolError {
    /// The error as the tool result the model sees.
    pub fn into_output(self) -> ToolOutput {
        ToolOutput::error(self.to_string())
    }
}

/// One tool. Implementations are stateless (per-session state lives in the context),
/// so one instance serves every session.
pub trait Tool: Send + Sync {
    /// The name the model calls it by (a contract: see DESIGN §7).
    fn name(&self) -> &'static str;
    /// The model's manual for the tool.
    fn description(&self) -> &'static str;
    /// JSON Schema of the input object; `"additionalProperties": false`.
    fn input_schema(&self) -> Value;
    /// What the tool touches.
    fn effect(&self) -> Effect;
    /// True if this call may run concurrently with other concurrency-safe calls.
    fn is_concurrency_safe(&self, input: &Value) -> bool;
    fn category(&self) -> ToolCategory;
    /// What the permission gate matches on for this input. Must not fail: a malformed
    /// input gives whatever it can (the call is rejected by validation anyway).
    fn permission_target(&self, input: &Value, ctx: &ToolContext) -> PermissionTarget;
    /// Run the call. `input` has already passed [`Registry::validate`] and the gate.
    /// Long work must watch `ctx.cancel` and return [`ToolError::Cancelled`].
    fn execute<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// Parse a validated input into the tool's typed arguments. Validation already ran, so
/// an error here means the schema and the struct disagree; it is still reported as
/// invalid input rather than a panic.
pub(crate) fn parse_input<T: serde::de::DeserializeOwned>(
    tool: &str,
    input: Value,
) -> Result<T, ToolError> {
    serde_json::from_value(input)
        .map_err(|e| ToolError::InvalidInput(format!("invalid input for {tool}: {e}")))
}

/// Run blocking file-system work on the blocking pool, racing it against `ctx.cancel`.
/// The closure gets a clone of the token and should poll it in its loops so the thread
/// stops soon after a cancel.
pub(crate) async fn run_blocking<T, F>(ctx: &ToolContext, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce(tokio_util::sync::CancellationToken) -> Result<T, ToolError> + Send + 'static,
{
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let token = ctx.cancel.clone();
    let handle = tokio::task::spawn_blocking(move || work(token));
    tokio::select! {
        joined = handle => match joined {
            Ok(result) => result,
            Err(e) => Err(ToolError::Failed(format!("tool task failed: {e}"))),
        },
        () = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
    }
}
