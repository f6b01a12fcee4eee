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
