//! The `messages` table: each session's model context, the history sent to the
//! provider. Kept apart from the event log because compaction and `/clear` rewrite it.

use roocode_protocol::content::{ContentBlock, Message, Role};

use super::{Store, StoreError};
use crate::clock;

#[derive(sqlx::FromRow)]
struct MessageRow {
    role: String,
    content: String,
}

fn role_str(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

impl Store {
    /// The whole model context of a session, in order.
    pub async fn context(&self, session_id: &str) -> Result<Vec<Message>, StoreError> {
        let rows = sqlx::query_as::<_, MessageRow>(
            "SELECT role, content FROM messages WHERE session_id = ? ORDER BY idx",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(Message {
                    role: if r.role == "assistant" {
                        Role::Assistant
                    } else {
                        Role::User
                    },
                    content: serde_json::from_str::<Vec<ContentBlock>>(&r.content)?,
                })
            })
            .collect()
    }

    /// A page of the context: messages `offset..offset+limit` as JSON lines.
    pub async fn context_lines(
        &self,
        session_id: &str,
        offset: u64,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query_as::<_, MessageRow>(
            "SELECT role, content FROM messages WHERE session_id = ? ORDER BY idx LIMIT ? OFFSET ?",
        )
        .bind(session_id)
        .bind(i64::from(limit))
        .bind(offset as i64)
        .fetch_all(&self.pool)
        .await?;
        // `content` is stored as JSON already; keep `role` first for readers of the file.
        Ok(rows
            .into_iter()
            .map(|r| format!(r#"{{"role":"{}","content":{}}}"#, r.role, r.content))
            .collect())
    }

    /// Appends one message at position `idx` (the current context length).
    pub async fn push_message(
        &self,
        session_id: &str,
        idx: usize,
        msg: &Message,
        turn_id: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO messages (session_id, idx, role, content, turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(session_id)
        .bind(idx as i64)
        .bind(role_str(msg.role))
        .bind(serde_json::to_string(&msg.content)?)
        .bind(turn_id)
        .bind(clock::now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Replaces the message at `idx` (used when a user message gains queued text).
    pub async fn update_message(
        &self,
        session_id: &str,
        idx: usize,
        msg: &Message,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE messages SET role = ?, content = ? WHERE session_id = ? AND idx = ?")
            .bind(role_str(msg.role))
            .bind(serde_json::to_string(&msg.content)?)
            .bind(session_id)
            .bind(idx as i64)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Rewrites the whole context in one transaction (repair, compaction, `/clear`).
    pub async fn replace_context(
        &self,
        session_id: &str,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query("DELETE FROM messages WHERE session_id = ?")
            .bind(session_id)
            .execute(&mut *tx)
            .await?;
        let now = clock::now_ms();
        for (idx, msg) in messages.iter().enumerate() {
            sqlx::query(
                "INSERT INTO messages (session_id, idx, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            )
            .bind(session_id)
            .bind(idx as i64)
            .bind(role_str(msg.role))
            .bind(serde_json::to_string(&msg.content)?)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::sessions::tests::new_session;

    #[tokio::test]
    async fn push_update_replace_and_page() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store
            .push_message("s1", 0, &Message::user_text("hi"), Some("T"))
            .await
            .unwrap();
        let reply = Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text("hello")],
        };
        store
            .push_message("s1", 1, &reply, Some("T"))
            .await
            .unwrap();
        store
            .update_message("s1", 0, &Message::user_text("hi there"))
            .await
            .unwrap();
        let ctx = store.context("s1").await.unwrap();
        assert_eq!(ctx, vec![Message::user_text("hi there"), reply.clone()]);
        let lines = store.context_lines("s1", 1, 10).await.unwrap();
        assert_eq!(
            lines,
            vec![r#"{"role":"assistant","content":[{"type":"text","text":"hello"}]}"#]
        );
        store
            .replace_context("s1", std::slice::from_ref(&reply))
            .await
            .unwrap();
        assert_eq!(store.context("s1").await.unwrap(), vec![reply]);
    }
}
