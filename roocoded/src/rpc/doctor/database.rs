//! The doctor's database check: SQLite's `PRAGMA quick_check` run by the store on its
//! own connection ([`Store::check_integrity`]), bounded like the check at start-up
//! (`ROOCODE_DB_CHECK_TIMEOUT_MS`, the caller's value first, default 5000 ms). Every
//! other query waits while it runs, a few milliseconds per megabyte.

use std::path::Path;
use std::time::{Duration, Instant};

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};
use roocode_protocol::session::ClientEnv;

use crate::store::Store;
use crate::store::integrity::{CHECK_TIMEOUT_ENV, Check, check_timeout};

const NAME: &str = "database";

/// Checks the database at `db` (the file the store has open).
pub(super) async fn check(store: &Store, db: &Path, env: &ClientEnv) -> DoctorCheck {
    let bound = bound(env);
    let started = Instant::now();
    let outcome = store.check_integrity(bound).await;
    verdict(outcome, db, started.elapsed(), bound)
}

/// The bound: the caller's `ROOCODE_DB_CHECK_TIMEOUT_MS` when it sets one, else the
/// daemon's.
fn bound(env: &ClientEnv) -> Duration {
    env.get(CHECK_TIMEOUT_ENV)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or_else(check_timeout, Duration::from_millis)
}

fn verdict(outcome: Check, db: &Path, took: Duration, bound: Duration) -> DoctorCheck {
    let db = db.display();
    match outcome {
        Check::Ok => DoctorCheck::new(
            NAME,
            CheckStatus::Ok,
            format!(
                "{db}: PRAGMA quick_check found no damage ({} ms)",
                took.as_millis()
            ),
        ),
        Check::Corrupt(why) => DoctorCheck::new(
            NAME,
            CheckStatus::Fail,
            format!(
                "{db} is damaged (PRAGMA quick_check: {why}). Stop the daemon (`roocode-cli daemon stop`) and move the file and its -wal and -shm files aside: the next start creates a fresh database, and the moved file keeps the earlier sessions"
            ),
        ),
        Check::TimedOut => DoctorCheck::new(
            NAME,
            CheckStatus::Warn,
            format!(
                "{db}: PRAGMA quick_check did not finish within {} ms, so nothing is known of its state; set {CHECK_TIMEOUT_ENV} higher to check longer",
                bound.as_millis()
            ),
        ),
        Check::Failed(why) => DoctorCheck::new(
            NAME,
            CheckStatus::Warn,
            format!("{db}: PRAGMA quick_check could not run ({why})"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_healthy_database_is_ok_and_says_how_long_the_check_took() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("roocode.db");
        let store = Store::open(&db).await.unwrap();
        let healthy = check(&store, &db, &ClientEnv::default()).await;
        assert_eq!(healthy.status, CheckStatus::Ok, "{healthy:?}");
        assert!(healthy.detail.contains("roocode.db"), "{}", healthy.detail);
        assert!(
            healthy.detail.contains("found no damage ("),
            "{}",
            healthy.detail
        );
        store.close().await;
        let closed = check(&store, &db, &ClientEnv::default()).await;
        assert_eq!(closed.status, CheckStatus::Warn, "{closed:?}");
        assert!(closed.detail.contains("could not run"), "{}", closed.detail);
    }

    #[test]
    fn damage_fails_and_says_what_to_do_and_a_timeout_warns() {
        let db = Path::new("/data/roocode.db");
        let second = Duration::from_secs(1);
        let damaged = verdict(
            Check::Corrupt("page 7: btreeInitPage() returns error code 11".into()),
            db,
            second,
            second,
        );
        assert_eq!(damaged.status, CheckStatus::Fail);
        assert!(damaged.detail.contains("page 7"), "{}", damaged.detail);
        assert!(
            damaged.detail.contains("roocode-cli daemon stop"),
            "{}",
            damaged.detail
        );
        let late = verdict(Check::TimedOut, db, second, Duration::from_millis(250));
        assert_eq!(late.status, CheckStatus::Warn);
        assert!(late.detail.contains("within 250 ms"), "{}", late.detail);
        assert!(late.detail.contains(CHECK_TIMEOUT_ENV), "{}", late.detail);
    }

    #[test]
    fn the_callers_bound_comes_first() {
        let mut env = ClientEnv::default();
        env.vars.insert(CHECK_TIMEOUT_ENV.into(), "1234".into());
        assert_eq!(bound(&env), Duration::from_millis(1234));
        env.vars.insert(CHECK_TIMEOUT_ENV.into(), "soon".into());
        assert_eq!(bound(&env), check_timeout());
    }
}
