//! The system prompt: the agent's role and its environment. It is byte-stable for the
//! life of a session (the date is the session's start date) so providers can cache it;
//! anything that changes (instructions, memory) goes into the conversation instead.

use std::path::Path;

use crate::clock;
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

pub fn system_prompt(row: &SessionRow) -> String {
    format!(
        "You are RooCode, an AI coding agent working in the user's terminal. You help with \
software engineering tasks: reading and explaining code, finding bugs, making changes and \
running commands, using the tools you are given.

How to work:
- Use the tools to look before you answer: read the files involved, search with Glob and \
Grep, and base every claim about the code on what you saw.
- Several independent reads or searches can be requested in one response; they run in parallel.
- Be concise. Answer in plain text or Markdown suited to a terminal. Refer to code as \
`path:line`.
- If a tool call is denied, do not retry the same call: choose another way or ask the user.
- When the task is done, say briefly what you did and what remains.

{environment}",
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
