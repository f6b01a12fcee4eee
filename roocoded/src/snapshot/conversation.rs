//! A conversation as it was before a turn, kept in the shadow store beside the files:
//! each message is a blob (its JSON), and the conversation is a blob listing them under
//! a header line, so a long session stores each message once however many turns it
//! has, and a rewind can put back the exact context a turn started from even after
//! compaction rewrote it.

use std::io;

use roocode_protocol::content::Message;

use super::objects::{BlobId, Objects};

/// The first line of a conversation blob (a manifest never starts with it).
const HEADER: &str = "roocode-conversation 1";

/// Stores `messages` and returns the conversation's blob.
pub fn put(objects: &Objects, messages: &[Message]) -> io::Result<BlobId> {
    let mut text = String::with_capacity(16 + messages.len() * 65);
    text.push_str(HEADER);
    text.push('\n');
    for message in messages {
        let json = serde_json::to_vec(message).map_err(io::Error::other)?;
        text.push_str(objects.put(&json)?.as_str());
        text.push('\n');
    }
    objects.put(text.as_bytes())
}

/// The messages of the conversation stored as `id`.
pub fn get(objects: &Objects, id: &BlobId) -> io::Result<Vec<Message>> {
    let damaged = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the stored conversation {id} is damaged ({what})"),
        )
    };
    let ids = message_ids(&objects.get(id)?).ok_or_else(|| damaged("not a conversation"))?;
    ids.iter()
        .map(|m| {
            let bytes = objects.get(m)?;
            serde_json::from_slice(&bytes).map_err(|e| damaged(&e.to_string()))
        })
        .collect()
}

/// The message blobs a conversation blob lists; `None` when `bytes` is not one.
pub(super) fn message_ids(bytes: &[u8]) -> Option<Vec<BlobId>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    lines.map(BlobId::parse).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::content::{ContentBlock, Role};

    #[test]
    fn a_conversation_round_trips_and_shares_its_messages() {
        let dir = tempfile::tempdir().unwrap();
        let objects = Objects::new(dir.path());
        let first = Message::user_text("fix the bug");
        let second = Message {
            role: Role::Assistant,
            content: vec![ContentBlock::Text {
                text: "done".into(),
            }],
        };
        let one = put(&objects, std::slice::from_ref(&first)).unwrap();
        let two = put(&objects, &[first.clone(), second.clone()]).unwrap();
        assert_eq!(get(&objects, &one).unwrap(), std::slice::from_ref(&first));
        assert_eq!(get(&objects, &two).unwrap(), [first, second]);
        let ids = message_ids(&objects.get(&two).unwrap()).unwrap();
        assert_eq!(message_ids(&objects.get(&one).unwrap()).unwrap()[0], ids[0]);
        assert!(message_ids(b"644 1 ab\tx").is_none(), "a manifest");
        assert!(
            get(&objects, &ids[0]).is_err(),
            "a message is not a conversation"
        );
    }
}
