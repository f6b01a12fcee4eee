//! The `mailbox` table: messages between the members of a team (the lead included),
//! the one source of truth for them. Sending is one transaction — a broadcast writes one
//! row per recipient — and a recipient's turn marks its unread rows read in the
//! transaction that writes them into its context (`Delivered::Mail`).

use sqlx::Connection as _;
use sqlx::SqliteConnection;

use super::{Store, StoreError};
use crate::clock;

/// What a message is (`mailbox.kind`); the recipient's prompt treats each differently
/// (a status update is information, never an order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailKind {
    Message,
    StatusUpdate,
    TaskAssignment,
    ShutdownRequest,
    ShutdownResponse,
    PlanApprovalRequest,
    PlanApprovalResponse,
    /// From the daemon on a teammate's behalf: its loop ended and it is idle.
    IdleNotification,
}

impl MailKind {
    pub const ALL: [MailKind; 8] = [
        MailKind::Message,
        MailKind::StatusUpdate,
        MailKind::TaskAssignment,
        MailKind::ShutdownRequest,
        MailKind::ShutdownResponse,
        MailKind::PlanApprovalRequest,
        MailKind::PlanApprovalResponse,
        MailKind::IdleNotification,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MailKind::Message => "message",
            MailKind::StatusUpdate => "status_update",
            MailKind::TaskAssignment => "task_assignment",
            MailKind::ShutdownRequest => "shutdown_request",
            MailKind::ShutdownResponse => "shutdown_response",
            MailKind::PlanApprovalRequest => "plan_approval_request",
            MailKind::PlanApprovalResponse => "plan_approval_response",
            MailKind::IdleNotification => "idle_notification",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A message to send.
#[derive(Debug, Clone)]
pub struct NewMail<'a> {
    pub team_id: &'a str,
    /// The sender's agent id.
    pub sender: &'a str,
    pub kind: MailKind,
    pub summary: &'a str,
    pub body: &'a str,
    pub request_id: Option<&'a str>,
    pub approve: Option<bool>,
}

/// A message as stored, for one recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailRow {
    pub id: i64,
    pub team_id: String,
    pub sender: String,
    pub recipient: String,
    pub kind: MailKind,
    pub summary: String,
    pub body: String,
    pub request_id: Option<String>,
    pub approve: Option<bool>,
    pub created_at: i64,
    pub read: bool,
}

type StoredMail = (
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<i64>,
    i64,
    Option<i64>,
);

/// `recipient`'s unread mail, as sent.
pub(super) async fn unread_mail(
    conn: &mut SqliteConnection,
    recipient: &str,
) -> Result<Vec<MailRow>, StoreError> {
    let rows: Vec<StoredMail> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE recipient = ? AND read_at IS NULL ORDER BY id"
    )))
    .bind(recipient)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(mail).collect())
}

fn mail(r: StoredMail) -> MailRow {
    let (
        id,
        team_id,
        sender,
        recipient,
        kind,
        summary,
        body,
        request_id,
        approve,
        created_at,
        read_at,
    ) = r;
    MailRow {
        id,
        team_id,
        sender,
        recipient,
        kind: MailKind::parse(&kind).unwrap_or(MailKind::Message),
        summary,
        body,
        request_id,
        approve: approve.map(|a| a != 0),
        created_at,
        read: read_at.is_some(),
    }
}

const SELECT: &str = "SELECT id, team_id, sender, recipient, kind, summary, body, request_id, approve, created_at, read_at FROM mailbox";

/// Rows per `INSERT` statement: nine bound values each, far below SQLite's limit of
/// 32,766 per statement.
const ROWS_PER_INSERT: usize = 1000;

/// Writes `m` for every agent of `recipients`, `ROWS_PER_INSERT` per statement (inside
/// the caller's transaction if it has one); the new rows' ids, in the order of
/// `recipients`.
pub(super) async fn insert_mail(
    conn: &mut sqlx::SqliteConnection,
    m: &NewMail<'_>,
    recipients: &[&str],
) -> Result<Vec<i64>, StoreError> {
    let now = clock::now_ms();
    let mut ids = Vec::with_capacity(recipients.len());
    for chunk in recipients.chunks(ROWS_PER_INSERT) {
        let mut insert = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT INTO mailbox (team_id, sender, recipient, kind, summary, body, request_id, approve, created_at) ",
        );
        insert.push_values(chunk, |mut row, to| {
            row.push_bind(m.team_id)
                .push_bind(m.sender)
                .push_bind(*to)
                .push_bind(m.kind.as_str())
                .push_bind(m.summary)
                .push_bind(m.body)
                .push_bind(m.request_id)
                .push_bind(m.approve.map(i64::from))
                .push_bind(now);
        });
        insert.push(" RETURNING id");
        let rows: Vec<(i64,)> = insert.build_query_as().fetch_all(&mut *conn).await?;
        // RETURNING promises no order; ids grow in the order the rows were inserted.
        let mut chunk_ids: Vec<i64> = rows.into_iter().map(|(id,)| id).collect();
        chunk_ids.sort_unstable();
        ids.extend(chunk_ids);
    }
    Ok(ids)
}

impl Store {
    /// Sends `m` to every agent of `recipients`, all or none; the new rows' ids.
    pub async fn send_mail(
        &self,
        m: &NewMail<'_>,
        recipients: &[&str],
    ) -> Result<Vec<i64>, StoreError> {
        let mut conn = self.conn().await?;
        if recipients.len() <= ROWS_PER_INSERT {
            // One statement is a transaction of its own.
            return insert_mail(&mut conn, m, recipients).await;
        }
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        let ids = insert_mail(&mut tx, m, recipients).await?;
        tx.commit().await?;
        Ok(ids)
    }

    /// The unread mail of agent `recipient`, oldest first.
    pub async fn unread_mail(&self, recipient: &str) -> Result<Vec<MailRow>, StoreError> {
        unread_mail(&mut *self.conn().await?, recipient).await
    }

    /// Whether `recipient` has unread mail sent at `since` (ms) or later.
    pub async fn has_unread_mail_since(
        &self,
        recipient: &str,
        since: i64,
    ) -> Result<bool, StoreError> {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM mailbox WHERE recipient = ? AND read_at IS NULL AND created_at >= ?",
        )
        .bind(recipient)
        .bind(since)
        .fetch_one(&mut *self.conn().await?)
        .await?;
        Ok(n > 0)
    }

    /// The team's messages carrying `request_id` (a request and its answers), oldest
    /// first.
    pub async fn request_mail(
        &self,
        team_id: &str,
        request_id: &str,
    ) -> Result<Vec<MailRow>, StoreError> {
        let rows: Vec<StoredMail> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE team_id = ? AND request_id = ? ORDER BY id"
        )))
        .bind(team_id)
        .bind(request_id)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(mail).collect())
    }

    /// The newest message of `kind` that `sender` sent (a broadcast's first row).
    pub async fn last_sent(
        &self,
        sender: &str,
        kind: MailKind,
    ) -> Result<Option<MailRow>, StoreError> {
        let row: Option<StoredMail> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE sender = ? AND kind = ? ORDER BY id DESC LIMIT 1"
        )))
        .bind(sender)
        .bind(kind.as_str())
        .fetch_optional(&mut *self.conn().await?)
        .await?;
        Ok(row.map(mail))
    }

    /// Every message of the team (`mailbox.list`), or of one agent's mailbox.
    pub async fn team_mail(
        &self,
        team_id: &str,
        recipient: Option<&str>,
    ) -> Result<Vec<MailRow>, StoreError> {
        let rows: Vec<StoredMail> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE team_id = ?1 AND (?2 IS NULL OR recipient = ?2) ORDER BY id"
        )))
        .bind(team_id)
        .bind(recipient)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(mail).collect())
    }
}

#[cfg(test)]
mod tests {
    use roocode_protocol::content::Message;

    use super::*;
    use crate::store::teams::tests::team;
    use crate::store::{ContextWrite, Delivered, Delivery, StoreError};

    fn note<'a>(sender: &'a str, body: &'a str) -> NewMail<'a> {
        NewMail {
            team_id: "t1",
            sender,
            kind: MailKind::StatusUpdate,
            summary: "progress on the build",
            body,
            request_id: None,
            approve: None,
        }
    }

    #[tokio::test]
    async fn mail_is_read_once_in_the_transaction_that_delivers_it() {
        let store = team().await;
        // A broadcast from `a`: one row for each of the others.
        let ids = store
            .send_mail(&note("a", "half done"), &["lead", "b"])
            .await
            .unwrap();
        assert_eq!(ids.len(), 2);
        assert!(store.unread_mail("a").await.unwrap().is_empty());
        let unread = store.unread_mail("b").await.unwrap();
        assert_eq!(unread.len(), 1);
        assert_eq!(unread[0].kind, MailKind::StatusUpdate);

        store.insert_turn("t", "b").await.unwrap();
        let message = Message::user_text("half done");
        let mine = [unread[0].id];
        let delivery = Delivery {
            session_id: "b",
            item: Delivered::Mail(&mine),
            turn_id: "t",
            write: ContextWrite::Push {
                idx: 0,
                message: &message,
            },
        };
        store.deliver(delivery, &[]).await.unwrap();
        assert!(store.unread_mail("b").await.unwrap().is_empty());
        assert_eq!(store.context("b").await.unwrap(), vec![message.clone()]);
        let again = Delivery {
            write: ContextWrite::Push {
                idx: 1,
                message: &message,
            },
            ..delivery
        };
        assert!(matches!(
            store.deliver(again, &[]).await,
            Err(StoreError::NotQueued { .. })
        ));
        // Only mail sent since a time counts for has_unread_mail_since.
        let sent = store.unread_mail("lead").await.unwrap()[0].created_at;
        assert!(store.has_unread_mail_since("lead", sent).await.unwrap());
        assert!(!store.has_unread_mail_since("lead", sent + 1).await.unwrap());
        assert!(!store.has_unread_mail_since("b", 0).await.unwrap(), "read");
        // The lead's copy is still unread; the team's list has both.
        assert_eq!(store.unread_mail("lead").await.unwrap().len(), 1);
        assert_eq!(store.team_mail("t1", None).await.unwrap().len(), 2);
        assert!(store.team_mail("t1", Some("b")).await.unwrap()[0].read);
    }

    #[tokio::test]
    async fn reads_by_sender_and_by_request_use_their_indexes() {
        let store = team().await;
        let plan = |sql: &'static str| {
            let store = store.clone();
            async move {
                let rows: Vec<(i64, i64, i64, String)> = sqlx::query_as(sql)
                    .bind("a")
                    .bind("b")
                    .fetch_all(&mut *store.conn().await.unwrap())
                    .await
                    .unwrap();
                rows.into_iter().map(|r| r.3).collect::<Vec<_>>().join("; ")
            }
        };
        let by_sender = plan("EXPLAIN QUERY PLAN SELECT id FROM mailbox WHERE sender = ? AND kind = ? ORDER BY id DESC LIMIT 1").await;
        assert!(by_sender.contains("mailbox_by_sender"), "{by_sender}");
        let by_request =
            plan("EXPLAIN QUERY PLAN SELECT id FROM mailbox WHERE team_id = ? AND request_id = ? ORDER BY id").await;
        assert!(by_request.contains("mailbox_by_request"), "{by_request}");
    }

    #[test]
    fn kinds_read_back_as_written() {
        for kind in MailKind::ALL {
            assert_eq!(MailKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(MailKind::parse("order"), None);
    }
}
