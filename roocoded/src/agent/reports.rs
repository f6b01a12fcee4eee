//! Reports for the `/context` and `/memory` commands.

use std::path::Path;

use super::{AgentError, Agents, prompt};
use crate::context::budget::breakdown;
use crate::llm::pricing;
use crate::memory::auto::list;
use crate::memory::{MemoryDirs, index_for_prompt, load_instructions};
use crate::store::SessionRow;

impl Agents {
    /// `/context`: the context window, part by part.
    pub async fn context_report(&self, row: &SessionRow) -> Result<String, AgentError> {
        let root = Path::new(&row.root);
        let config = self.config(root)?;
        let model = row
            .model
            .split_once('/')
            .map_or(row.model.as_str(), |(_, m)| m);
        let window = config
            .window_tokens()
            .unwrap_or_else(|| pricing::context_window(model));
        let tools_len = serde_json::to_string(&self.tools.defs()).map_or(0, |s| s.len());
        let instructions = load_instructions(root, &self.paths.user_dir).ok().flatten();
        let memory = index_for_prompt(&MemoryDirs::new(&self.paths.user_dir, root));
        let messages = self.store.context(&row.id).await?;
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

    /// `/memory`: every saved memory, user ones first.
    pub fn memory_report(&self, row: &SessionRow) -> Result<String, AgentError> {
        let dirs = MemoryDirs::new(&self.paths.user_dir, Path::new(&row.root));
        let entries = list(&dirs)
            .map_err(|e| AgentError::Invalid(format!("cannot read the memories: {e}")))?;
        if entries.is_empty() {
            return Ok(format!(
                "No memories yet. The agent saves them with its Memory tool (user ones in {}, project ones in {}).",
                dirs.user.display(),
                dirs.project.display()
            ));
        }
        Ok(entries
            .iter()
            .map(|e| {
                format!(
                    "{:<9} {} — {} ({})",
                    e.memory_type.as_str(),
                    e.name,
                    e.description,
                    e.path.display()
                )
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }
}
