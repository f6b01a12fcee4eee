//! The `process_groups` table: command process groups that are running, so that a
//! daemon restarting after a crash can kill what was left behind.

use super::{Store, StoreError};
use crate::clock;

/// A recorded process group.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ProcessGroupRow {
    pub pgid: i64,
    pub session_id: String,
    pub command: String,
    pub boot_id: String,
}

impl Store {
    pub async fn record_process_group(
        &self,
        pgid: i32,
        session_id: &str,
        command: &str,
        boot_id: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT OR REPLACE INTO process_groups (pgid, session_id, command, boot_id, started_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(i64::from(pgid))
        .bind(session_id)
        .bind(command)
        .bind(boot_id)
        .bind(clock::now_ms())
        .execute(&mut *self.conn().await?)
        .await?;
        Ok(())
    }

    pub async fn forget_process_group(&self, pgid: i32) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM process_groups WHERE pgid = ?")
            .bind(i64::from(pgid))
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    pub async fn process_groups(&self) -> Result<Vec<ProcessGroupRow>, StoreError> {
        Ok(sqlx::query_as::<_, ProcessGroupRow>(
            "SELECT pgid, session_id, command, boot_id FROM process_groups ORDER BY started_at",
        )
        .fetch_all(&mut *self.conn().await?)
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn record_list_forget() {
        let store = Store::memory().await.unwrap();
        store
            .record_process_group(4242, "s", "sleep 9", "boot-1")
            .await
            .unwrap();
        let rows = store.process_groups().await.unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].command, "sleep 9");
        store.forget_process_group(4242).await.unwrap();
        assert!(store.process_groups().await.unwrap().is_empty());
    }
}
