//! Placeholder until the rules layer lands (replaced by the permission branch).

use std::path::Path;

use crate::tools::PermissionTarget;

pub fn rule_for(tool: &str, target: &PermissionTarget, root: &Path) -> String {
    match target {
        PermissionTarget::Command(c) => format!("Bash({c})"),
        PermissionTarget::Path { path, .. } => {
            let rel = path.strip_prefix(root).unwrap_or(path);
            let tool = if tool == "Write" { "Edit" } else { tool };
            format!("{tool}({})", rel.display())
        }
        _ => tool.to_string(),
    }
}

pub fn append_allow_rule(_root: &Path, _rule: &str) -> std::io::Result<()> {
    Ok(())
}
