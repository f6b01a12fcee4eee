//! The stat index of one tree, as git keeps one: per path, the modification time, size,
//! inode and mode seen when the file was last hashed, and its blob. A file whose stat
//! still matches is not read again, so a snapshot of a tree where nothing changed costs
//! a walk and a `stat` per file. An entry whose mtime was too close to the moment it was
//! hashed is "racy" (a write in the same clock tick would not change the mtime) and is
//! hashed again next time.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::objects::{BlobId, touch, write_atomically};

/// Seconds within which an mtime is too recent to trust.
const RACY_SECS: i128 = 2;

/// What `stat` says of a file, as the index compares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub mtime_ns: i128,
    pub size: u64,
    pub ino: u64,
    pub mode: u32,
}

impl Stat {
    pub fn of(meta: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            size: meta.len(),
            ino: meta.ino(),
            mode: meta.mode() & 0o7777,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    stat: Stat,
    blob: BlobId,
    /// Hashed too soon after its last change to be trusted (see the module doc).
    racy: bool,
}

/// The index of one tree, kept in a file beside the snapshots.
#[derive(Debug, Default)]
pub struct Index {
    entries: HashMap<String, Entry>,
    changed: bool,
}

impl Index {
    /// Reads the index file; a missing or damaged one is an empty index (every file is
    /// hashed once more, nothing is lost).
    pub fn load(path: &Path) -> Index {
        let Ok(text) = std::fs::read_to_string(path) else {
            return Index::default();
        };
        let mut entries = HashMap::new();
        for line in text.lines() {
            let Some((head, file)) = line.split_once('\t') else {
                return Index::default();
            };
            let p: Vec<&str> = head.split(' ').collect();
            let parsed = (|| {
                Some(Entry {
                    stat: Stat {
                        mtime_ns: p.first()?.parse().ok()?,
                        size: p.get(1)?.parse().ok()?,
                        ino: p.get(2)?.parse().ok()?,
                        mode: u32::from_str_radix(p.get(3)?, 8).ok()?,
                    },
                    blob: BlobId::parse(p.get(4)?)?,
                    racy: false,
                })
            })();
            match parsed {
                Some(entry) => entries.insert(file.to_string(), entry),
                None => return Index::default(),
            };
        }
        Index {
            entries,
            changed: false,
        }
    }

    /// The blob of `path` if its stat is the one recorded and the entry is trusted.
    pub fn lookup(&self, path: &str, stat: &Stat) -> Option<&BlobId> {
        self.entries
            .get(path)
            .filter(|e| !e.racy && e.stat == *stat)
            .map(|e| &e.blob)
    }

    /// Records that `path`, with `stat`, hashed to `blob` at `now_ns`.
    pub fn record(&mut self, path: &str, stat: Stat, blob: BlobId, now_ns: i128) {
        let racy = now_ns - stat.mtime_ns < RACY_SECS * 1_000_000_000;
        let entry = Entry { stat, blob, racy };
        if self.entries.get(path) != Some(&entry) {
            self.entries.insert(path.to_string(), entry);
            self.changed = true;
        }
    }

    /// Forgets the paths that are no longer in the tree.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|p, _| keep(p));
        self.changed |= self.entries.len() != before;
    }

    /// The blobs it names: the tree's files as last seen, which a prune keeps.
    pub fn blobs(&self) -> impl Iterator<Item = &BlobId> {
        self.entries.values().map(|e| &e.blob)
    }

    /// Writes the index if it changed, else marks it used now (a prune removes the
    /// indexes of trees no one snapshots any more). Racy entries are written as such:
    /// a later daemon hashes them again.
    pub fn save(&mut self, path: &Path) -> io::Result<()> {
        if !self.changed {
            touch(path);
            return Ok(());
        }
        let mut out = String::with_capacity(self.entries.len() * 120);
        for (file, e) in &self.entries {
            // A racy entry is saved with an mtime no stat will match.
            let mtime = if e.racy { -1 } else { e.stat.mtime_ns };
            let s = e.stat;
            let _ = writeln!(
                out,
                "{mtime} {} {} {:o} {}\t{file}",
                s.size, s.ino, s.mode, e.blob
            );
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        write_atomically(dir, path, out.as_bytes())?;
        self.changed = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(mtime_s: i128) -> Stat {
        Stat {
            mtime_ns: mtime_s * 1_000_000_000,
            size: 3,
            ino: 7,
            mode: 0o644,
        }
    }

    #[test]
    fn a_matching_stat_is_trusted_unless_racy_and_survives_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let mut index = Index::load(&path);
        let blob = BlobId::of(b"abc");
        index.record("old.txt", stat(100), blob.clone(), 200 * 1_000_000_000);
        index.record("fresh.txt", stat(199), blob.clone(), 200 * 1_000_000_000);
        assert_eq!(index.lookup("old.txt", &stat(100)), Some(&blob));
        assert_eq!(index.lookup("old.txt", &stat(101)), None, "touched");
        assert_eq!(index.lookup("fresh.txt", &stat(199)), None, "racy");
        index.save(&path).unwrap();
        let reloaded = Index::load(&path);
        assert_eq!(reloaded.lookup("old.txt", &stat(100)), Some(&blob));
        assert_eq!(reloaded.lookup("fresh.txt", &stat(199)), None);
        std::fs::write(&path, "garbage").unwrap();
        assert!(Index::load(&path).entries.is_empty());
    }
}
