//! The `sessions` table: one row per session with its settings, status and totals.

use roocode_protocol::Mode;
use roocode_protocol::content::Usage;
use roocode_protocol::session::{SessionInfo, SessionKind, SessionStatus};

use super::spelling::{kind_from, kind_name, mode_from, mode_name, status_from, status_name};
use super::{Store, StoreError};
use crate::clock;

/// A session as stored.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub id: String,
    pub parent_session_id: Option<String>,
    pub kind: SessionKind,
    pub title: String,
    pub cwd: String,
    pub root: String,
    pub model: String,
    pub mode: Mode,
    pub status: SessionStatus,
    pub running_turn_id: Option<String>,
    pub created_at: i64,
    pub last_activity: i64,
    pub last_seq: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
    pub cost_usd: Option<f64>,
    pub cost_unknown: i64,
    pub message_count: i64,
    /// `/coordinator on|off` for this session; `None` follows the `coordinator:` setting.
    pub coordinator: Option<bool>,
    /// The session leads a team (`TeamCreate`, until the team is deleted).
    pub leads_team: bool,
}

/// A row as SQLite returns it, the enum columns still text; read only through
/// [`SessionRow::from`].
#[derive(sqlx::FromRow)]
struct StoredRow {
    id: String,
    parent_session_id: Option<String>,
    kind: String,
    title: String,
    cwd: String,
    root: String,
    model: String,
    mode: String,
    status: String,
    running_turn_id: Option<String>,
    created_at: i64,
    last_activity: i64,
    last_seq: i64,
    input_tokens: i64,
    output_tokens: i64,
    cache_read_tokens: i64,
    cache_write_tokens: i64,
    cost_usd: Option<f64>,
    cost_unknown: i64,
    message_count: i64,
    coordinator: Option<i64>,
    leads_team: bool,
}

impl From<StoredRow> for SessionRow {
    fn from(r: StoredRow) -> Self {
        SessionRow {
            id: r.id,
            parent_session_id: r.parent_session_id,
            kind: kind_from(&r.kind),
            title: r.title,
            cwd: r.cwd,
            root: r.root,
            model: r.model,
            mode: mode_from(&r.mode),
            status: status_from(&r.status),
            running_turn_id: r.running_turn_id,
            created_at: r.created_at,
            last_activity: r.last_activity,
            last_seq: r.last_seq,
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            cache_read_tokens: r.cache_read_tokens,
            cache_write_tokens: r.cache_write_tokens,
            cost_usd: r.cost_usd,
            cost_unknown: r.cost_unknown,
            message_count: r.message_count,
            coordinator: r.coordinator.map(|c| c != 0),
            leads_team: r.leads_team,
        }
    }
}

impl SessionRow {
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens as u64,
            output_tokens: self.output_tokens as u64,
            cache_read_tokens: self.cache_read_tokens as u64,
            cache_write_tokens: self.cache_write_tokens as u64,
            cost_usd: if self.cost_unknown != 0 {
                None
            } else {
                Some(self.cost_usd.unwrap_or(0.0))
            },
        }
    }

    pub fn to_info(&self) -> SessionInfo {
        SessionInfo {
            id: self.id.clone(),
            // Needs every other id: filled in by `Engine` (agent/short_ids.rs).
            short_id: String::new(),
            title: self.title.clone(),
            kind: self.kind,
            parent_session_id: self.parent_session_id.clone(),
            cwd: self.cwd.clone(),
            root: self.root.clone(),
            model: self.model.clone(),
            mode: self.mode,
            status: self.status,
            running_turn_id: self.running_turn_id.clone(),
            created_at: clock::rfc3339(self.created_at),
            last_activity: clock::rfc3339(self.last_activity),
            last_seq: self.last_seq as u64,
            message_count: self.message_count as u64,
            usage: self.usage(),
            context_window: None,
        }
    }
}

/// What it takes to create a session.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub id: String,
    pub parent_session_id: Option<String>,
    pub kind: SessionKind,
    pub title: String,
    pub cwd: String,
    pub root: String,
    pub model: String,
    pub mode: Mode,
}

/// Inserts a session row on `conn` (a transaction, when it goes with other rows).
pub(super) async fn insert_session_in(
    conn: &mut sqlx::SqliteConnection,
    s: &NewSession,
) -> Result<(), StoreError> {
    let now = clock::now_ms();
    sqlx::query(
        "INSERT INTO sessions (id, parent_session_id, kind, title, cwd, root, model, mode, status, created_at, last_activity)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&s.id)
    .bind(&s.parent_session_id)
    .bind(kind_name(s.kind))
    .bind(&s.title)
    .bind(&s.cwd)
    .bind(&s.root)
    .bind(&s.model)
    .bind(mode_name(s.mode))
    .bind(status_name(SessionStatus::Idle))
    .bind(now)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// A session row with its message count and whether it leads a team. The count is
/// `MAX(idx) + 1`, one lookup in the primary key, valid because a context's `idx` run
/// 0..n with no gap (the invariant of `messages.rs`); `COUNT(*)` would read every stored
/// message (content is inline). The team is one lookup in `teams`' unique lead index.
const SELECT: &str = "SELECT s.*, (SELECT COALESCE(MAX(m.idx) + 1, 0) FROM messages m WHERE m.session_id = s.id) AS message_count, EXISTS (SELECT 1 FROM teams t WHERE t.lead_session_id = s.id) AS leads_team FROM sessions s";

impl Store {
    pub async fn insert_session(&self, s: &NewSession) -> Result<SessionRow, StoreError> {
        let mut conn = self.conn().await?;
        insert_session_in(&mut conn, s).await?;
        drop(conn);
        self.session(&s.id)
            .await?
            .ok_or(StoreError::Sqlx(sqlx::Error::RowNotFound))
    }

    pub async fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        let row =
            sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!("{SELECT} WHERE s.id = ?")))
                .bind(id)
                .fetch_optional(&mut *self.conn().await?)
                .await?;
        Ok(row.map(SessionRow::from))
    }

    /// Ids a user's `given` text can name (at most `limit`): ids starting with it (a
    /// prefix of the full id), and ids whose tail starts with it when it has the form of
    /// a short id (`roocode_protocol::short_id`). Resolving the id (`Engine::resolve`)
    /// reads this one function.
    pub async fn session_ids_with_prefix(
        &self,
        given: &str,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        // Ids are hex and dashes; anything else cannot match, and must not reach LIKE.
        if given.is_empty() || !given.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return Ok(Vec::new());
        }
        let given = given.to_ascii_lowercase();
        // `substr(id, 25)` is the tail of a 36-character UUID; only a hex-only text of
        // 8 to 12 characters is compared with tails.
        let tail_prefix = roocode_protocol::short_id::is_tail_prefix(&given);
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT id FROM sessions
             WHERE id LIKE ?1 || '%' OR (?2 AND length(id) = 36 AND substr(id, 25) LIKE ?1 || '%')
             ORDER BY id LIMIT ?3",
        )
        .bind(&given)
        .bind(tail_prefix)
        .bind(i64::from(limit))
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Sessions by last activity, newest first, optionally of one project root; main
    /// sessions only unless `all`.
    pub async fn list_sessions(
        &self,
        root: Option<&str>,
        limit: u32,
        all: bool,
    ) -> Result<Vec<SessionRow>, StoreError> {
        let rows = sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE (?1 IS NULL OR s.root = ?1) AND (?2 OR s.kind = ?3)
             ORDER BY s.last_activity DESC, s.id DESC LIMIT ?4"
        )))
        .bind(root)
        .bind(all)
        .bind(kind_name(SessionKind::Main))
        .bind(i64::from(limit))
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(SessionRow::from).collect())
    }

    pub async fn sessions_with_status(
        &self,
        status: SessionStatus,
    ) -> Result<Vec<SessionRow>, StoreError> {
        let rows = sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE s.status = ?"
        )))
        .bind(status_name(status))
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(SessionRow::from).collect())
    }

    pub async fn count_sessions(&self) -> Result<u64, StoreError> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions")
            .fetch_one(&mut *self.conn().await?)
            .await?;
        Ok(n as u64)
    }

    pub async fn set_session_status(
        &self,
        id: &str,
        status: SessionStatus,
        running_turn_id: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sessions SET status = ?, running_turn_id = ?, last_activity = ? WHERE id = ?",
        )
        .bind(status_name(status))
        .bind(running_turn_id)
        .bind(clock::now_ms())
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// A session whose turns ended is idle, or stays interrupted (the daemon stopped
    /// its turn: it is resumed at the next start), in one statement.
    pub async fn settle_session(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sessions SET status = CASE status WHEN 'interrupted' THEN 'interrupted' ELSE 'idle' END,
                running_turn_id = NULL, last_activity = ? WHERE id = ?",
        )
        .bind(clock::now_ms())
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    pub async fn set_session_mode(&self, id: &str, mode: Mode) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET mode = ? WHERE id = ?")
            .bind(mode_name(mode))
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    pub async fn set_session_model(&self, id: &str, model: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET model = ? WHERE id = ?")
            .bind(model)
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// `/coordinator on|off` (`Some`), or back to the project's setting (`None`).
    pub async fn set_session_coordinator(
        &self,
        id: &str,
        coordinator: Option<bool>,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET coordinator = ? WHERE id = ?")
            .bind(coordinator.map(i64::from))
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    pub async fn set_session_title(&self, id: &str, title: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET title = ? WHERE id = ?")
            .bind(title)
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Adds one model call's tokens and cost to the session's totals.
    pub async fn add_session_usage(&self, id: &str, u: &Usage) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
                cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
                cost_usd = COALESCE(cost_usd, 0) + ?, cost_unknown = MAX(cost_unknown, ?)
             WHERE id = ?",
        )
        .bind(u.input_tokens as i64)
        .bind(u.output_tokens as i64)
        .bind(u.cache_read_tokens as i64)
        .bind(u.cache_write_tokens as i64)
        .bind(u.cost_usd.unwrap_or(0.0))
        .bind(i64::from(u.cost_usd.is_none()))
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// Deletes a session with everything that cascades from it (the team it leads,
    /// its membership).
    pub async fn delete_session(&self, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let r = sqlx::query("DELETE FROM sessions WHERE id = ?")
            .bind(id)
            .execute(&mut *conn)
            .await?;
        self.team_cache().clear();
        Ok(r.rows_affected() > 0)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn new_session(id: &str, root: &str) -> NewSession {
        NewSession {
            id: id.into(),
            parent_session_id: None,
            kind: SessionKind::Main,
            title: "t".into(),
            cwd: root.into(),
            root: root.into(),
            model: "anthropic/m".into(),
            mode: Mode::Default,
        }
    }

    #[tokio::test]
    async fn create_list_prefix_usage_delete() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("0191aa-1", "/p"))
            .await
            .unwrap();
        store
            .insert_session(&new_session("0191ab-2", "/q"))
            .await
            .unwrap();
        assert_eq!(
            store
                .session_ids_with_prefix("0191a", 5)
                .await
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            store.session_ids_with_prefix("0191ab", 5).await.unwrap(),
            vec!["0191ab-2"]
        );
        assert!(
            store
                .session_ids_with_prefix("%", 5)
                .await
                .unwrap()
                .is_empty()
        );
        let in_p = store.list_sessions(Some("/p"), 10, false).await.unwrap();
        assert_eq!(in_p.len(), 1);
        assert_eq!(store.count_sessions().await.unwrap(), 2);

        let u = Usage {
            input_tokens: 10,
            output_tokens: 5,
            cost_usd: Some(0.5),
            ..Usage::default()
        };
        store.add_session_usage("0191aa-1", &u).await.unwrap();
        store.add_session_usage("0191aa-1", &u).await.unwrap();
        let s = store.session("0191aa-1").await.unwrap().unwrap();
        assert_eq!(s.usage().input_tokens, 20);
        assert_eq!(s.usage().cost_usd, Some(1.0));
        let unknown = Usage {
            cost_usd: None,
            ..u
        };
        store.add_session_usage("0191aa-1", &unknown).await.unwrap();
        assert_eq!(
            store
                .session("0191aa-1")
                .await
                .unwrap()
                .unwrap()
                .usage()
                .cost_usd,
            None
        );

        store
            .set_session_status("0191aa-1", SessionStatus::Running, Some("T"))
            .await
            .unwrap();
        assert_eq!(
            store
                .sessions_with_status(SessionStatus::Running)
                .await
                .unwrap()
                .len(),
            1
        );
        assert!(store.delete_session("0191aa-1").await.unwrap());
        assert!(store.session("0191aa-1").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn rows_of_an_existing_database_read_as_enums_and_writes_keep_its_spellings() {
        let store = Store::memory().await.unwrap();
        // As an existing database holds it, written by an earlier daemon.
        sqlx::query(
            "INSERT INTO sessions (id, kind, title, cwd, root, model, mode, status, created_at, last_activity)
             VALUES ('old', 'sub_agent', '', '/p', '/p', 'anthropic/m', 'acceptEdits', 'interrupted', 0, 0)",
        )
        .execute(&mut *store.conn().await.unwrap())
        .await
        .unwrap();
        let row = store.session("old").await.unwrap().unwrap();
        assert_eq!(
            (row.kind, row.mode, row.status),
            (
                SessionKind::SubAgent,
                Mode::AcceptEdits,
                SessionStatus::Interrupted
            )
        );
        let info = row.to_info();
        assert_eq!(
            (info.mode.as_str(), info.status),
            ("acceptEdits", SessionStatus::Interrupted)
        );

        store.set_session_mode("old", Mode::DontAsk).await.unwrap();
        store
            .set_session_status("old", SessionStatus::Running, Some("t"))
            .await
            .unwrap();
        store
            .insert_session(&new_session("new", "/p"))
            .await
            .unwrap();
        let stored: Vec<(String, String, String)> =
            sqlx::query_as("SELECT kind, mode, status FROM sessions ORDER BY id DESC")
                .fetch_all(&mut *store.conn().await.unwrap())
                .await
                .unwrap();
        let stored: Vec<(&str, &str, &str)> = stored
            .iter()
            .map(|(k, m, s)| (k.as_str(), m.as_str(), s.as_str()))
            .collect();
        assert_eq!(
            stored,
            [
                ("sub_agent", "dontAsk", "running"),
                ("main", "default", "idle")
            ]
        );
        assert_eq!(store.count_running_turns().await.unwrap(), 1);
        assert_eq!(
            store
                .list_sessions(Some("/p"), 10, false)
                .await
                .unwrap()
                .len(),
            1,
            "main sessions only"
        );
    }

    #[tokio::test]
    async fn a_settled_session_is_idle_unless_the_daemon_interrupted_its_turn() {
        let store = Store::memory().await.unwrap();
        for (id, before, after) in [
            ("a", SessionStatus::Running, SessionStatus::Idle),
            ("b", SessionStatus::Interrupted, SessionStatus::Interrupted),
        ] {
            store.insert_session(&new_session(id, "/p")).await.unwrap();
            store
                .set_session_status(id, before, Some("t1"))
                .await
                .unwrap();
            store.settle_session(id).await.unwrap();
            let row = store.session(id).await.unwrap().unwrap();
            assert_eq!((row.status, row.running_turn_id), (after, None), "{id}");
        }
        // A session deleted meanwhile: nothing to settle, and no error.
        store.settle_session("gone").await.unwrap();
    }

    #[tokio::test]
    async fn coordinator_choice_and_team_lead_read_with_the_row() {
        let store = Store::memory().await.unwrap();
        store.insert_session(&new_session("s", "/p")).await.unwrap();
        let row = store.session("s").await.unwrap().unwrap();
        assert_eq!((row.coordinator, row.leads_team), (None, false));
        for choice in [Some(true), Some(false), None] {
            store.set_session_coordinator("s", choice).await.unwrap();
            let row = store.session("s").await.unwrap().unwrap();
            assert_eq!(row.coordinator, choice);
        }
        store
            .create_team("t", "alpha", "s", "", "none")
            .await
            .unwrap();
        assert!(store.session("s").await.unwrap().unwrap().leads_team);
        assert!(store.delete_team("t").await.unwrap());
        assert!(!store.session("s").await.unwrap().unwrap().leads_team);
    }

    #[tokio::test]
    async fn ids_resolve_by_full_prefix_and_by_tail() {
        let store = Store::memory().await.unwrap();
        let a = "019ad9f3-1c2e-7a10-8b00-0123456789ab";
        let b = "019ad9f3-1c2f-7a10-8b00-01234567ffff";
        let c = "019ad9f4-0000-7a10-8b00-fedcba987654";
        for id in [a, b, c] {
            store.insert_session(&new_session(id, "/p")).await.unwrap();
        }
        let find = |given: &'static str| {
            let store = store.clone();
            async move { store.session_ids_with_prefix(given, 5).await.unwrap() }
        };
        assert_eq!(find("fedcba98").await, [c], "a short id");
        assert_eq!(find("FEDCBA987654").await, [c], "the whole tail, any case");
        assert_eq!(find("0123456789").await, [a], "longer than the minimum");
        assert_eq!(find("01234567").await, [a, b], "ambiguous short id");
        assert_eq!(find("019ad9f3-1c2e").await, [a], "an id prefix, as before");
        assert_eq!(find("019ad9f4").await, [c], "today's 8-character prefixes");
        assert!(find("fedcba9").await.is_empty(), "7 characters of a tail");
        assert!(find("8b00-fedcba98").await.is_empty(), "not a tail prefix");
    }
}
