//! The `agents` table: one row per sub-agent (its session holds everything else), with
//! who started it, as what, its state and how it ended, and whether its parent has been
//! told ([`Store::notify_parent`]).

use roocode_protocol::agents::AgentState;
use sqlx::Connection as _;

use super::sessions::NewSession;
use super::{Store, StoreError};
use crate::clock;

/// A sub-agent as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRow {
    /// Its session's id.
    pub id: String,
    pub parent_id: String,
    pub name: String,
    pub agent_type: String,
    pub description: String,
    pub background: bool,
    /// How to run it (JSON of `agent::children::ChildSpec`), fixed at its start.
    pub spec: String,
    pub state: AgentState,
    pub result: Option<String>,
    pub error: Option<String>,
    pub tool_calls: u64,
    /// Its git worktree and branch (`isolation: worktree`), while it has one.
    pub worktree: Option<String>,
    pub branch: Option<String>,
    pub notified: bool,
    pub started_at: i64,
    pub ended_at: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct StoredRow {
    session_id: String,
    parent_id: String,
    name: String,
    agent_type: String,
    description: String,
    background: i64,
    spec: String,
    state: String,
    result: Option<String>,
    error: Option<String>,
    tool_calls: i64,
    worktree: Option<String>,
    branch: Option<String>,
    notified: i64,
    started_at: i64,
    ended_at: Option<i64>,
}

impl From<StoredRow> for AgentRow {
    fn from(r: StoredRow) -> Self {
        AgentRow {
            id: r.session_id,
            parent_id: r.parent_id,
            name: r.name,
            agent_type: r.agent_type,
            description: r.description,
            background: r.background != 0,
            spec: r.spec,
            state: state_from(&r.state),
            result: r.result,
            error: r.error,
            tool_calls: r.tool_calls.max(0) as u64,
            worktree: r.worktree,
            branch: r.branch,
            notified: r.notified != 0,
            started_at: r.started_at,
            ended_at: r.ended_at,
        }
    }
}

/// `agents.state`, spelled as the wire spells it; an unknown value reads as `failed`
/// (a newer daemon's state: never run again by this one).
pub(super) fn state_name(state: AgentState) -> &'static str {
    match state {
        AgentState::Unknown => "failed",
        other => other.as_str(),
    }
}

fn state_from(name: &str) -> AgentState {
    match name {
        "queued" => AgentState::Queued,
        "running" => AgentState::Running,
        "waiting" => AgentState::Waiting,
        "idle" => AgentState::Idle,
        "completed" => AgentState::Completed,
        "cancelled" => AgentState::Cancelled,
        _ => AgentState::Failed,
    }
}

/// What it takes to record a new sub-agent (with its session).
#[derive(Debug, Clone)]
pub struct NewAgent {
    pub session: NewSession,
    pub name: String,
    pub agent_type: String,
    pub description: String,
    pub background: bool,
    pub spec: String,
    pub state: AgentState,
}

const SELECT: &str = "SELECT session_id, parent_id, name, agent_type, description, background, spec, state, result, error, tool_calls, worktree, branch, notified, started_at, ended_at FROM agents";

impl Store {
    /// Creates the agent's session and its row in one transaction.
    pub async fn insert_agent(&self, a: &NewAgent) -> Result<AgentRow, StoreError> {
        let Some(parent) = a.session.parent_session_id.as_deref() else {
            return Err(StoreError::Sqlx(sqlx::Error::Protocol(
                "a sub-agent needs a parent session".into(),
            )));
        };
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        super::sessions::insert_session_in(&mut tx, &a.session).await?;
        sqlx::query(
            "INSERT INTO agents (session_id, parent_id, name, agent_type, description, background, spec, state, started_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&a.session.id)
        .bind(parent)
        .bind(&a.name)
        .bind(&a.agent_type)
        .bind(&a.description)
        .bind(i64::from(a.background))
        .bind(&a.spec)
        .bind(state_name(a.state))
        .bind(clock::now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        drop(conn);
        self.agent(&a.session.id)
            .await?
            .ok_or(StoreError::Sqlx(sqlx::Error::RowNotFound))
    }

    pub async fn agent(&self, id: &str) -> Result<Option<AgentRow>, StoreError> {
        let row = sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE session_id = ?"
        )))
        .bind(id)
        .fetch_optional(&mut *self.conn().await?)
        .await?;
        Ok(row.map(AgentRow::from))
    }

    /// The children of `parent_id`, oldest first.
    pub async fn children(&self, parent_id: &str) -> Result<Vec<AgentRow>, StoreError> {
        let rows = sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE parent_id = ? ORDER BY started_at, rowid"
        )))
        .bind(parent_id)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(AgentRow::from).collect())
    }

    /// Every sub-agent, oldest first.
    pub async fn all_agents(&self) -> Result<Vec<AgentRow>, StoreError> {
        let rows = sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} ORDER BY started_at, rowid"
        )))
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(AgentRow::from).collect())
    }

    /// Sub-agents in one of `states`, oldest first.
    pub async fn agents_in(&self, states: &[AgentState]) -> Result<Vec<AgentRow>, StoreError> {
        let names: Vec<&str> = states.iter().map(|s| state_name(*s)).collect();
        let wanted = serde_json::to_string(&names)?;
        let rows = sqlx::query_as::<_, StoredRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE state IN (SELECT value FROM json_each(?)) ORDER BY started_at, rowid"
        )))
        .bind(wanted)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(AgentRow::from).collect())
    }

    pub async fn set_agent_state(&self, id: &str, state: AgentState) -> Result<(), StoreError> {
        sqlx::query("UPDATE agents SET state = ? WHERE session_id = ?")
            .bind(state_name(state))
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Moves the agent from state `from` to `to`; false (nothing changed) when it was
    /// not in `from` any more.
    pub async fn set_agent_state_from(
        &self,
        id: &str,
        from: AgentState,
        to: AgentState,
    ) -> Result<bool, StoreError> {
        let changed = sqlx::query("UPDATE agents SET state = ? WHERE session_id = ? AND state = ?")
            .bind(state_name(to))
            .bind(id)
            .bind(state_name(from))
            .execute(&mut *self.conn().await?)
            .await?
            .rows_affected();
        Ok(changed > 0)
    }

    pub async fn set_agent_background(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE agents SET background = 1 WHERE session_id = ?")
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    pub async fn add_agent_tool_calls(&self, id: &str, n: u64) -> Result<(), StoreError> {
        sqlx::query("UPDATE agents SET tool_calls = tool_calls + ? WHERE session_id = ?")
            .bind(n as i64)
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    pub async fn set_agent_worktree(
        &self,
        id: &str,
        worktree: Option<&str>,
        branch: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE agents SET worktree = ?, branch = COALESCE(?, branch) WHERE session_id = ?",
        )
        .bind(worktree)
        .bind(branch)
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// Records how the agent's run ended. A new run (`resume`) starts with
    /// [`Store::restart_agent`].
    pub async fn finish_agent(
        &self,
        id: &str,
        state: AgentState,
        result: Option<&str>,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE agents SET state = ?, result = ?, error = ?, ended_at = ? WHERE session_id = ?",
        )
        .bind(state_name(state))
        .bind(result)
        .bind(error)
        .bind(clock::now_ms())
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// A finished agent runs again (`resume`): its result and notification are reset.
    pub async fn restart_agent(&self, id: &str, background: bool) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE agents SET state = 'queued', result = NULL, error = NULL, ended_at = NULL, notified = 0, background = ?, started_at = ? WHERE session_id = ?",
        )
        .bind(i64::from(background))
        .bind(clock::now_ms())
        .bind(id)
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    /// Marks the agent's parent as told (a foreground agent's parent got its outcome
    /// some other way), so no notification is ever queued for this run.
    pub async fn mark_notified(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE agents SET notified = 1 WHERE session_id = ?")
            .bind(id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Queues `text` in the parent's inbox and marks the agent notified, in one
    /// transaction; false (and nothing queued) when it was notified before, so a
    /// notification is queued exactly once whatever crashes around it.
    pub async fn notify_parent(
        &self,
        agent_id: &str,
        kind: super::InjectionKind,
        text: &str,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        let parent: Option<(String,)> = sqlx::query_as(
            "UPDATE agents SET notified = 1 WHERE session_id = ? AND notified = 0 RETURNING parent_id",
        )
        .bind(agent_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((parent,)) = parent else {
            return Ok(false);
        };
        super::inbox::insert_injection(&mut tx, &parent, kind, text).await?;
        tx.commit().await?;
        Ok(true)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use roocode_protocol::session::SessionKind;

    use super::*;
    use crate::store::InjectionKind;
    use crate::store::sessions::tests::new_session;

    pub(crate) fn new_agent(id: &str, parent: &str) -> NewAgent {
        let mut session = new_session(id, "/p");
        session.parent_session_id = Some(parent.into());
        session.kind = SessionKind::SubAgent;
        NewAgent {
            session,
            name: format!("agent-{id}"),
            agent_type: "Explore".into(),
            description: "look around".into(),
            background: true,
            spec: "{}".into(),
            state: AgentState::Queued,
        }
    }

    #[tokio::test]
    async fn an_agent_is_a_session_and_a_row_and_notifies_its_parent_once() {
        let store = Store::memory().await.unwrap();
        store.insert_session(&new_session("p", "/p")).await.unwrap();
        let row = store.insert_agent(&new_agent("c", "p")).await.unwrap();
        assert_eq!(row.state, AgentState::Queued);
        assert_eq!(row.parent_id, "p");
        let session = store.session("c").await.unwrap().unwrap();
        assert_eq!(session.kind, SessionKind::SubAgent);
        assert_eq!(session.parent_session_id.as_deref(), Some("p"));

        store
            .finish_agent("c", AgentState::Completed, Some("found it"), None)
            .await
            .unwrap();
        let kind = InjectionKind::TaskNotification;
        assert!(store.notify_parent("c", kind, "done").await.unwrap());
        assert!(!store.notify_parent("c", kind, "done").await.unwrap());
        let queued = store.queued_injections("p").await.unwrap();
        assert_eq!(queued.len(), 1, "{queued:?}");
        assert_eq!(queued[0].text, "done");

        let children = store.children("p").await.unwrap();
        assert_eq!(children.len(), 1);
        assert_eq!(children[0].result.as_deref(), Some("found it"));
        assert!(children[0].notified);

        // A resumed agent notifies again.
        store.restart_agent("c", true).await.unwrap();
        assert!(store.notify_parent("c", kind, "again").await.unwrap());

        // Deleting the parent deletes the child.
        store.delete_session("p").await.unwrap();
        assert!(store.agent("c").await.unwrap().is_none());
        assert!(store.session("c").await.unwrap().is_none());
    }

    #[test]
    fn states_read_back_as_written() {
        for state in [
            AgentState::Queued,
            AgentState::Running,
            AgentState::Waiting,
            AgentState::Idle,
            AgentState::Completed,
            AgentState::Failed,
            AgentState::Cancelled,
        ] {
            assert_eq!(state_from(state_name(state)), state);
        }
        assert_eq!(state_from("later"), AgentState::Failed);
    }
}
