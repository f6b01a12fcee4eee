//! The content-addressed store of snapshot files: each blob is kept once, under the
//! SHA-256 of its bytes (`objects/ab/cdef…`), written to a temporary file and renamed,
//! so a crash leaves either the whole blob or none, and a blob's name always matches
//! its content.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// A blob's name: the hex SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlobId(String);

impl BlobId {
    /// The id of `bytes`.
    pub fn of(bytes: &[u8]) -> BlobId {
        BlobId(hex(&Sha256::digest(bytes)))
    }

    /// An id read back from a manifest: 64 lowercase hex digits, or `None`.
    pub fn parse(text: &str) -> Option<BlobId> {
        let ok = text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        ok.then(|| BlobId(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for BlobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The blobs under one directory.
#[derive(Debug, Clone)]
pub struct Objects {
    dir: PathBuf,
}

impl Objects {
    pub fn new(dir: impl Into<PathBuf>) -> Objects {
        Objects { dir: dir.into() }
    }

    fn path(&self, id: &BlobId) -> PathBuf {
        let (fan, rest) = id.0.split_at(2);
        self.dir.join(fan).join(rest)
    }

    /// Whether the blob is stored.
    pub fn contains(&self, id: &BlobId) -> bool {
        self.path(id).is_file()
    }

    /// Stores `bytes` (once: a blob already there is not written again, only marked
    /// used now, so that a prune running meanwhile keeps it) and returns its id.
    pub fn put(&self, bytes: &[u8]) -> io::Result<BlobId> {
        let id = BlobId::of(bytes);
        let path = self.path(&id);
        if path.is_file() {
            touch(&path);
            return Ok(id);
        }
        let dir = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(dir)?;
        write_atomically(dir, &path, bytes)?;
        Ok(id)
    }

    /// The bytes of a stored blob; an error when it is missing or its content no
    /// longer matches its name (a damaged store is never restored from).
    pub fn get(&self, id: &BlobId) -> io::Result<Vec<u8>> {
        let bytes = std::fs::read(self.path(id))?;
        if BlobId::of(&bytes) != *id {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("snapshot object {id} is damaged (its content does not match its name)"),
            ));
        }
        Ok(bytes)
    }

    /// Removes every blob not in `live` and not used within `grace` (a blob put or
    /// touched since belongs to a snapshot not recorded yet).
    pub fn sweep(&self, live: &HashSet<BlobId>, grace: Duration) -> io::Result<Swept> {
        let mut swept = Swept::default();
        let cutoff = SystemTime::now().checked_sub(grace).unwrap_or(UNIX_EPOCH);
        let fans = match std::fs::read_dir(&self.dir) {
            Ok(fans) => fans,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(swept),
            Err(e) => return Err(e),
        };
        for fan in fans.flatten() {
            let fan_name = fan.file_name();
            let Some(fan_name) = fan_name.to_str().filter(|n| n.len() == 2) else {
                continue;
            };
            let Ok(blobs) = std::fs::read_dir(fan.path()) else {
                continue;
            };
            for blob in blobs.flatten() {
                let name = blob.file_name();
                let Some(id) = name
                    .to_str()
                    .and_then(|n| BlobId::parse(&format!("{fan_name}{n}")))
                else {
                    continue;
                };
                let Ok(meta) = blob.metadata() else { continue };
                let recent = meta.modified().is_ok_and(|m| m >= cutoff);
                if live.contains(&id) || recent {
                    swept.kept += 1;
                    swept.kept_bytes += meta.len();
                    continue;
                }
                std::fs::remove_file(blob.path())?;
                swept.removed += 1;
                swept.removed_bytes += meta.len();
            }
        }
        Ok(swept)
    }
}

/// What [`Objects::sweep`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    pub removed: u64,
    pub removed_bytes: u64,
    pub kept: u64,
    pub kept_bytes: u64,
}

/// Marks `path` used now (its modification time); a failure only weakens a prune's
/// grace for it, which the rows recorded soon after cover.
pub(crate) fn touch(path: &Path) {
    if let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Writes `bytes` to `path` through a temporary file in `dir`, renamed into place, so a
/// reader never sees half a file. Not synced: a blob torn by a power loss fails the
/// check of [`Objects::get`] and a torn index is rebuilt, so nothing wrong is ever
/// restored, and a first snapshot of a large tree does not wait for thousands of
/// syncs.
pub(crate) fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_as(dir, path, bytes, 0o644)
}

/// [`write_atomically`] with the file's permission bits (`mode`, before the umask) set
/// on the temporary file: nothing is changed at `path` after the rename. The temporary
/// file is created new (`O_EXCL`): a name planted in `dir` beforehand, a symlink
/// included, fails the write instead of redirecting it.
pub(crate) fn write_atomically_as(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    mode: u32,
) -> io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".tmp-{}-{n}", std::process::id()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        file.write_all(bytes)?;
        // The umask may have taken bits the snapshot had: the file gets them back.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_stored_once_under_their_hash_and_checked_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let objects = Objects::new(dir.path());
        let id = objects.put(b"hello\n").unwrap();
        assert_eq!(
            id.as_str(),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        );
        assert_eq!(objects.put(b"hello\n").unwrap(), id);
        assert_eq!(objects.get(&id).unwrap(), b"hello\n");
        assert_eq!(BlobId::parse(id.as_str()), Some(id.clone()));
        assert_eq!(BlobId::parse("../etc/passwd"), None);
        std::fs::write(objects.path(&id), b"tampered").unwrap();
        let err = objects.get(&id).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn a_sweep_keeps_live_and_recent_blobs() {
        let dir = tempfile::tempdir().unwrap();
        let objects = Objects::new(dir.path());
        let live = objects.put(b"live").unwrap();
        let dead = objects.put(b"dead").unwrap();
        let recent = objects.put(b"recent").unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        for id in [&live, &dead, &recent] {
            let f = std::fs::File::options()
                .append(true)
                .open(objects.path(id))
                .unwrap();
            f.set_modified(old).unwrap();
        }
        // Put again: used now.
        objects.put(b"recent").unwrap();
        let swept = objects
            .sweep(&HashSet::from([live.clone()]), Duration::from_secs(600))
            .unwrap();
        assert_eq!((swept.removed, swept.kept), (1, 2));
        assert!(objects.contains(&live) && objects.contains(&recent));
        assert!(!objects.contains(&dead));
    }
}
