//! The collaboration tables (migration 0013): per orchestrating session its graph and
//! state as JSON (`workflow_graphs`), and per dispatched agent the node it runs and
//! whether its completion was counted (`workflow_graph_dispatches`), so a completion
//! advances the graph once, crash or not.

use sqlx::Connection as _;

use super::{Store, StoreError};

/// An orchestrator's graph and state, as stored (JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphRow {
    pub graph: String,
    pub state: String,
    pub status: String,
    pub told: Option<String>,
}

/// A dispatch the graph counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchRow {
    pub agent_id: String,
    pub session_id: String,
    pub node: String,
    pub on_route: bool,
    pub completed: bool,
}

impl Store {
    /// The graph of `session_id`, if its workflow started.
    pub async fn workflow_graph(&self, session_id: &str) -> Result<Option<GraphRow>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT graph, state, status, told FROM workflow_graphs WHERE session_id = ?",
        )
        .bind(session_id)
        .fetch_optional(&mut *conn)
        .await?;
        Ok(row.map(|(graph, state, status, told)| GraphRow {
            graph,
            state,
            status,
            told,
        }))
    }

    /// Writes the graph of `session_id` (inserted, or replacing it).
    pub async fn save_workflow_graph(
        &self,
        session_id: &str,
        row: &GraphRow,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query(
            "INSERT INTO workflow_graphs (session_id, graph, state, status, told, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (session_id) DO UPDATE SET graph = excluded.graph,
                 state = excluded.state, status = excluded.status, told = excluded.told,
                 updated_at = excluded.updated_at",
        )
        .bind(session_id)
        .bind(&row.graph)
        .bind(&row.state)
        .bind(&row.status)
        .bind(&row.told)
        .bind(crate::clock::now_ms())
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// Forgets what the orchestrator was told of its graph (its context was rewritten).
    pub async fn forget_told_graph(&self, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query("UPDATE workflow_graphs SET told = NULL WHERE session_id = ?")
            .bind(session_id)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// Records a dispatch of `node` by `session_id` as agent `agent_id`.
    pub async fn record_dispatch(
        &self,
        session_id: &str,
        agent_id: &str,
        node: &str,
        on_route: bool,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query(
            "INSERT OR IGNORE INTO workflow_graph_dispatches (agent_id, session_id, node, on_route)
             VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(agent_id)
        .bind(session_id)
        .bind(node)
        .bind(on_route)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// The dispatch that started `agent_id`, if a graph counted one.
    pub async fn dispatch_of(&self, agent_id: &str) -> Result<Option<DispatchRow>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(String, String, String, bool, bool)> = sqlx::query_as(
            "SELECT agent_id, session_id, node, on_route, completed
             FROM workflow_graph_dispatches WHERE agent_id = ?",
        )
        .bind(agent_id)
        .fetch_optional(&mut *conn)
        .await?;
        Ok(row.map(
            |(agent_id, session_id, node, on_route, completed)| DispatchRow {
                agent_id,
                session_id,
                node,
                on_route,
                completed,
            },
        ))
    }

    /// The agents whose dispatch a graph has not counted the completion of.
    pub async fn open_dispatches(&self) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT agent_id FROM workflow_graph_dispatches WHERE completed = 0")
                .fetch_all(&mut *conn)
                .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Marks the dispatch of `agent_id` completed and writes the graph's new state, in
    /// one transaction; false (nothing written) when it was completed before.
    pub async fn complete_dispatch(
        &self,
        agent_id: &str,
        session_id: &str,
        row: &GraphRow,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        let done = sqlx::query(
            "UPDATE workflow_graph_dispatches SET completed = 1
             WHERE agent_id = ? AND completed = 0",
        )
        .bind(agent_id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE workflow_graphs SET state = ?2, status = ?3, told = ?4, updated_at = ?5
             WHERE session_id = ?1",
        )
        .bind(session_id)
        .bind(&row.state)
        .bind(&row.status)
        .bind(&row.told)
        .bind(crate::clock::now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn a_dispatch_completes_once() {
        let store = Store::memory().await.unwrap();
        let session = store
            .insert_session(&new_session("0191ab-1", "/p"))
            .await
            .unwrap()
            .id;
        let row = GraphRow {
            graph: "{}".into(),
            state: "{\"steps\":0}".into(),
            status: "active".into(),
            told: None,
        };
        store.save_workflow_graph(&session, &row).await.unwrap();
        store
            .record_dispatch(&session, "A1", "coder", true)
            .await
            .unwrap();
        let next = GraphRow {
            state: "{\"steps\":1}".into(),
            ..row.clone()
        };
        assert!(
            store
                .complete_dispatch("A1", &session, &next)
                .await
                .unwrap()
        );
        let later = GraphRow {
            state: "{\"steps\":2}".into(),
            ..row
        };
        assert!(
            !store
                .complete_dispatch("A1", &session, &later)
                .await
                .unwrap()
        );
        let stored = store.workflow_graph(&session).await.unwrap().unwrap();
        assert_eq!(stored.state, "{\"steps\":1}");
        assert!(store.dispatch_of("A1").await.unwrap().unwrap().completed);
        assert!(store.dispatch_of("B").await.unwrap().is_none());
    }
}
