//! Finding definition files in the four folders, reading them safely, and merging them
//! by name in precedence order.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::error::{Invalid, Located};
use super::{Definition, Loaded, Problem, Source, fields};
use crate::frontmatter;

/// Larger files are refused: a definition is a prompt, not a data file.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Loads the definitions of the four folders for `home` and `project_root`
/// ([`Source::ALL`] order; a later one of the same name overrides).
pub fn load(home: &Path, project_root: &Path) -> Loaded {
    let dirs = Source::ALL.map(|s| (s, s.dir(home, project_root)));
    load_dirs(&dirs)
}

/// Loads `*.md` definitions from `dirs`, lowest precedence first. A missing folder is
/// no problem; a folder listed twice (the home is the project) is read once.
pub fn load_dirs(dirs: &[(Source, PathBuf)]) -> Loaded {
    let mut merge = Merge::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    for (source, dir) in dirs {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        if seen.contains(&real) {
            continue;
        }
        seen.push(real);
        match list(dir) {
            Ok(files) => {
                for file in files {
                    merge.file(&file, *source);
                }
            }
            Err(e) => merge.problem(dir, Located::nowhere(Invalid::Read(e))),
        }
    }
    merge.finish()
}

/// Parses one definition's text; `path` and `source` are recorded in it.
pub fn parse(text: &str, path: &Path, source: Source) -> Result<Definition, Problem> {
    parse_located(text, path, source).map_err(|e| problem(path, e))
}

fn parse_located(text: &str, path: &Path, source: Source) -> Result<Definition, Located> {
    let split = frontmatter::split(text)?;
    let (map, lenient) = frontmatter::mapping(&split)?;
    let mut def = fields::definition(map, &split, path, source)?;
    def.lenient_yaml = lenient;
    Ok(def)
}

fn problem(path: &Path, located: Located) -> Problem {
    Problem {
        file: path.to_path_buf(),
        line: located.line,
        message: located.error.to_string(),
    }
}

/// The `*.md` entries of `dir`, sorted by file name; none when it does not exist.
fn list(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "md") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The text of a definition file; `None` for what is not a regular file (a folder
/// named `x.md`, a FIFO), which is skipped. Symlinks are followed.
fn read(path: &Path) -> Result<Option<String>, Located> {
    Ok(frontmatter::read_text(path, MAX_FILE_BYTES)?)
}

/// Definitions by name, later sources replacing earlier ones.
#[derive(Default)]
struct Merge {
    definitions: Vec<Definition>,
    by_name: HashMap<String, usize>,
    problems: Vec<Problem>,
}

impl Merge {
    fn file(&mut self, path: &Path, source: Source) {
        let text = match read(path) {
            Ok(Some(text)) => text,
            Ok(None) => return,
            Err(e) => return self.problem(path, e),
        };
        match parse_located(&text, path, source) {
            Ok(def) => self.add(def),
            Err(e) => self.problem(path, e),
        }
    }

    fn add(&mut self, mut def: Definition) {
        let Some(&at) = self.by_name.get(&def.name) else {
            self.by_name
                .insert(def.name.clone(), self.definitions.len());
            self.definitions.push(def);
            return;
        };
        let old = &mut self.definitions[at];
        if old.source == def.source {
            let error = Invalid::Duplicate {
                name: def.name.clone(),
                other: old.path.display().to_string(),
            };
            let path = def.path.clone();
            return self.problem(&path, Located::nowhere(error));
        }
        def.overrides = std::mem::take(&mut old.overrides);
        def.overrides.push(old.path.clone());
        *old = def;
    }

    fn problem(&mut self, path: &Path, located: Located) {
        self.problems.push(problem(path, located));
    }

    fn finish(mut self) -> Loaded {
        self.definitions.sort_by(|a, b| a.name.cmp(&b.name));
        Loaded {
            definitions: self.definitions,
            problems: self.problems,
        }
    }
}
