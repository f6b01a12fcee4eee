//! Delivering a queued user message, or queued injections (an agent's inbox), in one
//! transaction: the item's status, its event and the context row that carries its text
//! commit together, so after a crash at any instant the item is either still queued
//! (and delivered by the next turn) or delivered exactly once — never marked delivered
//! and missing.

use roocode_protocol::content::Message;
use roocode_protocol::event::Event;
use sqlx::Connection as _;

use super::events::insert_events;
use super::messages::{insert_next, role_str};
use super::{Store, StoreError};

/// How the message's text enters the stored context.
#[derive(Debug, Clone, Copy)]
pub enum ContextWrite<'a> {
    /// A new message at position `idx` (which must be the end of the context).
    Push { idx: usize, message: &'a Message },
    /// The message at `idx` (the last one) now reads `message` (the text joined a
    /// user message, so roles keep alternating).
    Replace { idx: usize, message: &'a Message },
}

/// What is being delivered.
#[derive(Debug, Clone, Copy)]
pub enum Delivered<'a> {
    /// A queued user message (`inputs`).
    Input(&'a str),
    /// Queued injections of the agent's inbox (`injections`), all or none.
    Injections(&'a [i64]),
    /// Unread team mail of the agent (`mailbox`), all or none.
    Mail(&'a [i64]),
}

/// One queued item being delivered to a turn.
#[derive(Debug, Clone, Copy)]
pub struct Delivery<'a> {
    pub session_id: &'a str,
    pub item: Delivered<'a>,
    pub turn_id: &'a str,
    pub write: ContextWrite<'a>,
}

impl Store {
    /// Marks the item delivered, appends `events` (already numbered; its
    /// `user_message` or `injected` events) and writes the context row, all in one
    /// `BEGIN IMMEDIATE` transaction. An item that is not queued any more (delivered
    /// before) changes nothing and is an error, so nothing is delivered twice.
    pub async fn deliver(
        &self,
        delivery: Delivery<'_>,
        events: &[Event],
    ) -> Result<(), StoreError> {
        let Delivery {
            session_id,
            item,
            turn_id,
            write,
        } = delivery;
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        // One statement marks every item, each only if it is still waiting (`?1` the
        // items as a JSON array, `?2` the agent's session, `?3` the turn, `?4` now).
        let (mark, ids, what): (&str, Vec<serde_json::Value>, &str) = match item {
            Delivered::Input(id) => (
                "UPDATE inputs SET status = 'delivered', turn_id = ?3
                 WHERE id IN (SELECT value FROM json_each(?1)) AND session_id = ?2 AND status = 'queued'",
                vec![id.into()],
                "",
            ),
            Delivered::Injections(ids) => (
                "UPDATE injections SET status = 'delivered', turn_id = ?3
                 WHERE id IN (SELECT value FROM json_each(?1)) AND session_id = ?2 AND status = 'queued'",
                ids.iter().map(|&id| id.into()).collect(),
                "injection ",
            ),
            Delivered::Mail(ids) => (
                "UPDATE mailbox SET read_at = ?4, turn_id = ?3
                 WHERE id IN (SELECT value FROM json_each(?1)) AND recipient = ?2 AND read_at IS NULL",
                ids.iter().map(|&id| id.into()).collect(),
                "message ",
            ),
        };
        let marked = sqlx::query(mark)
            .bind(serde_json::Value::Array(ids.clone()).to_string())
            .bind(session_id)
            .bind(turn_id)
            .bind(crate::clock::now_ms())
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if marked != ids.len() as u64 {
            // Rolled back: one of them was delivered before.
            let ids: Vec<String> = ids
                .iter()
                .map(|id| id.as_str().map_or_else(|| id.to_string(), str::to_string))
                .collect();
            return Err(StoreError::NotQueued {
                input_id: format!("{what}{}", ids.join(", ")),
            });
        }
        insert_events(&mut tx, events).await?;
        let (idx, written) = match write {
            ContextWrite::Push { idx, message } => {
                let n = insert_next(&mut *tx, session_id, idx, message, Some(turn_id)).await?;
                (idx, n)
            }
            ContextWrite::Replace { idx, message } => {
                let n = sqlx::query(
                    "UPDATE messages SET role = ?1, content = ?2
                     WHERE session_id = ?3 AND idx = ?4
                       AND ?4 = (SELECT MAX(idx) FROM messages WHERE session_id = ?3)",
                )
                .bind(role_str(message.role))
                .bind(serde_json::to_string(&message.content)?)
                .bind(session_id)
                .bind(idx as i64)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                (idx, n)
            }
        };
        if written == 0 {
            let (len,): (i64,) = sqlx::query_as(
                "SELECT COALESCE(MAX(idx) + 1, 0) FROM messages WHERE session_id = ?",
            )
            .bind(session_id)
            .fetch_one(&mut *tx)
            .await?;
            return Err(StoreError::OutOfPlace {
                session_id: session_id.to_string(),
                idx,
                len: len as usize,
            });
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use roocode_protocol::event::EventPayload;

    use super::*;
    use crate::store::sessions::tests::new_session;

    fn user_message(seq: u64, input_id: &str, text: &str) -> Event {
        Event {
            seq,
            ts: "2026-01-01T00:00:00Z".into(),
            session_id: "s1".into(),
            agent_id: "s1".into(),
            payload: EventPayload::UserMessage {
                turn_id: "t1".into(),
                input_id: input_id.into(),
                text: text.into(),
            },
        }
    }

    #[tokio::test]
    async fn delivery_is_all_or_nothing_and_only_once() {
        let store = Store::memory().await.unwrap();
        store
            .insert_session(&new_session("s1", "/p"))
            .await
            .unwrap();
        store.insert_turn("t1", "s1").await.unwrap();
        store.queue_input("s1", "i1", "first", None).await.unwrap();
        store.queue_input("s1", "i2", "second", None).await.unwrap();
        let first = Message::user_text("first");
        let delivery = Delivery {
            session_id: "s1",
            item: Delivered::Input("i1"),
            turn_id: "t1",
            write: ContextWrite::Push {
                idx: 0,
                message: &first,
            },
        };
        store
            .deliver(delivery, &[user_message(1, "i1", "first")])
            .await
            .unwrap();
        assert_eq!(store.context("s1").await.unwrap(), vec![first.clone()]);
        assert_eq!(store.last_event_seq("s1").await.unwrap(), 1);

        // Delivered once: a second delivery of the same input changes nothing.
        let again = store
            .deliver(delivery, &[user_message(2, "i1", "first")])
            .await;
        assert!(
            matches!(again, Err(StoreError::NotQueued { .. })),
            "{again:?}"
        );
        assert_eq!(store.last_event_seq("s1").await.unwrap(), 1);

        // A context write that does not fit rolls the whole delivery back: the input
        // stays queued and its event is not stored.
        let second = Message::user_text("second");
        let misplaced = Delivery {
            item: Delivered::Input("i2"),
            write: ContextWrite::Push {
                idx: 5,
                message: &second,
            },
            ..delivery
        };
        let r = store
            .deliver(misplaced, &[user_message(2, "i2", "second")])
            .await;
        assert!(matches!(r, Err(StoreError::OutOfPlace { .. })), "{r:?}");
        assert_eq!(store.last_event_seq("s1").await.unwrap(), 1);
        let queued = store.queued_inputs("s1").await.unwrap();
        assert_eq!(queued.len(), 1);
        assert_eq!(queued[0].id, "i2");

        // Joining the last user message replaces it in place.
        let mut joined = first.clone();
        joined
            .content
            .push(roocode_protocol::content::ContentBlock::text("second"));
        let join = Delivery {
            item: Delivered::Input("i2"),
            write: ContextWrite::Replace {
                idx: 0,
                message: &joined,
            },
            ..delivery
        };
        store
            .deliver(join, &[user_message(2, "i2", "second")])
            .await
            .unwrap();
        assert_eq!(store.context("s1").await.unwrap(), vec![joined]);
        assert!(store.queued_inputs("s1").await.unwrap().is_empty());
    }
}
