//! A snapshot's manifest: every file of the tree with its mode, size and blob, sorted by
//! path, as text (`<mode> <size> <blob>\t<path>` per line). The manifest is itself a
//! blob, so a tree that did not change between two turns is the same manifest, stored
//! once.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::objects::BlobId;

/// One file of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Permission bits (`0o644`, `0o755`).
    pub mode: u32,
    pub size: u64,
    pub blob: BlobId,
}

/// The files of a snapshot by relative path (`/`-separated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub files: BTreeMap<String, FileEntry>,
}

/// How a file differs between two manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added(String),
    Removed(String),
    Modified(String),
}

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Added(p) | Change::Removed(p) | Change::Modified(p) => p,
        }
    }
}

impl Manifest {
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.files.len() * 100);
        for (path, e) in &self.files {
            let _ = writeln!(out, "{:o} {} {}\t{path}", e.mode, e.size, e.blob);
        }
        out
    }

    /// Parses [`Manifest::to_text`]; `None` names the first line that is not one.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let mut files = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let bad = || format!("line {} of the manifest is damaged", n + 1);
            let (head, path) = line.split_once('\t').ok_or_else(bad)?;
            let mut parts = head.split(' ');
            let mode = parts
                .next()
                .and_then(|m| u32::from_str_radix(m, 8).ok())
                .ok_or_else(bad)?;
            let size = parts.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
            let blob = parts.next().and_then(BlobId::parse).ok_or_else(bad)?;
            if !is_safe_path(path) {
                return Err(bad());
            }
            files.insert(path.to_string(), FileEntry { mode, size, blob });
        }
        Ok(Manifest { files })
    }

    /// What changed from `self` (older) to `newer`, by path.
    pub fn diff(&self, newer: &Manifest) -> Vec<Change> {
        let mut out = Vec::new();
        for (path, old) in &self.files {
            match newer.files.get(path) {
                None => out.push(Change::Removed(path.clone())),
                Some(new) if new.blob != old.blob || new.mode != old.mode => {
                    out.push(Change::Modified(path.clone()))
                }
                Some(_) => {}
            }
        }
        for path in newer.files.keys() {
            if !self.files.contains_key(path) {
                out.push(Change::Added(path.clone()));
            }
        }
        out.sort_by(|a, b| a.path().cmp(b.path()));
        out
    }
}

/// A relative path that stays inside the root: no empty, `.` or `..` component, no
/// leading `/`, no newline.
pub(crate) fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\n')
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &[u8], mode: u32) -> FileEntry {
        FileEntry {
            mode,
            size: text.len() as u64,
            blob: BlobId::of(text),
        }
    }

    #[test]
    fn round_trips_and_diffs_by_path() {
        let mut old = Manifest::default();
        old.files.insert("a.rs".into(), entry(b"a", 0o644));
        old.files.insert("dir/b sh".into(), entry(b"b", 0o755));
        old.files.insert("gone.txt".into(), entry(b"g", 0o644));
        let text = old.to_text();
        assert_eq!(Manifest::parse(&text).unwrap(), old);

        let mut new = old.clone();
        new.files.remove("gone.txt");
        new.files.insert("a.rs".into(), entry(b"A", 0o644));
        new.files.insert("new.txt".into(), entry(b"n", 0o644));
        assert_eq!(
            old.diff(&new),
            [
                Change::Modified("a.rs".into()),
                Change::Removed("gone.txt".into()),
                Change::Added("new.txt".into()),
            ]
        );
    }

    #[test]
    fn a_manifest_cannot_name_a_path_outside_the_root() {
        let blob = BlobId::of(b"x");
        for path in ["../x", "/etc/passwd", "a/../../b", "a//b", "./a"] {
            let text = format!("644 1 {blob}\t{path}\n");
            assert!(Manifest::parse(&text).is_err(), "{path}");
        }
    }
}
