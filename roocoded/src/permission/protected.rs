//! Protected files (issue 9, item 2): files whose content decides what the agent may do
//! or makes some other program run commands. A file tool's write to one of them is asked
//! in every mode, `bypassPermissions` included (denied in `dontAsk`); only a deny rule
//! answers first, and no allow rule or "allow always" skips the question.
//!
//! What is protected, wherever it lies (inside the project, an additional directory, or
//! the home when that is the project):
//!
//! - RooCode's configuration and rule files: everything under a `.roocode/` directory
//!   and under RooCode's user directory (`~/.roocode` or `ROOCODE_HOME`), except the
//!   memory directories the `Memory` tool writes anyway;
//! - other agents' settings: `.claude/settings*.json`, `.mcp.json`, and the agent
//!   definitions, commands, skills and hooks under `.claude/` (RooCode reads them: an
//!   agent definition says which tools and mode a sub-agent gets);
//! - git's internals and configuration: anything under `.git/` (and a `.git` file),
//!   `.gitconfig`, `.config/git/`, the directory `core.hooksPath` names;
//! - files other tools execute: `.envrc` (direnv), `.vscode/tasks.json` and
//!   `.vscode/settings.json`, `.idea/` (JetBrains IDEs), `.gitmodules`;
//! - shell start-up files (`.bashrc`, `.profile`, `.zshrc`, fish's `config.fish`, …) and
//!   `.ssh/`.
//!
//! A path is matched as given (made absolute, `..` removed) **and** as its real path
//! (symlinks followed), so a link to a protected file, or a path through a linked
//! directory, is protected too. A hard link under another name is not seen here: the
//! path sandbox asks before writing any file with more than one link.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{PermissionGate, PermissionTarget, Scope, rules, sandbox};
use crate::memory::MemoryDirs;
use crate::project::GitDirs;

/// Why a file is protected; shown in the approval prompt, and recorded with the
/// decision (`DecidedBy::Protected`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protected {
    #[serde(rename = "roocode_config")]
    /// Under `.roocode/` or RooCode's user directory.
    RooCodeConfig,
    /// `.claude/settings*.json`, `.mcp.json`.
    AgentSettings,
    /// Under `.git/`, or git's user configuration.
    Git,
    /// The directory `core.hooksPath` names.
    GitHooks,
    /// A file that the named program reads to run commands.
    RunBy(Runner),
    /// A shell start-up file.
    ShellStartup,
    /// Under `.ssh/`.
    Ssh,
}

impl fmt::Display for Protected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RooCodeConfig => {
                f.write_str("RooCode's own configuration, which decides what the agent may do")
            }
            Self::AgentSettings => f.write_str("agent or MCP settings, which can start programs"),
            Self::Git => {
                f.write_str("git's internals or configuration, which can make git run programs")
            }
            Self::GitHooks => {
                f.write_str("git's hooks directory (core.hooksPath), whose scripts git runs")
            }
            Self::RunBy(program) => write!(f, "a file {program} reads to run commands"),
            Self::ShellStartup => f.write_str("a shell start-up file, run by every new shell"),
            Self::Ssh => f.write_str("ssh's configuration or keys"),
        }
    }
}

/// A program that runs commands a file of the project names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Runner {
    /// `.envrc`.
    Direnv,
    /// `.vscode/tasks.json`, `.vscode/settings.json`.
    VsCode,
    /// `.idea/`.
    JetBrains,
    /// `.gitmodules`.
    GitSubmodule,
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Direnv => "direnv",
            Self::VsCode => "VS Code",
            Self::JetBrains => "JetBrains IDEs",
            Self::GitSubmodule => "git submodule",
        })
    }
}

/// The approval prompt's reason for a write to a protected file.
pub fn ask_reason(described: &str, why: Protected) -> String {
    format!(
        "{described}: a protected file ({why}); RooCode asks before every write to it, \
         in every mode, and \"allow always\" allows this one call only"
    )
}

/// Shell start-up files, by file name.
const SHELL_STARTUP: [&str; 18] = [
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".logout",
    ".kshrc",
    ".mkshrc",
    ".xprofile",
];

impl PermissionGate {
    /// RooCode's user directory (`~/.roocode` or `ROOCODE_HOME`), whose files are
    /// protected wherever it lies.
    pub fn with_user_dir(mut self, dir: PathBuf) -> Self {
        self.user_dir = Some(dir);
        self
    }

    /// The session's memory directories, which the `Memory` tool writes anyway: not
    /// protected, though they lie under `.roocode/` or the user directory.
    pub fn with_memory_dirs(mut self, dirs: MemoryDirs) -> Self {
        self.memory_dirs = Some(dirs);
        self
    }

    /// Why a call with this target writes a protected file, if it does. Only writes
    /// count; `scope` gives the working directory and the project.
    pub fn protected_write(&self, target: &PermissionTarget, scope: &Scope) -> Option<Protected> {
        let PermissionTarget::Path { path, write: true } = target else {
            return None;
        };
        let given = rules::normalize(&scope.resolve(path));
        let real = sandbox::real_path(&given).ok();
        let places = Places::new(self, &scope.root);
        std::iter::once(given.as_path())
            .chain(real.as_deref())
            .find_map(|p| places.classify(p))
    }
}

/// The protected places that depend on this machine and project.
struct Places {
    /// RooCode's user directory, as given and as its real path.
    user_dirs: Vec<PathBuf>,
    /// The directories `core.hooksPath` names, as given and real.
    hooks_dirs: Vec<PathBuf>,
    /// The memory directories, as given and real: not protected.
    memory_dirs: Vec<PathBuf>,
    /// The workspace, as given and real: only the names below it count for a path in
    /// it (a worktree RooCode keeps under its own directories is an ordinary project).
    roots: Vec<PathBuf>,
}

impl Places {
    fn new(gate: &PermissionGate, root: &Path) -> Self {
        let memory = gate
            .memory_dirs
            .iter()
            .flat_map(|m| [m.user.clone(), m.project.clone()]);
        Self {
            user_dirs: with_real(gate.user_dir.clone()),
            hooks_dirs: with_real(hooks_paths(root, gate.settings.home.as_deref())),
            memory_dirs: with_real(memory),
            roots: with_real([root.to_path_buf()]),
        }
    }

    /// Why `path` (absolute, without `..`) is protected, if it is.
    fn classify(&self, path: &Path) -> Option<Protected> {
        let below_root = self.roots.iter().find_map(|r| path.strip_prefix(r).ok());
        let names: Vec<&str> = below_root
            .unwrap_or(path)
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => name.to_str(),
                _ => None,
            })
            .collect();
        let in_memory = self.memory_dirs.iter().any(|d| path.starts_with(d));
        // A workspace inside the user directory (an agent's worktree there) is judged by
        // the names below it; anything else in the user directory is protected.
        let root_inside = |d: &PathBuf| self.roots.iter().any(|r| r.starts_with(d));
        let in_user_dir = self
            .user_dirs
            .iter()
            .any(|d| path.starts_with(d) && !(below_root.is_some() && root_inside(d)));
        if !in_memory && (names.contains(&".roocode") || in_user_dir) {
            return Some(Protected::RooCodeConfig);
        }
        if names.contains(&".git") {
            return Some(Protected::Git);
        }
        if self.hooks_dirs.iter().any(|d| path.starts_with(d)) {
            return Some(Protected::GitHooks);
        }
        if names.contains(&".idea") {
            return Some(Protected::RunBy(Runner::JetBrains));
        }
        if names.contains(&".ssh") {
            return Some(Protected::Ssh);
        }
        let (parent, name) = match names.as_slice() {
            [.., parent, name] => (Some(*parent), *name),
            [name] => (None, *name),
            [] => return None,
        };
        if ["agents", "commands", "skills", "hooks"]
            .iter()
            .any(|dir| pair_follows(&names, ".claude", dir))
        {
            return Some(Protected::AgentSettings);
        }
        if pair_follows(&names, ".config", "git") {
            return Some(Protected::Git);
        }
        if pair_follows(&names, ".config", "fish") {
            return Some(Protected::ShellStartup);
        }
        match (parent, name) {
            (Some(".claude"), n) if n.starts_with("settings") && n.ends_with(".json") => {
                Some(Protected::AgentSettings)
            }
            (_, ".mcp.json") => Some(Protected::AgentSettings),
            (_, ".gitconfig") => Some(Protected::Git),
            (_, ".envrc") => Some(Protected::RunBy(Runner::Direnv)),
            (Some(".vscode"), "tasks.json" | "settings.json") => {
                Some(Protected::RunBy(Runner::VsCode))
            }
            (_, ".gitmodules") => Some(Protected::RunBy(Runner::GitSubmodule)),
            (_, n) if SHELL_STARTUP.contains(&n) => Some(Protected::ShellStartup),
            _ => None,
        }
    }
}

/// True if `first` is directly followed by `second` somewhere in `names`.
fn pair_follows(names: &[&str], first: &str, second: &str) -> bool {
    names.windows(2).any(|w| w[0] == first && w[1] == second)
}

/// Each path, plus its real path when that differs.
fn with_real(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        let path = rules::normalize(&path);
        if let Ok(real) = sandbox::real_path(&path)
            && real != path
        {
            out.push(real);
        }
        out.push(path);
    }
    out
}

/// The directories `core.hooksPath` names in the repository's and the user's git
/// configuration (relative values are relative to the project root, where git runs
/// hooks; `~/` is the home).
fn hooks_paths(root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dirs) = GitDirs::of(root) {
        files.push(dirs.common_dir.join("config"));
        files.push(dirs.git_dir.join("config.worktree"));
    }
    if let Some(home) = home {
        files.push(home.join(".gitconfig"));
        files.push(home.join(".config/git/config"));
    }
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter_map(|text| core_hooks_path(&text))
        .map(|value| match (value.strip_prefix("~/"), home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => root.join(value),
        })
        .collect()
}

/// The last `hooksPath` of a `[core]` section in a git config file's text.
fn core_hooks_path(text: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let section = header.split(']').next().unwrap_or("").trim();
            in_core = section.eq_ignore_ascii_case("core");
            continue;
        }
        if !in_core {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("hookspath") {
            continue;
        }
        let value = value.trim();
        let value = match value.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(""),
            None => value.split([';', '#']).next().unwrap_or("").trim(),
        };
        if !value.is_empty() {
            found = Some(value.to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests;
