//! All hooks of a session, with the problems found loading them: [`load`] reads the
//! user's, the project's and the local RooCode and Claude Code files, in that order,
//! and combines their hooks (all of them run; nothing overrides). A broken entry is a
//! [`HookProblem`] naming file and line; the good entries of the same file still load.

use std::fmt;
use std::path::{Path, PathBuf};

use super::claude::parse_claude;
use super::event::HookEvent;
use super::input::HookInput;
use super::spec::{HookScope, HookSpec};
use super::yaml::parse_yaml;

/// Something wrong in a hooks configuration, for the user to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookProblem {
    pub path: PathBuf,
    /// 1-based; `None` when the problem is the whole file (it cannot be read).
    pub line: Option<usize>,
    pub message: String,
}

impl HookProblem {
    pub(crate) fn new(path: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        HookProblem {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for HookProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// The hooks that were loaded, in file order, and the problems found.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    pub hooks: Vec<HookSpec>,
    pub problems: Vec<HookProblem>,
}

impl HookSet {
    /// The hooks of one event, in configuration order.
    pub fn for_event(&self, event: HookEvent) -> impl Iterator<Item = &HookSpec> {
        self.hooks.iter().filter(move |h| h.event == event)
    }

    /// The hooks that apply to `input` (event, matcher and condition), in order.
    pub fn matching<'a>(&'a self, input: &'a HookInput) -> impl Iterator<Item = &'a HookSpec> {
        self.for_event(input.event()).filter(|h| h.applies(input))
    }

    /// The hook of this [`HookSpec::id`].
    pub fn get(&self, id: &str) -> Option<&HookSpec> {
        self.hooks.iter().find(|h| h.id() == id)
    }

    /// Appends another set's hooks and problems.
    pub fn extend(&mut self, other: HookSet) {
        self.hooks.extend(other.hooks);
        self.problems.extend(other.problems);
    }
}

/// Which file format a hooks file is in.
#[derive(Debug, Clone, Copy)]
enum Format {
    RooCode,
    Claude,
}

/// Reads, in this order: `user_dir/config.yaml` (RooCode's user directory:
/// `~/.roocode`, or `ROOCODE_HOME`) and `home/.claude/settings.json` (scope user), `project_root/.roocode/config.yaml` and
/// `project_root/.claude/settings.json` (project), `project_root/.roocode/config.local.yaml`
/// and `project_root/.claude/settings.local.json` (local). Only their `hooks` key is
/// read. A missing file is skipped; a file reached twice (the project is the home
/// directory) is read once, with the first scope.
pub fn load(user_dir: &Path, home: &Path, project_root: &Path) -> HookSet {
    let files = [
        (
            user_dir.join("config.yaml"),
            HookScope::User,
            Format::RooCode,
        ),
        (
            home.join(".claude/settings.json"),
            HookScope::User,
            Format::Claude,
        ),
        (
            project_root.join(".roocode/config.yaml"),
            HookScope::Project,
            Format::RooCode,
        ),
        (
            project_root.join(".claude/settings.json"),
            HookScope::Project,
            Format::Claude,
        ),
        (
            project_root.join(".roocode/config.local.yaml"),
            HookScope::Local,
            Format::RooCode,
        ),
        (
            project_root.join(".claude/settings.local.json"),
            HookScope::Local,
            Format::Claude,
        ),
    ];
    let mut set = HookSet::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    for (path, scope, format) in files {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                set.problems.push(HookProblem::new(
                    &path,
                    None,
                    format!("cannot read the file: {e}"),
                ));
                continue;
            }
        };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        set.extend(match format {
            Format::RooCode => parse_yaml(&path, &text, scope),
            Format::Claude => parse_claude(&path, &text, scope),
        });
    }
    set
}

#[cfg(test)]
#[path = "set_tests.rs"]
mod tests;
