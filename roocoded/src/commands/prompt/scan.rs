//! Finding prompt command files at any depth of their four folders, naming them by
//! their path (`a/b/c.md` → `a:b:c`), and keeping the one of each name from the
//! highest source.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use roocode_protocol::command;

use super::error::{Invalid, Located, suggest_part};
use super::{CommandSource, Problem, PromptCommand, PromptCommands, Shadowed, fields};
use crate::frontmatter::{self, Split};

/// Larger files are refused: a command is a prompt, not a data file.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Deeper folders are not read (and a symlink loop ends here).
const MAX_DEPTH: usize = 8;

/// Loads the commands of the four folders for `home` and `project_root`; of each name
/// the highest source wins ([`CommandSource::ALL`] order). A missing folder is no
/// problem; a folder that is both (the project is the home) is read once, as the
/// project's.
pub fn load(home: &Path, project_root: &Path) -> PromptCommands {
    let mut merge = Merge::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    for source in CommandSource::ALL {
        let dir = source.dir(home, project_root);
        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if seen.contains(&real) {
            continue;
        }
        seen.push(real);
        let mut files = Vec::new();
        walk(&dir, &mut Vec::new(), &mut files, &mut merge.problems);
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
            let error = Invalid::File(frontmatter::Invalid::Read(e));
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
    let (split, map, lenient) = match frontmatter::split_optional(text)? {
        Some(split) => {
            let (map, lenient) = frontmatter::mapping(&split)?;
            (split, map, lenient)
        }
        None => {
            let split = Split {
                yaml: String::new(),
                first_line: 1,
                body: frontmatter::normalise(text),
            };
            (split, yaml_serde::Mapping::new(), false)
        }
    };
    let mut command = fields::command(map, &split, name, source, path)?;
    if lenient {
        command.warnings.push(
            "a value contains an unquoted `: `, which YAML refuses; it was read as plain \
             text — put the value in quotes"
                .to_string(),
        );
    }
    Ok(command)
}

/// Commands by name; sources come highest first, so a later one of a known name loses.
#[derive(Default)]
struct Merge {
    commands: Vec<PromptCommand>,
    by_name: HashMap<String, usize>,
    shadowed: Vec<Shadowed>,
    problems: Vec<Problem>,
}

impl Merge {
    fn file(&mut self, parts: &[String], path: &Path, source: CommandSource) {
        let name = match name_of(parts) {
            Ok(name) => name,
            Err(e) => return self.problems.push(Located::nowhere(e).problem(path)),
        };
        let text = match frontmatter::read_text(path, MAX_FILE_BYTES) {
            Ok(Some(text)) => text,
            Ok(None) => return,
            Err(e) => return self.problems.push(Located::from(e).problem(path)),
        };
        match parse_located(&text, name, source, path) {
            Ok(command) => self.add(command),
            Err(e) => self.problems.push(e.problem(path)),
        }
    }

    fn add(&mut self, command: PromptCommand) {
        let Some(&at) = self.by_name.get(&command.name) else {
            self.by_name
                .insert(command.name.clone(), self.commands.len());
            self.commands.push(command);
            return;
        };
        let winner = &self.commands[at];
        if winner.source == command.source {
            let error = Invalid::Duplicate {
                name: command.name.clone(),
                other: winner.path.display().to_string(),
            };
            return self
                .problems
                .push(Located::nowhere(error).problem(&command.path));
        }
        self.shadowed.push(Shadowed {
            name: command.name,
            path: command.path,
            source: command.source,
            by: winner.path.clone(),
            by_source: winner.source,
        });
    }

    fn finish(mut self) -> PromptCommands {
        self.commands.sort_by(|a, b| a.name.cmp(&b.name));
        PromptCommands {
            commands: self.commands,
            shadowed: self.shadowed,
            problems: self.problems,
        }
    }
}
