//! What a rewind does to the files, worked out from manifests alone: the snapshots
//! before and after each turn undone, and the tree now.
//!
//! The files put back are those the undone turns changed (before → after each turn).
//! A file someone else changed after one of those turns — between a turn's end and
//! the next undone turn's start, or since the last one — is a conflict: the user or
//! another session worked on it, and it is kept unless the user says otherwise. A
//! file only others changed is not touched at all.

use std::collections::{BTreeMap, BTreeSet};

use roocode_protocol::rewind::FileAction;

use crate::snapshot::{FileEntry, Manifest};

/// The trees of one undone turn.
pub struct TurnTrees<'a> {
    pub number: u32,
    pub before: &'a Manifest,
    /// As the turn left it; `None` when the daemon died in it (the next turn's start,
    /// or the tree now, stand in).
    pub after: Option<&'a Manifest>,
}

/// One file to put back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub path: String,
    pub action: FileAction,
    pub conflict: Option<String>,
}

/// The files to put back to `turns[0].before`, in path order. `turns` are the undone
/// turns, oldest first; `now` is the tree now.
pub fn plan(turns: &[TurnTrees<'_>], now: &Manifest) -> Vec<Planned> {
    let Some(first) = turns.first() else {
        return Vec::new();
    };
    let mut changed: BTreeSet<&str> = BTreeSet::new();
    let mut conflicts: BTreeMap<&str, String> = BTreeMap::new();
    for (i, turn) in turns.iter().enumerate() {
        let next = turns.get(i + 1).map_or(now, |t| t.before);
        let after = turn.after.unwrap_or(next);
        for change in turn.before.diff(after) {
            changed.insert(path_in(turn.before, after, change.path()));
        }
        let since = match turns.get(i + 1) {
            Some(t) => format!("between turn {} and turn {}", turn.number, t.number),
            None => format!("after turn {}", turn.number),
        };
        for change in after.diff(next) {
            let path = path_in(after, next, change.path());
            conflicts.entry(path).or_insert_with(|| {
                format!("changed {since} by someone else (you, or another session)")
            });
        }
    }
    let target = first.before;
    changed
        .into_iter()
        .filter_map(|path| {
            let want = target.files.get(path);
            let have = now.files.get(path);
            if same(want, have) {
                return None;
            }
            Some(Planned {
                path: path.to_string(),
                action: if want.is_some() {
                    FileAction::Restore
                } else {
                    FileAction::Remove
                },
                conflict: conflicts.get(path).cloned(),
            })
        })
        .collect()
}

/// `path` borrowed from whichever manifest holds it (a diff names only paths one of
/// them has).
fn path_in<'m>(a: &'m Manifest, b: &'m Manifest, path: &str) -> &'m str {
    a.files
        .get_key_value(path)
        .or_else(|| b.files.get_key_value(path))
        .map_or("", |(k, _)| k.as_str())
}

fn same(a: Option<&FileEntry>, b: Option<&FileEntry>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.blob == b.blob && a.mode == b.mode,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::BlobId;

    fn tree(files: &[(&str, &str)]) -> Manifest {
        let mut m = Manifest::default();
        for (path, text) in files {
            m.files.insert(
                path.to_string(),
                FileEntry {
                    mode: 0o644,
                    size: text.len() as u64,
                    blob: BlobId::of(text.as_bytes()),
                },
            );
        }
        m
    }

    fn planned(path: &str, action: FileAction, conflict: bool) -> (String, FileAction, bool) {
        (path.to_string(), action, conflict)
    }

    fn brief(plan: Vec<Planned>) -> Vec<(String, FileAction, bool)> {
        plan.into_iter()
            .map(|p| (p.path, p.action, p.conflict.is_some()))
            .collect()
    }

    #[test]
    fn the_turns_changes_are_undone_and_others_changes_are_conflicts_or_left_alone() {
        let before1 = tree(&[("a.rs", "a"), ("b.rs", "b"), ("c.rs", "c")]);
        // Turn 1 edits a.rs and creates new.rs.
        let after1 = tree(&[("a.rs", "A"), ("b.rs", "b"), ("c.rs", "c"), ("new.rs", "n")]);
        // Between the turns the user edits c.rs.
        let before2 = tree(&[("a.rs", "A"), ("b.rs", "b"), ("c.rs", "C"), ("new.rs", "n")]);
        // Turn 2 edits b.rs and c.rs.
        let after2 = tree(&[
            ("a.rs", "A"),
            ("b.rs", "B"),
            ("c.rs", "CC"),
            ("new.rs", "n"),
        ]);
        // Since, the user edits new.rs and adds mine.rs.
        let now = tree(&[
            ("a.rs", "A"),
            ("b.rs", "B"),
            ("c.rs", "CC"),
            ("new.rs", "mine"),
            ("mine.rs", "m"),
        ]);
        let turns = [
            TurnTrees {
                number: 1,
                before: &before1,
                after: Some(&after1),
            },
            TurnTrees {
                number: 2,
                before: &before2,
                after: Some(&after2),
            },
        ];
        assert_eq!(
            brief(plan(&turns, &now)),
            [
                planned("a.rs", FileAction::Restore, false),
                planned("b.rs", FileAction::Restore, false),
                planned("c.rs", FileAction::Restore, true),
                planned("new.rs", FileAction::Remove, true),
            ]
        );
        // Only turn 2: back to before2.
        assert_eq!(
            brief(plan(&turns[1..], &now)),
            [
                planned("b.rs", FileAction::Restore, false),
                planned("c.rs", FileAction::Restore, false),
            ]
        );
    }

    #[test]
    fn a_turn_without_an_after_snapshot_is_read_against_the_tree_now() {
        let before = tree(&[("a.rs", "a")]);
        let now = tree(&[("a.rs", "A"), ("b.rs", "b")]);
        let turns = [TurnTrees {
            number: 3,
            before: &before,
            after: None,
        }];
        assert_eq!(
            brief(plan(&turns, &now)),
            [
                planned("a.rs", FileAction::Restore, false),
                planned("b.rs", FileAction::Remove, false),
            ]
        );
        // Already as it was: nothing to do.
        assert!(plan(&turns, &before).is_empty());
    }
}
