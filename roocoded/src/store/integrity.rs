//! Start-up resilience: opening the database after an unclean shutdown or a failed open.
//!
//! The daemon writes a `<db>.clean-shutdown` marker on an orderly exit and removes it at
//! start. When the marker is missing (the last run crashed) the database gets a
//! time-boxed `PRAGMA quick_check` (`ROOCODE_DB_CHECK_TIMEOUT_MS`, default 5000 ms).
//! A database that fails the check, or that cannot be opened at all ("file is not a
//! database"), is moved aside together with its `-wal` and `-shm` files to
//! `<db>.corrupt-<timestamp>[-wal|-shm]` (a stale WAL must never meet a fresh file),
//! and a fresh, migrated database takes its place. Corrupt data never blocks start-up;
//! the move is reported as a warning every client shows.
//!
//! While the daemon runs, [`Store::check_integrity`] runs the same check on the store's
//! own connection (`roocode-cli doctor`), and [`Store::page_stats`] tells how much of the
//! file is free pages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::Connection as _;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

use super::{Store, StoreError};

/// The env knob bounding the integrity check, in milliseconds.
pub const CHECK_TIMEOUT_ENV: &str = "ROOCODE_DB_CHECK_TIMEOUT_MS";
const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_millis(5000);

/// The opened store and what clients should be told about it.
#[derive(Debug)]
pub struct Opened {
    pub store: Store,
    /// Human-readable warnings (empty when all was well).
    pub warnings: Vec<String>,
}

/// The outcome of [`quick_check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Ok,
    /// The check's complaints, or SQLite's own corruption error that stopped it.
    Corrupt(String),
    /// The bound passed before the check finished (the file is kept).
    TimedOut,
    /// The check could not run for another reason (permissions, a lock, a full disk):
    /// nothing says the file is bad, so it is kept.
    Failed(String),
}

/// Whether SQLite itself says the file is damaged (`SQLITE_CORRUPT`) or is no database
/// (`SQLITE_NOTADB`). Any other failure — a lock, permissions, a full disk, a read-only
/// WAL that needs recovery — says nothing about the data, which must then be kept.
fn says_corrupt(e: &sqlx::Error) -> bool {
    const SQLITE_CORRUPT: i64 = 11;
    const SQLITE_NOTADB: i64 = 26;
    match e {
        sqlx::Error::Database(db) => db
            .code()
            .and_then(|code| code.parse::<i64>().ok())
            .is_some_and(|code| matches!(code & 0xff, SQLITE_CORRUPT | SQLITE_NOTADB)),
        _ => false,
    }
}

/// The bound of the check, from [`CHECK_TIMEOUT_ENV`].
pub fn check_timeout() -> Duration {
    std::env::var(CHECK_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_CHECK_TIMEOUT, Duration::from_millis)
}

/// The marker written on an orderly exit.
pub fn clean_marker(db: &Path) -> PathBuf {
    suffixed(db, ".clean-shutdown")
}

/// Records an orderly exit (call after the store is closed).
pub fn mark_clean_shutdown(db: &Path) {
    if let Err(e) = std::fs::write(clean_marker(db), b"") {
        tracing::warn!(path = %db.display(), "cannot write the clean-shutdown marker: {e}");
    }
}

fn suffixed(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Runs `PRAGMA quick_check` on its own read-only connection, within `bound`.
pub async fn quick_check(db: &Path, bound: Duration) -> Check {
    let run = async {
        let opts = SqliteConnectOptions::new()
            .filename(db)
            .read_only(true)
            .create_if_missing(false);
        let mut conn = SqliteConnection::connect_with(&opts).await?;
        let rows: Vec<(String,)> = sqlx::query_as("PRAGMA quick_check")
            .fetch_all(&mut conn)
            .await?;
        let _ = conn.close().await;
        Ok::<_, sqlx::Error>(rows.into_iter().map(|r| r.0).collect::<Vec<_>>())
    };
    match tokio::time::timeout(bound, run).await {
        Err(_) => Check::TimedOut,
        Ok(Err(e)) if says_corrupt(&e) => Check::Corrupt(e.to_string()),
        Ok(Err(e)) => Check::Failed(e.to_string()),
        Ok(Ok(lines)) if lines.len() == 1 && lines[0] == "ok" => Check::Ok,
        Ok(Ok(lines)) => Check::Corrupt(lines.join("; ")),
    }
}

/// How many complaints [`Store::check_integrity`] reads at most (a badly damaged file
/// would otherwise list one per page).
const MAX_COMPLAINTS: &str = "PRAGMA quick_check(20)";

/// The pages of the database file: its size and how much of it is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageStats {
    pub page_size: u64,
    pub pages: u64,
    /// Pages freed by deleted rows, reused by new ones (the file does not shrink).
    pub free_pages: u64,
}

impl PageStats {
    /// Bytes in free pages.
    pub fn free_bytes(&self) -> u64 {
        self.free_pages.saturating_mul(self.page_size)
    }
}

impl Store {
    /// `PRAGMA quick_check` on the store's connection, within `bound`: every other
    /// query waits meanwhile (a few milliseconds per megabyte). At most 20 complaints
    /// are read. A check still running at the bound is [`Check::TimedOut`].
    pub async fn check_integrity(&self, bound: Duration) -> Check {
        let run = async {
            let rows: Vec<(String,)> = sqlx::query_as(MAX_COMPLAINTS)
                .fetch_all(&mut *self.conn().await?)
                .await?;
            Ok::<_, StoreError>(rows.into_iter().map(|r| r.0).collect::<Vec<_>>())
        };
        match tokio::time::timeout(bound, run).await {
            Err(_) => Check::TimedOut,
            Ok(Err(StoreError::Sqlx(e))) if says_corrupt(&e) => Check::Corrupt(e.to_string()),
            Ok(Err(e)) => Check::Failed(e.to_string()),
            Ok(Ok(lines)) if lines.len() == 1 && lines[0] == "ok" => Check::Ok,
            Ok(Ok(lines)) => Check::Corrupt(lines.join("; ")),
        }
    }

    /// The page size, page count and free pages of the database.
    pub async fn page_stats(&self) -> Result<PageStats, StoreError> {
        let mut conn = self.conn().await?;
        let (page_size,): (i64,) = sqlx::query_as("PRAGMA page_size")
            .fetch_one(&mut *conn)
            .await?;
        let (pages,): (i64,) = sqlx::query_as("PRAGMA page_count")
            .fetch_one(&mut *conn)
            .await?;
        let (free_pages,): (i64,) = sqlx::query_as("PRAGMA freelist_count")
            .fetch_one(&mut *conn)
            .await?;
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        Ok(PageStats {
            page_size: count(page_size),
            pages: count(pages),
            free_pages: count(free_pages),
        })
    }
}

/// Moves `db` and its `-wal`/`-shm` files to `<db>.corrupt-<stamp>[-wal|-shm]`;
/// returns the new path of the database file.
pub fn move_aside(db: &Path, stamp: &str) -> Result<PathBuf, StoreError> {
    let target = suffixed(db, &format!(".corrupt-{stamp}"));
    for ext in ["", "-wal", "-shm"] {
        let from = suffixed(db, ext);
        let to = suffixed(&target, ext);
        match std::fs::rename(&from, &to) {
            Ok(()) => tracing::warn!(from = %from.display(), to = %to.display(), "moved aside"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(StoreError::MoveAside {
                    path: from.display().to_string(),
                    source,
                });
            }
        }
    }
    Ok(target)
}

/// Whether an open failure means the file is unusable (rather than, say, a database
/// of a newer RooCode, which must be kept as it is).
fn is_corruption(e: &StoreError) -> bool {
    match e {
        StoreError::Sqlx(e) => says_corrupt(e),
        StoreError::Migrate(sqlx::migrate::MigrateError::Execute(e)) => says_corrupt(e),
        _ => false,
    }
}

/// Opens the database at `db`, checking it after an unclean shutdown and moving it aside
/// when it is corrupt (see the module docs).
pub async fn open_checked(db: &Path, bound: Duration) -> Result<Opened, StoreError> {
    let marker = clean_marker(db);
    let clean = marker.exists();
    if clean && let Err(e) = std::fs::remove_file(&marker) {
        tracing::warn!(path = %marker.display(), "cannot remove the clean-shutdown marker: {e}");
    }
    // A foreign header is decided without opening the file: a failed SQLite open may
    // still be closing (and touching `-wal`) while the files are moved.
    let mut problem = foreign_header(db);
    if problem.is_none() && !clean && db.exists() {
        tracing::info!(path = %db.display(), "the last run did not stop cleanly: checking the database");
        match quick_check(db, bound).await {
            Check::Ok => tracing::info!("database check: ok"),
            Check::TimedOut => tracing::warn!(
                bound_ms = bound.as_millis() as u64,
                "database check did not finish in time; going on with the file as it is (raise {CHECK_TIMEOUT_ENV} to check longer)"
            ),
            Check::Failed(why) => tracing::warn!(
                "database check could not run ({why}); going on with the file as it is"
            ),
            Check::Corrupt(why) => problem = Some(why),
        }
    }
    if problem.is_none() {
        match Store::open(db).await {
            Ok(store) => {
                return Ok(Opened {
                    store,
                    warnings: Vec::new(),
                });
            }
            Err(e) if is_corruption(&e) => problem = Some(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    let why = problem.unwrap_or_default();
    let stamp = chrono_stamp();
    tracing::error!(path = %db.display(), "the database is corrupt ({why}); moving it aside");
    let moved = move_aside(db, &stamp)?;
    let store = Store::open(db).await?;
    let warning = format!(
        "the database {} was corrupt ({why}) and was moved aside to {}; RooCode started with a fresh database (earlier sessions are in the moved file)",
        db.display(),
        moved.display()
    );
    Ok(Opened {
        store,
        warnings: vec![warning],
    })
}

/// `Some(why)` when `db` exists, is not empty and does not start with SQLite's magic.
fn foreign_header(db: &Path) -> Option<String> {
    use std::io::Read as _;
    const MAGIC: &[u8; 16] = b"SQLite format 3\0";
    let mut file = std::fs::File::open(db).ok()?;
    let mut head = Vec::with_capacity(16);
    file.by_ref().take(16).read_to_end(&mut head).ok()?;
    if head.is_empty() || head.as_slice() == MAGIC {
        return None;
    }
    Some("file is not a database: its header is not SQLite's".into())
}

/// A sortable UTC timestamp for file names (`20261202T125800Z`).
fn chrono_stamp() -> String {
    let ms = crate::clock::now_ms();
    crate::clock::rfc3339(ms).replace(['-', ':', '.'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn migrated(dir: &Path) -> PathBuf {
        let db = dir.join("roocode.db");
        let store = Store::open(&db).await.unwrap();
        store.close().await;
        db
    }

    #[tokio::test]
    async fn a_healthy_database_passes() {
        let dir = tempfile::tempdir().unwrap();
        let db = migrated(dir.path()).await;
        assert_eq!(quick_check(&db, Duration::from_secs(5)).await, Check::Ok);
    }

    #[tokio::test]
    async fn garbage_bytes_are_detected() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roocode.db");
        std::fs::write(&db, vec![0xA5u8; 8192]).unwrap();
        assert!(matches!(
            quick_check(&db, Duration::from_secs(5)).await,
            Check::Corrupt(_)
        ));
    }

    #[tokio::test]
    async fn a_check_that_cannot_run_keeps_the_file() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should be: SQLite cannot open it, but nothing
        // says the data is damaged.
        let db = dir.path().join("roocode.db");
        std::fs::create_dir(&db).unwrap();
        assert!(matches!(
            quick_check(&db, Duration::from_secs(5)).await,
            Check::Failed(_)
        ));
    }

    #[tokio::test]
    async fn damaged_pages_are_detected() {
        let dir = tempfile::tempdir().unwrap();
        let db = migrated(dir.path()).await;
        let mut bytes = std::fs::read(&db).unwrap();
        let page = 4096;
        assert!(bytes.len() > 2 * page, "the test needs more than two pages");
        // Keep the header page, trash every later page's b-tree header.
        let len = bytes.len();
        for p in (page..len).step_by(page) {
            for b in &mut bytes[p..(p + 64).min(len)] {
                *b = 0xFF;
            }
        }
        std::fs::write(&db, &bytes).unwrap();
        assert!(matches!(
            quick_check(&db, Duration::from_secs(5)).await,
            Check::Corrupt(_)
        ));
    }

    #[test]
    fn a_foreign_header_is_seen_without_opening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roocode.db");
        assert_eq!(foreign_header(&db), None, "absent");
        std::fs::write(&db, b"").unwrap();
        assert_eq!(foreign_header(&db), None, "empty is a new database");
        std::fs::write(&db, b"garbage").unwrap();
        assert!(foreign_header(&db).is_some());
        std::fs::write(&db, b"SQLite format 3\0rest").unwrap();
        assert_eq!(foreign_header(&db), None);
    }

    #[test]
    fn move_aside_moves_all_three_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roocode.db");
        for ext in ["", "-wal", "-shm"] {
            std::fs::write(suffixed(&db, ext), ext).unwrap();
        }
        let moved = move_aside(&db, "STAMP").unwrap();
        assert_eq!(moved, dir.path().join("roocode.db.corrupt-STAMP"));
        for ext in ["", "-wal", "-shm"] {
            assert!(!suffixed(&db, ext).exists(), "{ext} left behind");
            assert_eq!(std::fs::read_to_string(suffixed(&moved, ext)).unwrap(), ext);
        }
    }

    #[tokio::test]
    async fn an_unopenable_file_is_replaced_by_a_fresh_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roocode.db");
        std::fs::write(&db, b"this is not a database at all, just some text bytes").unwrap();
        std::fs::write(suffixed(&db, "-wal"), b"stale wal").unwrap();
        mark_clean_shutdown(&db); // even after a clean exit, a failed open moves it aside
        let opened = open_checked(&db, Duration::from_secs(5)).await.unwrap();
        assert_eq!(opened.warnings.len(), 1, "{:?}", opened.warnings);
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".corrupt-"))
            .collect();
        assert!(aside.iter().any(|n| n.ends_with("-wal")), "{aside:?}");
        let main = aside
            .iter()
            .find(|n| !n.ends_with("-wal") && !n.ends_with("-shm"))
            .unwrap();
        assert!(
            opened.warnings[0].contains(main.as_str()),
            "{main} in {:?}",
            opened.warnings
        );
        // The fresh database works.
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM sessions")
            .fetch_one(&mut *opened.store.conn().await.unwrap())
            .await
            .unwrap();
        assert_eq!(n, 0);
        opened.store.close().await;
        assert_eq!(quick_check(&db, Duration::from_secs(5)).await, Check::Ok);
    }

    #[tokio::test]
    async fn after_an_unclean_exit_a_corrupt_database_is_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let db = migrated(dir.path()).await;
        // No clean-shutdown marker: the check runs.
        let mut bytes = std::fs::read(&db).unwrap();
        for b in &mut bytes[4096..] {
            *b = 0xFF;
        }
        std::fs::write(&db, &bytes).unwrap();
        let opened = open_checked(&db, Duration::from_secs(5)).await.unwrap();
        assert_eq!(opened.warnings.len(), 1);
        opened.store.close().await;
    }

    #[tokio::test]
    async fn a_clean_database_opens_without_warnings_and_the_marker_is_consumed() {
        let dir = tempfile::tempdir().unwrap();
        let db = migrated(dir.path()).await;
        mark_clean_shutdown(&db);
        let opened = open_checked(&db, Duration::from_secs(5)).await.unwrap();
        assert!(opened.warnings.is_empty());
        assert!(!clean_marker(&db).exists());
        opened.store.close().await;
    }

    #[tokio::test]
    async fn the_running_store_checks_itself_and_counts_its_free_pages() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("roocode.db")).await.unwrap();
        assert_eq!(
            store.check_integrity(Duration::from_secs(5)).await,
            Check::Ok
        );
        let stats = store.page_stats().await.unwrap();
        assert!(stats.page_size >= 512 && stats.pages > 1, "{stats:?}");
        assert!(stats.free_pages <= stats.pages, "{stats:?}");
        assert_eq!(stats.free_bytes(), stats.free_pages * stats.page_size);
        store.close().await;
        assert!(matches!(
            store.check_integrity(Duration::from_secs(5)).await,
            Check::Failed(_)
        ));
    }

    #[tokio::test]
    async fn a_check_that_overruns_its_bound_times_out() {
        let store = Store::memory().await.unwrap();
        let held = store.hold_for_test().await;
        assert_eq!(
            store.check_integrity(Duration::from_millis(20)).await,
            Check::TimedOut
        );
        drop(held);
        assert_eq!(
            store.check_integrity(Duration::from_secs(5)).await,
            Check::Ok
        );
    }

    #[test]
    fn the_bound_comes_from_the_environment_or_defaults() {
        // Not set in the test environment.
        if std::env::var_os(CHECK_TIMEOUT_ENV).is_none() {
            assert_eq!(check_timeout(), DEFAULT_CHECK_TIMEOUT);
        }
    }
}
