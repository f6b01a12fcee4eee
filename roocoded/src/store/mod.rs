//! SQLite storage: the only place that reads or writes the database.
//!
//! One file per table group. Queries are runtime-checked (`query_as` + `FromRow`) and
//! every one is exercised by the tests beside it against a migrated temporary database.
//! No business logic lives here: callers decide, the store records.
//!
//! The daemon holds one connection, taken in turn by each query or transaction
//! (`Store::conn`). SQLite runs one writer at a time anyway, and sqlx runs each
//! connection's statements on a thread of its own, so every statement is a hand-off
//! between threads: one connection without a pool's checks costs one hand-off per
//! statement (a pool adds a ping on release, and others on acquire), and keeps its
//! page cache valid (a second connection's writes would invalidate it).

use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use sqlx::Connection as _;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

mod agents;
mod calls;
mod delivery;
mod discovered;
mod event_batch;
mod events;
mod inbox;
pub mod integrity;
pub mod json_file;
mod mailbox;
mod messages;
mod pending;
mod processes;
mod recovery_attempts;
mod sessions;
mod short_ids;
mod spelling;
mod team_cache;
mod team_tasks;
mod teams;
mod trace;
mod turn_snapshots;
mod turns;
mod workflow;
mod workflow_graphs;
mod workflow_loops;

pub use agents::{AgentRow, NewAgent};
pub use calls::{
    COMPACTION_TURN_ID, CONVERSATION_PURPOSE, CallTotals, ModelCallRow, Purpose, tool_turn_id,
};
pub use delivery::{ContextWrite, Delivered, Delivery};
pub use events::WireEvent;
pub use inbox::{InjectionKind, InjectionRow};
pub use mailbox::{MailKind, MailRow, NewMail};
pub use pending::{NewPending, PendingKind, PendingStatus};
pub use processes::ProcessGroupRow;
pub use recovery_attempts::RecoveryAttempts;
pub use sessions::{NewSession, SessionRow};
pub use team_cache::Membership;
pub use team_tasks::{TaskError, TaskStatus, TeamTask, open_blockers};
pub use teams::{MemberEnd, MemberRow, MemberState, NewMember, TeamRow};
pub use trace::{BodyRow, ToolCallRow};
pub use turn_snapshots::{SessionTurn, TurnSnapshot};
pub use turns::{InputRow, TurnState};
pub use workflow::{AgentCounters, ArtifactRow, FunctionRow};
pub use workflow_graphs::{DispatchRow, GraphRow};
pub use workflow_loops::{LoopRow, RoundRow};

/// Migrations embedded from the workspace's `migrations/` folder.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored JSON is corrupt: {0}")]
    Json(#[from] serde_json::Error),
    /// A write at a position that would leave a gap in the context or overwrite it.
    #[error(
        "message {idx} of session {session_id} is out of place: the stored context has {len} messages"
    )]
    OutOfPlace {
        session_id: String,
        idx: usize,
        len: usize,
    },
    #[error(
        "stored event {seq} of session {session_id} is corrupt: its payload is not a JSON object"
    )]
    CorruptEvent { session_id: String, seq: i64 },
    /// A delivery of an input that is not queued (delivered before).
    #[error("input {input_id} is not queued any more: it was delivered before")]
    NotQueued { input_id: String },
    #[error("cannot create the database directory {path}: {source}")]
    Dir {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "cannot move the corrupt database file {path} aside: {source}; move it away by hand (the daemon is stopped) and start again"
    )]
    MoveAside {
        path: String,
        source: std::io::Error,
    },
    /// A query after [`Store::close`] (the daemon is shutting down).
    #[error("the database is closed: the daemon is shutting down")]
    Closed,
}

/// Handle to the database; cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    /// `None` once closed.
    db: Arc<Mutex<Option<SqliteConnection>>>,
    /// Event appends waiting for `db` (see `event_batch`).
    events: Arc<event_batch::Queue>,
    /// Changed only while `db` is held (see `team_cache`).
    teams: Arc<std::sync::Mutex<team_cache::TeamCache>>,
}

/// The connection, held by one query or transaction at a time.
type Conn<'a> = MappedMutexGuard<'a, SqliteConnection>;

impl Store {
    /// Opens (creating if needed) and migrates the database at `path`.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let opts = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5))
            .pragma("temp_store", "memory")
            // 1 MiB of page cache per connection (SQLite's default is 2 MiB): the
            // working set of a session is small, and an idle daemon should stay small.
            .pragma("cache_size", "-1024")
            .optimize_on_close(true, None);
        Self::connect(&opts).await
    }

    /// An in-memory database (tests).
    pub async fn memory() -> Result<Store, StoreError> {
        let opts = SqliteConnectOptions::from_str("sqlite::memory:")?.foreign_keys(true);
        Self::connect(&opts).await
    }

    async fn connect(opts: &SqliteConnectOptions) -> Result<Store, StoreError> {
        let mut conn = SqliteConnection::connect_with(opts).await?;
        MIGRATOR.run(&mut conn).await?;
        Ok(Store {
            db: Arc::new(Mutex::new(Some(conn))),
            events: Arc::default(),
            teams: Arc::default(),
        })
    }

    /// The connection, for one statement or one transaction: others wait until the
    /// guard is dropped, so a caller holding it must not call another `Store` method.
    async fn conn(&self) -> Result<Conn<'_>, StoreError> {
        MutexGuard::try_map(self.db.lock().await, Option::as_mut).map_err(|_| StoreError::Closed)
    }

    /// Holds the connection until the guard drops: every query meanwhile waits (tests
    /// of what queues behind a busy store).
    #[cfg(test)]
    pub(crate) async fn hold_for_test(&self) -> Conn<'_> {
        self.conn().await.unwrap()
    }

    /// The team cache (never held across an await).
    fn team_cache(&self) -> std::sync::MutexGuard<'_, team_cache::TeamCache> {
        self.teams.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the connection (checkpointing the WAL into the database); later queries
    /// fail with [`StoreError::Closed`].
    pub async fn close(&self) {
        let conn = self.db.lock().await.take();
        if let Some(conn) = conn
            && let Err(e) = conn.close().await
        {
            tracing::warn!("closing the database: {e}");
        }
    }
}
