//! Wire types of `hooks.*`: the hooks a session in a directory would run, where each
//! is configured, whether it runs (a project's waits for the user's approval) and what
//! it did last.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookInfo {
    /// Stable while the hook is unchanged (an edit asks for approval again).
    pub id: String,
    /// `pre_tool_use`, `stop`, … (Claude Code's `PreToolUse` reads as `pre_tool_use`).
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// `run <command>` or `inject <n> characters`.
    pub action: String,
    /// The file and line it is configured at.
    pub file: String,
    pub line: u64,
    /// `user`, `project` or `local`.
    pub scope: String,
    /// Whether it runs: a project's hook once approved, the others always.
    pub approved: bool,
    /// What it did the last time it ran since the daemon started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_result: Option<String>,
}

/// Every hook of a directory, and the entries that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookList {
    pub hooks: Vec<HookInfo>,
    /// `file:line: problem`, one per entry that was not loaded.
    pub problems: Vec<String>,
}

impl HookList {
    /// The table `roocode-cli hooks list` and `/hooks` print.
    pub fn table(&self) -> String {
        let mut out = String::new();
        if self.hooks.is_empty() {
            out.push_str("No hooks.\n");
        }
        for h in &self.hooks {
            let matcher = h
                .matcher
                .as_ref()
                .map(|m| format!(" [{m}]"))
                .unwrap_or_default();
            let condition = h
                .condition
                .as_ref()
                .map(|c| format!(" if {c}"))
                .unwrap_or_default();
            let state = if h.approved {
                "runs"
            } else {
                "waits for approval: roocode-cli hooks approve"
            };
            out.push_str(&format!(
                "{} {}{matcher}{condition}: {} — {}:{} ({}, {state})\n",
                h.id, h.event, h.action, h.file, h.line, h.scope
            ));
            if let Some(last) = &h.last_result {
                out.push_str(&format!("    last run: {last}\n"));
            }
        }
        for p in &self.problems {
            out.push_str(&format!("not loaded: {p}\n"));
        }
        out.trim_end().to_string()
    }
}
