//! The `messages` table: each session's model context, the history sent to the
//! provider. Kept apart from the event log because compaction and `/clear` rewrite it.
//!
//! Invariant: the `idx` of a session's messages run from 0 to n − 1 with no gap, so a
//! message's `idx` is its position in the context. Every writer keeps it:
//! [`Store::push_message`] refuses any `idx` but the next one,
//! [`Store::replace_context_from`] (and so [`Store::replace_context`]) refuses to start
//! past the end, then updates rows in place, deletes those from `start + n` on and
//! inserts the missing ones up to `start + n`, and [`Store::update_message`] never moves
//! a row.
//! Readers rely on it: the session row counts messages as `MAX(idx) + 1` (an index
//! lookup instead of a scan of the whole context) and export pages by `idx` range.

use roocode_protocol::content::{ContentBlock, Message, Role};
use sqlx::Connection as _;

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

pub(super) fn role_str(role: Role) -> &'static str {
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
        .fetch_all(&mut *self.conn().await?)
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
        .fetch_all(&mut *self.conn().await?)
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
        .fetch_optional(&mut *self.conn().await?)
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
        .fetch_all(&mut *self.conn().await?)
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
                .fetch_one(&mut *self.conn().await?)
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
        let inserted = insert_next(&mut *self.conn().await?, session_id, idx, msg, turn_id).await?;
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
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Replaces the whole context in one transaction (repair, compaction, `/clear`):
    /// positions 0..n, as the module invariant wants. Only what changed is written
    /// (see [`Store::replace_context_from`]).
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
    ///
    /// Rows that already hold the message meant for their position are not written
    /// (they keep their `turn_id` and `created_at`; a rewritten row has none and the
    /// time of the rewrite): a repair that touches the last messages, or clearing some
    /// old tool results, writes those rows only, not the whole history. Changed rows
    /// are updated many per statement, new ones inserted many per statement.
    pub async fn replace_context_from(
        &self,
        session_id: &str,
        start: usize,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let rows = encode(messages)?;
        let end = start + rows.len();
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
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
        // What is stored at the positions that both the old and the new context have.
        let stored = sqlx::query_as::<_, MessageRow>(
            "SELECT role, content FROM messages WHERE session_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
        )
        .bind(session_id)
        .bind(start as i64)
        .bind(end as i64)
        .fetch_all(&mut *tx)
        .await?;
        let changed: Vec<usize> = stored
            .iter()
            .zip(&rows)
            .enumerate()
            .filter(|(_, (old, new))| old.role != new.role || old.content != new.content)
            .map(|(i, _)| i)
            .collect();
        let now = clock::now_ms();
        for chunk in changed.chunks(WRITE_CHUNK) {
            let mut update = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
                "UPDATE messages SET role = v.column2, content = v.column3, turn_id = NULL, created_at = ",
            );
            update.push_bind(now).push(" FROM (");
            update.push_values(chunk, |mut values, &i| {
                values
                    .push_bind((start + i) as i64)
                    .push_bind(rows[i].role)
                    .push_bind(rows[i].content.as_str());
            });
            update
                .push(") AS v WHERE messages.session_id = ")
                .push_bind(session_id)
                .push(" AND messages.idx = v.column1");
            update.build().execute(&mut *tx).await?;
        }
        if len > end {
            sqlx::query("DELETE FROM messages WHERE session_id = ? AND idx >= ?")
                .bind(session_id)
                .bind(end as i64)
                .execute(&mut *tx)
                .await?;
        }
        let kept = stored.len();
        insert_rows(&mut tx, session_id, start + kept, &rows[kept..], now).await?;
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

/// Rows per multi-row INSERT or UPDATE (at most 5 parameters each: far under SQLite's
/// limit of 32,766).
const WRITE_CHUNK: usize = 100;

/// Inserts `rows` at positions `start..`, many rows per statement.
/// Inserts `msg` at `idx` if `idx` is the session's next position; the rows written (0:
/// out of place). The check and the insert are one statement, so no other writer can
/// slip in between them. On the pool or inside a caller's transaction.
pub(super) async fn insert_next<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    session_id: &str,
    idx: usize,
    msg: &Message,
    turn_id: Option<&str>,
) -> Result<u64, StoreError> {
    Ok(sqlx::query(
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
    .execute(executor)
    .await?
    .rows_affected())
}

async fn insert_rows(
    tx: &mut sqlx::SqliteConnection,
    session_id: &str,
    start: usize,
    rows: &[EncodedRow],
    now: i64,
) -> Result<(), StoreError> {
    for (c, chunk) in rows.chunks(WRITE_CHUNK).enumerate() {
        let first = start + c * WRITE_CHUNK;
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
mod tests;
