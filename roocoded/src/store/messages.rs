//! The `messages` table: each session's model context, the history sent to the
//! provider. Kept apart from the event log because compaction and `/clear` rewrite it.
//!
//! Invariant: the `idx` of a session's messages run from 0 to n − 1 with no gap, so a
//! message's `idx` is its position in the context. Every writer keeps it:
//! [`Store::push_message`] refuses any `idx` but the next one,
//! [`Store::replace_context_from`] (and so [`Store::replace_context`]) refuses to start
//! past the end and writes `start..start + n` after deleting `start..`, and
//! [`Store::update_message`] never moves a row.
//! Readers rely on it: the session row counts messages as `MAX(idx) + 1` (an index
//! lookup instead of a scan of the whole context) and export pages by `idx` range.

use roocode_protocol::content::{ContentBlock, Message, Role};

use super::{Store, StoreError};
use crate::clock;

#[derive(sqlx::FromRow)]
struct MessageRow {
    role: String,
    content: String,
}

impl MessageRow {
    fn into_message(self) -> Result<Message, StoreError> {
        Ok(Message {
            role: if self.role == "assistant" {
                Role::Assistant
            } else {
                Role::User
            },
            content: serde_json::from_str::<Vec<ContentBlock>>(&self.content)?,
        })
    }
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
        rows.into_iter().map(MessageRow::into_message).collect()
    }

    /// The messages from position `start` to the end, in order.
    pub async fn context_from(
        &self,
        session_id: &str,
        start: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let rows = sqlx::query_as::<_, MessageRow>(
            "SELECT role, content FROM messages WHERE session_id = ? AND idx >= ? ORDER BY idx",
        )
        .bind(session_id)
        .bind(start as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(MessageRow::into_message).collect()
    }

    /// Position of the last assistant message, if any. Walks back from the end, reading
    /// only the start of each row: in a valid history it is one of the last two.
    pub async fn last_assistant_idx(&self, session_id: &str) -> Result<Option<usize>, StoreError> {
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT idx FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY idx DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(idx,)| idx as usize))
    }

    /// A page of the context: messages `offset..offset+limit` as JSON lines.
    pub async fn context_lines(
        &self,
        session_id: &str,
        offset: u64,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        // Positions are `idx` (module invariant): a range seek, not an OFFSET scan.
        let start = i64::try_from(offset).unwrap_or(i64::MAX);
        let rows = sqlx::query_as::<_, MessageRow>(
            "SELECT role, content FROM messages WHERE session_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
        )
        .bind(session_id)
        .bind(start)
        .bind(start.saturating_add(i64::from(limit)))
        .fetch_all(&self.pool)
        .await?;
        // `content` is stored as JSON already; keep `role` first for readers of the file.
        Ok(rows
            .into_iter()
            .map(|r| format!(r#"{{"role":"{}","content":{}}}"#, r.role, r.content))
            .collect())
    }

    /// Number of messages in a session's context (an index lookup: see the invariant).
    pub async fn context_len(&self, session_id: &str) -> Result<usize, StoreError> {
        let (len,): (i64,) =
            sqlx::query_as("SELECT COALESCE(MAX(idx) + 1, 0) FROM messages WHERE session_id = ?")
                .bind(session_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(usize::try_from(len).unwrap_or(0))
    }

    /// Appends one message at position `idx`, which must be the current context length
    /// (anything else would leave a gap or collide, breaking the module invariant).
    pub async fn push_message(
        &self,
        session_id: &str,
        idx: usize,
        msg: &Message,
        turn_id: Option<&str>,
    ) -> Result<(), StoreError> {
        // The check and the insert are one statement, so no other writer can slip in
        // between them.
        let inserted = sqlx::query(
            "INSERT INTO messages (session_id, idx, role, content, turn_id, created_at)
             SELECT ?1, ?2, ?3, ?4, ?5, ?6
             WHERE ?2 = (SELECT COALESCE(MAX(idx) + 1, 0) FROM messages WHERE session_id = ?1)",
        )
        .bind(session_id)
        .bind(idx as i64)
        .bind(role_str(msg.role))
        .bind(serde_json::to_string(&msg.content)?)
        .bind(turn_id)
        .bind(clock::now_ms())
        .execute(&self.pool)
        .await?
        .rows_affected();
        if inserted == 0 {
            return Err(StoreError::OutOfPlace {
                session_id: session_id.to_string(),
                idx,
                len: self.context_len(session_id).await?,
            });
        }
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

    /// Rewrites the whole context in one transaction (repair, compaction, `/clear`):
    /// positions 0..n, as the module invariant wants.
    pub async fn replace_context(
        &self,
        session_id: &str,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        self.replace_context_from(session_id, 0, messages).await
    }

    /// Replaces the messages from position `start` on with `messages`, in one
    /// transaction; the positions before `start` are left alone. `start` must not be
    /// past the end of the stored context (that would leave a gap).
    pub async fn replace_context_from(
        &self,
        session_id: &str,
        start: usize,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let rows = encode(messages)?;
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let (len,): (i64,) =
            sqlx::query_as("SELECT COALESCE(MAX(idx) + 1, 0) FROM messages WHERE session_id = ?")
                .bind(session_id)
                .fetch_one(&mut *tx)
                .await?;
        let len = len as usize;
        if start > len {
            return Err(StoreError::OutOfPlace {
                session_id: session_id.to_string(),
                idx: start,
                len,
            });
        }
        sqlx::query("DELETE FROM messages WHERE session_id = ? AND idx >= ?")
            .bind(session_id)
            .bind(start as i64)
            .execute(&mut *tx)
            .await?;
        insert_rows(&mut tx, session_id, start, &rows).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// A message as stored: its role and its content as JSON.
struct EncodedRow {
    role: &'static str,
    content: String,
}

/// Encodes before any transaction starts, so a failure leaves nothing half-written and
/// the write lock is held only for writing.
fn encode(messages: &[Message]) -> Result<Vec<EncodedRow>, StoreError> {
    messages
        .iter()
        .map(|m| {
            Ok(EncodedRow {
                role: role_str(m.role),
                content: serde_json::to_string(&m.content)?,
            })
        })
        .collect()
}

/// Rows per multi-row INSERT (5 parameters each: far under SQLite's limit of 32,766).
const INSERT_CHUNK: usize = 100;

/// Inserts `rows` at positions `start..`, many rows per statement.
async fn insert_rows(
    tx: &mut sqlx::SqliteConnection,
    session_id: &str,
    start: usize,
    rows: &[EncodedRow],
) -> Result<(), StoreError> {
    let now = clock::now_ms();
    for (c, chunk) in rows.chunks(INSERT_CHUNK).enumerate() {
        let first = start + c * INSERT_CHUNK;
        let mut insert = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT INTO messages (session_id, idx, role, content, created_at) ",
        );
        insert.push_values(chunk.iter().enumerate(), |mut values, (i, row)| {
            values
                .push_bind(session_id)
                .push_bind((first + i) as i64)
                .push_bind(row.role)
                .push_bind(row.content.as_str())
                .push_bind(now);
        });
        insert.build().execute(&mut *tx).await?;
    }
    Ok(())
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

    /// Checks the module invariant the hard way (a full count) against the cheap
    /// count that the session row and `context_len` use.
    async fn assert_contiguous(store: &Store, session_id: &str, expected: usize) {
        let (count, min, max): (i64, Option<i64>, Option<i64>) = sqlx::query_as(
            "SELECT COUNT(*), MIN(idx), MAX(idx) FROM messages WHERE session_id = ?",
        )
        .bind(session_id)
        .fetch_one(&store.pool)
        .await
        .unwrap();
        assert_eq!(count as usize, expected);
        if expected > 0 {
            assert_eq!((min, max), (Some(0), Some(expected as i64 - 1)));
        }
        assert_eq!(store.context_len(session_id).await.unwrap(), expected);
        let row = store.session(session_id).await.unwrap().unwrap();
        assert_eq!(row.message_count as usize, expected);
        assert_eq!(store.context(session_id).await.unwrap().len(), expected);
    }

    fn numbered(n: usize) -> Vec<Message> {
        (0..n)
            .map(|i| Message::user_text(format!("message {i}")))
            .collect()
    }

    #[tokio::test]
    async fn every_writer_keeps_positions_contiguous() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        assert_contiguous(&store, "s1", 0).await;
        for (i, msg) in numbered(3).iter().enumerate() {
            store.push_message("s1", i, msg, None).await.unwrap();
        }
        assert_contiguous(&store, "s1", 3).await;
        store
            .update_message("s1", 1, &Message::user_text("changed"))
            .await
            .unwrap();
        assert_contiguous(&store, "s1", 3).await;
        store.replace_context("s1", &numbered(7)).await.unwrap();
        assert_contiguous(&store, "s1", 7).await;
        store.replace_context("s1", &numbered(2)).await.unwrap();
        assert_contiguous(&store, "s1", 2).await;
        store
            .push_message("s1", 2, &Message::user_text("next"), None)
            .await
            .unwrap();
        assert_contiguous(&store, "s1", 3).await;
        // `/clear`.
        store.replace_context("s1", &[]).await.unwrap();
        assert_contiguous(&store, "s1", 0).await;
    }

    #[tokio::test]
    async fn a_push_out_of_place_is_refused_and_writes_nothing() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        let msg = Message::user_text("x");
        let gap = store.push_message("s1", 1, &msg, None).await;
        assert!(
            matches!(gap, Err(StoreError::OutOfPlace { idx: 1, len: 0, .. })),
            "{gap:?}"
        );
        store.push_message("s1", 0, &msg, None).await.unwrap();
        let again = store.push_message("s1", 0, &msg, None).await;
        assert!(
            matches!(again, Err(StoreError::OutOfPlace { idx: 0, len: 1, .. })),
            "{again:?}"
        );
        assert_contiguous(&store, "s1", 1).await;
        // Another session's messages do not count.
        store
            .insert_session(&new_session("s2", "/p"))
            .await
            .unwrap();
        store.push_message("s2", 0, &msg, None).await.unwrap();
        assert_contiguous(&store, "s1", 1).await;
        assert_contiguous(&store, "s2", 1).await;
    }

    #[tokio::test]
    async fn replacing_from_a_position_keeps_what_is_before_it() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        assert_eq!(store.last_assistant_idx("s1").await.unwrap(), None);
        let reply = Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text("ok")],
        };
        let mut ctx = numbered(3);
        ctx.insert(1, reply.clone());
        store.replace_context("s1", &ctx).await.unwrap();
        assert_eq!(store.last_assistant_idx("s1").await.unwrap(), Some(1));
        assert_eq!(store.context_from("s1", 1).await.unwrap(), ctx[1..]);
        assert!(store.context_from("s1", 9).await.unwrap().is_empty());

        // Shorter, longer, at the end (an append), and many rows (several INSERTs).
        let tail = numbered(2);
        store.replace_context_from("s1", 2, &tail).await.unwrap();
        let expected: Vec<Message> = ctx[..2].iter().chain(&tail).cloned().collect();
        assert_eq!(store.context("s1").await.unwrap(), expected);
        assert_contiguous(&store, "s1", 4).await;
        store
            .replace_context_from("s1", 4, std::slice::from_ref(&reply))
            .await
            .unwrap();
        assert_contiguous(&store, "s1", 5).await;
        assert_eq!(store.last_assistant_idx("s1").await.unwrap(), Some(4));
        let many = numbered(INSERT_CHUNK * 2 + 3);
        store.replace_context_from("s1", 1, &many).await.unwrap();
        let ctx = store.context("s1").await.unwrap();
        assert_eq!(ctx[1..], many[..]);
        assert_contiguous(&store, "s1", many.len() + 1).await;

        // Past the end would leave a gap: refused, nothing written.
        let gap = store.replace_context_from("s1", ctx.len() + 1, &tail).await;
        assert!(matches!(gap, Err(StoreError::OutOfPlace { .. })), "{gap:?}");
        assert_eq!(store.context("s1").await.unwrap(), ctx);
    }

    #[tokio::test]
    async fn export_pages_by_position() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store.replace_context("s1", &numbered(5)).await.unwrap();
        let text = |lines: Vec<String>| {
            lines
                .iter()
                .map(|l| serde_json::from_str::<Message>(l).unwrap().text())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            text(store.context_lines("s1", 0, 2).await.unwrap()),
            ["message 0", "message 1"]
        );
        assert_eq!(
            text(store.context_lines("s1", 3, 10).await.unwrap()),
            ["message 3", "message 4"]
        );
        assert!(store.context_lines("s1", 5, 2).await.unwrap().is_empty());
        assert!(
            store
                .context_lines("s1", u64::MAX, u32::MAX)
                .await
                .unwrap()
                .is_empty()
        );
    }
}
