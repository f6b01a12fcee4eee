//! Pruning the shadow store: the blobs no recorded snapshot needs any more (those of
//! deleted sessions, or of snapshots a prune dropped) are removed, with the stat
//! indexes of trees no one has snapshotted for a while.
//!
//! What is kept: every blob a live manifest or conversation names (and the
//! manifests and conversations themselves), every blob a stat index names (the
//! trees' files as last seen: the next snapshot names them), and every blob put or
//! touched within the grace period — a snapshot just taken whose row is not recorded
//! yet. Snapshots wait while a prune runs (see `Snapshots::gate`), so no walk reads
//! an index whose blobs are being removed.

use std::collections::HashSet;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::objects::{BlobId, Swept};
use super::{Snapshots, conversation, index::Index, manifest::Manifest};

/// What [`Snapshots::prune`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    pub blobs: Swept,
    /// Stat indexes removed (trees not snapshotted within `index_age`).
    pub indexes: u64,
}

impl Snapshots {
    /// Removes what no live snapshot needs. `live` are the blob ids the recorded rows
    /// name, `roots` the workspaces they were taken of; an index of another tree
    /// unused for `index_age` goes too. Blocking: call it from a blocking task.
    pub fn prune(
        &self,
        live: &[String],
        roots: &[String],
        grace: Duration,
        index_age: Duration,
    ) -> io::Result<Pruned> {
        let _exclusive = self.gate.write().map_err(|_| poisoned())?;
        let mut keep: HashSet<BlobId> = HashSet::new();
        for id in live.iter().filter_map(|id| BlobId::parse(id)) {
            if let Ok(bytes) = self.objects.get(&id) {
                keep.extend(referenced(&bytes));
            }
            keep.insert(id);
        }
        let live_indexes: HashSet<PathBuf> = roots
            .iter()
            .map(|r| self.index_path(std::path::Path::new(r)))
            .collect();
        let cutoff = SystemTime::now().checked_sub(index_age);
        let mut indexes = 0;
        let mut in_memory = self.indexes.lock().map_err(|_| poisoned())?;
        for dir in std::fs::read_dir(&self.trees)
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = dir.path().join("index");
            let unused = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|m| cutoff.is_some_and(|c| m < c));
            if unused && !live_indexes.contains(&path) {
                std::fs::remove_dir_all(dir.path())?;
                in_memory.retain(|root, _| self.index_path(root) != path);
                indexes += 1;
                continue;
            }
            keep.extend(Index::load(&path).blobs().cloned());
        }
        for index in in_memory.values() {
            keep.extend(index.blobs().cloned());
        }
        drop(in_memory);
        let blobs = self.objects.sweep(&keep, grace)?;
        Ok(Pruned { blobs, indexes })
    }
}

/// The blobs a manifest or a conversation names (none for a message blob).
fn referenced(bytes: &[u8]) -> Vec<BlobId> {
    if let Some(ids) = conversation::message_ids(bytes) {
        return ids;
    }
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| Manifest::parse(text).ok())
        .map(|m| m.files.into_values().map(|e| e.blob).collect())
        .unwrap_or_default()
}

fn poisoned() -> io::Error {
    io::Error::other("the snapshot store's lock is poisoned")
}
