//! Rewind: a session's turns as `session.turns` lists them, and the plan and outcome
//! of `session.rewind`, which puts the workspace (and the conversation) back as they
//! were before a turn.
//!
//! A rewind is asked twice: once with `apply: false` for the plan (what each file
//! would become, with a diff, and what cannot be restored), then with `apply: true`
//! and the plan's `workspace` id, so that a tree that changed between the two is
//! refused instead of rewound blind.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One turn of a session, numbered from 1 in the order they ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnSummary {
    pub number: u32,
    pub turn_id: String,
    /// Unix milliseconds.
    pub started_at: i64,
    /// The start of the user message that began it (empty when a notification did).
    #[serde(default)]
    pub prompt: String,
    /// Files this turn changed, as the snapshots before and after it show them.
    #[serde(default)]
    pub files: Vec<String>,
    /// A workspace snapshot was taken before it: the turn can be rewound.
    pub rewindable: bool,
    /// Undone by an earlier rewind.
    #[serde(default)]
    pub rewound: bool,
}

/// What `session.rewind` puts back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RewindScope {
    Files,
    Conversation,
    #[default]
    Both,
}

impl RewindScope {
    pub fn files(self) -> bool {
        matches!(self, RewindScope::Files | RewindScope::Both)
    }

    pub fn conversation(self) -> bool {
        matches!(self, RewindScope::Conversation | RewindScope::Both)
    }
}

/// `session.rewind`'s parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewindParams {
    pub session_id: String,
    /// The turn to undo, with every later one (default: the last turn not yet rewound).
    #[serde(default)]
    pub to: Option<u32>,
    #[serde(default)]
    pub scope: RewindScope,
    /// `false`: only the plan.
    #[serde(default)]
    pub apply: bool,
    /// With `apply`: the plan's [`RewindPlan::workspace`]; the rewind is refused when
    /// the workspace changed since.
    #[serde(default)]
    pub workspace: Option<String>,
    /// Also put back the files changed since by someone else (listed as conflicts).
    #[serde(default)]
    pub overwrite_conflicts: bool,
}

/// What a rewind does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// Written back with its content before the turn.
    Restore,
    /// Removed: the turn created it.
    Remove,
    /// An action this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

/// One file a rewind puts back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileRewind {
    pub path: String,
    pub action: FileAction,
    /// Set when someone else (the user, another session) changed the file after this
    /// session's turn did: it is kept unless `overwrite_conflicts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
    /// A unified diff from the file now to what the rewind writes (text files, capped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// A file the snapshots do not hold, and why: a rewind cannot put it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotRestorable {
    pub path: String,
    pub why: String,
}

/// What a rewind does (or did, with `applied`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RewindPlan {
    pub session_id: String,
    /// The turn undone, with every later one.
    pub turn: u32,
    /// The last turn of the session.
    pub last_turn: u32,
    pub scope: RewindScope,
    /// The workspace as the plan saw it: pass it back with `apply`.
    pub workspace: String,
    #[serde(default)]
    pub files: Vec<FileRewind>,
    #[serde(default)]
    pub not_restorable: Vec<NotRestorable>,
    /// What the rewind cannot see, in sentences (files an ignore file leaves out of
    /// the snapshots).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Messages the conversation loses (with `conversation` in scope).
    #[serde(default)]
    pub messages_removed: u64,
    /// The user message that began the turn, to send again if wanted.
    #[serde(default)]
    pub prompt: String,
    pub applied: bool,
    /// With `applied`: the files written back, removed, kept (conflicts) and those
    /// that could not be put back, with why.
    #[serde(default)]
    pub restored: Vec<String>,
    #[serde(default)]
    pub removed: Vec<String>,
    #[serde(default)]
    pub kept: Vec<String>,
    #[serde(default)]
    pub refused: Vec<NotRestorable>,
}
