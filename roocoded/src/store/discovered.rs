//! The `discovered_tools` table: the deferred tools (DESIGN.md §7, deferred loading)
//! each agent has discovered, whose full schemas its requests carry from then on.

use super::{Store, StoreError};

impl Store {
    /// The tools the agent of `session_id` has discovered, by name.
    pub async fn discovered_tools(&self, session_id: &str) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn().await?;
        let names: Vec<(String,)> =
            sqlx::query_as("SELECT name FROM discovered_tools WHERE session_id = ? ORDER BY name")
                .bind(session_id)
                .fetch_all(&mut *conn)
                .await?;
        Ok(names.into_iter().map(|(n,)| n).collect())
    }

    /// Records that the agent of `session_id` discovered `names` (known ones ignored).
    pub async fn add_discovered_tools(
        &self,
        session_id: &str,
        names: &[String],
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        for name in names {
            sqlx::query("INSERT OR IGNORE INTO discovered_tools (session_id, name) VALUES (?, ?)")
                .bind(session_id)
                .bind(name)
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::sessions::tests::new_session;
    use super::*;

    #[tokio::test]
    async fn discovered_tools_are_kept_per_session_and_go_with_it() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&new_session("0191aa-1", "/p"))
            .await
            .unwrap()
            .id;
        assert!(store.discovered_tools(&id).await.unwrap().is_empty());
        let names = vec!["mcp__b__x".to_string(), "mcp__a__y".to_string()];
        store.add_discovered_tools(&id, &names).await.unwrap();
        store.add_discovered_tools(&id, &names[..1]).await.unwrap();
        assert_eq!(
            store.discovered_tools(&id).await.unwrap(),
            ["mcp__a__y", "mcp__b__x"]
        );
        store.delete_session(&id).await.unwrap();
        assert!(store.discovered_tools(&id).await.unwrap().is_empty());
    }
}
