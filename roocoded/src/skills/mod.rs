//! Skills (DESIGN.md §7): Markdown files with YAML frontmatter that teach the model a
//! procedure, loaded in two stages — the model first sees only each skill's name,
//! description and when to use it ([`SkillSet::listing`]); calling the `Skill` tool
//! loads the body, its arguments substituted ([`substitute()`]).
//!
//! A skill is `<dir>/<name>.md`, or a folder `<dir>/<name>/` holding `SKILL.md`, an
//! optional `tool.json` (tools of its own, [`SkillTool`]) and an optional `references/`
//! folder of files the model may read. [`load`] reads, highest precedence first:
//! project `.roocode/skills/`, project `.claude/skills/`, user `~/.roocode/skills/`,
//! user `~/.claude/skills/`, then the built-ins embedded in the binary (`commit`,
//! `review`, `test`). A skill of the same name from a lower source is kept in
//! [`SkillSet::shadowed`], naming its winner; a broken file is a [`Problem`] and never
//! stops the others.
//!
//! Files written for Claude Code load unchanged, their kebab-case keys keeping Claude
//! Code's meaning: `allowed-tools` lists permission rules pre-approved while the skill
//! runs ([`Skill::pre_approved`]), whereas RooCode's `allowed_tools` narrows the tool
//! set ([`Skill::allowed_tools`]).
//!
//! Users activate skills at the start of a message with rolebox's syntax (`|name|`,
//! `|name:a,b|`, `|name k=v|`, chains `|a|b:x|`: [`activation`]); [`order`] checks
//! `requires` and sorts by `priority`. Nothing here runs a skill: the engine does.

pub mod activation;
mod builtin;
mod error;
mod fields;
pub mod function;
mod listing;
pub mod order;
mod scan;
pub mod substitute;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_keys;
mod tool;
#[cfg(test)]
mod tool_tests;

use std::path::{Path, PathBuf};

use crate::project::UserDirs;

pub use crate::frontmatter::Problem;
pub use activation::{Activation, Activations};
pub use function::FunctionSpec;
pub use order::{UnknownSkill, by_priority, resolve, unmet_reminder, unmet_requires};
pub use scan::{load, parse};
pub use substitute::{Arguments, substitute};
pub use tool::SkillTool;

/// Where a skill comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkillSource {
    /// Embedded in the binary.
    BuiltIn,
    /// `~/.roocode/skills/`, or `~/.claude/skills/` when `claude`.
    User { claude: bool },
    /// `<project>/.roocode/skills/`, or `<project>/.claude/skills/` when `claude`.
    Project { claude: bool },
}

impl SkillSource {
    /// The sources read from folders, highest precedence first.
    pub const FOLDERS: [SkillSource; 4] = [
        SkillSource::Project { claude: false },
        SkillSource::Project { claude: true },
        SkillSource::User { claude: false },
        SkillSource::User { claude: true },
    ];

    /// Higher wins: project `.roocode` 4, project `.claude` 3, user `.roocode` 2, user
    /// `.claude` 1, built-in 0.
    pub fn precedence(self) -> u8 {
        match self {
            SkillSource::BuiltIn => 0,
            SkillSource::User { claude: true } => 1,
            SkillSource::User { claude: false } => 2,
            SkillSource::Project { claude: true } => 3,
            SkillSource::Project { claude: false } => 4,
        }
    }

    /// The folder this source reads; `None` for the built-ins.
    pub fn dir(self, user: &UserDirs, project_root: &Path) -> Option<PathBuf> {
        match self {
            SkillSource::BuiltIn => None,
            SkillSource::User { claude } => Some(user.folder(claude, "skills")),
            SkillSource::Project { claude } => {
                Some(project_root.join(tool_dir(claude)).join("skills"))
            }
        }
    }

    /// A short label for lists and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            SkillSource::BuiltIn => "built-in",
            SkillSource::User { claude: false } => "user",
            SkillSource::User { claude: true } => "user (.claude)",
            SkillSource::Project { claude: false } => "project",
            SkillSource::Project { claude: true } => "project (.claude)",
        }
    }
}

fn tool_dir(claude: bool) -> &'static str {
    if claude { ".claude" } else { ".roocode" }
}

/// How a skill runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SkillMode {
    /// Its body is injected into the current conversation.
    #[default]
    Inline,
    /// It runs in an isolated sub-agent; only the result comes back.
    Fork,
}

/// A named parameter; positional arguments fill them in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// `[A-Za-z_][A-Za-z0-9_]*`, used as `$name` or `${name}` in the body.
    pub name: String,
    pub default: Option<String>,
    pub description: Option<String>,
}

/// The default `priority`: skills without one sit in the middle.
pub const DEFAULT_PRIORITY: i32 = 50;

/// One skill, as its file wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// `[a-z][a-z0-9-]*`: the file or folder name unless `name` says otherwise.
    pub name: String,
    /// What it does; the body's first line when the file has no `description`.
    pub description: String,
    pub when_to_use: Option<String>,
    pub tags: Vec<String>,
    /// RooCode's `allowed_tools`: the only tools the model has while it runs; `None` =
    /// the session's tools.
    pub allowed_tools: Option<Vec<String>>,
    /// Claude Code's `allowed-tools`: permission rules (`Bash(git add:*)`, `Read`)
    /// approved without asking while it runs.
    pub pre_approved: Vec<String>,
    pub mode: SkillMode,
    pub argument_hint: Option<String>,
    /// As written (`sonnet`, a full model spec); `None` = the session's model.
    pub model: Option<String>,
    pub params: Vec<Param>,
    /// Skills that must be active with this one.
    pub requires: Vec<String>,
    /// Lower is injected first ([`DEFAULT_PRIORITY`] when not given).
    pub priority: i32,
    /// Hidden from the model's listing: only the user invokes it.
    pub disable_model_invocation: bool,
    /// `false`: only the model invokes it (not offered as `/name`).
    pub user_invocable: bool,
    /// The Markdown body, trimmed, arguments not yet substituted.
    pub body: String,
    pub source: SkillSource,
    /// The file it was read from (`SKILL.md` for a folder); `None` for a built-in.
    pub path: Option<PathBuf>,
    /// The skill's folder, for a folder skill.
    pub dir: Option<PathBuf>,
    /// Its `references/` folder, when there is one: files the model may read.
    pub references: Option<PathBuf>,
    /// The tools of its `tool.json`.
    pub tools: Vec<SkillTool>,
    /// What a person should know (unknown keys, keys not applied, YAML read leniently),
    /// one sentence each.
    pub warnings: Vec<String>,
    /// Its state rules, when it is a workflow function ([`function`]).
    pub function: Option<FunctionSpec>,
}

impl Skill {
    /// Whether the model's listing shows it (and the `Skill` tool may load it).
    /// A workflow function is never: its state lives from its activation (`|name|`,
    /// `skills.auto`, a transition), which loading its body would skip.
    pub fn model_invocable(&self) -> bool {
        !self.disable_model_invocation && self.function.is_none()
    }

    /// Where it was read from, for messages: its path, or `built-in`.
    pub fn origin(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => format!("built-in skill {}", self.name),
        }
    }
}

/// A skill that lost to one of the same name from a higher source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadowed {
    pub name: String,
    pub source: SkillSource,
    /// `None` for a built-in.
    pub path: Option<PathBuf>,
    /// The winner's source and file.
    pub by: SkillSource,
    pub by_path: Option<PathBuf>,
}

/// Everything [`load`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillSet {
    /// The winners, sorted by name.
    pub skills: Vec<Skill>,
    /// The losers, in the order they were found.
    pub shadowed: Vec<Shadowed>,
    pub problems: Vec<Problem>,
}

impl SkillSet {
    /// The skill of this name (exact match), if any.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }
}

/// Whether `name` is a valid skill name: `[a-z][a-z0-9-]*`, at most 64 characters.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && name.len() <= MAX_NAME_LEN
}

/// The longest skill name.
pub const MAX_NAME_LEN: usize = 64;

/// The built-in skill files (name, text), for tests elsewhere.
#[cfg(test)]
pub(crate) fn builtin_files() -> &'static [(&'static str, &'static str)] {
    &builtin::FILES
}
