//! The system prompt: the agent's role and its environment. It is byte-stable while the
//! session's [`Role`] stays the same (the date is the session's start date) so providers
//! can cache it; anything else that changes (instructions, memory) goes into the
//! conversation instead. The role changes rarely and on purpose: when the session starts
//! or stops leading a team (`TeamCreate`, the team's deletion) — one cache miss — and
//! when coordinator mode is turned on or off, which changes the tool set, and with it
//! the cached prefix, anyway.

use std::path::Path;

use crate::clock;
use crate::config::Config;
use crate::store::SessionRow;

use crate::project;

/// The environment section every agent's system prompt ends with: where it works, on
/// which branch, the platform and the date (of the session's start: byte-stable).
pub fn environment(cwd: &str, root: &str, created_at_ms: i64) -> String {
    let date = clock::rfc3339(created_at_ms);
    let date = date.get(..10).unwrap_or(&date);
    let branch = project::branch(Path::new(root))
        .map(|b| format!("\n- Git branch: {b}"))
        .unwrap_or_default();
    format!(
        "Environment:
- Working directory: {cwd}
- Project root: {root}{branch}
- Platform: {os}
- Session date: {date}",
        os = std::env::consts::OS,
    )
}

/// What a session's main agent is, as far as its system prompt says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Works on its own (it may start sub-agents).
    Solo,
    /// Leads a team: the prompt says how to split work between teammates.
    Lead,
    /// Coordinator mode (with or without a team yet): it only decomposes, dispatches and
    /// monitors.
    Coordinator,
}

impl Role {
    /// The role of `row`'s main agent under `config`.
    pub fn of(row: &SessionRow, config: &Config) -> Self {
        if super::spec::coordinating(row, config) {
            Role::Coordinator
        } else if row.leads_team {
            Role::Lead
        } else {
            Role::Solo
        }
    }
}

/// The main agent's system prompt in `role`.
pub fn system_prompt(row: &SessionRow, role: Role) -> String {
    // The team sections sit before the environment, each followed by a blank line.
    let lead = include_str!("team/prompts/lead.md").trim_end();
    let team = match role {
        Role::Solo => String::new(),
        Role::Lead => format!("{lead}\n\n"),
        Role::Coordinator => format!(
            "{}\n\n{lead}\n\n",
            include_str!("team/prompts/coordinator.md").trim_end()
        ),
    };
    let look = match role {
        Role::Solo | Role::Lead => {
            "- Use the tools to look before you answer: read the files involved, search with Glob \
and Grep, and base every claim about the code on what you saw."
        }
        Role::Coordinator => {
            "- Base every claim about the code on what a teammate found and reported, and say \
whose finding it is."
        }
    };
    format!(
        "You are RooCode, an AI coding agent working in the user's terminal. You help with \
software engineering tasks: reading and explaining code, finding bugs, making changes and \
running commands, using the tools you are given.

How to work:
{look}
- Several independent reads or searches can be requested in one response; they run in parallel.
- Be concise. Answer in plain text or Markdown suited to a terminal. Refer to code as \
`path:line`.
- If a tool call is denied, do not retry the same call: choose another way or ask the user.
- When the task is done, say briefly what you did and what remains.

{team}{environment}",
        environment = environment(&row.cwd, &row.root, row.created_at),
    )
}

/// The project's instruction files and the memory index, as one system reminder for the
/// start of the conversation (None when there is neither).
pub fn session_reminder(root: &Path, user_dir: &Path) -> Option<String> {
    let instructions = match crate::memory::load_instructions(root, user_dir) {
        Ok(text) => text,
        Err(e) => {
            tracing::warn!("cannot read the instruction files: {e}");
            None
        }
    };
    let dirs = crate::memory::MemoryDirs::new(user_dir, root);
    let memory = crate::memory::index_for_prompt(&dirs);
    let parts: Vec<String> = instructions
        .map(|t| crate::memory::system_reminder(&t))
        .into_iter()
        .chain(memory.map(|m| format!("<system-reminder>\n{m}\n</system-reminder>")))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The reminder added to the newest user message while the session is in plan mode
/// (plan mode constrains by prompt, DESIGN.md §5; the system prompt stays unchanged).
pub fn plan_mode_reminder(plan_file: &Path) -> String {
    format!(
        "<system-reminder>\nPlan mode is active. The user wants a plan before any change: \
explore with the read-only tools (Read, Glob, Grep), ask with AskUserQuestion when a \
decision is theirs, and do NOT edit files, run commands that change anything, or make \
commits. The one file you may write is the plan file, {plan}: write your plan there \
(the goal, the steps, the files to change, how you will verify). When the plan is \
complete, call ExitPlanMode with it so the user can approve it.\n</system-reminder>",
        plan = plan_file.display()
    )
}

/// [`plan_mode_reminder`] for a coordinator, which has no tool to explore or write with:
/// it plans through its teammates.
pub fn coordinator_plan_reminder() -> String {
    "<system-reminder>\nPlan mode is active. The user wants a plan before any change. You \
have no code tools: have teammates explore and report what you need (they are in plan \
mode too and change nothing), ask with AskUserQuestion when a decision is the user's, and \
dispatch no work that changes anything yet. When the plan is complete (the tasks, who does \
each, their order and dependencies, how the result is verified), call ExitPlanMode with it \
so the user can approve it.\n</system-reminder>"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::Mode;
    use roocode_protocol::session::SessionKind;

    use crate::store::{NewSession, Store};

    fn new_session(id: &str, root: &str) -> NewSession {
        NewSession {
            id: id.into(),
            parent_session_id: None,
            kind: SessionKind::Main,
            title: "t".into(),
            cwd: root.into(),
            root: root.into(),
            model: "anthropic/m".into(),
            mode: Mode::Default,
        }
    }

    #[tokio::test]
    async fn the_prompt_says_how_to_lead_only_to_leads_and_stays_put_within_a_role() {
        let store = Store::memory().await.unwrap();
        let row = store.insert_session(&new_session("s", "/p")).await.unwrap();
        let config = Config::default();
        assert_eq!(Role::of(&row, &config), Role::Solo);
        let solo = system_prompt(&row, Role::Solo);
        assert_eq!(solo, system_prompt(&row, Role::Solo), "byte-stable");
        assert!(!solo.contains("teammate"), "{solo}");
        assert!(solo.contains("search with Glob and Grep"));

        let lead = system_prompt(&row, Role::Lead);
        for says in [
            "by file boundaries",
            "2–4 tasks",
            "`add_blocked_by`",
            "say why",
            "verification task",
        ] {
            assert!(lead.contains(says), "{says}: {lead}");
        }
        assert!(lead.ends_with(&solo[solo.find("Environment:").unwrap()..]));
        assert!(!lead.contains("Coordinator mode"));

        let coordinator = system_prompt(&row, Role::Coordinator);
        for says in [
            "no code work yourself",
            "done by a teammate",
            "AskUserQuestion",
            "by file boundaries",
        ] {
            assert!(coordinator.contains(says), "{says}: {coordinator}");
        }
        assert!(!coordinator.contains("search with Glob and Grep"));

        store
            .create_team("t", "alpha", "s", "", "none")
            .await
            .unwrap();
        let row = store.session("s").await.unwrap().unwrap();
        assert_eq!(Role::of(&row, &config), Role::Lead);
        store
            .set_session_coordinator("s", Some(true))
            .await
            .unwrap();
        let row = store.session("s").await.unwrap().unwrap();
        assert_eq!(Role::of(&row, &config), Role::Coordinator);
    }
}
