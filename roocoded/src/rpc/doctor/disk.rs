//! The doctor's disk checks: what RooCode's data takes on disk, one line per part with
//! its size, what it is, which part grows per session or per turn, and what may be
//! removed today — the database (with its `-wal` and `-shm` files, the pages it would
//! reuse and any copy moved aside as corrupt), the rewind snapshots, the spilled large
//! tool results, the file tools' checkpoints, the hooks' transcripts, plan files, the
//! sub-agents' worktrees, the memory files and the daemon's log; then the total and the
//! free space of its file system. A per-session folder or file whose session no longer
//! exists is counted apart: `roocode-cli rm` leaves some of them behind.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};
use roocode_protocol::paths::Paths;

use crate::disk_usage::{Size, entries, human, measure};
use crate::memory::auto::MemoryDirs;
use crate::store::Store;
use crate::store::integrity::PageStats;

/// Less free space than this on the data's file system is a warning.
const LOW_SPACE: u64 = 1024 * 1024 * 1024;

/// A part of the data directory.
#[derive(Debug, Clone, Copy)]
struct Area {
    /// The check's name after `disk: `.
    name: &'static str,
    /// Its folder under the data directory.
    dir: &'static str,
    /// What it holds, how it grows and what removes it.
    about: &'static str,
    /// Its entries are named by session id (`<id>` or `<id>.<ext>`).
    per_session: bool,
    /// Shown even when absent.
    always: bool,
}

const AREAS: &[Area] = &[
    Area {
        name: "snapshots",
        dir: "snapshots",
        about: "the workspace as it was before each turn (rewind), every file stored once by content; grows with each turn that changes files; removing a session (`roocode-cli rm`) prunes what only its snapshots used",
        per_session: false,
        always: true,
    },
    Area {
        name: "tool results",
        dir: "tool-results",
        about: "large tool results in full, spilled out of the context, a folder per session; grows with each large output; `roocode-cli rm` leaves the session's folder behind",
        per_session: true,
        always: true,
    },
    Area {
        name: "checkpoints",
        dir: "checkpoints",
        about: "what Write and Edit replaced, a folder per session and turn; grows with each turn that edits files",
        per_session: true,
        always: false,
    },
    Area {
        name: "transcripts",
        dir: "transcripts",
        about: "each session's conversation as its hooks read it, a file per session; removed with the session",
        per_session: true,
        always: false,
    },
    Area {
        name: "plans",
        dir: "plans",
        about: "plan mode's plans, a file per session",
        per_session: true,
        always: false,
    },
    Area {
        name: "worktrees",
        dir: "worktrees",
        about: "sub-agents' git checkouts (`isolation: worktree`); each is removed when its agent's run ends, its branch kept",
        per_session: false,
        always: false,
    },
];

/// Entries of a folder by name, with their sizes.
type Entries = Vec<(String, Size)>;

/// What was found on disk (a blocking walk).
#[derive(Debug, Default)]
struct Found {
    database: Size,
    wal: Size,
    shm: Size,
    /// `roocode.db.corrupt-*` files, moved aside at a start.
    corrupt: Entries,
    /// Each area's size and, for those kept per session, each entry's.
    areas: Vec<(Area, Size, Entries)>,
    /// The user's and the project's memory folders.
    memory: Vec<(PathBuf, Size)>,
    log: Size,
    /// Everything in the data directory.
    data: Size,
    /// Bytes free for the user on the data's file system.
    free: Option<u64>,
}

/// The disk checks; `root` is the caller's project (its memory folder counts).
pub(super) async fn checks(store: &Store, paths: &Paths, root: Option<&Path>) -> Vec<DoctorCheck> {
    let (p, root) = (paths.clone(), root.map(Path::to_path_buf));
    let found = match tokio::task::spawn_blocking(move || find(&p, root.as_deref())).await {
        Ok(found) => found,
        Err(e) => {
            return vec![DoctorCheck::new(
                "disk",
                CheckStatus::Warn,
                format!("the data could not be measured: {e}"),
            )];
        }
    };
    let pages = store.page_stats().await.ok();
    let live = live_sessions(store, &found).await;
    render(paths, &found, pages, &live)
}

fn find(paths: &Paths, root: Option<&Path>) -> Found {
    let data = &paths.data_dir;
    let db = &paths.database;
    let listed = entries(data);
    let mut data_size = Size::default();
    for (_, size) in &listed {
        data_size.add(*size);
    }
    let db_name = db.file_name().map(|n| n.to_string_lossy().into_owned());
    let corrupt = match &db_name {
        Some(name) => {
            let prefix = format!("{name}.corrupt-");
            listed
                .iter()
                .filter(|(n, _)| n.starts_with(&prefix))
                .cloned()
                .collect()
        }
        None => Vec::new(),
    };
    let areas = AREAS
        .iter()
        .map(|area| {
            let dir = data.join(area.dir);
            let per_entry = if area.per_session {
                entries(&dir)
            } else {
                Vec::new()
            };
            let size = match listed.iter().find(|(n, _)| n == area.dir) {
                Some((_, size)) => *size,
                None => Size::default(),
            };
            (*area, size, per_entry)
        })
        .collect();
    let mut memory = Vec::new();
    if let Some(root) = root {
        let dirs = MemoryDirs::new(&paths.user_dir, root);
        memory.push((dirs.user.clone(), measure(&dirs.user)));
        memory.push((dirs.project.clone(), measure(&dirs.project)));
    } else {
        let user = paths.user_dir.join("memory");
        let size = measure(&user);
        memory.push((user, size));
    }
    Found {
        database: measure(db),
        wal: measure(&suffixed(db, "-wal")),
        shm: measure(&suffixed(db, "-shm")),
        corrupt,
        areas,
        memory,
        log: measure(&paths.log),
        data: data_size,
        free: free_space(data),
    }
}

fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Bytes available to the user on the file system holding `dir` (or its nearest
/// existing ancestor).
fn free_space(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|d| d.exists())?;
    let stat = nix::sys::statvfs::statvfs(existing).ok()?;
    Some(stat.blocks_available().saturating_mul(stat.fragment_size()))
}

/// The session ids named by per-session entries that are still sessions (a lookup
/// that fails counts as live: nothing is called removable on a guess).
async fn live_sessions(store: &Store, found: &Found) -> HashSet<String> {
    let mut live = HashSet::new();
    let ids: HashSet<&str> = found
        .areas
        .iter()
        .flat_map(|(_, _, per_entry)| per_entry.iter().map(|(name, _)| session_of(name)))
        .collect();
    for id in ids {
        if !matches!(store.session(id).await, Ok(None)) {
            live.insert(id.to_string());
        }
    }
    live
}

/// The session id an entry is named by: `<id>` or `<id>.<ext>`.
fn session_of(name: &str) -> &str {
    name.split_once('.').map_or(name, |(id, _)| id)
}

fn render(
    paths: &Paths,
    found: &Found,
    pages: Option<PageStats>,
    live: &HashSet<String>,
) -> Vec<DoctorCheck> {
    let ok = |name: &str, detail: String| {
        DoctorCheck::new(format!("disk: {name}"), CheckStatus::Ok, detail)
    };
    let mut checks = vec![ok("database", database(paths, found, pages))];
    for (area, size, per_entry) in &found.areas {
        if !area.always && size.files == 0 {
            continue;
        }
        let dir = paths.data_dir.join(area.dir);
        let mut detail = format!("{} in {}: {}", size.text(), dir.display(), area.about);
        if area.per_session {
            detail.push_str(&orphans(per_entry, live));
        }
        checks.push(ok(area.name, detail));
    }
    let mut memory = Size::default();
    let mut places = Vec::new();
    for (dir, size) in &found.memory {
        memory.add(*size);
        places.push(format!("{} {}", dir.display(), human(size.bytes)));
    }
    checks.push(ok(
        "memory",
        format!(
            "{} ({}): what the Memory tool saved; it stays until deleted (the Memory tool deletes one by name, or delete its file)",
            memory.text(),
            places.join(", ")
        ),
    ));
    checks.push(ok(
        "logs",
        format!(
            "{} at {}: the daemon's log, appended by every run and never rotated; it may be emptied or deleted while the daemon is stopped",
            human(found.log.bytes),
            paths.log.display()
        ),
    ));
    checks.push(total(paths, found));
    checks
}

fn database(paths: &Paths, found: &Found, pages: Option<PageStats>) -> String {
    let mut all = found.database;
    all.add(found.wal);
    all.add(found.shm);
    let mut detail = format!(
        "{} in {} (-wal {}, -shm {}): every session's messages, events and model calls; grows with each turn; `roocode-cli rm SESSION` deletes a session's rows",
        human(all.bytes),
        paths.database.display(),
        human(found.wal.bytes),
        human(found.shm.bytes),
    );
    if let Some(pages) = pages {
        detail.push_str(&format!(
            ", whose pages new rows reuse ({} free now; the file does not shrink)",
            human(pages.free_bytes())
        ));
    }
    if !found.corrupt.is_empty() {
        let mut size = Size::default();
        for (_, s) in &found.corrupt {
            size.add(*s);
        }
        let names: Vec<&str> = found.corrupt.iter().map(|(n, _)| n.as_str()).collect();
        detail.push_str(&format!(
            "; {} in copies moved aside as corrupt ({}), which RooCode never reads again: they hold the sessions from before the move and may be deleted once those are not needed",
            human(size.bytes),
            names.join(", ")
        ));
    }
    detail
}

/// `; N of them (size) are of sessions that no longer exist and may be deleted`.
fn orphans(per_entry: &[(String, Size)], live: &HashSet<String>) -> String {
    let mut size = Size::default();
    let mut count = 0;
    for (name, s) in per_entry {
        if !live.contains(session_of(name)) {
            size.add(*s);
            count += 1;
        }
    }
    match count {
        0 => String::new(),
        1 => format!(
            "; 1 of them ({}) is of a session that no longer exists and may be deleted",
            human(size.bytes)
        ),
        n => format!(
            "; {n} of them ({}) are of sessions that no longer exist and may be deleted",
            human(size.bytes)
        ),
    }
}

fn total(paths: &Paths, found: &Found) -> DoctorCheck {
    let mut all = found.data;
    all.add(found.log);
    let base = format!("{} in {} and the log", all.text(), paths.data_dir.display());
    match found.free {
        Some(free) if free < LOW_SPACE => DoctorCheck::new(
            "disk: total",
            CheckStatus::Warn,
            format!("{base}; only {} free on its file system", human(free)),
        ),
        Some(free) => DoctorCheck::new(
            "disk: total",
            CheckStatus::Ok,
            format!("{base}; {} free on its file system", human(free)),
        ),
        None => DoctorCheck::new("disk: total", CheckStatus::Ok, base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(home: &Path) -> Paths {
        let home = home.display().to_string();
        Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.clone())).unwrap()
    }

    fn write(path: &Path, len: usize) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, vec![b'x'; len]).unwrap();
    }

    fn detail<'a>(checks: &'a [DoctorCheck], name: &str) -> &'a str {
        checks
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.detail.as_str())
            .unwrap_or_else(|| panic!("no `{name}` in {checks:#?}"))
    }

    #[tokio::test]
    async fn every_part_is_measured_and_leftovers_of_deleted_sessions_are_named() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let paths = paths(home.path());
        let store = Store::open(&paths.database).await.unwrap();
        let data = &paths.data_dir;
        write(&data.join("snapshots/objects/ab/cdef"), 2048);
        write(&data.join("tool-results/gone-session/call1.txt"), 3000);
        write(&data.join("plans/gone-session.md"), 10);
        write(&data.join("roocode.db.corrupt-20261202T120000Z"), 4096);
        write(&paths.log, 700);
        write(&paths.user_dir.join("memory/MEMORY.md"), 50);
        write(&project.path().join(".roocode/memory/fact.md"), 20);

        let checks = checks(&store, &paths, Some(project.path())).await;
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "disk: database",
                "disk: snapshots",
                "disk: tool results",
                "disk: plans",
                "disk: memory",
                "disk: logs",
                "disk: total"
            ],
            "absent optional parts are left out"
        );
        let db = detail(&checks, "disk: database");
        assert!(db.contains("roocode.db (-wal "), "{db}");
        assert!(db.contains("free now; the file does not shrink"), "{db}");
        assert!(
            db.contains(
                "4.0 KiB in copies moved aside as corrupt (roocode.db.corrupt-20261202T120000Z)"
            ),
            "{db}"
        );
        let snapshots = detail(&checks, "disk: snapshots");
        assert!(
            snapshots.starts_with("2.0 KiB in 1 file in "),
            "{snapshots}"
        );
        let results = detail(&checks, "disk: tool results");
        assert!(
            results.ends_with(
                "; 1 of them (2.9 KiB) is of a session that no longer exists and may be deleted"
            ),
            "{results}"
        );
        assert!(
            detail(&checks, "disk: plans").contains("1 of them (10 B) is of a session"),
            "{checks:#?}"
        );
        let memory = detail(&checks, "disk: memory");
        assert!(memory.starts_with("70 B in 2 files ("), "{memory}");
        assert!(
            detail(&checks, "disk: logs").starts_with("700 B at "),
            "{checks:#?}"
        );
        assert!(
            detail(&checks, "disk: total").contains("free on its file system"),
            "{checks:#?}"
        );
        store.close().await;
    }

    #[test]
    fn entries_of_live_sessions_are_not_called_removable() {
        let size = |bytes| Size {
            bytes,
            files: 1,
            partial: false,
        };
        let per_entry = vec![
            ("s1".to_string(), size(10)),
            ("s2.md".to_string(), size(20)),
            ("s3.jsonl".to_string(), size(30)),
        ];
        let live: HashSet<String> = ["s1".to_string()].into();
        assert_eq!(
            orphans(&per_entry, &live),
            "; 2 of them (50 B) are of sessions that no longer exist and may be deleted"
        );
        let all: HashSet<String> = ["s1", "s2", "s3"].map(String::from).into();
        assert_eq!(orphans(&per_entry, &all), "");
        assert_eq!(session_of("0199-ab.jsonl"), "0199-ab");
    }

    #[test]
    fn little_free_space_warns() {
        let home = tempfile::tempdir().unwrap();
        let paths = paths(home.path());
        let found = Found {
            free: Some(LOW_SPACE - 1),
            ..Found::default()
        };
        let check = total(&paths, &found);
        assert_eq!(check.status, CheckStatus::Warn);
        assert!(
            check.detail.contains("only 1024.0 MiB free"),
            "{}",
            check.detail
        );
        let found = Found {
            free: Some(LOW_SPACE * 10),
            ..Found::default()
        };
        assert_eq!(total(&paths, &found).status, CheckStatus::Ok);
    }
}
