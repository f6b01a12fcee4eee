//! [`AgentType`]: what `Agent`'s `subagent_type` names — a built-in type
//! ([`super::builtin`]) or a definition file's — and [`ChildSpec`], how one child runs,
//! fixed when it starts and stored with it so it runs the same after a restart.

use std::path::PathBuf;

use roocode_protocol::Mode;
use serde::{Deserialize, Serialize};

use crate::agent::definitions::{Definition, Isolation, ModelChoice, Source};

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
    /// As a teammate it plans first, its lead approving the plan.
    pub plan_mode_required: bool,
    pub timeout_s: Option<u64>,
    /// Its Bash may run read-only commands only (the gate enforces it).
    pub read_only_commands: bool,
    /// From a definition file (loses `agents.custom_disallowed`), not built in.
    pub custom: bool,
    /// From a file in the project (`.roocode/agents`, `.claude/agents`): something a
    /// cloned repository or the model itself may have written, so its
    /// `permission_mode` may not be more permissive than the parent's.
    pub from_project: bool,
    /// Its definition's `collaboration:` graph, which it follows as a teammate.
    pub collaboration: Option<Box<crate::workflow::graph::Graph>>,
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
            plan_mode_required: d.plan_mode_required,
            timeout_s: d.timeout_s,
            read_only_commands: false,
            custom: true,
            from_project: matches!(d.source, Source::ProjectClaude | Source::ProjectRooCode),
            collaboration: d.collaboration.clone(),
        }
    }
}

/// How much a mode lets an agent do without asking: a child may not get more than its
/// parent from a project file.
pub fn latitude(mode: Mode) -> u8 {
    match mode {
        Mode::Plan | Mode::DontAsk => 0,
        Mode::Default | Mode::Unknown => 1,
        Mode::AcceptEdits => 2,
        Mode::BypassPermissions => 3,
    }
}

/// The mode a child of `ty` runs in under a parent in `parent` mode: the type's, else
/// the parent's; a project definition's only when it is not more permissive.
pub fn child_mode(ty: &AgentType, parent: Mode) -> Mode {
    match ty.permission_mode {
        Some(mode) if ty.from_project && latitude(mode) > latitude(parent) => {
            tracing::warn!(
                agent_type = %ty.name,
                wanted = mode.as_str(),
                parent = parent.as_str(),
                "a project agent definition asked for a more permissive mode than its parent's; the parent's applies"
            );
            parent
        }
        Some(mode) => mode,
        None => parent,
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
    /// A teammate: the id of its team. It runs like its lead's main agent (its own
    /// turns, every tool but the lead's), goes idle when its loop ends and is resumed
    /// by a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

impl ChildSpec {
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project_type(mode: Mode) -> AgentType {
        AgentType {
            name: "t".into(),
            description: String::new(),
            prompt: String::new(),
            tools: None,
            disallowed_tools: Vec::new(),
            model: ModelChoice::Inherit,
            max_turns: None,
            permission_mode: Some(mode),
            isolation: Isolation::None,
            background: false,
            plan_mode_required: false,
            timeout_s: None,
            read_only_commands: false,
            custom: true,
            from_project: true,
            collaboration: None,
        }
    }

    #[test]
    fn a_project_definition_never_gets_more_latitude_than_its_parent() {
        let bypass = project_type(Mode::BypassPermissions);
        assert_eq!(child_mode(&bypass, Mode::Default), Mode::Default);
        assert_eq!(
            child_mode(&bypass, Mode::BypassPermissions),
            Mode::BypassPermissions
        );
        let plan = project_type(Mode::Plan);
        assert_eq!(
            child_mode(&plan, Mode::BypassPermissions),
            Mode::Plan,
            "stricter is fine"
        );
        let edits = project_type(Mode::AcceptEdits);
        assert_eq!(child_mode(&edits, Mode::Default), Mode::Default);
        // The user's own definitions (~/.claude/agents, ~/.roocode/agents) are trusted.
        let user = AgentType {
            from_project: false,
            ..bypass.clone()
        };
        assert_eq!(child_mode(&user, Mode::Default), Mode::BypassPermissions);
        let inherit = AgentType {
            permission_mode: None,
            ..bypass
        };
        assert_eq!(child_mode(&inherit, Mode::AcceptEdits), Mode::AcceptEdits);
    }
}
