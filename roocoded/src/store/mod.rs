//! SQLite storage: the only place that reads or writes the database.
//!
//! One file per table group. Queries are runtime-checked (`query_as` + `FromRow`) and
//! every one is exercised by the tests beside it against a migrated temporary database.
//! No business logic lives here: callers decide, the store records.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

mod agents;
mod calls;
mod delivery;
mod events;
mod inbox;
mod mailbox;
mod messages;
mod pending;
mod processes;
mod sessions;
mod short_ids;
mod spelling;
mod team_tasks;
mod teams;
mod turns;

pub use agents::{AgentRow, NewAgent};
pub use calls::{COMPACTION_TURN_ID, CONVERSATION_PURPOSE, CallTotals, ModelCallRow, tool_turn_id};
pub use delivery::{ContextWrite, Delivered, Delivery};
pub use events::WireEvent;
pub use inbox::{InjectionKind, InjectionRow};
pub use mailbox::{MailKind, MailRow, NewMail};
pub use pending::{NewPending, PendingKind, PendingStatus};
pub use processes::ProcessGroupRow;
pub use sessions::{NewSession, SessionRow};
pub use team_tasks::{TaskError, TaskStatus, TeamTask, open_blockers};
pub use teams::{MemberEnd, MemberRow, MemberState, NewMember, TeamRow};
pub use turns::{InputRow, TurnState};

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
}

/// Handle to the database; cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
}

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
        Self::connect(opts, false).await
    }

    /// An in-memory database (tests).
    pub async fn memory() -> Result<Store, StoreError> {
        let opts = SqliteConnectOptions::from_str("sqlite::memory:")?.foreign_keys(true);
        Self::connect(opts, true).await
    }

    /// `in_memory`: said by the caller, never guessed from the path (a database under a
    /// directory named `memory…` is still a file).
    async fn connect(opts: SqliteConnectOptions, in_memory: bool) -> Result<Store, StoreError> {
        let pool = SqlitePoolOptions::new()
            // An in-memory database exists per connection: keep exactly one.
            .max_connections(if in_memory { 1 } else { 2 })
            .min_connections(if in_memory { 1 } else { 0 })
            .idle_timeout(if in_memory {
                None
            } else {
                Some(Duration::from_secs(600))
            })
            .max_lifetime(if in_memory {
                None
            } else {
                Some(Duration::from_secs(3600))
            })
            .connect_with(opts)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(Store { pool })
    }

    /// Closes the pool, flushing the WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
