//! Session request and response types.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Usage;
use crate::event::Event;

/// Whether a session is doing something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Idle,
    Running,
    /// A turn was running when the daemon died or stopped; continue it with a new message.
    Interrupted,
    /// A status this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl SessionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Idle => "idle",
            SessionStatus::Running => "running",
            SessionStatus::Interrupted => "interrupted",
            SessionStatus::Unknown => "unknown",
        }
    }
}

/// What started a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    Main,
    SubAgent,
    Teammate,
    /// A kind this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

/// A session as clients see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionInfo {
    /// The full id: what JSON outputs and every request carry.
    pub id: String,
    /// The short unique form to show a person (see [`crate::short_id`]); empty when the
    /// daemon did not work it out. Show it with [`SessionInfo::shown_id`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub short_id: String,
    pub title: String,
    pub kind: SessionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// Working directory the session was created in.
    pub cwd: String,
    /// Project root: the git top-level of `cwd`, else `cwd`.
    pub root: String,
    pub model: String,
    pub mode: crate::Mode,
    pub status: SessionStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running_turn_id: Option<String>,
    pub created_at: String,
    pub last_activity: String,
    /// Seq of the newest event of the session.
    pub last_seq: u64,
    pub message_count: u64,
    pub usage: Usage,
    /// The context window the daemon budgets this session's model with (tokens), as
    /// `/context` reports it; absent from older daemons, from session lists, and when
    /// the model does not resolve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

impl SessionInfo {
    /// The id to show a person: the short id, else the full one.
    pub fn shown_id(&self) -> &str {
        if self.short_id.is_empty() {
            &self.id
        } else {
            &self.short_id
        }
    }
}

/// The client's view of the world, sent with `session.create` and `session.send` so a
/// long-running daemon never uses stale keys, models or PATH. Keys stay in memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientEnv {
    /// `ROOCODE_*`, `ANTHROPIC_*`, `OPENAI_*`, provider keys, `PATH`, `HOME`, `VIRTUAL_ENV`.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
}

impl ClientEnv {
    /// Prefixes and names of the variables a client forwards. Besides what the daemon
    /// needs (keys, `ROOCODE_*`, `TMUX` and `TMUX_PANE` for teammates' panes), the
    /// defaults of `env.forward` that commands get (`TERM`, `LC_*`, `TZ`, `USER`, tool
    /// homes, `SSH_AUTH_SOCK`). Commands never get `TMUX` or `TMUX_PANE`.
    pub const PREFIXES: &'static [&'static str] = &["ROOCODE_", "ANTHROPIC_", "OPENAI_", "LC_"];
    pub const NAMES: &'static [&'static str] = &[
        "PATH",
        "HOME",
        "VIRTUAL_ENV",
        "SHELL",
        "LANG",
        "TERM",
        "TZ",
        "USER",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "GOPATH",
        "JAVA_HOME",
        "SSH_AUTH_SOCK",
        "TMUX",
        "TMUX_PANE",
    ];

    /// Whether a client forwards the variable `name` (provider keys named in config,
    /// ending in `_API_KEY`, are forwarded too).
    pub fn forwards(name: &str) -> bool {
        Self::PREFIXES.iter().any(|p| name.starts_with(p))
            || Self::NAMES.contains(&name)
            || name.ends_with("_API_KEY")
            || name.ends_with("_BASE_URL")
    }

    /// Snapshot of the current process environment.
    pub fn capture() -> Self {
        ClientEnv {
            vars: std::env::vars()
                .filter(|(k, _)| Self::forwards(k))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

/// `session.create` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreateParams {
    pub cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default)]
    pub env: ClientEnv,
}

/// `session.send` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SendParams {
    pub session_id: String,
    pub text: String,
    #[serde(default)]
    pub env: ClientEnv,
    /// Switch the session's model before this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Switch the session's permission mode before this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// Answer of `session.send`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SendResponse {
    /// Id of this message; the `user_message` event that delivers it carries it.
    pub input_id: String,
    /// The turn this message started, or `None` when it was queued behind a running
    /// turn (it joins that turn or starts the next one; watch for its `user_message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub queued: bool,
}

/// A page of a session's event log, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryPage {
    pub events: Vec<Event>,
    /// More events exist before the first one returned.
    pub has_more: bool,
}

/// A page of `session.export`: JSONL lines, one message each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExportPage {
    pub lines: Vec<String>,
    /// Pass as `offset` to get the next page; `None` at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

/// `session.import` parameters: one page of an exported session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImportParams {
    /// Append to this session (returned by the first page); `None` creates one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Working directory of the new session (first page).
    pub cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// JSONL lines as `session.export` writes them: `{"role": …, "content": [...]}`.
    pub lines: Vec<String>,
    #[serde(default)]
    pub env: ClientEnv,
}

/// Result of a slash command: a local command's text, or the turn a prompt command,
/// a skill or an MCP prompt started (follow it as after `session.send`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandOutput {
    /// Text to show the user (for a started turn: one line saying what runs).
    pub output: String,
    /// The turn the command started, or joined when one was running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<SendResponse>,
}

/// A slash command, for completion and `/help`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    /// `local` (handled by the daemon), `skill`, `prompt` (a command file), `mcp` (an
    /// MCP server's prompt).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
    /// Where it is defined (a file, `built-in`, an MCP server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Another command of this name wins over it (then its name is not usable as
    /// given); what it is shadowed by, e.g. `skill review (.roocode/skills/review)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<String>,
}

/// A permission request or question waiting for a human.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PendingRequest {
    pub request_id: String,
    pub session_id: String,
    /// `permission` or `question`.
    pub kind: String,
    pub tool: String,
    /// One line: the command, the path, or the first question.
    pub summary: String,
    /// Why it needs a human (permission requests), empty for questions.
    #[serde(default)]
    pub reason: String,
    /// The tool call's input (for a question: its `questions`).
    #[serde(default)]
    pub input: serde_json::Value,
    pub created_at: String,
    /// The sub-agent that asks, when it is not the session's main agent (its requests
    /// also show on its parent's stream, labelled with its name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
}

/// An answer to a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PermissionDecision {
    /// Run this call.
    Allow,
    /// Run it, and append an allow rule for it to `.roocode/config.local.yaml`.
    AllowAlways,
    /// Refuse it; the optional feedback goes to the model with the refusal.
    Deny,
}

impl PermissionDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionDecision::Allow => "allow",
            PermissionDecision::AllowAlways => "allow_always",
            PermissionDecision::Deny => "deny",
        }
    }
}
