//! Layer 2 of context management: when the budget tightens, tool results older than
//! the last few turns (and the last few iterations, for one long turn) are replaced by a one-line stub naming the call, so the model
//! knows what it had and can run the call again.
//!
//! Only the `content` string of `ToolResult` blocks changes (and their images go, each
//! counted as [`IMAGE_CHARS`]): tool_use blocks, ids, `is_error` and the message
//! structure stay as they were, so a valid chain stays valid.

use roocode_protocol::content::{ContentBlock, Message, Role};
use serde_json::Value;

use super::budget::IMAGE_TOKENS;
use super::large_results::spilled_path;

/// How every stub starts; results starting with it are never cleared again.
const STUB_PREFIX: &str = "[cleared to save context: ";

/// Input keys that name what a call was about, most telling first.
const MAIN_ARGS: [&str; 8] = [
    "file_path",
    "command",
    "pattern",
    "path",
    "url",
    "query",
    "notebook_path",
    "description",
];

/// Longest argument value quoted in a stub, in chars.
const MAX_ARG_CHARS: usize = 80;

/// What one image of a result weighs here, in chars: its token estimate at four chars
/// a token (its base64 is not text the model reads).
pub const IMAGE_CHARS: usize = IMAGE_TOKENS as usize * 4;

/// What [`clear_stale_results`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClearReport {
    /// Results replaced by a stub.
    pub cleared: usize,
    /// Chars removed from the history (old length minus stub length).
    pub chars_saved: usize,
}

/// Whether `message` starts a turn: a user message with real text, not only results.
fn starts_turn(message: &Message) -> bool {
    message.role == Role::User
        && message
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text { text } if !text.trim().is_empty()))
}

/// What counts as recent, and so is never cleared: the last `turns` turns, but no
/// more than the last `iterations` iterations (model calls), so that one long turn of
/// many tool calls does not protect all of its own results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recent {
    pub turns: usize,
    pub iterations: usize,
}

impl Recent {
    /// The last `turns` turns, however many iterations they hold.
    pub fn turns(turns: usize) -> Self {
        Self {
            turns,
            iterations: usize::MAX,
        }
    }
}

/// Index of the first message of the last `keep_recent_turns` turns; everything
/// before it is old. Zero (nothing old) when there are not that many turns.
fn cutoff(messages: &[Message], keep_recent_turns: usize) -> usize {
    last_nth_start(messages, keep_recent_turns, starts_turn)
}

/// Index of the assistant message that opens the last `keep` iterations; zero when
/// there are not that many.
fn iteration_cutoff(messages: &[Message], keep: usize) -> usize {
    last_nth_start(messages, keep, |m| m.role == Role::Assistant)
}

/// Index of the `n`th message from the end that satisfies `starts`; the length for
/// zero, zero when there are fewer.
fn last_nth_start(messages: &[Message], n: usize, starts: impl Fn(&Message) -> bool) -> usize {
    if n == 0 {
        return messages.len();
    }
    messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| starts(m))
        .nth(n - 1)
        .map_or(0, |(i, _)| i)
}

/// Replaces old tool results — in messages before the `recent` part, with more than
/// `min_chars` chars — by a short stub. Idempotent.
pub fn clear_stale_results(
    messages: &mut [Message],
    recent: Recent,
    min_chars: usize,
) -> ClearReport {
    let mut report = ClearReport::default();
    let end = cutoff(messages, recent.turns).max(iteration_cutoff(messages, recent.iterations));
    for i in 0..end {
        if messages[i].role != Role::User {
            continue;
        }
        let (before, rest) = messages.split_at_mut(i);
        let calls = before.last().filter(|m| m.role == Role::Assistant);
        for block in &mut rest[0].content {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                images,
                ..
            } = block
            else {
                continue;
            };
            if content.starts_with(STUB_PREFIX) {
                continue;
            }
            let text_chars = content.chars().count();
            let chars = text_chars + images.len() * IMAGE_CHARS;
            if chars <= min_chars {
                continue;
            }
            let call = calls.and_then(|m| m.tool_uses().find(|(id, _, _)| *id == tool_use_id));
            let call = call.map(|(_, name, input)| (name, input));
            let stub = stub(call, content, text_chars, images.len());
            let stub_chars = stub.chars().count();
            if stub_chars >= chars {
                continue;
            }
            report.cleared += 1;
            report.chars_saved += chars - stub_chars;
            *content = stub;
            images.clear();
        }
    }
    report
}

/// The stub for one result of `chars` chars of text and `images` images, e.g.
/// `[cleared to save context: Read (file_path: src/main.rs) result of 12345 chars; run the call again if you need it]`.
fn stub(call: Option<(&str, &Value)>, content: &str, chars: usize, images: usize) -> String {
    let mut what = call.map_or("tool", |(name, _)| name).to_owned();
    if let Some(arg) = call.and_then(|(_, input)| main_arg(input)) {
        what.push_str(&format!(" ({arg})"));
    }
    let size = match images {
        0 => format!("{chars} chars"),
        1 => format!("{chars} chars and 1 image"),
        n => format!("{chars} chars and {n} images"),
    };
    match spilled_path(content) {
        // the whole output is still on disk: point there rather than to a rerun
        Some(path) => format!(
            "{STUB_PREFIX}{what} result of {size}; the full output is still in \
             {path}, read it with Read if you need it]"
        ),
        None => format!("{STUB_PREFIX}{what} result of {size}; run the call again if you need it]"),
    }
}

/// `key: value` for the first of [`MAIN_ARGS`] the input has as a string, shortened.
fn main_arg(input: &Value) -> Option<String> {
    MAIN_ARGS.iter().find_map(|key| {
        let value = input.get(key)?.as_str()?;
        let one_line = value.split_whitespace().collect::<Vec<_>>().join(" ");
        let short = if one_line.chars().count() > MAX_ARG_CHARS {
            let cut: String = one_line.chars().take(MAX_ARG_CHARS - 1).collect();
            format!("{cut}…")
        } else {
            one_line
        };
        Some(format!("{key}: {short}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::chain::validate;
    use roocode_protocol::content::ImageData;
    use serde_json::json;

    fn call(id: &str, name: &str, input: Value) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    fn result(id: &str, content: String, is_error: bool) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content,
            is_error,
            images: Vec::new(),
        }
    }

    fn msg(role: Role, content: Vec<ContentBlock>) -> Message {
        Message { role, content }
    }

    /// Three turns; the first two have tool calls, the third one too.
    fn history() -> Vec<Message> {
        use Role::*;
        vec![
            Message::user_text("turn 1"),
            msg(
                Assistant,
                vec![
                    ContentBlock::text("reading"),
                    call(
                        "r1",
                        "Read",
                        json!({"file_path": "src/main.rs", "limit": 10}),
                    ),
                    call("b1", "Bash", json!({"command": "cargo   test\n--lib"})),
                ],
            ),
            msg(
                User,
                vec![
                    result("r1", "a".repeat(5_000), false),
                    result("b1", "e".repeat(3_000), true),
                ],
            ),
            msg(
                Assistant,
                vec![call("g1", "Grep", json!({"pattern": "fn main"}))],
            ),
            msg(User, vec![result("g1", "tiny".into(), false)]),
            msg(Assistant, vec![ContentBlock::text("done")]),
            Message::user_text("turn 2"),
            msg(Assistant, vec![call("x2", "mcp__srv__do", json!({"n": 1}))]),
            msg(User, vec![result("x2", "m".repeat(2_000), false)]),
            msg(Assistant, vec![ContentBlock::text("ok")]),
            Message::user_text("turn 3"),
            msg(
                Assistant,
                vec![call("r3", "Read", json!({"file_path": "b.rs"}))],
            ),
            msg(User, vec![result("r3", "z".repeat(9_000), false)]),
        ]
    }

    fn content(messages: &[Message], i: usize, j: usize) -> &str {
        match &messages[i].content[j] {
            ContentBlock::ToolResult { content, .. } => content,
            other => panic!("not a result: {other:?}"),
        }
    }

    #[test]
    fn only_results_before_the_recent_turns_are_cleared() {
        let mut m = history();
        validate(&m).unwrap();
        let report = clear_stale_results(&mut m, Recent::turns(2), 100);
        validate(&m).unwrap();
        assert_eq!(report.cleared, 2);
        let stub_r1 = content(&m, 2, 0);
        let stub_b1 = content(&m, 2, 1);
        assert_eq!(
            stub_r1,
            "[cleared to save context: Read (file_path: src/main.rs) result of 5000 chars; \
             run the call again if you need it]"
        );
        assert!(stub_b1.starts_with(
            "[cleared to save context: Bash (command: cargo test --lib) result of 3000 chars"
        ));
        assert_eq!(
            report.chars_saved,
            5_000 + 3_000 - stub_r1.chars().count() - stub_b1.chars().count()
        );
        // below min_chars: kept
        assert_eq!(content(&m, 4, 0), "tiny");
        // turns 2 and 3 untouched
        assert_eq!(content(&m, 8, 0), "m".repeat(2_000));
        assert_eq!(content(&m, 12, 0), "z".repeat(9_000));
        // ids, is_error, calls and structure unchanged
        let orig = history();
        assert_eq!(m.len(), orig.len());
        for (a, b) in m.iter().zip(&orig) {
            assert_eq!(a.role, b.role);
            assert_eq!(a.content.len(), b.content.len());
            for (x, y) in a.content.iter().zip(&b.content) {
                match (x, y) {
                    (
                        ContentBlock::ToolResult {
                            tool_use_id: i1,
                            is_error: e1,
                            ..
                        },
                        ContentBlock::ToolResult {
                            tool_use_id: i2,
                            is_error: e2,
                            ..
                        },
                    ) => assert_eq!((i1, e1), (i2, e2)),
                    _ => assert_eq!(x, y),
                }
            }
        }
    }

    #[test]
    fn clearing_is_idempotent() {
        let mut m = history();
        let first = clear_stale_results(&mut m, Recent::turns(1), 100);
        assert_eq!(first.cleared, 3);
        let after = m.clone();
        assert_eq!(
            clear_stale_results(&mut m, Recent::turns(1), 0),
            ClearReport::default()
        );
        assert_eq!(m, after);
        validate(&m).unwrap();
        // a tool without a recognised argument is named alone
        assert!(
            content(&m, 8, 0)
                .starts_with("[cleared to save context: mcp__srv__do result of 2000 chars;")
        );
    }

    #[test]
    fn keep_counts_and_edges() {
        // more turns kept than exist: nothing cleared
        let mut m = history();
        assert_eq!(clear_stale_results(&mut m, Recent::turns(3), 0).cleared, 0);
        assert_eq!(clear_stale_results(&mut m, Recent::turns(10), 0).cleared, 0);
        assert_eq!(m, history());
        // zero turns kept: everything over min_chars, current turn included
        assert_eq!(
            clear_stale_results(&mut m, Recent::turns(0), 100).cleared,
            4
        );
        validate(&m).unwrap();
        // min_chars 0 never grows a short result into a longer stub
        let mut m = history();
        clear_stale_results(&mut m, Recent::turns(0), 0);
        assert_eq!(content(&m, 4, 0), "tiny");
        assert_eq!(
            clear_stale_results(&mut [], Recent::turns(2), 0),
            ClearReport::default()
        );
    }

    #[test]
    fn a_long_turn_protects_only_its_last_iterations() {
        // turn 3 grows to four iterations; keeping 3 turns but only 2 iterations
        let mut m = history();
        for i in 0..3 {
            let id = format!("more{i}");
            m.push(msg(
                Role::Assistant,
                vec![call(&id, "Read", json!({"file_path": "c.rs"}))],
            ));
            m.push(msg(Role::User, vec![result(&id, "y".repeat(3_000), false)]));
        }
        validate(&m).unwrap();
        let recent = Recent {
            turns: 3,
            iterations: 2,
        };
        assert_eq!(iteration_cutoff(&m, 2), 15);
        let report = clear_stale_results(&mut m, recent, 100);
        // r1, b1, x2, r3 and more0 are cleared; more1 and more2 are the last two
        assert_eq!(report.cleared, 5);
        assert!(content(&m, 14, 0).starts_with(STUB_PREFIX));
        assert_eq!(content(&m, 16, 0), "y".repeat(3_000));
        assert_eq!(content(&m, 18, 0), "y".repeat(3_000));
        validate(&m).unwrap();
    }

    #[test]
    fn results_only_user_messages_do_not_start_turns() {
        // a user message with results and a blank text block is not a turn boundary
        let mut m = history();
        m[8].content.push(ContentBlock::text("  "));
        validate(&m).unwrap();
        assert_eq!(cutoff(&m, 1), 10);
        assert_eq!(cutoff(&m, 2), 6);
        // text after results (e.g. a user note during a turn) does start one
        m[8].content.push(ContentBlock::text("also check x"));
        assert_eq!(cutoff(&m, 1), 10);
        assert_eq!(cutoff(&m, 2), 8);
    }

    #[test]
    fn spilled_results_point_to_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let big = "line\n".repeat(10_000);
        let spilled = super::super::large_results::spill(&big, 1_000, dir.path(), "r1").unwrap();
        let path = spilled.path.unwrap();
        let mut m = history();
        if let ContentBlock::ToolResult { content, .. } = &mut m[2].content[0] {
            *content = spilled.text;
        }
        clear_stale_results(&mut m, Recent::turns(1), 100);
        let stub = content(&m, 2, 0);
        assert!(stub.starts_with("[cleared to save context: Read (file_path: src/main.rs)"));
        assert!(
            stub.contains(&format!("still in {}, read it with Read", path.display())),
            "{stub}"
        );
    }

    #[test]
    fn an_old_image_result_is_cleared_with_its_images_and_a_recent_one_kept() {
        let with_image = |id: &str| ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: "one pixel:".into(),
            is_error: false,
            images: vec![ImageData::new("image/png", "A".repeat(100))],
        };
        let mut m = history();
        m[4].content[0] = with_image("g1");
        m[12].content[0] = with_image("r3");
        let report = clear_stale_results(&mut m, Recent::turns(1), 2_000);
        let ContentBlock::ToolResult {
            content, images, ..
        } = &m[4].content[0]
        else {
            panic!("not a result: {:?}", m[4].content[0]);
        };
        assert_eq!(
            content,
            "[cleared to save context: Grep (pattern: fn main) result of 10 chars and 1 image; \
             run the call again if you need it]"
        );
        assert!(images.is_empty(), "its images go with it");
        assert!(report.chars_saved > IMAGE_CHARS - 200, "{report:?}");
        assert_eq!(m[12].content[0], with_image("r3"), "the recent one stays");
        validate(&m).unwrap();
    }

    #[test]
    fn long_arguments_are_shortened() {
        let arg = main_arg(&json!({"command": "x".repeat(500), "file_path": 3})).unwrap();
        assert_eq!(arg.chars().count(), "command: ".len() + MAX_ARG_CHARS);
        assert!(arg.ends_with('…'));
        assert_eq!(
            main_arg(&json!({"path": "a", "pattern": "p"})).unwrap(),
            "pattern: p"
        );
        assert_eq!(main_arg(&json!("str")), None);
    }
}
