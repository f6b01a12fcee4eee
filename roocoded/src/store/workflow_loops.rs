//! The `|loop|` tables (migration 0013): a `workflow_loops` row per loop (its origin,
//! root, task, settings, phase) and a `workflow_loop_rounds` row per round, written
//! before the round's worker starts so a round is never run twice.

use roocode_protocol::workflow::LoopPhase;

use super::{Store, StoreError};

/// A loop as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopRow {
    pub id: String,
    pub session_id: String,
    pub root_id: String,
    pub task: String,
    pub objective: Option<String>,
    pub mode: String,
    pub rounds: u32,
    pub phase: LoopPhase,
    pub reason: Option<String>,
    pub created_at: i64,
}

/// A round as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundRow {
    pub loop_id: String,
    pub round: u32,
    pub agent_id: Option<String>,
    pub state: String,
    pub summary: Option<String>,
    pub summary_hash: Option<String>,
    pub workspace: Option<String>,
}

type LoopTuple = (
    String,
    String,
    String,
    String,
    Option<String>,
    String,
    i64,
    String,
    Option<String>,
    i64,
);

/// The columns [`loop_row`] reads, in its order.
macro_rules! loop_columns {
    () => {
        "id, session_id, root_id, task, objective, mode, rounds, phase, reason, created_at"
    };
}

fn loop_row(t: LoopTuple) -> LoopRow {
    LoopRow {
        id: t.0,
        session_id: t.1,
        root_id: t.2,
        task: t.3,
        objective: t.4,
        mode: t.5,
        rounds: u32::try_from(t.6.max(0)).unwrap_or(0),
        // A phase a newer build wrote is one this build leaves alone.
        phase: LoopPhase::parse(&t.7).unwrap_or(LoopPhase::Failed),
        reason: t.8,
        created_at: t.9,
    }
}

type RoundTuple = (
    String,
    i64,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn round_row(t: RoundTuple) -> RoundRow {
    RoundRow {
        loop_id: t.0,
        round: u32::try_from(t.1.max(0)).unwrap_or(0),
        agent_id: t.2,
        state: t.3,
        summary: t.4,
        summary_hash: t.5,
        workspace: t.6,
    }
}

/// The columns [`round_row`] reads, in its order.
macro_rules! round_columns {
    () => {
        "loop_id, round, agent_id, state, summary, summary_hash, workspace"
    };
}

impl Store {
    /// Records a new loop, running, unless `max_per_root` loops run under its root
    /// already (checked in the same statement, so two messages cannot both pass);
    /// whether it was recorded. Fails when its origin runs a loop already.
    pub async fn insert_loop(
        &self,
        row: &LoopRow,
        max_per_root: usize,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let now = crate::clock::now_ms();
        let done = sqlx::query(
            "INSERT INTO workflow_loops (id, session_id, root_id, task, objective, mode, rounds,
                 phase, reason, created_at, updated_at)
             SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10
             WHERE (SELECT COUNT(*) FROM workflow_loops
                    WHERE root_id = ?3 AND phase = 'running') < ?11",
        )
        .bind(&row.id)
        .bind(&row.session_id)
        .bind(&row.root_id)
        .bind(&row.task)
        .bind(&row.objective)
        .bind(&row.mode)
        .bind(i64::from(row.rounds))
        .bind(row.phase.as_str())
        .bind(&row.reason)
        .bind(now)
        .bind(i64::try_from(max_per_root).unwrap_or(i64::MAX))
        .execute(&mut *conn)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Marks the loop's end reported; false when it was before (report it once).
    pub async fn mark_loop_reported(&self, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let done =
            sqlx::query("UPDATE workflow_loops SET reported = 1 WHERE id = ? AND reported = 0")
                .bind(id)
                .execute(&mut *conn)
                .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The loop `id`.
    pub async fn workflow_loop(&self, id: &str) -> Result<Option<LoopRow>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<LoopTuple> = sqlx::query_as(concat!(
            "SELECT ",
            loop_columns!(),
            " FROM workflow_loops WHERE id = ?"
        ))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
        Ok(row.map(loop_row))
    }

    /// The loops whose id starts with `prefix`.
    pub async fn loops_with_prefix(&self, prefix: &str) -> Result<Vec<LoopRow>, StoreError> {
        let mut conn = self.conn().await?;
        let pattern = format!("{}%", prefix.replace(['%', '_'], ""));
        let rows: Vec<LoopTuple> = sqlx::query_as(concat!(
            "SELECT ",
            loop_columns!(),
            " FROM workflow_loops WHERE id LIKE ? LIMIT 2"
        ))
        .bind(pattern)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows.into_iter().map(loop_row).collect())
    }

    /// The loops of `session_id` (every loop when `None`), newest first; only running
    /// ones when `running`.
    pub async fn workflow_loops(
        &self,
        session_id: Option<&str>,
        running: bool,
    ) -> Result<Vec<LoopRow>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<LoopTuple> = sqlx::query_as(concat!(
            "SELECT ",
            loop_columns!(),
            " FROM workflow_loops
             WHERE (?1 IS NULL OR session_id = ?1) AND (NOT ?2 OR phase = 'running')
             ORDER BY created_at DESC, id DESC"
        ))
        .bind(session_id)
        .bind(running)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows.into_iter().map(loop_row).collect())
    }

    /// How many loops run under the root session `root_id`.
    pub async fn running_loops_of_root(&self, root_id: &str) -> Result<usize, StoreError> {
        let mut conn = self.conn().await?;
        let (n,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM workflow_loops WHERE root_id = ? AND phase = 'running'",
        )
        .bind(root_id)
        .fetch_one(&mut *conn)
        .await?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Ends the loop `id` in `phase` for `reason`, if it still runs; whether it did.
    pub async fn end_loop(
        &self,
        id: &str,
        phase: LoopPhase,
        reason: &str,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let done = sqlx::query(
            "UPDATE workflow_loops SET phase = ?2, reason = ?3, updated_at = ?4
             WHERE id = ?1 AND phase = 'running'",
        )
        .bind(id)
        .bind(phase.as_str())
        .bind(reason)
        .bind(crate::clock::now_ms())
        .execute(&mut *conn)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The rounds of loop `id`, in order.
    pub async fn loop_rounds(&self, id: &str) -> Result<Vec<RoundRow>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<RoundTuple> = sqlx::query_as(concat!(
            "SELECT ",
            round_columns!(),
            " FROM workflow_loop_rounds WHERE loop_id = ? ORDER BY round"
        ))
        .bind(id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows.into_iter().map(round_row).collect())
    }

    /// The round whose worker is `agent_id`, if it is one.
    pub async fn round_of_agent(&self, agent_id: &str) -> Result<Option<RoundRow>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<RoundTuple> = sqlx::query_as(concat!(
            "SELECT ",
            round_columns!(),
            " FROM workflow_loop_rounds WHERE agent_id = ?"
        ))
        .bind(agent_id)
        .fetch_optional(&mut *conn)
        .await?;
        Ok(row.map(round_row))
    }

    /// Records round `round` of loop `id` as starting, its worker to be `agent_id`;
    /// false (nothing recorded) when the loop no longer runs. Fails if the round was
    /// recorded before: a round is started once.
    pub async fn insert_round(
        &self,
        id: &str,
        round: u32,
        agent_id: &str,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let done = sqlx::query(
            "INSERT INTO workflow_loop_rounds (loop_id, round, agent_id, state, started_at)
             SELECT ?1, ?2, ?3, 'starting', ?4
             WHERE EXISTS (SELECT 1 FROM workflow_loops WHERE id = ?1 AND phase = 'running')",
        )
        .bind(id)
        .bind(i64::from(round))
        .bind(agent_id)
        .bind(crate::clock::now_ms())
        .execute(&mut *conn)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The round's worker started; false when the round was ended meanwhile (a stop).
    pub async fn set_round_running(&self, id: &str, round: u32) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let done = sqlx::query(
            "UPDATE workflow_loop_rounds SET state = 'running'
             WHERE loop_id = ?1 AND round = ?2 AND state = 'starting'",
        )
        .bind(id)
        .bind(i64::from(round))
        .execute(&mut *conn)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Ends the round in `state` with what its worker said; whether it was still open
    /// (a second end of the same round changes nothing).
    pub async fn end_round(
        &self,
        id: &str,
        round: u32,
        state: &str,
        summary: Option<&str>,
        summary_hash: Option<&str>,
        workspace: Option<&str>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let done = sqlx::query(
            "UPDATE workflow_loop_rounds
             SET state = ?3, summary = ?4, summary_hash = ?5, workspace = ?6, ended_at = ?7
             WHERE loop_id = ?1 AND round = ?2 AND state IN ('starting', 'running')",
        )
        .bind(id)
        .bind(i64::from(round))
        .bind(state)
        .bind(summary)
        .bind(summary_hash)
        .bind(workspace)
        .bind(crate::clock::now_ms())
        .execute(&mut *conn)
        .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn a_loop_and_its_rounds_round_trip_and_a_round_ends_once() {
        let store = Store::memory().await.unwrap();
        let session = store
            .insert_session(&new_session("0191ab-1", "/p"))
            .await
            .unwrap()
            .id;
        let row = LoopRow {
            id: "L1".into(),
            session_id: session.clone(),
            root_id: session.clone(),
            task: "make it pass".into(),
            objective: None,
            mode: "inherit".into(),
            rounds: 3,
            phase: LoopPhase::Running,
            reason: None,
            created_at: 0,
        };
        assert!(store.insert_loop(&row, 30).await.unwrap());
        assert_eq!(store.running_loops_of_root(&session).await.unwrap(), 1);
        let over = LoopRow {
            id: "L0".into(),
            session_id: "elsewhere".into(),
            ..row.clone()
        };
        assert!(
            !store.insert_loop(&over, 1).await.unwrap(),
            "the root's limit holds"
        );
        assert!(store.mark_loop_reported("L1").await.unwrap());
        assert!(!store.mark_loop_reported("L1").await.unwrap());
        assert!(store.insert_round("L1", 1, "A1").await.unwrap());
        assert!(
            store.insert_round("L1", 1, "A2").await.is_err(),
            "a round is started once"
        );
        assert!(store.set_round_running("L1", 1).await.unwrap());
        assert!(!store.set_round_running("L1", 1).await.unwrap());
        assert_eq!(
            store.round_of_agent("A1").await.unwrap().unwrap().state,
            "running"
        );
        assert!(
            store
                .end_round("L1", 1, "completed", Some("did x"), Some("h"), None)
                .await
                .unwrap()
        );
        assert!(
            !store
                .end_round("L1", 1, "failed", None, None, None)
                .await
                .unwrap()
        );
        let rounds = store.loop_rounds("L1").await.unwrap();
        assert_eq!(rounds[0].summary.as_deref(), Some("did x"));
        assert!(
            store
                .end_loop("L1", LoopPhase::Complete, "3 rounds ran")
                .await
                .unwrap()
        );
        assert!(
            !store
                .end_loop("L1", LoopPhase::Stopped, "late")
                .await
                .unwrap()
        );
        assert_eq!(store.running_loops_of_root(&session).await.unwrap(), 0);
        assert!(
            !store.insert_round("L1", 2, "A3").await.unwrap(),
            "an ended loop starts no round"
        );
        // One running loop per origin, whatever races.
        let second = LoopRow {
            id: "L2".into(),
            ..row.clone()
        };
        assert!(store.insert_loop(&second, 30).await.unwrap());
        let third = LoopRow {
            id: "L3".into(),
            ..row.clone()
        };
        assert!(store.insert_loop(&third, 30).await.is_err());
        let loops = store.workflow_loops(Some(&session), false).await.unwrap();
        let first = loops.iter().find(|l| l.id == "L1").unwrap();
        assert_eq!(first.phase, LoopPhase::Complete);
        assert_eq!(store.loops_with_prefix("L1").await.unwrap().len(), 1);
    }
}
