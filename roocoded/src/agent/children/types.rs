//! [`AgentType`]: what `Agent`'s `subagent_type` names — a built-in type
//! ([`super::builtin`]) or a definition file's — and [`ChildSpec`], how one child runs,
//! fixed when it starts and stored with it so it runs the same after a restart.

use std::path::PathBuf;

use roocode_protocol::Mode;
use serde::{Deserialize, Serialize};

use crate::agent::definitions::{Definition, Isolation, ModelChoice};

/// A type of sub-agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentType {
    pub name: String,
    /// What the parent's model reads to choose it.
    pub description: String,
    /// The child's system prompt.
    pub prompt: String,
    /// The tools it may have (`None`: every tool its kind may have).
    pub tools: Option<Vec<String>>,
    pub disallowed_tools: Vec<String>,
    pub model: ModelChoice,
    pub max_turns: Option<u32>,
    /// `None`: its parent's mode.
    pub permission_mode: Option<Mode>,
    pub isolation: Isolation,
    /// Always runs in the background.
    pub background: bool,
    pub timeout_s: Option<u64>,
    /// Its Bash may run read-only commands only (the gate enforces it).
    pub read_only_commands: bool,
    /// From a definition file (loses `agents.custom_disallowed`), not built in.
    pub custom: bool,
}

impl From<&Definition> for AgentType {
    fn from(d: &Definition) -> Self {
        AgentType {
            name: d.name.clone(),
            description: d.description.clone(),
            prompt: d.prompt.clone(),
            tools: d.tools.clone(),
            disallowed_tools: d.disallowed_tools.clone(),
            model: d.model.clone(),
            max_turns: d.max_turns,
            permission_mode: d.permission_mode,
            isolation: d.isolation,
            background: d.background,
            timeout_s: d.timeout_s,
            read_only_commands: false,
            custom: true,
        }
    }
}

/// How one child runs (stored as JSON in `agents.spec`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildSpec {
    /// Byte-stable for the child's life (a fork's is its parent's).
    pub system_prompt: String,
    pub custom: bool,
    /// Whether it was started in the background (its tool set is computed for that
    /// once, so moving it to the background later does not change its tool array).
    pub background: bool,
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub disallowed_tools: Vec<String>,
    pub max_turns: Option<u32>,
    #[serde(default)]
    pub read_only_commands: bool,
    /// Seconds before it is stopped as failed.
    pub timeout_s: u64,
    /// A fork: the tool names of its parent's array, sent unchanged so the provider's
    /// prompt cache hits; its own set is enforced when it calls one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advertised_tools: Option<Vec<String>>,
    /// Its git worktree (`isolation: worktree`): where it works instead of the project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
}

impl ChildSpec {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}
