//! What reaches the context between model calls: the user's queued messages, the
//! agent's inbox (task notifications, recovery reminders, …) and its team mail, each
//! delivered in the transaction that marks it delivered, so it reaches the model
//! exactly once, crash or not.

use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::event::EventPayload;

use super::{MAIL_PER_ITERATION_BYTES, Turn};
use crate::agent::AgentError;
use crate::store::{ContextWrite, Delivered, Delivery, InjectionKind, MailRow, StoreError};

impl Turn<'_> {
    /// Delivers the messages queued since the last model call. Each one's status,
    /// `user_message` event and context row commit in one transaction
    /// ([`crate::store::Store::deliver_input`]), so a crash never loses one.
    pub(super) async fn deliver_queued(&mut self) -> Result<(), AgentError> {
        let mut state = self.rt.state.lock().await;
        // Taken off the in-memory queue only once stored: a failed delivery leaves the
        // message queued in both places, for the next model call to deliver.
        while let Some(q) = state.queue.front().cloned() {
            let next = self.next_user_message(vec![ContentBlock::text(q.text.clone())]);
            let write = next.write(self.context.len());
            let delivery = Delivery {
                session_id: &self.rt.id,
                item: Delivered::Input(&q.input_id),
                turn_id: self.turn_id,
                write,
            };
            let payload = EventPayload::UserMessage {
                turn_id: self.turn_id.to_string(),
                input_id: q.input_id.clone(),
                text: q.text.clone(),
            };
            match self
                .engine
                .events()
                .append_delivery(delivery, vec![payload])
                .await
            {
                Ok(_) => {}
                // Delivered before (the store is the record): never twice.
                Err(StoreError::NotQueued { input_id }) => {
                    tracing::warn!(input = %input_id, "a queued message was delivered already; skipped");
                    state.queue.pop_front();
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
            self.apply(next);
            self.reset_continuations();
            self.user_spoke().await;
            self.workflow_user_message().await?;
            if let Some(scope) = q.scope {
                self.rt.scopes.push(scope);
            }
            state.queue.pop_front();
        }
        // Whatever is queued after this read wakes the agent again (see `wake`).
        state.woken = false;
        drop(state);
        self.deliver_injections().await
    }

    /// Delivers the agent's inbox (task notifications, recovery notes, …), in its fixed
    /// order, as one user turn of synthetic text blocks: marked delivered, recorded as
    /// `injected` events and written into the context in one transaction, so each item
    /// reaches the model exactly once, crash or not.
    pub(super) async fn deliver_injections(&mut self) -> Result<(), AgentError> {
        self.deliver_inbox(true).await
    }

    /// [`Turn::deliver_injections`], the team mail left for the next iteration unless
    /// `with_mail` (an iteration reads at most `MAIL_PER_ITERATION_BYTES` of it).
    pub(super) async fn deliver_inbox(&mut self, with_mail: bool) -> Result<(), AgentError> {
        let (items, mut mail) = self.engine.store().inbox(self.id()).await?;
        if !with_mail {
            mail.clear();
        }
        if items.is_empty() {
            return self.deliver_mail(mail).await;
        }
        let blocks: Vec<ContentBlock> = items
            .iter()
            .map(|i| ContentBlock::text(injected_text(i.kind, &i.text)))
            .collect();
        let next = self.next_user_message(blocks);
        let write = next.write(self.context.len());
        let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
        let delivery = Delivery {
            session_id: &self.rt.id,
            item: Delivered::Injections(&ids),
            turn_id: self.turn_id,
            write,
        };
        let payloads = items
            .iter()
            .map(|i| EventPayload::Injected {
                turn_id: self.turn_id.to_string(),
                kind: i.kind.as_str().to_string(),
                text: i.text.clone(),
            })
            .collect();
        match self
            .engine
            .events()
            .append_delivery(delivery, payloads)
            .await
        {
            Ok(_) => {}
            Err(StoreError::NotQueued { input_id }) => {
                tracing::warn!(item = %input_id, "an injection was delivered already; skipped");
                return self.deliver_mail(mail).await;
            }
            Err(e) => return Err(e.into()),
        }
        self.apply(next);
        tracing::info!(count = ids.len(), "inbox delivered");
        self.deliver_mail(mail).await
    }

    /// Delivers the agent's unread team mail, one `<teammate-message>` block each, in
    /// the transaction that marks it read (the mailbox is the record; a crash before
    /// the commit leaves it unread, after it delivered once).
    async fn deliver_mail(&mut self, mut mail: Vec<MailRow>) -> Result<(), AgentError> {
        if mail.is_empty() {
            return Ok(());
        }
        // A flood of mail is read over several iterations, never all at once.
        let mut size = 0;
        let fits = mail
            .iter()
            .take_while(|m| {
                size += m.body.len() + m.summary.len();
                size <= MAIL_PER_ITERATION_BYTES
            })
            .count();
        if fits.max(1) < mail.len() {
            mail.truncate(fits.max(1));
            // What is left is read at the next iteration, or in one more turn if this
            // one ends first.
            self.rt.state.lock().await.woken = true;
        }
        let mut blocks = Vec::with_capacity(mail.len());
        let mut payloads = Vec::with_capacity(mail.len());
        // One lookup per sender, however many messages it sent.
        let mut names: std::collections::HashMap<&str, String> = Default::default();
        for m in &mail {
            if !names.contains_key(m.sender.as_str()) {
                let name = self.engine.team_name_of(&m.team_id, &m.sender).await;
                names.insert(&m.sender, name);
            }
            let from = names.get(m.sender.as_str()).cloned().unwrap_or_default();
            let text = crate::agent::team::mail_text(m, &from);
            blocks.push(ContentBlock::text(text.clone()));
            payloads.push(EventPayload::Injected {
                turn_id: self.turn_id.to_string(),
                kind: "team_message".into(),
                text,
            });
        }
        let next = self.next_user_message(blocks);
        let ids: Vec<i64> = mail.iter().map(|m| m.id).collect();
        let delivery = Delivery {
            session_id: &self.rt.id,
            item: Delivered::Mail(&ids),
            turn_id: self.turn_id,
            write: next.write(self.context.len()),
        };
        match self
            .engine
            .events()
            .append_delivery(delivery, payloads)
            .await
        {
            Ok(_) => {}
            Err(StoreError::NotQueued { input_id }) => {
                tracing::warn!(item = %input_id, "a message was read already; skipped");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
        self.apply(next);
        tracing::info!(count = ids.len(), "team mail delivered");
        Ok(())
    }

    /// `blocks` as the context's next user turn: joined to its last message when that
    /// is a user message (tool results, another delivered text), so roles keep
    /// alternating; else a new message.
    fn next_user_message(&self, blocks: Vec<ContentBlock>) -> NextUser {
        match self.context.last() {
            Some(last) if last.role == Role::User => {
                let mut last = last.clone();
                last.content.extend(blocks);
                NextUser::Joined(last)
            }
            _ => NextUser::New(Message {
                role: Role::User,
                content: blocks,
            }),
        }
    }

    /// The in-memory side of a delivery the store has committed.
    fn apply(&mut self, next: NextUser) {
        match next {
            NextUser::Joined(message) => self.context.edit_last(|last| *last = message),
            NextUser::New(message) => self.context.push(message),
        }
    }
}

/// What a delivery adds to the context (see `Turn::next_user_message`).
enum NextUser {
    /// The last message, with the new blocks.
    Joined(Message),
    New(Message),
}

impl NextUser {
    /// The store's side of it, for a context of `len` messages.
    fn write(&self, len: usize) -> ContextWrite<'_> {
        match self {
            NextUser::Joined(message) => ContextWrite::Replace {
                idx: len - 1,
                message,
            },
            NextUser::New(message) => ContextWrite::Push { idx: len, message },
        }
    }
}

/// An inbox item as the model reads it: a task notification as it is (its own tag),
/// anything else as a system reminder.
fn injected_text(kind: InjectionKind, text: &str) -> String {
    match kind {
        InjectionKind::TaskNotification => text.to_string(),
        _ => format!("<system-reminder>\n{text}\n</system-reminder>"),
    }
}
