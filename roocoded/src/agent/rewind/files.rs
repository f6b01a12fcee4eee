//! The file side of a rewind, run in a blocking task: the tree now snapshotted, the
//! plan worked out from the snapshots of the undone turns (see `plan`), each file's
//! diff from what it is now to what the rewind writes, and — when applied — the files
//! put back through `Snapshots::restore`, which refuses paths under a symlink.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;

use roocode_protocol::rewind::{FileRewind, NotRestorable};

use super::plan::{TurnTrees, plan};
use crate::snapshot::{BlobId, Manifest, Restored, Snapshots};

/// A diff longer than this is cut.
const DIFF_CAP: usize = 16 * 1024;
/// Past this much diff text in all, files are listed without one.
const DIFFS_TOTAL_CAP: usize = 256 * 1024;
/// Files larger than this get no diff.
const DIFF_FILE_CAP: u64 = 512 * 1024;

/// An undone turn's snapshots, as the store names them.
pub struct Undone {
    pub number: u32,
    pub before: BlobId,
    pub after: Option<BlobId>,
}

/// Applying the plan.
pub struct Apply {
    /// The tree the plan saw; a rewind of a tree that changed since is refused.
    pub expect: Option<String>,
    pub overwrite_conflicts: bool,
}

/// What the file side found (and did).
pub struct FilesOutcome {
    /// The tree now (before an applied rewind touched it).
    pub workspace: String,
    pub files: Vec<FileRewind>,
    pub not_restorable: Vec<NotRestorable>,
    /// With `Apply`: what was done, the conflicts kept, and the tree it left.
    pub applied: Option<(Restored, Vec<String>, BlobId)>,
}

#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("the workspace changed since the rewind was planned; look at the plan again")]
    Changed,
    #[error("cannot read the workspace snapshots: {0}")]
    Io(#[from] io::Error),
}

/// Plans (and with `apply`, does) putting the files of `root` back to the state
/// before `undone[0]`. `skipped_before` is what that snapshot left out.
pub fn rewind_files(
    snapshots: &Snapshots,
    root: &Path,
    undone: &[Undone],
    skipped_before: Vec<NotRestorable>,
    apply: Option<Apply>,
) -> Result<FilesOutcome, FilesError> {
    let now = snapshots.take(root)?;
    let workspace = now.id.to_string();
    if let Some(expect) = apply.as_ref().and_then(|a| a.expect.as_deref())
        && expect != workspace
    {
        return Err(FilesError::Changed);
    }
    let load = |id: &BlobId| snapshots.manifest(id);
    let befores: Vec<Manifest> = undone
        .iter()
        .map(|u| load(&u.before))
        .collect::<Result<_, _>>()?;
    let afters: Vec<Option<Manifest>> = undone
        .iter()
        .map(|u| u.after.as_ref().map(load).transpose())
        .collect::<Result<_, _>>()?;
    let trees: Vec<TurnTrees<'_>> = undone
        .iter()
        .zip(befores.iter().zip(&afters))
        .map(|(u, (before, after))| TurnTrees {
            number: u.number,
            before,
            after: after.as_ref(),
        })
        .collect();
    let planned = plan(&trees, &now.manifest);
    let Some(target) = befores.first() else {
        return Ok(FilesOutcome {
            workspace,
            files: Vec::new(),
            not_restorable: Vec::new(),
            applied: None,
        });
    };
    let mut budget = DIFFS_TOTAL_CAP;
    let files: Vec<FileRewind> = planned
        .iter()
        .map(|p| {
            let diff = diff_of(snapshots, &now.manifest, target, &p.path, &mut budget);
            FileRewind {
                path: p.path.clone(),
                action: p.action,
                conflict: p.conflict.clone(),
                diff,
            }
        })
        .collect();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let not_restorable = skipped_before
        .into_iter()
        .chain(now.skipped.iter().map(|s| NotRestorable {
            path: s.path.display().to_string(),
            why: s.why.to_string(),
        }))
        .filter(|n| seen.insert(n.path.clone()))
        .collect();
    let applied = match apply {
        None => None,
        Some(apply) => {
            let (write, kept): (Vec<&FileRewind>, Vec<&FileRewind>) = files
                .iter()
                .partition(|f| f.conflict.is_none() || apply.overwrite_conflicts);
            let paths: Vec<String> = write.iter().map(|f| f.path.clone()).collect();
            let done = snapshots.restore(root, target, &paths);
            let left = snapshots.take(root)?;
            let kept = kept.iter().map(|f| f.path.clone()).collect();
            Some((done, kept, left.id))
        }
    };
    Ok(FilesOutcome {
        workspace,
        files,
        not_restorable,
        applied,
    })
}

/// The unified diff from `path` now to what `target` has (empty for a removal), for
/// text files under the caps; `budget` is what the plan's diffs may still take.
fn diff_of(
    snapshots: &Snapshots,
    now: &Manifest,
    target: &Manifest,
    path: &str,
    budget: &mut usize,
) -> Option<String> {
    if *budget == 0 {
        return None;
    }
    let text_of = |m: &Manifest| -> Option<String> {
        match m.files.get(path) {
            None => Some(String::new()),
            Some(e) if e.size > DIFF_FILE_CAP => None,
            Some(e) => {
                let bytes = snapshots.objects().get(&e.blob).ok()?;
                String::from_utf8(bytes).ok().filter(|t| !t.contains('\0'))
            }
        }
    };
    let mut diff = crate::tools::write::unified_diff(&text_of(now)?, &text_of(target)?, path);
    if diff.len() > DIFF_CAP {
        let mut cut = DIFF_CAP;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        diff.truncate(cut);
        diff.push_str("\n… (diff cut)\n");
    }
    *budget = budget.saturating_sub(diff.len());
    Some(diff)
}
