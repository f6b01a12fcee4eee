//! `/context`: how the session's context window is used, part by part (system prompt,
//! tool definitions, instructions, memory, messages, tool results).
//!
//! The window is the one the agent loop budgets with: the session's model resolved as
//! the loop resolves it ([`llm::context_window`]: aliases such as `anthropic/sonnet`
//! expanded, `context.window_tokens` first), so the two never disagree.

use std::path::Path;

use crate::agent::{AgentError, Agents, prompt};
use crate::context::budget::breakdown;
use crate::llm;
use crate::memory::{MemoryDirs, index_for_prompt, load_instructions};
use crate::store::SessionRow;

/// The `/context` report of `row`'s session.
pub async fn report(agents: &Agents, row: &SessionRow) -> Result<String, AgentError> {
    let root = Path::new(&row.root);
    let config = agents.config(root)?;
    let window =
        llm::context_window(&row.model, &config).map_err(|e| AgentError::Config(e.to_string()))?;
    let tools_len = serde_json::to_string(&agents.tools().defs()).map_or(0, |s| s.len());
    let user_dir = &agents.paths().user_dir;
    let instructions = load_instructions(root, user_dir).ok().flatten();
    let memory = index_for_prompt(&MemoryDirs::new(user_dir, root));
    let messages = agents.store().context(&row.id).await?;
    let parts = breakdown(
        &prompt::system_prompt(row),
        tools_len,
        instructions.as_deref(),
        memory.as_deref(),
        &messages,
    );
    Ok(format!(
        "Context of {} ({} messages)\n{}",
        row.model,
        messages.len(),
        parts.render(window)
    ))
}
