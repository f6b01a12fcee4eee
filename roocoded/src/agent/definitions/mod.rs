//! Agent definitions: the `*.md` files that describe the sub-agent types a session can
//! start (DESIGN.md §9, issue 11 item 3).
//!
//! [`load`] reads, in this precedence (a later definition of the same name overrides an
//! earlier one, and the winner lists the files it overrode):
//! `~/.claude/agents/*.md`, `~/.roocode/agents/*.md`, `<project>/.claude/agents/*.md`,
//! `<project>/.roocode/agents/*.md`. Each file is YAML frontmatter between `---` lines
//! plus a Markdown body, the child's system prompt; files written for Claude Code load
//! unchanged (camelCase keys, `tools: Read, Grep`, `model: sonnet`, `color: blue`).
//!
//! Nothing here decides policy: tool names are kept as written (the caller filters them
//! against its registry; [`tool_warnings`] names the ones it will drop), `model` tiers are kept as tiers (the caller maps them onto the
//! configured provider). A file that cannot become a definition is a [`Problem`] with
//! its file, line and what to fix; it never stops the other files from loading.

mod error;
pub(crate) mod fields;
mod scan;
#[cfg(test)]
mod tests;
mod tools;

use std::path::{Path, PathBuf};

use crate::project::UserDirs;

use roocode_protocol::Mode;

pub use crate::frontmatter::Problem;
pub use scan::{load, load_dirs, parse};
pub use tools::tool_warnings;

/// Where a definition comes from, in precedence order (a later source overrides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// `~/.claude/agents/`
    UserClaude,
    /// `~/.roocode/agents/`
    UserRooCode,
    /// `<project>/.claude/agents/`
    ProjectClaude,
    /// `<project>/.roocode/agents/`
    ProjectRooCode,
}

impl Source {
    /// Every source, lowest precedence first.
    pub const ALL: [Source; 4] = [
        Source::UserClaude,
        Source::UserRooCode,
        Source::ProjectClaude,
        Source::ProjectRooCode,
    ];

    /// The directory this source reads, for a home and a project root.
    pub fn dir(self, user: &UserDirs, project_root: &Path) -> PathBuf {
        match self {
            Source::UserClaude => user.folder(true, "agents"),
            Source::UserRooCode => user.folder(false, "agents"),
            Source::ProjectClaude => project_root.join(".claude/agents"),
            Source::ProjectRooCode => project_root.join(".roocode/agents"),
        }
    }

    /// A short label for lists and logs (`user`, `project`, with the tool's folder).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::UserClaude => "user (.claude)",
            Source::UserRooCode => "user",
            Source::ProjectClaude => "project (.claude)",
            Source::ProjectRooCode => "project",
        }
    }
}

/// A model tier as Claude Code names it; the caller maps it onto its provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelTier {
    Sonnet,
    Opus,
    Haiku,
}

/// The `model` of a definition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelChoice {
    /// The parent's model (`model: inherit`, or no `model`).
    #[default]
    Inherit,
    /// `sonnet`, `opus` or `haiku` (any case).
    Tier(ModelTier),
    /// Anything else, trimmed, as written (a full model spec).
    Spec(String),
}

/// Where the child runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// In the parent's working tree.
    #[default]
    None,
    /// In a git worktree and branch of its own.
    Worktree,
}

/// One agent definition, as its file wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The `subagent_type` that selects it.
    pub name: String,
    /// When to use it (any language); empty when the file has none.
    pub description: String,
    /// The child's system prompt: the Markdown body, trimmed.
    pub prompt: String,
    /// The allow-list as written, trimmed and deduplicated in order; `None` = every tool
    /// the child may have (no `tools`, an empty one, or `*`).
    pub tools: Option<Vec<String>>,
    /// Tools taken away, as written, trimmed and deduplicated in order.
    pub disallowed_tools: Vec<String>,
    pub model: ModelChoice,
    pub max_turns: Option<u32>,
    /// `None` = the parent's mode.
    pub permission_mode: Option<Mode>,
    pub isolation: Isolation,
    pub background: bool,
    /// As a teammate it starts in plan mode, and its lead approves its plan
    /// (`plan_mode_required`).
    pub plan_mode_required: bool,
    pub timeout_s: Option<u64>,
    /// `collaboration:`: the graph its dispatches follow when it runs as a teammate
    /// that leads helpers ([`crate::workflow::graph`]).
    pub collaboration: Option<Box<crate::workflow::graph::Graph>>,
    /// Claude Code keys RooCode accepts but does not apply (`color`, `skills`,
    /// `mcpServers`, `hooks`), as the file spelled them.
    pub not_applied: Vec<String>,
    /// Other keys nobody knows (a typo, or a newer Claude Code), as spelled.
    pub unknown_keys: Vec<String>,
    /// The frontmatter was not valid YAML only because of an unquoted `: ` in a value
    /// (as Claude Code's own generator writes descriptions); it was read leniently.
    pub lenient_yaml: bool,
    /// The file it was read from, and which of the four sources that is.
    pub path: PathBuf,
    pub source: Source,
    /// Files of the same name this one overrode, lowest precedence first.
    pub overrides: Vec<PathBuf>,
}

impl Definition {
    /// What a person should know about this definition (keys ignored, YAML read
    /// leniently, no description, files overridden), one sentence each.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.not_applied.is_empty() {
            out.push(format!(
                "not applied by RooCode (Claude Code settings): {}",
                self.not_applied.join(", ")
            ));
        }
        if !self.unknown_keys.is_empty() {
            out.push(format!(
                "unknown keys, ignored (check the spelling): {}",
                self.unknown_keys.join(", ")
            ));
        }
        if self.lenient_yaml {
            out.push(crate::frontmatter::LENIENT_WARNING.to_string());
        }
        let project = matches!(self.source, Source::ProjectClaude | Source::ProjectRooCode);
        if let Some(mode @ (Mode::AcceptEdits | Mode::BypassPermissions)) = self.permission_mode
            && project
        {
            out.push(format!(
                "permission_mode: {} from a project file applies only when the parent's mode \
                 allows as much (a cloned repository could have written it); put the \
                 definition in ~/.roocode/agents to let it apply",
                mode.as_str()
            ));
        }
        if self.description.is_empty() {
            out.push("no `description`: the model picks agents by it; add one".to_string());
        }
        for path in &self.overrides {
            out.push(format!("overrides {}", path.display()));
        }
        out
    }
}

/// Everything [`load`] found: the winning definitions, sorted by name, and the problems.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    pub definitions: Vec<Definition>,
    pub problems: Vec<Problem>,
}

impl Loaded {
    /// The definition of this name (exact match), if any.
    pub fn get(&self, name: &str) -> Option<&Definition> {
        self.definitions.iter().find(|d| d.name == name)
    }

    /// The names, sorted, for "unknown subagent_type" errors.
    pub fn names(&self) -> Vec<&str> {
        self.definitions.iter().map(|d| d.name.as_str()).collect()
    }
}
