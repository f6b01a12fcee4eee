//! The built-in sub-agent types (DESIGN.md §9): `Explore`, `Plan`, `general-purpose`,
//! and `Verification` when `enable_verification_agent: true`. Their prompts live in
//! `prompts/*.md`; they are the product, so they are written with care.

use crate::agent::definitions::{Isolation, ModelChoice, ModelTier};

use super::types::AgentType;

/// The tools a read-only type may have.
const READ_ONLY_TOOLS: &[&str] = &["Read", "Glob", "Grep", "Bash", "WebFetch", "TodoWrite"];

fn read_only_tools() -> Option<Vec<String>> {
    Some(READ_ONLY_TOOLS.iter().map(|t| (*t).to_string()).collect())
}

/// The built-in types, `Verification` included when `verification` is on.
pub fn builtin_types(verification: bool) -> Vec<AgentType> {
    let base = AgentType {
        name: String::new(),
        description: String::new(),
        prompt: String::new(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: ModelChoice::Inherit,
        max_turns: None,
        permission_mode: None,
        isolation: Isolation::None,
        background: false,
        timeout_s: None,
        read_only_commands: false,
        custom: false,
    };
    let mut types = vec![
        AgentType {
            name: "Explore".into(),
            description: "Fast read-only search of the codebase: finds files, symbols and facts, and reports them with paths and line numbers. Use it for questions that need many searches.".into(),
            prompt: include_str!("prompts/explore.md").into(),
            tools: read_only_tools(),
            model: ModelChoice::Tier(ModelTier::Haiku),
            max_turns: Some(30),
            read_only_commands: true,
            ..base.clone()
        },
        AgentType {
            name: "Plan".into(),
            description: "Read-only planning: studies the relevant code and returns a step-by-step implementation plan with the key files.".into(),
            prompt: include_str!("prompts/plan.md").into(),
            tools: read_only_tools(),
            max_turns: Some(15),
            read_only_commands: true,
            ..base.clone()
        },
        AgentType {
            name: "general-purpose".into(),
            description: "A capable agent for multi-step tasks: searching, editing and running commands. Use it for work that would fill your own context.".into(),
            prompt: include_str!("prompts/general_purpose.md").into(),
            ..base.clone()
        },
    ];
    if verification {
        types.push(AgentType {
            name: "Verification".into(),
            description: "Tries to break a change: runs the build and the tests and reports each check with a final VERDICT: PASS, FAIL or PARTIAL.".into(),
            prompt: include_str!("prompts/verification.md").into(),
            background: true,
            ..base
        });
    }
    types
}
