//! Prompt commands (DESIGN.md §7, "Slash commands"): Markdown files whose body becomes
//! the user's message when they type `/name args`. Read from, highest precedence first:
//! `<project>/.roocode/commands/`, `<project>/.claude/commands/`,
//! `~/.roocode/commands/`, `~/.claude/commands/`, every `*.md` at any depth. A subfolder
//! namespaces: `git/commit.md` is `/git:commit`, `a/b/c.md` is `/a:b:c`. A command of
//! the same name from a lower source is kept in [`PromptCommands::shadowed`], naming
//! its winner; a file that cannot be a command is a [`Problem`].
//!
//! The frontmatter is optional (a file without `---` is all body): `description`
//! (default: the body's first line), `argument_hint` / `argument-hint`, `model`,
//! RooCode's `allowed_tools` (narrows the tool set) and Claude Code's `allowed-tools`
//! (permission rules pre-approved while it runs).
//!
//! [`expand()`] builds the message: `` !`cmd` `` spans and `@path` tokens of the file's
//! own body are inlined through an [`Inliner`] (which applies the permission layers),
//! then the arguments are substituted as for skills ([`crate::skills::substitute()`]). The
//! arguments are never scanned for `` !` `` or `@`: whoever supplies them (the user,
//! or a model asked to run the command) cannot make RooCode read a file or run a
//! command.

mod error;
mod expand;
mod fields;
mod inline;
mod scan;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use crate::project::UserDirs;

pub use crate::frontmatter::Problem;
pub use expand::{ExpandError, MAX_INLINED, MAX_OUTPUT_BYTES, expand, expand_body};
pub use inline::Inliner;
pub use scan::load;

/// Where a prompt command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandSource {
    /// `~/.roocode/commands/`, or `~/.claude/commands/` when `claude`.
    User { claude: bool },
    /// `<project>/.roocode/commands/`, or `<project>/.claude/commands/` when `claude`.
    Project { claude: bool },
}

impl CommandSource {
    /// Every source, highest precedence first.
    pub const ALL: [CommandSource; 4] = [
        CommandSource::Project { claude: false },
        CommandSource::Project { claude: true },
        CommandSource::User { claude: false },
        CommandSource::User { claude: true },
    ];

    /// The folder this source reads.
    pub fn dir(self, user: &UserDirs, project_root: &Path) -> PathBuf {
        match self {
            CommandSource::User { claude } => user.folder(claude, "commands"),
            CommandSource::Project { claude } => project_root
                .join(if claude { ".claude" } else { ".roocode" })
                .join("commands"),
        }
    }

    /// A short label for lists and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandSource::User { claude: false } => "user",
            CommandSource::User { claude: true } => "user (.claude)",
            CommandSource::Project { claude: false } => "project",
            CommandSource::Project { claude: true } => "project (.claude)",
        }
    }
}

/// One prompt command, as its file wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptCommand {
    /// Without the `/`: `review`, `git:commit`.
    pub name: String,
    /// The frontmatter's, else the body's first non-empty line (cut to 80 characters).
    pub description: String,
    pub argument_hint: Option<String>,
    /// RooCode's `allowed_tools`: the only tools the model has for the turn; `None` =
    /// the session's tools.
    pub allowed_tools: Option<Vec<String>>,
    /// Claude Code's `allowed-tools`: permission rules (`Bash(git add:*)`) approved
    /// without asking for the turn.
    pub pre_approved: Vec<String>,
    /// As written; `None` = the session's model.
    pub model: Option<String>,
    /// The Markdown body, trimmed, nothing substituted or inlined yet.
    pub body: String,
    pub path: PathBuf,
    pub source: CommandSource,
    /// What a person should know (unknown keys, YAML read leniently), one sentence each.
    pub warnings: Vec<String>,
}

/// A command that lost to one of the same name from a higher source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadowed {
    pub name: String,
    pub path: PathBuf,
    pub source: CommandSource,
    /// The winner's file and source.
    pub by: PathBuf,
    pub by_source: CommandSource,
}

/// Everything [`load`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptCommands {
    /// The winners, sorted by name.
    pub commands: Vec<PromptCommand>,
    /// The losers, in the order they were found.
    pub shadowed: Vec<Shadowed>,
    pub problems: Vec<Problem>,
}

impl PromptCommands {
    /// The command of this name (without `/`), if any.
    pub fn get(&self, name: &str) -> Option<&PromptCommand> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.commands.iter().map(|c| c.name.as_str()).collect()
    }
}
