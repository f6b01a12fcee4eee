//! The `turn_snapshots` table: per turn, the manifest of the workspace snapshot taken
//! before it (see `crate::snapshot`) and the one taken after it, the conversation as it
//! was before it, how many files it holds and which it left out, so a rewind can
//! restore them and say what it cannot; and the `turns` of a session as a rewind
//! numbers them.

use super::{Store, StoreError};

/// One turn's snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnSnapshot {
    pub turn_id: String,
    pub session_id: String,
    /// The workspace root it was taken of.
    pub root: String,
    /// The manifest's blob id in the shadow store.
    pub manifest: String,
    pub files: u64,
    /// The files left out, as a JSON array of `{path, why}`.
    pub skipped: String,
    pub took_ms: u64,
    pub created_at: i64,
    /// The workspace as the turn left it (none while it runs, or when the daemon died
    /// in it).
    pub after_manifest: Option<String>,
    /// The conversation before the turn, as a blob of the shadow store.
    pub conversation: Option<String>,
    /// When a rewind undid the turn.
    pub rewound_at: Option<i64>,
}

/// A turn of a session, in the order they started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionTurn {
    pub turn_id: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub stop_reason: Option<String>,
    /// The first user message delivered in it, if one was.
    pub prompt: Option<String>,
}

const COLUMNS: &str = "turn_id, session_id, root, manifest, files, skipped, took_ms, created_at,
     after_manifest, conversation, rewound_at";

type Row = (
    String,
    String,
    String,
    String,
    i64,
    String,
    i64,
    i64,
    Option<String>,
    Option<String>,
    Option<i64>,
);

fn from_row(row: Row) -> TurnSnapshot {
    let (turn_id, session_id, root, manifest, files, skipped, took_ms, created_at, after, conv, rw) =
        row;
    TurnSnapshot {
        turn_id,
        session_id,
        root,
        manifest,
        files: u64::try_from(files).unwrap_or(0),
        skipped,
        took_ms: u64::try_from(took_ms).unwrap_or(0),
        created_at,
        after_manifest: after,
        conversation: conv,
        rewound_at: rw,
    }
}

impl Store {
    /// Records the snapshot taken before `snapshot.turn_id` (once: a second record of
    /// the same turn is ignored).
    pub async fn record_turn_snapshot(&self, snapshot: &TurnSnapshot) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query(
            "INSERT INTO turn_snapshots
                 (turn_id, session_id, root, manifest, files, skipped, took_ms, created_at,
                  after_manifest, conversation, rewound_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (turn_id) DO NOTHING",
        )
        .bind(&snapshot.turn_id)
        .bind(&snapshot.session_id)
        .bind(&snapshot.root)
        .bind(&snapshot.manifest)
        .bind(i64::try_from(snapshot.files).unwrap_or(i64::MAX))
        .bind(&snapshot.skipped)
        .bind(i64::try_from(snapshot.took_ms).unwrap_or(i64::MAX))
        .bind(snapshot.created_at)
        .bind(&snapshot.after_manifest)
        .bind(&snapshot.conversation)
        .bind(snapshot.rewound_at)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// Records the workspace as turn `turn_id` left it (or as a rewind left it, for
    /// the turn before the ones it undid).
    pub async fn set_turn_after_snapshot(
        &self,
        turn_id: &str,
        manifest: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE turn_snapshots SET after_manifest = ? WHERE turn_id = ?")
            .bind(manifest)
            .bind(turn_id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Marks `turn_ids` undone by a rewind at `at`.
    pub async fn mark_turns_rewound(&self, turn_ids: &[String], at: i64) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        for id in turn_ids {
            sqlx::query("UPDATE turn_snapshots SET rewound_at = ? WHERE turn_id = ?")
                .bind(at)
                .bind(id)
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }

    /// The snapshots of `session_id`, oldest first.
    pub async fn turn_snapshots(&self, session_id: &str) -> Result<Vec<TurnSnapshot>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM turn_snapshots WHERE session_id = ? ORDER BY created_at, rowid"
        )))
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows.into_iter().map(from_row).collect())
    }

    /// Every blob id the recorded snapshots name (manifests before and after, and
    /// conversations), and every workspace root they were taken of: what pruning the
    /// shadow store keeps.
    pub async fn snapshot_references(&self) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let mut conn = self.conn().await?;
        let ids: Vec<(String,)> = sqlx::query_as(
            "SELECT manifest FROM turn_snapshots
             UNION SELECT after_manifest FROM turn_snapshots WHERE after_manifest IS NOT NULL
             UNION SELECT conversation FROM turn_snapshots WHERE conversation IS NOT NULL",
        )
        .fetch_all(&mut *conn)
        .await?;
        let roots: Vec<(String,)> = sqlx::query_as("SELECT DISTINCT root FROM turn_snapshots")
            .fetch_all(&mut *conn)
            .await?;
        Ok((
            ids.into_iter().map(|(id,)| id).collect(),
            roots.into_iter().map(|(r,)| r).collect(),
        ))
    }

    /// The turns of `session_id` in the order they started, each with the first user
    /// message it delivered (from the event log, which rewrites of the context do not
    /// touch).
    pub async fn session_turns(&self, session_id: &str) -> Result<Vec<SessionTurn>, StoreError> {
        let mut conn = self.conn().await?;
        type Row = (String, i64, Option<i64>, Option<String>);
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT id, started_at, ended_at, stop_reason
             FROM turns WHERE session_id = ? ORDER BY started_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        // Each turn's first user message, from one pass over the session's messages
        // (not one search of every event per turn).
        let messages: Vec<(Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT json_extract(payload, '$.turn_id'), json_extract(payload, '$.text')
             FROM events WHERE session_id = ? AND kind = 'user_message' ORDER BY seq",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        let mut prompts = std::collections::HashMap::new();
        for (turn_id, text) in messages {
            if let (Some(turn_id), Some(text)) = (turn_id, text) {
                prompts.entry(turn_id).or_insert(text);
            }
        }
        Ok(rows
            .into_iter()
            .map(|(turn_id, started_at, ended_at, stop_reason)| SessionTurn {
                prompt: prompts.remove(&turn_id),
                turn_id,
                started_at,
                ended_at,
                stop_reason,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn a_turns_snapshot_is_recorded_once_and_goes_with_its_session() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&new_session("0191ab-9", "/p"))
            .await
            .unwrap()
            .id;
        store.insert_turn("t1", &id).await.unwrap();
        let snap = TurnSnapshot {
            turn_id: "t1".into(),
            session_id: id.clone(),
            root: "/p".into(),
            manifest: "ab".repeat(32),
            files: 3,
            skipped: "[]".into(),
            took_ms: 4,
            created_at: 1,
            after_manifest: None,
            conversation: Some("cd".repeat(32)),
            rewound_at: None,
        };
        store.record_turn_snapshot(&snap).await.unwrap();
        store
            .record_turn_snapshot(&TurnSnapshot {
                files: 99,
                ..snap.clone()
            })
            .await
            .unwrap();
        assert_eq!(
            store.turn_snapshots(&id).await.unwrap(),
            std::slice::from_ref(&snap)
        );
        store
            .set_turn_after_snapshot("t1", &"ef".repeat(32))
            .await
            .unwrap();
        store.mark_turns_rewound(&["t1".into()], 7).await.unwrap();
        let (ids, roots) = store.snapshot_references().await.unwrap();
        assert_eq!(ids.len(), 3, "{ids:?}");
        assert_eq!(roots, ["/p"]);
        let got = &store.turn_snapshots(&id).await.unwrap()[0];
        assert_eq!(
            got.after_manifest.as_deref(),
            Some("ef".repeat(32).as_str())
        );
        assert_eq!(got.rewound_at, Some(7));
        let turns = store.session_turns(&id).await.unwrap();
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].turn_id, "t1");
        store.delete_session(&id).await.unwrap();
        assert!(store.turn_snapshots(&id).await.unwrap().is_empty());
    }
}
