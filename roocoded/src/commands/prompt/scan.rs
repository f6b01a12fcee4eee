//! Finding prompt command files at any depth of their four folders, naming them by
//! their path (`a/b/c.md` → `a:b:c`), and keeping the one of each name from the
//! highest source.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::project::UserDirs;

use roocode_protocol::command;

use super::error::{Invalid, Located, suggest_part};
use super::{CommandSource, Problem, PromptCommand, PromptCommands, Shadowed, fields};
use crate::frontmatter::folders::{Collected, distinct_dirs};
use crate::frontmatter::{self, FileError};

/// Larger files are refused: a command is a prompt, not a data file.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Deeper folders are not read (and a symlink loop ends here).
const MAX_DEPTH: usize = 8;

/// Loads the commands of the four folders for `home` and `project_root`; of each name
/// the highest source wins ([`CommandSource::ALL`] order). A missing folder is no
/// problem; a folder that is both (the project is the home) is read once, as the
/// project's.
pub fn load(user: &UserDirs, project_root: &Path) -> PromptCommands {
    let mut merge = Merge::default();
    let dirs = CommandSource::ALL.map(|source| (source, source.dir(user, project_root)));
    for (source, dir) in distinct_dirs(dirs) {
        let mut files = Vec::new();
        walk(&dir, &mut Vec::new(), &mut files, &mut merge.found.problems);
        files.sort();
        for (parts, path) in files {
            merge.file(&parts, &path, source);
        }
    }
    merge.finish()
}

/// Collects the `*.md` files under `dir` with their path parts (folders, then the file
/// stem). Hidden entries (`.git`) and `README.md` are skipped.
fn walk(
    dir: &Path,
    parts: &mut Vec<String>,
    files: &mut Vec<(Vec<String>, PathBuf)>,
    problems: &mut Vec<Problem>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound && parts.is_empty() => return,
        Err(e) => {
            let error = Invalid::read(e);
            return problems.push(Located::nowhere(error).problem(dir));
        }
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            let error = Invalid::NotUtf8(entry.file_name().to_string_lossy().into_owned());
            problems.push(Located::nowhere(error).problem(&path));
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if parts.len() + 1 >= MAX_DEPTH {
                problems.push(Located::nowhere(Invalid::TooDeep(MAX_DEPTH)).problem(&path));
                continue;
            }
            parts.push(name);
            walk(&path, parts, files, problems);
            parts.pop();
        } else if let Some(stem) = name.strip_suffix(".md")
            && name != "README.md"
        {
            let mut all = parts.clone();
            all.push(stem.to_string());
            files.push((all, path));
        }
    }
}

/// The command name of a file's path parts, or why it has none.
fn name_of(parts: &[String]) -> Result<String, Invalid> {
    let name = parts.join(":");
    let valid =
        command::parse(&format!("/{name}")).is_some_and(|c| c.name == name && c.args.is_empty());
    if valid {
        return Ok(name);
    }
    let last = parts.len().saturating_sub(1);
    let (i, part) = parts
        .iter()
        .enumerate()
        .find(|(_, p)| !valid_part(p))
        .unwrap_or((last, &parts[last]));
    let what = if i == last { "file" } else { "folder" };
    let suggestion = if i == last {
        format!("{}.md", suggest_part(part))
    } else {
        suggest_part(part)
    };
    let part = if i == last {
        format!("{part}.md")
    } else {
        part.clone()
    };
    Err(Invalid::BadName {
        name,
        what,
        part,
        suggestion,
    })
}

fn valid_part(part: &str) -> bool {
    let mut chars = part.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-'))
}

fn parse_located(
    text: &str,
    name: String,
    source: CommandSource,
    path: &Path,
) -> Result<PromptCommand, Located> {
    let (split, map, lenient) = frontmatter::parse_optional(text)?;
    let mut command = fields::command(map, &split, name, source, path)?;
    if lenient {
        command
            .warnings
            .push(frontmatter::LENIENT_WARNING.to_string());
    }
    Ok(command)
}

/// Commands by name; sources come highest first, so a later one of a known name loses.
#[derive(Default)]
struct Merge {
    found: Collected<PromptCommand, Invalid>,
    shadowed: Vec<Shadowed>,
}

impl Merge {
    fn file(&mut self, parts: &[String], path: &Path, source: CommandSource) {
        let name = match name_of(parts) {
            Ok(name) => name,
            Err(e) => return self.found.problem(path, Located::nowhere(e)),
        };
        let Some(text) = self.found.read(path, MAX_FILE_BYTES) else {
            return;
        };
        match parse_located(&text, name, source, path) {
            Ok(command) => self.add(command),
            Err(e) => self.found.problem(path, e),
        }
    }

    fn add(&mut self, command: PromptCommand) {
        let Some((winner, command)) = self.found.add(command.name.clone(), command) else {
            return;
        };
        if winner.source == command.source {
            let error = Invalid::Duplicate {
                name: command.name.clone(),
                other: winner.path.display().to_string(),
            };
            return self.found.problem(&command.path, Located::nowhere(error));
        }
        self.shadowed.push(Shadowed {
            name: command.name,
            path: command.path,
            source: command.source,
            by: winner.path.clone(),
            by_source: winner.source,
        });
    }

    fn finish(self) -> PromptCommands {
        let (commands, problems) = self.found.finish();
        PromptCommands {
            commands,
            shadowed: self.shadowed,
            problems,
        }
    }
}
