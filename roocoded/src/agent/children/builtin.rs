//! The built-in sub-agent types (DESIGN.md §9): `Explore`, `Plan`, `general-purpose`,
//! and `Verification` when `enable_verification_agent: true`. Their prompts live in
//! `prompts/*.md`; they are the product, so they are written with care.
//!
//! - `Explore`: read-only search on a cheaper model (the `haiku` tier of the parent's
//!   provider, else the parent's model), 30 turns.
//! - `Plan`: read-only design, 15 turns; ends with a step plan and the critical files.
//! - `general-purpose`: every tool a child may have.
//! - `Verification`: runs in the background on the parent's model, runs the build and
//!   the tests, and ends with `VERDICT: PASS|FAIL|PARTIAL`.
//!
//! "Read-only" is two things, neither of them the prompt: the tool set (no Write, Edit
//! or KillShell) and `read_only_commands`, with which the permission gate refuses any
//! command the read-only classifier does not accept (`crate::permission::read_only`).

use crate::agent::definitions::{Isolation, ModelChoice, ModelTier};

use super::types::AgentType;

/// The tools a read-only type may have: reading, searching, read-only commands (the
/// gate enforces that), fetching and its own todo list.
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
        plan_mode_required: false,
        collaboration: None,
        timeout_s: None,
        read_only_commands: false,
        custom: false,
        from_project: false,
    };
    let mut types = vec![
        AgentType {
            name: "Explore".into(),
            description: "Fast read-only search agent: finds files by pattern, code by keyword, where something is defined or used and how it works, and reports the files (absolute paths, line numbers) and facts found. It cannot change anything. Say how thorough to be: \"quick\", \"medium\" or \"very thorough\". Use it instead of searching yourself when a question needs more than a few searches; start several at once for independent questions.".into(),
            prompt: include_str!("prompts/explore.md").into(),
            tools: read_only_tools(),
            model: ModelChoice::Tier(ModelTier::Haiku),
            max_turns: Some(30),
            read_only_commands: true,
            ..base.clone()
        },
        AgentType {
            name: "Plan".into(),
            description: "Read-only software architect: studies the code a change touches and returns a numbered implementation plan, its risks and the 3-5 critical files. Use it to design a non-trivial change before making it. It cannot change anything.".into(),
            prompt: include_str!("prompts/plan.md").into(),
            tools: read_only_tools(),
            max_turns: Some(15),
            read_only_commands: true,
            ..base.clone()
        },
        AgentType {
            name: "general-purpose".into(),
            description: "General agent for multi-step tasks that need searching, editing files and running commands: researching a complex question, or carrying out a self-contained piece of work. Use it when the work would fill your own context, or to run independent pieces in parallel. It has every tool a sub-agent may have.".into(),
            prompt: include_str!("prompts/general_purpose.md").into(),
            ..base.clone()
        },
    ];
    if verification {
        types.push(AgentType {
            name: "Verification".into(),
            description: "Adversarial tester of a change you made: runs the build and the tests, tries edge cases to break it, and reports each check with its command and output, ending with VERDICT: PASS, FAIL or PARTIAL. Always runs in the background; tell it what changed and what it is supposed to do.".into(),
            prompt: include_str!("prompts/verification.md").into(),
            background: true,
            ..base
        });
    }
    types
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tools::{AgentKind, Registry, Selection, select};

    fn find(types: &[AgentType], name: &str) -> AgentType {
        types
            .iter()
            .find(|t| t.name == name)
            .cloned()
            .unwrap_or_else(|| panic!("no built-in type {name}"))
    }

    /// The tools a foreground child of this type gets from the built-in registry.
    fn tool_names(t: &AgentType) -> Vec<String> {
        let registry = Arc::new(Registry::with_builtins());
        let selection = Selection {
            kind: AgentKind::Child {
                custom: false,
                background: t.background,
            },
            disabled: &[],
            bash: None,
            custom_disallowed: &[],
            planning: false,
            leading: false,
            allowed: t.tools.as_deref(),
            disallowed: &t.disallowed_tools,
        };
        select(&registry, &selection)
            .names()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_types_and_their_limits() {
        let types = builtin_types(false);
        let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Explore", "Plan", "general-purpose"]);

        let explore = find(&types, "Explore");
        assert_eq!(explore.model, ModelChoice::Tier(ModelTier::Haiku));
        assert_eq!(explore.max_turns, Some(30));
        assert!(explore.read_only_commands && !explore.background);

        let plan = find(&types, "Plan");
        assert_eq!(plan.model, ModelChoice::Inherit);
        assert_eq!(plan.max_turns, Some(15));
        assert!(plan.read_only_commands && !plan.background);

        let general = find(&types, "general-purpose");
        assert_eq!(general.tools, None);
        assert!(general.disallowed_tools.is_empty());
        assert!(!general.read_only_commands && !general.background);

        assert!(
            types
                .iter()
                .all(|t| !t.custom && t.isolation == Isolation::None)
        );
        assert!(types.iter().all(|t| t.description.len() > 100), "{types:?}");
    }

    #[test]
    fn verification_exists_only_when_enabled() {
        assert!(
            builtin_types(false)
                .iter()
                .all(|t| t.name != "Verification")
        );
        let verification = find(&builtin_types(true), "Verification");
        assert!(verification.background);
        assert_eq!(verification.model, ModelChoice::Inherit);
        assert_eq!(verification.tools, None);
        assert!(!verification.read_only_commands);
        assert_eq!(builtin_types(true).len(), 4);
    }

    #[test]
    fn read_only_types_cannot_write() {
        for name in ["Explore", "Plan"] {
            let tools = tool_names(&find(&builtin_types(false), name));
            for reader in ["Read", "Glob", "Grep", "Bash"] {
                assert!(tools.iter().any(|t| t == reader), "{name}: {tools:?}");
            }
            for writer in ["Write", "Edit", "KillShell", "Agent", "TaskStop"] {
                assert!(!tools.iter().any(|t| t == writer), "{name}: {tools:?}");
            }
        }
        let general = tool_names(&find(&builtin_types(false), "general-purpose"));
        for tool in ["Read", "Write", "Edit", "Bash", "Glob", "Grep"] {
            assert!(general.iter().any(|t| t == tool), "{general:?}");
        }
        assert!(!general.iter().any(|t| t == "Agent"), "{general:?}");
        // In the background, Verification keeps what running and fixing tests takes.
        let verification = tool_names(&find(&builtin_types(true), "Verification"));
        for tool in ["Read", "Write", "Edit", "Bash", "BashOutput", "KillShell"] {
            assert!(verification.iter().any(|t| t == tool), "{verification:?}");
        }
    }

    #[test]
    fn the_prompts_are_written_and_say_how_to_end() {
        for t in builtin_types(true) {
            assert!(
                t.prompt.len() > 1500,
                "{}: {} bytes",
                t.name,
                t.prompt.len()
            );
            assert!(t.prompt.contains("absolute path"), "{}", t.name);
            assert!(t.prompt.contains("parent"), "{}", t.name);
        }
        let types = builtin_types(true);
        let explore = find(&types, "Explore").prompt;
        for needle in [
            "read-only",
            "quick",
            "very thorough",
            "in parallel",
            "line numbers",
        ] {
            assert!(explore.contains(needle), "Explore: {needle}");
        }
        let plan = find(&types, "Plan").prompt;
        for needle in ["read-only", "numbered", "Critical files", "3-5"] {
            assert!(plan.contains(needle), "Plan: {needle}");
        }
        let general = find(&types, "general-purpose").prompt;
        assert!(general.contains("Never create documentation files"));
        let verification = find(&types, "Verification").prompt;
        for needle in ["build", "tests", "Command:", "Output:", "Verdict:"] {
            assert!(verification.contains(needle), "Verification: {needle}");
        }
        let last = verification
            .trim_end()
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>();
        assert_eq!(last, ["VERDICT: PARTIAL", "VERDICT: FAIL", "VERDICT: PASS"]);
    }
}
