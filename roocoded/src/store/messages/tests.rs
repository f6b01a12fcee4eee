//! Tests of the `messages` table: the position invariant under every writer, paging,
//! tail replacement and writing only what changed.

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
    let (count, min, max): (i64, Option<i64>, Option<i64>) =
        sqlx::query_as("SELECT COUNT(*), MIN(idx), MAX(idx) FROM messages WHERE session_id = ?")
            .bind(session_id)
            .fetch_one(&mut *store.conn().await.unwrap())
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
    let many = numbered(WRITE_CHUNK * 2 + 3);
    store.replace_context_from("s1", 1, &many).await.unwrap();
    let ctx = store.context("s1").await.unwrap();
    assert_eq!(ctx[1..], many[..]);
    assert_contiguous(&store, "s1", many.len() + 1).await;

    // Past the end would leave a gap: refused, nothing written.
    let gap = store.replace_context_from("s1", ctx.len() + 1, &tail).await;
    assert!(matches!(gap, Err(StoreError::OutOfPlace { .. })), "{gap:?}");
    assert_eq!(store.context("s1").await.unwrap(), ctx);
}

/// `turn_id` of each stored row, in order: `Some` only on rows never rewritten.
async fn turn_ids(store: &Store, session_id: &str) -> Vec<Option<String>> {
    let rows: Vec<(Option<String>,)> =
        sqlx::query_as("SELECT turn_id FROM messages WHERE session_id = ? ORDER BY idx")
            .bind(session_id)
            .fetch_all(&mut *store.conn().await.unwrap())
            .await
            .unwrap();
    rows.into_iter().map(|(t,)| t).collect()
}

#[tokio::test]
async fn replacing_the_context_writes_only_the_rows_that_changed() {
    let store = Store::memory().await.unwrap();
    store
        .insert_session(&new_session("s1", "/p"))
        .await
        .unwrap();
    let mut ctx = numbered(40);
    for (i, msg) in ctx.iter().enumerate() {
        store.push_message("s1", i, msg, Some("T")).await.unwrap();
    }
    let t = Some("T".to_string());

    // The same context: nothing is rewritten.
    store.replace_context("s1", &ctx).await.unwrap();
    assert_eq!(turn_ids(&store, "s1").await, vec![t.clone(); 40]);

    // A few scattered changes and one more message (stale results, a repair).
    ctx[3] = Message::user_text("cleared");
    ctx[30] = Message::user_text("cleared too");
    ctx.push(Message::user_text("appended"));
    store.replace_context("s1", &ctx).await.unwrap();
    assert_eq!(store.context("s1").await.unwrap(), ctx);
    let ids = turn_ids(&store, "s1").await;
    let rewritten: Vec<usize> = (0..ids.len()).filter(|&i| ids[i].is_none()).collect();
    assert_eq!(rewritten, vec![3, 30, 40]);
    assert_contiguous(&store, "s1", 41).await;

    // Shorter with the same start: the end is deleted, the rest untouched.
    ctx.truncate(10);
    store.replace_context("s1", &ctx).await.unwrap();
    assert_eq!(store.context("s1").await.unwrap(), ctx);
    assert_eq!(
        turn_ids(&store, "s1").await[..3],
        [t.clone(), t.clone(), t.clone()]
    );
    assert_contiguous(&store, "s1", 10).await;

    // A message inserted first shifts all the others: all are rewritten.
    ctx.insert(0, Message::user_text("first"));
    store.replace_context("s1", &ctx).await.unwrap();
    assert_eq!(store.context("s1").await.unwrap(), ctx);
    assert!(turn_ids(&store, "s1").await.iter().all(Option::is_none));
    assert_contiguous(&store, "s1", 11).await;
}

#[tokio::test]
async fn any_replacement_stores_exactly_the_new_context() {
    let store = Store::memory().await.unwrap();
    store
        .insert_session(&new_session("s1", "/p"))
        .await
        .unwrap();
    let mut rng = fastrand::Rng::with_seed(5);
    let mut ctx: Vec<Message> = Vec::new();
    for round in 0..150 {
        // Edit the current context at random: change, insert, remove, cut, clear.
        for _ in 0..rng.usize(0..6) {
            let at = rng.usize(0..=ctx.len());
            let msg = Message::user_text(format!("r{round} {}", rng.u32(..)));
            match rng.usize(0..10) {
                0..=2 if at < ctx.len() => ctx[at] = msg,
                5 if at < ctx.len() => {
                    ctx.remove(at);
                }
                6 => ctx.truncate(at),
                7 if rng.usize(0..10) == 0 => ctx.clear(),
                // Past a full multi-row INSERT now and then.
                8 if rng.usize(0..4) == 0 => ctx.extend(
                    (0..WRITE_CHUNK + 5).map(|i| Message::user_text(format!("r{round} bulk {i}"))),
                ),
                _ => ctx.insert(at, msg),
            }
        }
        // Half the rounds replace a tail only: what is before `start` stays.
        let old = store.context("s1").await.unwrap();
        if rng.bool() {
            let start = rng.usize(0..=ctx.len().min(old.len()));
            store
                .replace_context_from("s1", start, &ctx[start..])
                .await
                .unwrap();
            let expected: Vec<Message> =
                old[..start].iter().chain(&ctx[start..]).cloned().collect();
            assert_eq!(
                store.context("s1").await.unwrap(),
                expected,
                "round {round}"
            );
            assert_contiguous(&store, "s1", expected.len()).await;
        }
        store.replace_context("s1", &ctx).await.unwrap();
        assert_eq!(store.context("s1").await.unwrap(), ctx, "round {round}");
        assert_contiguous(&store, "s1", ctx.len()).await;
    }
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
