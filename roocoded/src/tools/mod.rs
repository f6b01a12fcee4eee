//! Tools: the capability boundary of an agent.
//!
//! This module owns the erased [`Tool`] trait the registry holds (MCP and skill tools
//! implement it with a run-time schema), [`TypedTool`] — a tool written as one argument
//! struct, a [`Spec`] and a handler, which every built-in is — the [`Registry`]
//! (registration, enable/disable, strict schema validation, API export, turning a call's
//! input into a [`Prepared`] call once), the per-call [`ToolContext`], and the batching
//! helper [`partition`].
//! The built-in tools live one per file (`read.rs`, `glob.rs`, `grep.rs`, `write.rs`,
//! `edit.rs`, `webfetch.rs`, `todo.rs`, `ask_user.rs`, `exit_plan_mode.rs`, `memory.rs`), or one per
//! directory when they need several files (`bash/`); `checkpoint.rs` keeps what Write
//! and Edit change, per turn, for `/rewind`.
//!
//! Tools never decide whether they may run: the agent loop asks
//! [`crate::permission::PermissionGate`] first, with the facts of the [`Prepared`] call
//! (its target is computed once, from the typed arguments). File tools still resolve their paths through
//! [`crate::permission::sandbox`] when they execute, so a call that somehow skipped the
//! gate cannot leave the sandbox either.

mod agent;
mod agents;
mod ask_user;
mod bash;
mod batch;
mod checkpoint;
mod context;
mod deferral;
mod edit;
mod exit_plan_mode;
mod glob;
mod grep;
mod human;
mod memory;
pub(crate) mod output;
mod prepared;
mod read;
pub mod redact;
mod registry;
mod schema;
mod schema_export;
#[cfg(test)]
mod schema_tests;
mod send_message;
pub mod skill;
mod skill_command;
#[cfg(test)]
mod target_tests;
mod task_create;
mod task_update;
mod tasks;
mod team_create;
mod team_delete;
mod teams;
mod todo;
mod toolset;
pub mod turn_scope;
mod typed;
pub(crate) mod walk;
mod webfetch;
pub(crate) mod write;

#[cfg(test)]
pub(crate) mod test_support;

use std::sync::Arc;

use roocode_protocol::content::ImageData;
use serde_json::Value;

pub use agent::AgentTool;
pub use agents::{AgentHost, AgentRequest};
pub use ask_user::AskUserQuestionTool;
pub use bash::{
    BashOutputTool, BashTool, KillShellTool, ProcessRecorder, ShellState, kill_group,
    terminate_group,
};
pub use batch::partition;
pub use checkpoint::{CheckpointError, Checkpoints, RestoreAction, RestoredFile, restore_turn};
pub use context::{FileStamp, FileState, ProgressFn, ReadStatus, ToolContext};
pub use deferral::{Discovered, DiscoverySink};
pub use edit::EditTool;
pub use exit_plan_mode::ExitPlanModeTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use human::{Approval, Human, PlanVerdict};
pub use memory::MemoryTool;
pub use output::MAX_OUTPUT_CHARS;
pub use prepared::{Invocation, Prepared};
pub use read::ReadTool;
pub use registry::{CallError, Registry, RegistryError};
pub use send_message::SendMessageTool;
pub use skill::SkillToolImpl;
pub use skill_command::SkillCommandTool;
pub use task_create::TaskCreateTool;
pub use task_update::TaskUpdateTool;
pub use tasks::{TaskGetTool, TaskListTool, TaskStopTool};
pub use team_create::TeamCreateTool;
pub use team_delete::TeamDeleteTool;
pub use teams::{NewTeam, NewTeamTask, Outgoing, TaskChange, TaskStatusChange, TeamHost};
pub use todo::{TodoItem, TodoList, TodoStatus, TodoWriteTool};
pub use toolset::{AgentKind, Selection, ToolSet, select};
pub use typed::TypedTool;
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
    /// A tool of an MCP server.
    Mcp,
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
    /// Images returned beside the text (an MCP tool's screenshot), sent to the model
    /// as images; clients are shown a note for each.
    pub images: Vec<ImageData>,
}

impl ToolOutput {
    /// A normal result.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            diff: None,
            images: Vec::new(),
        }
    }

    /// Attaches an image (`data` in base64).
    pub fn with_image(mut self, media_type: impl Into<String>, data: impl Into<String>) -> Self {
        self.images.push(ImageData::new(media_type, data));
        self
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
            images: Vec::new(),
        }
    }
}

/// A result's text with a note per image on lines of its own after it, e.g.
/// `[image image/png, 1.2 KiB]`: what clients are shown (the bytes would be megabytes
/// of base64 sent to every client).
pub fn display_text(content: &str, images: &[ImageData]) -> String {
    let mut text = content.to_owned();
    for image in images {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&image.note());
    }
    text
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
    /// The text the call names is not where it says: an edit's `old_string` missing
    /// from the file, or there several times. The message quotes what the matcher saw.
    #[error("{0}")]
    NoMatch(String),
    /// The call was cancelled through `ctx.cancel`.
    #[error("cancelled by user")]
    Cancelled,
}

impl ToolError {
    /// The error as the tool result the model sees.
    pub fn into_output(self) -> ToolOutput {
        ToolOutput::error(self.to_string())
    }

    /// What recovery makes of it: a missed edit is an `edit_error` (answered with a
    /// reminder quoting the matcher), any other failure a `tool_failure` (its result
    /// goes to the model as it is); a cancel is none.
    pub fn category(&self) -> Option<crate::recovery::Category> {
        use crate::recovery::Category;
        match self {
            ToolError::NoMatch(_) => Some(Category::EditError),
            ToolError::InvalidInput(_) | ToolError::Failed(_) => Some(Category::ToolFailure),
            ToolError::Cancelled => None,
        }
    }
}

/// What a tool is, as the registry, the gate and UIs know it. Owned values: MCP and
/// skill tools are known only at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The name the model calls it by (a contract: see DESIGN §7).
    pub name: Arc<str>,
    /// The model's manual for the tool.
    pub description: Arc<str>,
    /// What the tool touches.
    pub effect: Effect,
    pub category: ToolCategory,
    /// The tool whose permission rules its calls are checked under, when not its own:
    /// a skill's command-backed tool runs commands, so `Bash(...)` rules (and Bash's
    /// prompts) apply to it as to any command.
    pub gated_as: Option<Arc<str>>,
}

impl Spec {
    pub fn new(
        name: impl Into<Arc<str>>,
        description: impl Into<Arc<str>>,
        effect: Effect,
        category: ToolCategory,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            effect,
            category,
            gated_as: None,
        }
    }

    /// The same spec, its calls checked under `tool`'s permission rules.
    pub fn gated_as(mut self, tool: impl Into<Arc<str>>) -> Self {
        self.gated_as = Some(tool.into());
        self
    }
}

/// One tool as the registry holds it. Built-ins are [`TypedTool`]s and get this by the
/// blanket impl; a tool whose schema is known only at run time implements it directly.
/// Implementations are stateless (per-session state lives in the context), so one
/// instance serves every session.
pub trait Tool: Send + Sync {
    fn spec(&self) -> Spec;
    /// JSON Schema of the input object; `"additionalProperties": false` unless
    /// [`Tool::schema_as_given`].
    fn input_schema(&self) -> Value;
    /// The schema is someone else's (an MCP server's): arguments are validated against
    /// it as it is (unknown fields are not rejected unless it says so), and the model
    /// is sent it with its references inlined. Built-in tools' schemas are made strict.
    fn schema_as_given(&self) -> bool {
        false
    }
    /// Parse `input` (already validated against [`Tool::input_schema`]) into a call with
    /// the facts the gate needs, computed once.
    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError>;
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
