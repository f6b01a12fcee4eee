//! The scratch copy a replay works in: the project as it was when the recorded session
//! started — the rewind snapshot taken before its first turn, else the project as it is
//! now — written into a new directory, never into the project itself.
//!
//! Where it goes: a new temporary directory by default; a missing or empty directory
//! the user names; or a directory an earlier replay of the same session prepared,
//! which is used as it is (so a file changed there shows where the replay diverges).
//! Which directories RooCode prepared is kept under its data directory
//! (`replays/<hash of the path>`), not in the copy, which the replayed tools see whole.
//! A non-empty directory RooCode did not prepare, and any directory inside the
//! recorded project or holding it, are refused: a replay runs the recorded commands.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::agent::{AgentError, Engine};
use crate::snapshot::{BlobId, Manifest};
use crate::store::SessionRow;

/// A prepared scratch copy.
#[derive(Debug, Clone)]
pub struct Scratch {
    pub dir: PathBuf,
    /// `snapshot`, `current` or `reused` (see `ReplayStarted::source`).
    pub source: &'static str,
    /// What could not be copied, for the user.
    pub notes: Vec<String>,
}

/// The file under the data directory that says `dir` was prepared for `session_id`.
fn marker(data_dir: &Path, dir: &Path) -> PathBuf {
    let key = BlobId::of(dir.as_os_str().as_encoded_bytes());
    data_dir.join("replays").join(&key.as_str()[..32])
}

fn is_empty_dir(dir: &Path) -> std::io::Result<bool> {
    Ok(std::fs::read_dir(dir)?.next().is_none())
}

/// Where the copy goes, and whether it is there already (`true`: reuse it).
fn choose(
    data_dir: &Path,
    row: &SessionRow,
    into: Option<&str>,
) -> Result<(PathBuf, bool), AgentError> {
    let Some(into) = into else {
        let dir = std::env::temp_dir().join(format!(
            "roocode-replay-{}-{}",
            &row.id[..row.id.len().min(8)],
            &uuid::Uuid::now_v7().simple().to_string()[24..]
        ));
        return Ok((dir, false));
    };
    let dir = PathBuf::from(into);
    if !dir.is_absolute() {
        return Err(AgentError::Invalid(format!(
            "replay directory `{into}` is not an absolute path"
        )));
    }
    if dir
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(AgentError::Invalid(format!(
            "replay directory `{into}` goes up with `..`: give it plainly"
        )));
    }
    let dir = real_path(&dir).map_err(|e| {
        AgentError::Invalid(format!("replay directory `{into}` cannot be used: {e}"))
    })?;
    let root = Path::new(&row.root);
    if dir.starts_with(root) || root.starts_with(&dir) {
        return Err(AgentError::Invalid(format!(
            "replay directory `{}` is inside the recorded project (or holds it): a replay runs the recorded commands, so give a directory outside {}",
            dir.display(),
            root.display()
        )));
    }
    if !dir.exists() {
        return Ok((dir, false));
    }
    if !dir.is_dir() {
        return Err(AgentError::Invalid(format!(
            "replay directory `{}` is not a directory",
            dir.display()
        )));
    }
    let empty = is_empty_dir(&dir)
        .map_err(|e| AgentError::Invalid(format!("replay directory `{}`: {e}", dir.display())))?;
    if empty {
        return Ok((dir, false));
    }
    let prepared_for = std::fs::read_to_string(marker(data_dir, &dir)).unwrap_or_default();
    if prepared_for.trim() == row.id {
        return Ok((dir, true));
    }
    Err(AgentError::Invalid(format!(
        "replay directory `{}` is not empty and no replay of this session prepared it: give a new or empty directory",
        dir.display()
    )))
}

/// `dir` with its nearest existing ancestor resolved (symlinks followed), the rest
/// of it as given: where a directory made there would really be.
fn real_path(dir: &Path) -> std::io::Result<PathBuf> {
    let mut existing = dir;
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(real) => {
                return Ok(rest.iter().rev().fold(real, |path, part| path.join(part)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                    return Err(e);
                };
                rest.push(name.to_os_string());
                existing = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

impl Engine {
    /// Prepares the scratch copy for a replay of `row` (see the module doc).
    pub(super) async fn replay_scratch(
        self: &Arc<Self>,
        row: &SessionRow,
        into: Option<&str>,
    ) -> Result<Scratch, AgentError> {
        let data_dir = self.paths.data_dir.clone();
        let (dir, reuse) = choose(&data_dir, row, into)?;
        if reuse {
            return Ok(Scratch {
                dir,
                source: "reused",
                notes: vec!["the directory an earlier replay prepared is used as it is".into()],
            });
        }
        let first = self.store.turn_snapshots(&row.id).await?.into_iter().next();
        let snapshots = self.snapshots.clone();
        let root = PathBuf::from(&row.root);
        let (dir2, row_id) = (dir.clone(), row.id.clone());
        let made = tokio::task::spawn_blocking(move || -> Result<Scratch, String> {
            create_private_dir(&dir2)?;
            let mut notes = Vec::new();
            let (manifest, source) = match &first {
                Some(snap) => {
                    let id = BlobId::parse(&snap.manifest)
                        .ok_or("the first turn's snapshot is not readable")?;
                    let manifest = snapshots.manifest(&id).map_err(|e| {
                        format!("the snapshot taken before the first turn cannot be read: {e}")
                    })?;
                    notes.extend(skipped_note(&snap.skipped));
                    (manifest, "snapshot")
                }
                None => {
                    let taken = snapshots
                        .take(&root)
                        .map_err(|e| format!("the project cannot be copied: {e}"))?;
                    notes.push(
                        "no snapshot was taken before the session's first turn: the project as it is now was copied"
                            .into(),
                    );
                    if !taken.skipped.is_empty() {
                        notes.push(format!(
                            "{} file(s) were not copied (credentials, too large, symlinks)",
                            taken.skipped.len()
                        ));
                    }
                    (taken.manifest, "current")
                }
            };
            restore_all(&snapshots, &dir2, &manifest, &mut notes);
            notes.push("the copy has no .git: RooCode never copies it".into());
            let mark = marker(&data_dir, &dir2);
            if let Some(parent) = mark.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&mark, &row_id).map_err(|e| e.to_string())?;
            Ok(Scratch {
                dir: dir2,
                source,
                notes,
            })
        })
        .await
        .map_err(|e| AgentError::Invalid(format!("the scratch copy failed: {e}")))?;
        made.map_err(|e| {
            AgentError::Invalid(format!(
                "the scratch copy in {} could not be made: {e}",
                dir.display()
            ))
        })
    }
}

/// Creates `dir` (and its parents), readable by the user only when new.
fn create_private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| e.to_string())
}

fn restore_all(
    snapshots: &crate::snapshot::Snapshots,
    dir: &Path,
    manifest: &Manifest,
    notes: &mut Vec<String>,
) {
    let paths: Vec<String> = manifest.files.keys().cloned().collect();
    let done = snapshots.restore(dir, manifest, &paths);
    if !done.refused.is_empty() {
        let list: Vec<String> = done
            .refused
            .iter()
            .take(5)
            .map(|(p, why)| format!("{p} ({why})"))
            .collect();
        notes.push(format!(
            "{} file(s) could not be written: {}",
            done.refused.len(),
            list.join(", ")
        ));
    }
}

/// What the first snapshot left out, as a note (`None` when nothing).
fn skipped_note(skipped: &str) -> Option<String> {
    let list: Vec<serde_json::Value> = serde_json::from_str(skipped).ok()?;
    if list.is_empty() {
        return None;
    }
    let names: Vec<String> = list
        .iter()
        .take(5)
        .filter_map(|v| v.get("path").and_then(|p| p.as_str()).map(str::to_string))
        .collect();
    Some(format!(
        "{} file(s) were not in the snapshot and are not in the copy (credentials, too large, symlinks, git-ignored files are never snapshotted): {}",
        list.len(),
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::Mode;
    use roocode_protocol::session::{SessionKind, SessionStatus};

    fn row(root: &Path) -> SessionRow {
        SessionRow {
            id: "0199aaaa-bbbb".into(),
            parent_session_id: None,
            kind: SessionKind::Main,
            title: String::new(),
            cwd: root.display().to_string(),
            root: root.display().to_string(),
            model: "anthropic/sonnet".into(),
            mode: Mode::Default,
            status: SessionStatus::Idle,
            running_turn_id: None,
            created_at: 0,
            last_activity: 0,
            last_seq: 0,
            input_tokens: 0,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: None,
            cost_unknown: 0,
            message_count: 0,
            coordinator: None,
            leads_team: false,
        }
    }

    #[test]
    fn a_directory_is_chosen_only_where_nothing_is_lost() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let r = row(&project);
        // Default: a new temporary directory.
        let (dir, reuse) = choose(&data, &r, None).unwrap();
        assert!(!reuse && !dir.exists());
        // Missing, or empty: used.
        let fresh = tmp.path().join("fresh");
        assert_eq!(
            choose(&data, &r, Some(fresh.to_str().unwrap())).unwrap(),
            (fresh.clone(), false)
        );
        std::fs::create_dir(&fresh).unwrap();
        assert!(!choose(&data, &r, Some(fresh.to_str().unwrap())).unwrap().1);
        // Not empty, not prepared by a replay of this session: refused.
        std::fs::write(fresh.join("mine.txt"), "x").unwrap();
        let e = choose(&data, &r, Some(fresh.to_str().unwrap())).unwrap_err();
        assert!(e.to_string().contains("not empty"), "{e}");
        // Prepared by one: reused as it is.
        let mark = marker(&data, &fresh.canonicalize().unwrap());
        std::fs::create_dir_all(mark.parent().unwrap()).unwrap();
        std::fs::write(&mark, &r.id).unwrap();
        assert!(choose(&data, &r, Some(fresh.to_str().unwrap())).unwrap().1);
        // Inside the project, or holding it — also through a symlink or `..` — refused.
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&project, &link).unwrap();
        for bad in [
            project.join("replay"),
            tmp.path().to_path_buf(),
            link.join("new/deeper"),
        ] {
            let e = choose(&data, &r, Some(bad.to_str().unwrap())).unwrap_err();
            assert!(e.to_string().contains("inside the recorded project"), "{e}");
        }
        assert!(choose(&data, &r, Some("relative/dir")).is_err());
        let up = tmp.path().join("new/../project/x");
        let e = choose(&data, &r, Some(up.to_str().unwrap())).unwrap_err();
        assert!(e.to_string().contains(".."), "{e}");
    }

    #[test]
    fn what_the_snapshot_left_out_is_noted() {
        assert_eq!(skipped_note("[]"), None);
        let note = skipped_note(r#"[{"path":".env","why":"credentials"}]"#).unwrap();
        assert!(
            note.starts_with("1 file(s)") && note.contains(".env"),
            "{note}"
        );
    }
}
