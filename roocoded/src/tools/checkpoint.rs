//! The checkpoint store (DESIGN §8, last paragraph): before `Write` or `Edit` changes a
//! file, its previous content — or the fact that it did not exist — is saved as a
//! checkpoint of the current turn, so that a later `/rewind` can put the files of any
//! turn back with [`restore_turn`].
//!
//! Layout, under RooCode's data directory (never in the user's `.git`):
//!
//! ```text
//! <data_dir>/checkpoints/<session_id>/<turn_id>/manifest.jsonl
//! <data_dir>/checkpoints/<session_id>/<turn_id>/blobs/<n>
//! ```
//!
//! The manifest has one JSON object per line: the file's real path, whether it existed,
//! the name of the blob holding its old bytes (none when it did not exist) and its Unix
//! mode. A path is saved once per turn: the first save wins, so the checkpoint holds the
//! file as it was when the turn began to change it, whatever the turn did next.
//!
//! Saves are serialised by a process-wide lock (agents of one session may share a turn);
//! the blob is written before its manifest line, so a crash leaves at worst an orphan
//! blob, never a manifest line without its content.

use std::fs;
use std::io::{self, BufRead as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::ToolContext;
use crate::permission::sandbox::{Beneath, Purpose, Strategy};

/// Name of the directory below the data directory.
const CHECKPOINTS_DIR: &str = "checkpoints";
const MANIFEST: &str = "manifest.jsonl";
const BLOBS: &str = "blobs";

/// Serialises saves in this process (the manifest is read, then appended).
static SAVE_LOCK: Mutex<()> = Mutex::new(());

/// Why a checkpoint could not be saved or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("no data directory is configured, so no checkpoint can be saved")]
    NoDataDir,
    #[error("invalid {what} for a checkpoint: {id:?}")]
    InvalidId { what: &'static str, id: String },
    #[error("no checkpoint exists for turn {turn_id} of session {session_id}")]
    NoSuchTurn { session_id: String, turn_id: String },
    #[error("{path} is not a regular file; only files can be checkpointed")]
    NotAFile { path: PathBuf },
    #[error("checkpoint manifest {path} line {line} is corrupt: {message}")]
    Corrupt {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("checkpoint I/O on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One line of a turn's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ManifestEntry {
    /// The file's real path when it was saved.
    path: PathBuf,
    /// False if the file did not exist (restoring deletes it).
    existed: bool,
    /// Blob name below `blobs/` holding the old bytes, when it existed.
    blob: Option<String>,
    /// Unix permission bits, when it existed.
    mode: Option<u32>,
}

/// The checkpoint of one turn of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoints {
    dir: PathBuf,
}

impl Checkpoints {
    /// Save `real_path`'s current state (content and mode, or absence) as a checkpoint
    /// of `ctx`'s turn, unless this turn already saved that path. Returns true if it
    /// saved now, false if an earlier save of the turn is kept.
    pub fn save(ctx: &ToolContext, real_path: &Path) -> Result<bool, CheckpointError> {
        Self::of(ctx)?.save_path(real_path)
    }

    /// The store of one turn (nothing is created until the first save).
    pub fn for_turn(
        data_dir: &Path,
        session_id: &str,
        turn_id: &str,
    ) -> Result<Self, CheckpointError> {
        Ok(Self {
            dir: turn_dir(data_dir, session_id, turn_id)?,
        })
    }

    /// The store of `ctx`'s turn.
    pub fn of(ctx: &ToolContext) -> Result<Self, CheckpointError> {
        Self::for_turn(&ctx.data_dir, &ctx.session_id, &ctx.turn_id)
    }

    /// The directory holding this turn's manifest and blobs.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Like [`Checkpoints::save`], on this turn's store, reading the file by its path.
    /// The writing tools use [`Checkpoints::save_prior`] with the content they read
    /// through the sandbox's descriptor instead, so nothing is opened by name again.
    pub fn save_path(&self, real_path: &Path) -> Result<bool, CheckpointError> {
        let prior = match fs::metadata(real_path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_err(real_path)(e)),
            Ok(meta) if !meta.is_file() => {
                return Err(CheckpointError::NotAFile {
                    path: real_path.to_path_buf(),
                });
            }
            Ok(meta) => {
                let bytes = fs::read(real_path).map_err(io_err(real_path))?;
                Some(Prior {
                    bytes,
                    mode: meta.permissions().mode(),
                })
            }
        };
        self.save_prior(real_path, prior.as_ref())
    }

    /// Save `prior` (the file's content and mode before the change, or `None` if it did
    /// not exist) as `real_path`'s checkpoint of this turn, unless the turn already
    /// saved that path. Returns true if it saved now.
    pub fn save_prior(
        &self,
        real_path: &Path,
        prior: Option<&Prior>,
    ) -> Result<bool, CheckpointError> {
        // A panic while holding the lock leaves nothing half-done in memory.
        let _guard = SAVE_LOCK
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let manifest = self.dir.join(MANIFEST);
        let entries = read_manifest(&manifest)?;
        if entries.iter().any(|e| e.path == real_path) {
            return Ok(false);
        }
        let blobs = self.dir.join(BLOBS);
        fs::create_dir_all(&blobs).map_err(io_err(&blobs))?;
        let entry = match prior {
            None => ManifestEntry {
                path: real_path.to_path_buf(),
                existed: false,
                blob: None,
                mode: None,
            },
            Some(prior) => {
                let name = format!("{:06}", entries.len() + 1);
                let blob = blobs.join(&name);
                fs::write(&blob, &prior.bytes).map_err(io_err(&blob))?;
                ManifestEntry {
                    path: real_path.to_path_buf(),
                    existed: true,
                    blob: Some(name),
                    mode: Some(prior.mode),
                }
            }
        };
        let mut line = serde_json::to_string(&entry).map_err(|e| CheckpointError::Io {
            path: real_path.to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        line.push('\n');
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&manifest)
            .map_err(io_err(&manifest))?;
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(io_err(&manifest))?;
        Ok(true)
    }
}

/// A file as it was before a change: its bytes and Unix mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prior {
    pub bytes: Vec<u8>,
    pub mode: u32,
}

/// `<data_dir>/checkpoints/<session_id>/<turn_id>`, refusing ids that are not a single
/// plain path component.
pub fn turn_dir(
    data_dir: &Path,
    session_id: &str,
    turn_id: &str,
) -> Result<PathBuf, CheckpointError> {
    if data_dir.as_os_str().is_empty() {
        return Err(CheckpointError::NoDataDir);
    }
    let session = plain_component("session id", session_id)?;
    let turn = plain_component("turn id", turn_id)?;
    Ok(data_dir.join(CHECKPOINTS_DIR).join(session).join(turn))
}

fn plain_component<'a>(what: &'static str, id: &'a str) -> Result<&'a str, CheckpointError> {
    let bad = id.is_empty() || id == "." || id == ".." || id.contains(['/', '\\', '\0']);
    if bad {
        Err(CheckpointError::InvalidId {
            what,
            id: id.to_string(),
        })
    } else {
        Ok(id)
    }
}

fn read_manifest(path: &Path) -> Result<Vec<ManifestEntry>, CheckpointError> {
    let file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(path)(e)),
    };
    let mut entries = Vec::new();
    for (i, line) in io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io_err(path))?;
        if line.trim().is_empty() {
            continue;
        }
        let entry = serde_json::from_str(&line).map_err(|e| CheckpointError::Corrupt {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

/// What [`restore_turn`] did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreAction {
    /// The saved content (and mode) was written back.
    Restored,
    /// The file did not exist before the turn and was deleted.
    Deleted,
    /// The file did not exist before the turn and does not exist now.
    AlreadyAbsent,
    /// This file could not be restored (the others still were).
    Failed(String),
}

/// One file of a restored turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoredFile {
    pub path: PathBuf,
    pub action: RestoreAction,
}

/// Put every file that `turn_id` of `session_id` changed back as it was before the turn:
/// saved contents and modes are written back (parent directories recreated), files that
/// did not exist are deleted. Directories the turn created are left in place. A file
/// that cannot be restored is reported as [`RestoreAction::Failed`] and the others are
/// still restored; only a missing or unreadable manifest fails the whole call.
///
/// To rewind several turns, restore them newest first.
pub fn restore_turn(
    data_dir: &Path,
    session_id: &str,
    turn_id: &str,
) -> Result<Vec<RestoredFile>, CheckpointError> {
    let dir = turn_dir(data_dir, session_id, turn_id)?;
    let manifest = dir.join(MANIFEST);
    if !manifest.exists() {
        return Err(CheckpointError::NoSuchTurn {
            session_id: session_id.to_string(),
            turn_id: turn_id.to_string(),
        });
    }
    let entries = read_manifest(&manifest)?;
    Ok(entries
        .into_iter()
        .map(|entry| {
            let action = restore_one(&dir, &entry).unwrap_or_else(|e| {
                RestoreAction::Failed(format!("{}: {e}", entry.path.display()))
            });
            RestoredFile {
                path: entry.path,
                action,
            }
        })
        .collect())
}

/// Put one file back. The manifest holds real paths, which have no symbolic link in
/// them; so the file is reached from `/` one component at a time without following
/// any ([`Beneath`] with the walk), and a link planted since the turn (at the file's
/// name or in place of a directory above it) makes this file fail instead of sending
/// the old content wherever it points.
fn restore_one(dir: &Path, entry: &ManifestEntry) -> io::Result<RestoreAction> {
    let root = Beneath::open(Path::new("/"), Strategy::Walk)?;
    let rel = entry.path.strip_prefix("/").map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "the manifest holds a relative path",
        )
    })?;
    if !entry.existed {
        return match root.remove_file(rel) {
            Ok(()) => Ok(RestoreAction::Deleted),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(RestoreAction::AlreadyAbsent),
            Err(e) => Err(e),
        };
    }
    let Some(blob) = &entry.blob else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the manifest names no blob for a file that existed",
        ));
    };
    let content = fs::read(dir.join(BLOBS).join(blob))?;
    let mut file = match root.open_file(rel, Purpose::ReadWrite) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => root.create_file(rel)?,
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is no longer a regular file",
        ));
    }
    file.set_len(0)?;
    file.write_all(&content)?;
    if let Some(mode) = entry.mode {
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    Ok(RestoreAction::Restored)
}

#[cfg(test)]
mod tests;
