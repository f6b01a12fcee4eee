//! The `recovery_attempts` table: per session and [`Category`], how many attempts
//! recovery has made in a row at the same cause, kept across daemon restarts (a third
//! recurrence after a crash is the third, not the first). A row whose category this
//! daemon does not know (a newer one's) is ignored, never an error.

use super::{Store, StoreError};
use crate::recovery::Category;

/// One category's count in one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryAttempts {
    pub category: Category,
    /// What failed: the tool and file of a malformed call or a missed edit, empty for
    /// the model call's failures.
    pub cause: String,
    pub attempts: u32,
    /// The last error's message.
    pub last_error: String,
}

impl Store {
    /// Counts one more attempt at `category` in `session_id` and returns the count: one
    /// more than before for the same `cause`, 1 for a new one (the count is of failures
    /// in a row for the same cause).
    pub async fn record_recovery_attempt(
        &self,
        session_id: &str,
        category: Category,
        cause: &str,
        error: &str,
    ) -> Result<u32, StoreError> {
        let mut conn = self.conn().await?;
        let (attempts,): (i64,) = sqlx::query_as(
            "INSERT INTO recovery_attempts (session_id, category, cause, attempts, last_error, updated_at)
             VALUES (?1, ?2, ?3, 1, ?4, ?5)
             ON CONFLICT (session_id, category) DO UPDATE SET
                 attempts = CASE WHEN cause = excluded.cause THEN attempts + 1 ELSE 1 END,
                 cause = excluded.cause,
                 last_error = excluded.last_error,
                 updated_at = excluded.updated_at
             RETURNING attempts",
        )
        .bind(session_id)
        .bind(category.as_str())
        .bind(cause)
        .bind(error)
        .bind(crate::clock::now_ms())
        .fetch_one(&mut *conn)
        .await?;
        Ok(u32::try_from(attempts).unwrap_or(u32::MAX))
    }

    /// The counts of `session_id`, by category (unknown categories left out).
    pub async fn recovery_attempts(
        &self,
        session_id: &str,
    ) -> Result<Vec<RecoveryAttempts>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(String, String, i64, String)> = sqlx::query_as(
            "SELECT category, cause, attempts, last_error FROM recovery_attempts
             WHERE session_id = ? ORDER BY category",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(category, cause, attempts, last_error)| {
                Some(RecoveryAttempts {
                    category: Category::from_name(&category)?,
                    cause,
                    attempts: u32::try_from(attempts.max(0)).unwrap_or(u32::MAX),
                    last_error,
                })
            })
            .collect())
    }

    /// A success at what `categories` are about (the model answered, the calls ran):
    /// their counts of `session_id` start again.
    pub async fn clear_recovery_categories(
        &self,
        session_id: &str,
        categories: &[Category],
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        for category in categories {
            sqlx::query("DELETE FROM recovery_attempts WHERE session_id = ? AND category = ?")
                .bind(session_id)
                .bind(category.as_str())
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }

    /// A genuine message of the user's: every count of `session_id` starts again.
    pub async fn clear_recovery_attempts(&self, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query("DELETE FROM recovery_attempts WHERE session_id = ?")
            .bind(session_id)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn attempts_count_in_a_row_per_cause_and_clear_on_success() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&new_session("0191ab-1", "/p"))
            .await
            .unwrap()
            .id;
        let edit = Category::EditError;
        for expected in 1..=3 {
            let n = store
                .record_recovery_attempt(&id, edit, "Edit src/a.rs", "old_string was not found")
                .await
                .unwrap();
            assert_eq!(n, expected);
        }
        let other = store
            .record_recovery_attempt(&id, edit, "Edit src/b.rs", "occurs 2 times")
            .await
            .unwrap();
        assert_eq!(other, 1, "another file is another cause");
        store
            .record_recovery_attempt(&id, Category::RateLimited, "", "HTTP 429")
            .await
            .unwrap();
        let rows = store.recovery_attempts(&id).await.unwrap();
        assert_eq!(
            rows.iter()
                .map(|r| (r.category, r.cause.as_str(), r.attempts))
                .collect::<Vec<_>>(),
            [
                (Category::EditError, "Edit src/b.rs", 1),
                (Category::RateLimited, "", 1)
            ]
        );
        assert_eq!(rows[0].last_error, "occurs 2 times");
        store
            .clear_recovery_categories(&id, &[Category::RateLimited, Category::Network])
            .await
            .unwrap();
        let rows = store.recovery_attempts(&id).await.unwrap();
        assert_eq!(rows.len(), 1, "only the edit's count is left: {rows:?}");
        store.clear_recovery_attempts(&id).await.unwrap();
        assert!(store.recovery_attempts(&id).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn counts_survive_a_reopened_database_and_unknown_categories_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("roocode.db");
        let id = {
            let store = Store::open(&path).await.unwrap();
            let id = store
                .insert_session(&new_session("0191ab-2", "/p"))
                .await
                .unwrap()
                .id;
            for _ in 0..2 {
                store
                    .record_recovery_attempt(&id, Category::Overloaded, "", "HTTP 529")
                    .await
                    .unwrap();
            }
            let mut conn = store.conn().await.unwrap();
            sqlx::query(
                "INSERT INTO recovery_attempts (session_id, category, attempts, updated_at)
                 VALUES (?, 'from_the_future', 3, 0)",
            )
            .bind(&id)
            .execute(&mut *conn)
            .await
            .unwrap();
            id
        };
        let store = Store::open(&path).await.unwrap();
        let third = store
            .record_recovery_attempt(&id, Category::Overloaded, "", "HTTP 529")
            .await
            .unwrap();
        assert_eq!(third, 3, "a restart continues the count");
        let rows = store.recovery_attempts(&id).await.unwrap();
        assert_eq!(rows.len(), 1, "{rows:?}");
    }
}
