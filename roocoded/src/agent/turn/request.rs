//! The messages of a turn's model request: the context borrowed as it is, with the
//! session's reminders added to copies of the two messages that carry them, so that a
//! call on a long history copies one or two messages, not the history.

use std::borrow::Cow;

use roocode_protocol::content::{ContentBlock, Message, Role};

/// `context` as a request's messages: `reminder` (instruction files and the memory
/// index) first in the first user message, and `plan_reminder` last in the last
/// message. Those two are copied; every other message is borrowed.
pub(super) fn messages<'c>(
    context: &'c [Message],
    reminder: Option<&str>,
    plan_reminder: Option<String>,
) -> Vec<Cow<'c, Message>> {
    let mut messages: Vec<Cow<'c, Message>> = context.iter().map(Cow::Borrowed).collect();
    // Instructions and the memory index ride in the conversation, so the system
    // prompt stays byte-stable for prompt caching.
    if let Some(reminder) = reminder
        && let Some(first) = messages.iter_mut().find(|m| m.role == Role::User)
    {
        first
            .to_mut()
            .content
            .insert(0, ContentBlock::text(reminder));
    }
    if let Some(plan_reminder) = plan_reminder
        && let Some(last) = messages.last_mut()
    {
        last.to_mut()
            .content
            .push(ContentBlock::text(plan_reminder));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(text: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text(text)],
        }
    }

    fn borrowed(messages: &[Cow<'_, Message>]) -> Vec<bool> {
        messages
            .iter()
            .map(|m| matches!(m, Cow::Borrowed(_)))
            .collect()
    }

    #[test]
    fn only_the_messages_that_get_a_reminder_are_copied() {
        let context = vec![
            Message::user_text("one"),
            assistant("A"),
            Message::user_text("two"),
            assistant("B"),
            Message::user_text("three"),
        ];
        let plain = messages(&context, None, None);
        assert_eq!(borrowed(&plain), [true; 5]);
        assert!(plain.iter().zip(&context).all(|(m, c)| **m == *c));

        let both = messages(&context, Some("<r>"), Some("<plan>".into()));
        assert_eq!(borrowed(&both), [false, true, true, true, false]);
        assert_eq!(
            both[0].content,
            [ContentBlock::text("<r>"), ContentBlock::text("one")]
        );
        assert_eq!(
            both[4].content,
            [ContentBlock::text("three"), ContentBlock::text("<plan>")]
        );
        assert!(
            both[1..4]
                .iter()
                .zip(&context[1..4])
                .all(|(m, c)| **m == *c)
        );
        assert_eq!(
            context[0],
            Message::user_text("one"),
            "the context is unchanged"
        );
    }

    #[test]
    fn one_message_gets_both_reminders_and_an_empty_context_none() {
        let context = vec![Message::user_text("only")];
        let sent = messages(&context, Some("<r>"), Some("<plan>".into()));
        assert_eq!(
            sent[0].content,
            [
                ContentBlock::text("<r>"),
                ContentBlock::text("only"),
                ContentBlock::text("<plan>")
            ]
        );
        assert!(messages(&[], Some("<r>"), Some("<plan>".into())).is_empty());
        // A reminder goes to the first *user* message.
        let context = vec![assistant("A"), Message::user_text("u")];
        let sent = messages(&context, Some("<r>"), None);
        assert_eq!(borrowed(&sent), [true, false]);
    }
}
