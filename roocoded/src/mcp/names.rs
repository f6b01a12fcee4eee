//! The names MCP tools are called by: `mcp__<server>__<tool>`, as Claude Code names
//! them, made to fit the providers' `^[a-zA-Z0-9_-]{1,64}$` (any other character becomes
//! `_`; a name too long keeps its start and ends in a hash of the whole, so two long
//! names never meet). The tool keeps the server's own name to call it by: the map back.

use sha2::{Digest, Sha256};

/// Longest tool name the providers take.
pub const MAX_NAME: usize = 64;

/// The name the model calls `tool` of `server` by.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{}__{}", clean(server), clean(tool));
    if full.len() <= MAX_NAME {
        return full;
    }
    let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    // `full` is ASCII, so any byte offset is a character boundary.
    format!("{}_{hash}", &full[..MAX_NAME - hash.len() - 1])
}

/// The prefix of every tool of `server` (what a rule `mcp__server` matches).
pub fn server_prefix(server: &str) -> String {
    format!("mcp__{}__", clean(server))
}

fn clean(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        (1..=MAX_NAME).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn names_are_claude_code_s_and_fit_the_providers() {
        assert_eq!(
            tool_name("github", "create_issue"),
            "mcp__github__create_issue"
        );
        assert_eq!(
            tool_name("notes", "notes.search"),
            "mcp__notes__notes_search"
        );
        assert_eq!(
            tool_name("my server", "ünïcode/tool"),
            "mcp__my_server___n_code_tool"
        );
        assert_eq!(server_prefix("a.b"), "mcp__a_b__");
        let long = "x".repeat(80);
        let a = tool_name("server", &format!("{long}a"));
        let b = tool_name("server", &format!("{long}b"));
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert_ne!(a, b);
        assert!(a.starts_with("mcp__server__xxx"));
    }
}
