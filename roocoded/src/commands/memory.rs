//! `/memory`: every saved memory, user ones first, one line each.

use std::path::Path;

use crate::agent::{AgentError, Engine};
use crate::memory::MemoryDirs;
use crate::memory::auto::list;
use crate::store::SessionRow;

/// The `/memory` report of `row`'s session.
pub fn report(engine: &Engine, row: &SessionRow) -> Result<String, AgentError> {
    let dirs = MemoryDirs::new(&engine.paths().user_dir, Path::new(&row.root));
    let entries =
        list(&dirs).map_err(|e| AgentError::Invalid(format!("cannot read the memories: {e}")))?;
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
