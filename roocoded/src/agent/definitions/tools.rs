//! What a definition's tool names mean here: files written for Claude Code name tools
//! RooCode does not have (`Task`, `NotebookEdit`, `WebSearch`, …). Those are dropped
//! when the agent starts; [`tool_warnings`] says so for `roocode-cli agents
//! --definitions`, with RooCode's closest tools when there are some. MCP tools
//! (`mcp__server__tool`) come and go with their servers and are never warned about.

use super::Definition;
use roocode_protocol::command::edit_distance;

/// Claude Code's names for tools RooCode has under another name.
const RENAMED: &[(&str, &str)] = &[
    ("Task", "Agent"),
    ("MultiEdit", "Edit"),
    ("KillBash", "KillShell"),
    ("LS", "Glob"),
];

/// One sentence per tool of `def`'s `tools` and `disallowed_tools` that is not among
/// `known` (the daemon's tool names).
pub fn tool_warnings(def: &Definition, known: &[&str]) -> Vec<String> {
    let unknown = |names: &[String]| -> Vec<String> {
        names
            .iter()
            .filter(|n| !n.starts_with("mcp__") && !known.contains(&n.as_str()))
            .cloned()
            .collect()
    };
    let mut out = Vec::new();
    let allowed = def.tools.as_deref().unwrap_or_default();
    let dropped = unknown(allowed);
    for name in &dropped {
        out.push(format!(
            "tool `{name}` does not exist in RooCode; dropped{}",
            closest(name, known)
        ));
    }
    for name in unknown(&def.disallowed_tools) {
        out.push(format!(
            "tool `{name}` in disallowed_tools does not exist in RooCode; dropped{}",
            closest(&name, known)
        ));
    }
    if !allowed.is_empty() && dropped.len() == allowed.len() {
        out.push(
            "none of the tools in `tools` exists in RooCode, so the agent would have no \
             tools: name RooCode's tools, or remove `tools` to give it every tool"
                .to_string(),
        );
    }
    out
}

/// ` (closest in RooCode: A, B)`, or nothing: RooCode's name for a renamed Claude Code
/// tool, the same name in another case, a `Tool(specifier)` written for the tool
/// itself, or a name a typo or two away.
fn closest(name: &str, known: &[&str]) -> String {
    let base = name.split('(').next().unwrap_or(name).trim();
    let lower = base.to_lowercase();
    let close: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| {
            RENAMED.contains(&(base, k))
                || k.to_lowercase() == lower
                || (lower.len() > 3 && edit_distance(&k.to_lowercase(), &lower) <= typos(&lower))
        })
        .collect();
    if close.is_empty() {
        String::new()
    } else {
        format!(" (closest in RooCode: {})", close.join(", "))
    }
}

/// How many typos a name of this length may hold and still look meant: one in a short
/// name (`Task` is two from `Bash`, and not meant), two in a longer one.
fn typos(name: &str) -> usize {
    if name.chars().count() <= 5 { 1 } else { 2 }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::agent::definitions::{Source, parse};

    const KNOWN: &[&str] = &[
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "Bash",
        "KillShell",
        "WebFetch",
        "Agent",
    ];

    fn warnings(frontmatter: &str) -> Vec<String> {
        let text = format!("---\nname: x\ndescription: d\n{frontmatter}---\nbody\n");
        let def = parse(&text, Path::new("/p/x.md"), Source::ProjectRooCode)
            .expect("the definition loads");
        tool_warnings(&def, KNOWN)
    }

    #[test]
    fn tools_claude_code_has_and_roocode_has_not_are_named() {
        assert_eq!(
            warnings("tools: Read, Task, NotebookEdit, mcp__github__create_issue\n"),
            [
                "tool `Task` does not exist in RooCode; dropped (closest in RooCode: Agent)",
                "tool `NotebookEdit` does not exist in RooCode; dropped",
            ]
        );
        assert_eq!(
            warnings("tools: [Read]\ndisallowed_tools: [WebSearch, KillBash]\n"),
            [
                "tool `WebSearch` in disallowed_tools does not exist in RooCode; dropped",
                "tool `KillBash` in disallowed_tools does not exist in RooCode; dropped \
                 (closest in RooCode: KillShell)",
            ]
        );
    }

    #[test]
    fn close_names_are_suggested() {
        assert_eq!(
            warnings("tools: read, WebFech, Bash(git log:*), MultiEdit\n"),
            [
                "tool `read` does not exist in RooCode; dropped (closest in RooCode: Read)",
                "tool `WebFech` does not exist in RooCode; dropped (closest in RooCode: \
                 WebFetch)",
                "tool `Bash(git log:*)` does not exist in RooCode; dropped (closest in \
                 RooCode: Bash)",
                "tool `MultiEdit` does not exist in RooCode; dropped (closest in RooCode: Edit)",
                "none of the tools in `tools` exists in RooCode, so the agent would have no \
                 tools: name RooCode's tools, or remove `tools` to give it every tool",
            ]
        );
    }

    #[test]
    fn known_tools_and_no_tools_say_nothing() {
        assert!(warnings("tools: Read, Grep, Glob\n").is_empty());
        assert!(warnings("").is_empty());
        assert!(warnings("tools: '*'\n").is_empty());
        assert!(warnings("tools: [mcp__x__y]\n").is_empty());
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("grep", "grep"), 0);
        assert_eq!(edit_distance("grpe", "grep"), 2);
        assert_eq!(edit_distance("read", "write"), 4);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
