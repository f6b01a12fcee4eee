//! Snapshots of a workspace for rewind (issue 16): the tree as it was before a turn,
//! kept in a shadow store under RooCode's data directory — never in the user's `.git`
//! (no commit, ref, stash or index change there). Files are found with the walk rules
//! of Glob and Grep (`.gitignore`, `.ignore` and `.rooignore` respected, `.git`
//! skipped, hidden files included), stored once by content (`objects`), listed in a
//! [`Manifest`], and found unchanged through a stat index (`index`) instead of being
//! read again, so a snapshot of a tree where nothing changed costs a walk. Files over
//! the per-file cap, past the per-snapshot cap, symlinks and names that are not UTF-8
//! are left out and reported: they cannot be restored.
//!
//! [`Snapshots::restore`] writes files of a manifest back (and removes those it does
//! not have), refusing any path whose parent is a symlink, so a tree an agent changed
//! cannot turn a restore into a write outside the workspace.

pub mod conversation;
mod index;
mod manifest;
mod objects;
mod prune;

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

pub use manifest::{Change, FileEntry, Manifest};
pub(crate) use objects::write_atomically;
pub use objects::{BlobId, Objects, Swept};
pub use prune::Pruned;

use crate::permission::secrets::SecretFiles;
use index::{Index, Stat};
use manifest::is_safe_path;

/// How much a snapshot keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A larger file is left out (default 2 MiB).
    pub max_file_bytes: u64,
    /// Files past this total are left out (default 200 MiB).
    pub max_snapshot_bytes: u64,
    /// The walk stops after this many files (default 100,000: a workspace that is a
    /// home directory is not walked whole before every turn).
    pub max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 2 * 1024 * 1024,
            max_snapshot_bytes: 200 * 1024 * 1024,
            max_files: 100_000,
        }
    }
}

/// Why a file is not in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    TooLarge {
        size: u64,
    },
    SnapshotFull,
    Symlink,
    /// Its name is not UTF-8 (or has a newline): a manifest cannot name it.
    Name,
    Unreadable(String),
    /// A file that holds credentials as the permission layer tells them (`.env`, keys,
    /// the home's credential files, hard links to them): never copied into RooCode's
    /// data directory.
    Credentials,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::TooLarge { size } => write!(f, "too large ({size} bytes)"),
            Skip::SnapshotFull => f.write_str("the snapshot was full"),
            Skip::Symlink => f.write_str("a symlink"),
            Skip::Name => f.write_str("its name is not UTF-8"),
            Skip::Unreadable(e) => write!(f, "unreadable ({e})"),
            Skip::Credentials => f.write_str("it usually holds credentials"),
        }
    }
}

/// A file left out of a snapshot, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub why: Skip,
}

/// What [`Snapshots::take`] made.
#[derive(Debug, Clone)]
pub struct Taken {
    /// The manifest's blob: the same for the same tree.
    pub id: BlobId,
    pub manifest: Manifest,
    /// Files read and hashed (the rest were known by their stat).
    pub hashed: usize,
    pub skipped: Vec<Skipped>,
}

/// What [`Snapshots::restore`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    pub written: Vec<String>,
    pub removed: Vec<String>,
    /// Paths not restored, with why (a symlinked parent, a missing blob, an I/O error).
    pub refused: Vec<(String, String)>,
}

/// The shadow store: blobs shared by every tree, and one stat index per tree.
#[derive(Debug)]
pub struct Snapshots {
    objects: Objects,
    trees: PathBuf,
    limits: Limits,
    indexes: Mutex<HashMap<PathBuf, Index>>,
    /// Directories never walked into: RooCode's own (the store itself among them).
    excluded: Vec<PathBuf>,
    /// Snapshots share it; a prune holds it alone (see `prune`).
    gate: RwLock<()>,
}

impl Snapshots {
    /// The store under `dir` (`<data>/snapshots`), which no snapshot walks into.
    pub fn new(dir: &Path, limits: Limits) -> Snapshots {
        Snapshots {
            objects: Objects::new(dir.join("objects")),
            trees: dir.join("trees"),
            limits,
            indexes: Mutex::new(HashMap::new()),
            excluded: vec![dir.to_path_buf()],
            gate: RwLock::new(()),
        }
    }

    /// Also never walks into `dirs` (RooCode's data and user directories, when a
    /// workspace holds them).
    pub fn excluding(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Snapshots {
        self.excluded.extend(dirs);
        self
    }

    pub fn objects(&self) -> &Objects {
        &self.objects
    }

    fn index_path(&self, root: &Path) -> PathBuf {
        let key = BlobId::of(root.as_os_str().as_encoded_bytes());
        self.trees.join(&key.as_str()[..16]).join("index")
    }

    /// Snapshots the tree at `root` (a real, absolute path). Blocking: call it from a
    /// blocking task.
    pub fn take(&self, root: &Path) -> io::Result<Taken> {
        let _shared = self
            .gate
            .read()
            .map_err(|_| io::Error::other("the snapshot store's lock is poisoned"))?;
        let index_path = self.index_path(root);
        // Taken out of the map for the walk, so snapshots of other trees do not wait
        // for this one; a concurrent snapshot of the same tree reads the index file
        // (a stale index only costs hashing: every entry is checked against its stat).
        let cached = self.indexes.lock().ok().and_then(|mut m| m.remove(root));
        let mut index = cached.unwrap_or_else(|| Index::load(&index_path));
        let taken = self.walk(root, &mut index);
        let saved = index.save(&index_path);
        if let Ok(mut indexes) = self.indexes.lock() {
            indexes.insert(root.to_path_buf(), index);
        }
        let (manifest, hashed, skipped) = taken?;
        saved?;
        let id = self.objects.put(manifest.to_text().as_bytes())?;
        Ok(Taken {
            id,
            manifest,
            hashed,
            skipped,
        })
    }

    /// The files of the tree at `root`, found through `index` (which learns the files
    /// it had to hash): (manifest, files hashed, files left out).
    fn walk(&self, root: &Path, index: &mut Index) -> io::Result<(Manifest, usize, Vec<Skipped>)> {
        let now_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        // What Glob and Grep leave out as credentials (by name, in the home's credential
        // places, or hard-linked to one) is never copied into RooCode's data directory.
        let secrets = SecretFiles::for_daemon_user().with_project(root);
        let mut manifest = Manifest::default();
        let mut skipped = Vec::new();
        let mut hashed = 0;
        let mut total = 0u64;
        let mut skip = |path: &Path, why: Skip| {
            skipped.push(Skipped {
                path: path.strip_prefix(root).unwrap_or(path).to_path_buf(),
                why,
            })
        };
        // Only what lies inside the tree: an excluded directory that holds the
        // workspace (a ROOCODE_HOME above the project) excludes nothing.
        let excluded: Vec<PathBuf> = self
            .excluded
            .iter()
            .filter(|x| x.starts_with(root) && x.as_path() != root)
            .cloned()
            .collect();
        let mut walker = crate::tools::walk::walker(root, root, true);
        walker.filter_entry(move |e| {
            e.file_name() != ".git" && !excluded.iter().any(|x| e.path().starts_with(x))
        });
        for entry in walker.build() {
            if manifest.files.len() >= self.limits.max_files {
                skip(Path::new("…"), Skip::SnapshotFull);
                break;
            }
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    tracing::debug!("snapshot walk: {e}");
                    continue;
                }
            };
            let path = entry.path();
            let Some(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                skip(path, Skip::Symlink);
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let Some(rel) = relative(root, path) else {
                skip(path, Skip::Name);
                continue;
            };
            let meta = match entry.metadata() {
                Ok(meta) => meta,
                Err(e) => {
                    skip(path, Skip::Unreadable(e.to_string()));
                    continue;
                }
            };
            if secrets.classify(path, path, Some(&meta)).is_some() {
                skip(path, Skip::Credentials);
                continue;
            }
            let stat = Stat::of(&meta);
            if stat.size > self.limits.max_file_bytes {
                skip(path, Skip::TooLarge { size: stat.size });
                continue;
            }
            if total + stat.size > self.limits.max_snapshot_bytes {
                skip(path, Skip::SnapshotFull);
                continue;
            }
            let blob = match index.lookup(&rel, &stat) {
                Some(blob) => blob.clone(),
                None => match std::fs::read(path) {
                    Ok(bytes) => {
                        hashed += 1;
                        let blob = self.objects.put(&bytes)?;
                        index.record(&rel, stat, blob.clone(), now_ns);
                        blob
                    }
                    Err(e) => {
                        skip(path, Skip::Unreadable(e.to_string()));
                        continue;
                    }
                },
            };
            total += stat.size;
            let entry = FileEntry {
                mode: stat.mode & 0o777,
                size: stat.size,
                blob,
            };
            manifest.files.insert(rel, entry);
        }
        index.retain(|p| manifest.files.contains_key(p));
        Ok((manifest, hashed, skipped))
    }

    /// The manifest stored as `id`.
    pub fn manifest(&self, id: &BlobId) -> io::Result<Manifest> {
        let bytes = self.objects.get(id)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a manifest is not text"))?;
        Manifest::parse(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Puts `paths` of the tree at `root` back as `snapshot` has them: written with its
    /// content and mode, or removed when the snapshot does not have them. A path whose
    /// parent directory is a symlink (or not a directory) is refused.
    pub fn restore(&self, root: &Path, snapshot: &Manifest, paths: &[String]) -> Restored {
        let mut done = Restored::default();
        for rel in paths {
            if let Err(why) = self.restore_one(root, snapshot, rel, &mut done) {
                done.refused.push((rel.clone(), why));
            }
        }
        done
    }

    fn restore_one(
        &self,
        root: &Path,
        snapshot: &Manifest,
        rel: &str,
        done: &mut Restored,
    ) -> Result<(), String> {
        if !is_safe_path(rel) {
            return Err("not a path inside the workspace".into());
        }
        let path = root.join(rel);
        check_parents(root, rel)?;
        match snapshot.files.get(rel) {
            None => match std::fs::symlink_metadata(&path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e.to_string()),
                Ok(meta) if meta.is_dir() => Err("it is a directory now".into()),
                Ok(_) => {
                    std::fs::remove_file(&path).map_err(|e| e.to_string())?;
                    done.removed.push(rel.to_string());
                    remove_empty_parents(root, &path);
                    Ok(())
                }
            },
            Some(entry) => {
                let bytes = self.objects.get(&entry.blob).map_err(|e| e.to_string())?;
                let dir = path.parent().unwrap_or(root);
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
                check_parents(root, rel)?;
                if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
                    return Err("it is a directory now".into());
                }
                objects::write_atomically_as(dir, &path, &bytes, entry.mode)
                    .map_err(|e| e.to_string())?;
                done.written.push(rel.to_string());
                Ok(())
            }
        }
    }
}

/// `path` relative to `root`, `/`-separated, when a manifest can name it.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    let rel = parts?.join("/");
    is_safe_path(&rel).then_some(rel)
}

/// Removes the directories above `path` that a removal left empty, up to `root` (a
/// file the turn created in a new directory takes the directory with it). A directory
/// that is not empty stays: `remove_dir` refuses it.
fn remove_empty_parents(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Every existing parent of `rel` under `root` is a real directory, not a symlink.
fn check_parents(root: &Path, rel: &str) -> Result<(), String> {
    let mut dir = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.to_string()),
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!("{} is a symlink", dir.display()));
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(format!("{} is not a directory", dir.display()));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
