//! The entries of the conversation: user messages, assistant answers (text and
//! thinking), tool calls with their results, one-line notices, and dividers (a rule
//! across the width with a notice in it: where a rewind cut the conversation).

use ratatui::style::Style;
use serde_json::Value;

/// One entry of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    User(String),
    Assistant(Assistant),
    Tool(Box<Tool>),
    Notice(Notice),
    Divider(Notice),
}

/// An answer of the model, streamed or complete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assistant {
    pub text: String,
    pub thinking: String,
    /// Still receiving deltas (no `assistant_message` yet).
    pub streaming: bool,
}

/// A tool call and, once it finished, its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub call_id: String,
    pub name: String,
    pub input: Value,
    /// The main argument (`src/main.rs`, `cargo test`), relative to the session directory.
    pub summary: Option<String>,
    /// Live output while it runs (`tool_output`).
    pub live: String,
    pub result: Option<ToolResult>,
    /// Waiting for a permission answer or for answers to its questions.
    pub waiting: bool,
    /// The turn ended without a result (cancelled, interrupted).
    pub stopped: bool,
    /// Who answered its permission request or questions, and how.
    pub verdict: Option<String>,
    /// Shown expanded or folded regardless of the global toggle (a click on it).
    pub expanded: Option<bool>,
}

impl Tool {
    /// Whether the call still runs (its spinner turns).
    pub fn running(&self) -> bool {
        self.result.is_none() && !self.stopped
    }
}

/// What a finished tool call returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub output: String,
    pub is_error: bool,
    pub duration_ms: u64,
    pub diff: Option<String>,
}

/// A one-line (wrapped) notice: retries, errors, mode and model changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub style: Style,
}
