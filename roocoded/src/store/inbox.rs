//! The `injections` table: each agent's durable inbox of texts due before its next
//! model call. Items are queued here by whoever has something to tell the agent and
//! delivered by its turn with [`Store::deliver`](super::Store::deliver), in the
//! transaction that writes them into its context.

use sqlx::SqliteConnection;

use super::mailbox::unread_mail;
use super::{MailRow, Store, StoreError};
use crate::clock;

/// What an injection is; the order in which a batch is delivered (lowest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
///
/// The variants are in delivery order (DESIGN.md §7, issue 14 item 6): built-in
/// reminders, skills, hooks, recovery, then notifications (team mail comes after all of
/// them). Instruction files and memory are not queued: every request carries them.
pub enum InjectionKind {
    /// The deferred tools the agent can load with ToolSearch changed.
    DeferredTools,
    /// The skills the model may load changed (their names and descriptions).
    SkillListing,
    /// A skill the user activated (`|name|`): its instructions, in priority order.
    Skill,
    /// A hook's correction (`post_tool_use` complaint) or injected text.
    Hook,
    /// The daemon stopped during the agent's work (recovery).
    Recovery,
    /// A background agent the agent started has ended (`<task-notification>`).
    TaskNotification,
    /// A workflow function's news: its instructions, its wait, its end, an observer's
    /// text, a continuation.
    Workflow,
}

impl InjectionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InjectionKind::Recovery => "recovery",
            InjectionKind::TaskNotification => "task_notification",
            InjectionKind::DeferredTools => "deferred_tools",
            InjectionKind::SkillListing => "skill_listing",
            InjectionKind::Skill => "skill",
            InjectionKind::Hook => "hook",
            InjectionKind::Workflow => "workflow",
        }
    }

    /// A kind this build does not know reads as a task notification (delivered, never
    /// dropped).
    pub fn parse(name: &str) -> Self {
        match name {
            "recovery" => InjectionKind::Recovery,
            "deferred_tools" => InjectionKind::DeferredTools,
            "skill_listing" => InjectionKind::SkillListing,
            "skill" => InjectionKind::Skill,
            "hook" => InjectionKind::Hook,
            "workflow" => InjectionKind::Workflow,
            _ => InjectionKind::TaskNotification,
        }
    }
}

/// A queued injection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectionRow {
    pub id: i64,
    pub kind: InjectionKind,
    pub text: String,
}

pub(super) async fn insert_injection(
    conn: &mut SqliteConnection,
    session_id: &str,
    kind: InjectionKind,
    text: &str,
) -> Result<i64, StoreError> {
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO injections (session_id, kind, text, status, created_at) VALUES (?, ?, ?, 'queued', ?) RETURNING id",
    )
    .bind(session_id)
    .bind(kind.as_str())
    .bind(text)
    .bind(clock::now_ms())
    .fetch_one(conn)
    .await?;
    Ok(id)
}

async fn queued_injections(
    conn: &mut SqliteConnection,
    session_id: &str,
) -> Result<Vec<InjectionRow>, StoreError> {
    let rows: Vec<(i64, String, String)> = sqlx::query_as(
        "SELECT id, kind, text FROM injections WHERE session_id = ? AND status = 'queued' ORDER BY id",
    )
    .bind(session_id)
    .fetch_all(conn)
    .await?;
    let mut items: Vec<InjectionRow> = rows
        .into_iter()
        .map(|(id, kind, text)| InjectionRow {
            id,
            kind: InjectionKind::parse(&kind),
            text,
        })
        .collect();
    items.sort_by_key(|i| (i.kind, i.id));
    Ok(items)
}

impl Store {
    /// Queues an injection for the agent of `session_id`; returns its id.
    pub async fn queue_injection(
        &self,
        session_id: &str,
        kind: InjectionKind,
        text: &str,
    ) -> Result<i64, StoreError> {
        let mut conn = self.conn().await?;
        insert_injection(&mut conn, session_id, kind, text).await
    }

    /// The agent's queued injections in delivery order: by kind, then as queued.
    pub async fn queued_injections(
        &self,
        session_id: &str,
    ) -> Result<Vec<InjectionRow>, StoreError> {
        queued_injections(&mut *self.conn().await?, session_id).await
    }

    /// Everything in the agent's inbox, read together: its queued injections (in
    /// delivery order) and its unread mail (as sent).
    pub async fn inbox(
        &self,
        session_id: &str,
    ) -> Result<(Vec<InjectionRow>, Vec<MailRow>), StoreError> {
        let mut conn = self.conn().await?;
        let injections = queued_injections(&mut conn, session_id).await?;
        let mail = unread_mail(&mut conn, session_id).await?;
        Ok((injections, mail))
    }

    /// Whether the agent's inbox holds anything not delivered yet: a queued injection
    /// or unread team mail.
    pub async fn has_queued_injections(&self, session_id: &str) -> Result<bool, StoreError> {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM injections WHERE session_id = ?1 AND status = 'queued')
                  + (SELECT COUNT(*) FROM mailbox WHERE recipient = ?1 AND read_at IS NULL)",
        )
        .bind(session_id)
        .fetch_one(&mut *self.conn().await?)
        .await?;
        Ok(n > 0)
    }

    /// Sessions with queued injections or unread mail (woken at start, after a crash).
    pub async fn sessions_with_injections(&self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT session_id FROM injections WHERE status = 'queued'
             UNION SELECT recipient FROM mailbox WHERE read_at IS NULL
             ORDER BY 1",
        )
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }
}

#[cfg(test)]
mod tests {
    use roocode_protocol::content::Message;

    use super::*;
    use crate::store::sessions::tests::new_session;
    use crate::store::{ContextWrite, Delivered, Delivery};

    #[tokio::test]
    async fn every_kind_has_its_fixed_place_whatever_the_order_it_came_in() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        // Queued in the worst order: the reverse of delivery, two of a kind apart.
        let arrivals = [
            (InjectionKind::TaskNotification, "notification 1"),
            (InjectionKind::Recovery, "recovery"),
            (InjectionKind::Hook, "hook correction 1"),
            (InjectionKind::Skill, "skill style (priority 10)"),
            (InjectionKind::TaskNotification, "notification 2"),
            (InjectionKind::Hook, "hook correction 2"),
            (InjectionKind::Skill, "skill lint (priority 50)"),
            (InjectionKind::SkillListing, "skill listing"),
            (InjectionKind::DeferredTools, "deferred tools"),
        ];
        for (kind, text) in arrivals {
            store.queue_injection("s1", kind, text).await.unwrap();
        }
        let order: Vec<String> = store
            .queued_injections("s1")
            .await
            .unwrap()
            .into_iter()
            .map(|i| i.text)
            .collect();
        assert_eq!(
            order,
            [
                "deferred tools",
                "skill listing",
                "skill style (priority 10)",
                "skill lint (priority 50)",
                "hook correction 1",
                "hook correction 2",
                "recovery",
                "notification 1",
                "notification 2",
            ],
            "built-in reminders, skills (as queued: by priority), hooks, recovery, notifications"
        );
        for kind in [
            InjectionKind::DeferredTools,
            InjectionKind::SkillListing,
            InjectionKind::Skill,
            InjectionKind::Hook,
            InjectionKind::Recovery,
            InjectionKind::TaskNotification,
        ] {
            assert_eq!(
                InjectionKind::parse(kind.as_str()),
                kind,
                "{kind:?} round-trips"
            );
        }
    }

    #[tokio::test]
    async fn injections_come_out_in_kind_order_and_are_delivered_once() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store.insert_turn("t1", "s1").await.unwrap();
        let a = store
            .queue_injection("s1", InjectionKind::TaskNotification, "a")
            .await
            .unwrap();
        let r = store
            .queue_injection("s1", InjectionKind::Recovery, "r")
            .await
            .unwrap();
        let queued = store.queued_injections("s1").await.unwrap();
        let ids: Vec<i64> = queued.iter().map(|i| i.id).collect();
        assert_eq!(ids, vec![r, a], "recovery notes come first");
        assert_eq!(store.sessions_with_injections().await.unwrap(), vec!["s1"]);

        let message = Message::user_text("r\na");
        let delivery = Delivery {
            session_id: "s1",
            item: Delivered::Injections(&ids),
            turn_id: "t1",
            write: ContextWrite::Push {
                idx: 0,
                message: &message,
            },
        };
        store.deliver(delivery, &[]).await.unwrap();
        assert!(store.queued_injections("s1").await.unwrap().is_empty());
        assert_eq!(store.context("s1").await.unwrap(), vec![message.clone()]);
        // Delivered once: the same items again change nothing.
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
        assert_eq!(store.context("s1").await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn the_inbox_is_the_queued_injections_and_the_unread_mail_together() {
        let store = crate::store::teams::tests::team().await;
        let mail = crate::store::NewMail {
            team_id: "t1",
            sender: "a",
            kind: crate::store::MailKind::Message,
            summary: "the build",
            body: "the build is green",
            request_id: None,
            approve: None,
        };
        let sent = store.send_mail(&mail, &["b"]).await.unwrap();
        let note = store
            .queue_injection("b", InjectionKind::TaskNotification, "done")
            .await
            .unwrap();
        let (injections, unread) = store.inbox("b").await.unwrap();
        assert_eq!(injections.iter().map(|i| i.id).collect::<Vec<_>>(), [note]);
        assert_eq!(unread.iter().map(|m| m.id).collect::<Vec<_>>(), sent);
        assert_eq!(unread[0].body, "the build is green");
        // Nothing of b's is in a's inbox.
        let (injections, unread) = store.inbox("a").await.unwrap();
        assert!(injections.is_empty() && unread.is_empty());
    }
}
