//! The names MCP tools are called by: `mcp__<server>__<tool>`, as Claude Code names
//! them, made to fit the providers' `^[a-zA-Z0-9_-]{1,64}$` (any other character becomes
//! `_`; a name too long keeps its start and ends in a hash of the whole, so two long
//! names never meet). The tool keeps the server's own name to call it by: the map back.
//!
//! A server's prompts are slash commands named the same way ([`prompt_command`]),
//! lowercased when they would not fit the slash grammar `[a-z0-9][a-z0-9:_-]*`.

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

/// The slash command (without its `/`) that invokes `prompt` of `server`: its
/// [`tool_name`], so `mcp__<server>__<prompt>` cleaned and capped as tool names are,
/// lowercased when it does not fit the slash grammar `[a-z0-9][a-z0-9:_-]*` (a tool
/// name may hold capitals). Nothing else can be left outside the grammar: a tool name
/// is only ASCII letters, digits, `_` and `-` and starts with `mcp__`; should any other
/// character ever remain, it becomes `_`. Two prompts whose names differ only in case
/// or in cleaned characters get the same command: the command catalog keeps the first
/// and lists the other as shadowed.
pub fn prompt_command(server: &str, prompt: &str) -> String {
    let name = tool_name(server, prompt);
    if fits_slash(&name) {
        return name;
    }
    name.chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, ':' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether `name` fits the slash grammar `[a-z0-9][a-z0-9:_-]*`.
fn fits_slash(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, ':' | '_' | '-'))
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

    #[test]
    fn prompt_commands_fit_the_slash_grammar() {
        assert_eq!(
            prompt_command("github", "summarize_pr"),
            "mcp__github__summarize_pr"
        );
        assert_eq!(
            prompt_command("GitHub", "Review.PR"),
            "mcp__github__review_pr"
        );
        assert_eq!(prompt_command("a b", "ünï-x"), "mcp__a_b___n_-x");
        let long = prompt_command("Server", &"X".repeat(80));
        assert!(fits_slash(&long) && long.len() <= MAX_NAME, "{long}");
        assert!(!fits_slash("Mcp") && !fits_slash("_x") && !fits_slash(""));
        assert!(fits_slash("mcp__a:b-c_1"));
    }
}
