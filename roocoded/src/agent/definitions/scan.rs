//! Finding definition files in the four folders, reading them safely, and merging them
//! by name in precedence order.

use std::path::{Path, PathBuf};

use crate::project::UserDirs;

use super::error::{Invalid, Located};
use super::{Definition, Loaded, Problem, Source, fields};
use crate::frontmatter::folders::{Collected, distinct_dirs, list_dir};
use crate::frontmatter::{self, FileError};

/// Larger files are refused: a definition is a prompt, not a data file.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Loads the definitions of the four folders for `home` and `project_root`
/// ([`Source::ALL`] order; a later one of the same name overrides).
pub fn load(user: &UserDirs, project_root: &Path) -> Loaded {
    let dirs = Source::ALL.map(|s| (s, s.dir(user, project_root)));
    load_dirs(&dirs)
}

/// Loads `*.md` definitions from `dirs`, lowest precedence first. A missing folder is
/// no problem; a folder listed twice (the home is the project) is read once.
pub fn load_dirs(dirs: &[(Source, PathBuf)]) -> Loaded {
    let mut merge = Merge::default();
    for (source, dir) in distinct_dirs(dirs.iter().cloned()) {
        match list_dir(&dir) {
            Ok(paths) => {
                let files = paths.unwrap_or_default();
                for file in files
                    .iter()
                    .filter(|p| p.extension().is_some_and(|x| x == "md"))
                {
                    merge.file(file, source);
                }
            }
            Err(e) => merge
                .found
                .problem(&dir, Located::nowhere(Invalid::read(e))),
        }
    }
    merge.finish()
}

/// Parses one definition's text; `path` and `source` are recorded in it.
pub fn parse(text: &str, path: &Path, source: Source) -> Result<Definition, Problem> {
    parse_located(text, path, source).map_err(|e| e.problem(path))
}

fn parse_located(text: &str, path: &Path, source: Source) -> Result<Definition, Located> {
    let split = frontmatter::split(text)?;
    let (map, lenient) = frontmatter::mapping(&split)?;
    let mut def = fields::definition(map, &split, path, source)?;
    def.lenient_yaml = lenient;
    Ok(def)
}

/// Definitions by name, later sources replacing earlier ones.
#[derive(Default)]
struct Merge {
    found: Collected<Definition, Invalid>,
}

impl Merge {
    fn file(&mut self, path: &Path, source: Source) {
        let Some(text) = self.found.read(path, MAX_FILE_BYTES) else {
            return;
        };
        match parse_located(&text, path, source) {
            Ok(def) => self.add(def),
            Err(e) => self.found.problem(path, e),
        }
    }

    fn add(&mut self, def: Definition) {
        let Some((old, mut def)) = self.found.add(def.name.clone(), def) else {
            return;
        };
        if old.source == def.source {
            let error = Invalid::Duplicate {
                name: def.name.clone(),
                other: old.path.display().to_string(),
            };
            return self.found.problem(&def.path, Located::nowhere(error));
        }
        def.overrides = std::mem::take(&mut old.overrides);
        def.overrides.push(old.path.clone());
        *old = def;
    }

    fn finish(self) -> Loaded {
        let (definitions, problems) = self.found.finish();
        Loaded {
            definitions,
            problems,
        }
    }
}
