//! What the loaders of agent definitions, skills and prompt commands share around their
//! files: the folders of their sources, each read once ([`distinct_dirs`]); the entries
//! of one folder ([`list_dir`]); and [`Collected`], one item of each name and the
//! problems met, which reads a file into its text or its problem.
//!
//! Which of two items of one name wins (shadowing or overriding), and what a clash
//! within one source says, is each loader's own.

use std::collections::HashMap;
use std::fmt::Display;
use std::io::ErrorKind;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use super::{FileError, Located, Problem, read_text};

/// `dirs` in order, without the ones that are an earlier one's folder again (the project
/// is the home): the first of each real folder is kept.
pub(crate) fn distinct_dirs<S>(dirs: impl IntoIterator<Item = (S, PathBuf)>) -> Vec<(S, PathBuf)> {
    let mut seen: Vec<PathBuf> = Vec::new();
    dirs.into_iter()
        .filter(|(_, dir)| {
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            let new = !seen.contains(&real);
            if new {
                seen.push(real);
            }
            new
        })
        .collect()
}

/// The paths of the entries of `dir`, sorted; `None` when it does not exist.
pub(crate) fn list_dir(dir: &Path) -> std::io::Result<Option<Vec<PathBuf>>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut paths = Vec::new();
    for entry in entries {
        paths.push(entry?.path());
    }
    paths.sort();
    Ok(Some(paths))
}

/// What a loader collects: one item of each name, and the problems it met, each worded
/// by the loader's error `E`.
pub(crate) struct Collected<T, E> {
    items: Vec<(String, T)>,
    by_name: HashMap<String, usize>,
    pub problems: Vec<Problem>,
    error: PhantomData<fn() -> E>,
}

impl<T, E> Default for Collected<T, E> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            by_name: HashMap::new(),
            problems: Vec::new(),
            error: PhantomData,
        }
    }
}

impl<T, E: FileError + Display> Collected<T, E> {
    /// Records the problem `located` makes of `path`.
    pub fn problem(&mut self, path: &Path, located: Located<E>) {
        self.problems.push(located.problem(path));
    }

    /// The text of the file at `path` ([`read_text`]); `None` for what is not a regular
    /// file, which is skipped, and for what cannot be read, its problem recorded.
    pub fn read(&mut self, path: &Path, max_bytes: u64) -> Option<String> {
        match read_text(path, max_bytes) {
            Ok(text) => text,
            Err(e) => {
                self.problem(path, e.into());
                None
            }
        }
    }

    /// Keeps `item` as the one named `name` when the name is new; otherwise gives back
    /// the one kept under that name and `item`, for the caller to settle.
    pub fn add(&mut self, name: String, item: T) -> Option<(&mut T, T)> {
        match self.by_name.get(&name) {
            Some(&at) => Some((&mut self.items[at].1, item)),
            None => {
                self.by_name.insert(name.clone(), self.items.len());
                self.items.push((name, item));
                None
            }
        }
    }

    /// The items sorted by name, and the problems in the order they were met.
    pub fn finish(mut self) -> (Vec<T>, Vec<Problem>) {
        self.items.sort_by(|a, b| a.0.cmp(&b.0));
        let items = self.items.into_iter().map(|(_, item)| item).collect();
        (items, self.problems)
    }
}
