//! The `turn_snapshots` table: per turn, the manifest of the workspace snapshot taken
//! before it (see `crate::snapshot`), with how many files it holds and which it left
//! out, so a rewind can restore them and say what it cannot.

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
}

impl Store {
    /// Records the snapshot taken before `snapshot.turn_id` (once: a second record of
    /// the same turn is ignored).
    pub async fn record_turn_snapshot(&self, snapshot: &TurnSnapshot) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query(
            "INSERT INTO turn_snapshots
                 (turn_id, session_id, root, manifest, files, skipped, took_ms, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
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
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// The snapshots of `session_id`, oldest first.
    pub async fn turn_snapshots(&self, session_id: &str) -> Result<Vec<TurnSnapshot>, StoreError> {
        let mut conn = self.conn().await?;
        type Row = (String, String, String, String, i64, String, i64, i64);
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT turn_id, session_id, root, manifest, files, skipped, took_ms, created_at
             FROM turn_snapshots WHERE session_id = ? ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(turn_id, session_id, root, manifest, files, skipped, took_ms, created_at)| {
                    TurnSnapshot {
                        turn_id,
                        session_id,
                        root,
                        manifest,
                        files: u64::try_from(files).unwrap_or(0),
                        skipped,
                        took_ms: u64::try_from(took_ms).unwrap_or(0),
                        created_at,
                    }
                },
            )
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
        };
        store.record_turn_snapshot(&snap).await.unwrap();
        store
            .record_turn_snapshot(&TurnSnapshot {
                files: 99,
                ..snap.clone()
            })
            .await
            .unwrap();
        assert_eq!(store.turn_snapshots(&id).await.unwrap(), [snap]);
        store.delete_session(&id).await.unwrap();
        assert!(store.turn_snapshots(&id).await.unwrap().is_empty());
    }
}
