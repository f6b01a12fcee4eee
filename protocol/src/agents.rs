//! Sub-agent types: the agent definitions that apply to a project (`agent.definitions`),
//! and the files that could not become one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One loaded agent definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentDefinitionInfo {
    pub name: String,
    pub description: String,
    /// Where it comes from: `user (.claude)`, `user`, `project (.claude)`, `project`
    /// (in that precedence: a later one of the same name overrides an earlier one).
    pub source: String,
    /// The file.
    pub path: String,
    /// The tools it asks for; absent: every tool its kind may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disallowed_tools: Vec<String>,
    /// `inherit`, a tier (`sonnet`, `opus`, `haiku`) or a full model spec.
    pub model: String,
    pub background: bool,
    /// What did not apply or looked wrong (keys RooCode does not use, lenient YAML, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Files of the same name this one overrode.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
}

/// A definition file that could not be loaded, and what to fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DefinitionProblem {
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub message: String,
}

/// The answer of `agent.definitions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentDefinitions {
    /// By name.
    pub definitions: Vec<AgentDefinitionInfo>,
    pub problems: Vec<DefinitionProblem>,
}

/// Where a sub-agent is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    /// Waiting for a slot (`agents.max_concurrent`).
    Queued,
    /// A turn of it is running.
    Running,
    /// Its turn waits for a human (a permission request or a question).
    Waiting,
    /// Between turns, and may be given more work (`resume`).
    Idle,
    /// It finished its task; `result` is its answer.
    Completed,
    /// It stopped on an error (see `error`), or its timeout.
    Failed,
    /// Stopped by a user, its parent, or its parent's deletion.
    Cancelled,
    /// A state this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl AgentState {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentState::Queued => "queued",
            AgentState::Running => "running",
            AgentState::Waiting => "waiting",
            AgentState::Idle => "idle",
            AgentState::Completed => "completed",
            AgentState::Failed => "failed",
            AgentState::Cancelled => "cancelled",
            AgentState::Unknown => "unknown",
        }
    }

    /// True once the agent will not run again unless resumed.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            AgentState::Completed | AgentState::Failed | AgentState::Cancelled
        )
    }
}

impl std::fmt::Display for AgentState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sub-agent as clients see it (`agent.list`, `agent.get`, `roocode-cli agents`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    /// The agent's id: the id of its session (`roocode-cli attach <id>` follows it).
    pub id: String,
    /// The short unique form to show a person (empty when not worked out).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub short_id: String,
    pub name: String,
    /// Its type: a built-in (`Explore`, `Plan`, `general-purpose`, `Verification`),
    /// a definition's name, or `fork`.
    #[serde(rename = "type")]
    pub agent_type: String,
    /// The session (agent) that started it.
    pub parent_id: String,
    /// What its parent said it is for (the `Agent` call's `description`).
    #[serde(default)]
    pub description: String,
    pub state: AgentState,
    pub background: bool,
    /// RFC 3339.
    pub started_at: String,
    /// Since it started, up to its end (or now).
    pub elapsed_ms: u64,
    /// Input plus output tokens of its model calls.
    pub tokens: u64,
    /// Its cost in USD; absent when a price is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Tool calls it made.
    #[serde(default)]
    pub tool_calls: u64,
    /// Its answer, once it has one (`agent.get` only; lists leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The branch of its git worktree (`isolation: worktree`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}
