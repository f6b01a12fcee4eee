//! Generated session histories to import, in the JSONL format of `roocode-cli export`
//! (one `{"role": ..., "content": [...]}` per line).
//!
//! [`long_session`] reads like a long working session on a Rust project: a first
//! request, then iterations of assistant text plus one `Read`, `Grep` or `Bash` call
//! answered by a tool result of a few hundred characters; every 25th iteration ends the
//! turn instead (assistant text, then the user's next request). The history is
//! chain-valid and ends with an assistant text, so the next user message follows
//! directly. The content is pseudo-random but the same on every run.

use anyhow::{Context, ensure};
use roocode_protocol::content::{ContentBlock, Message, Role};
use serde_json::json;

/// A history ready for `session.import`.
pub struct History {
    pub lines: Vec<String>,
    pub tool_calls: usize,
    pub bytes: usize,
}

impl History {
    /// Rough token count of the history (bytes / 4, as the daemon estimates).
    pub fn estimated_tokens(&self) -> usize {
        self.bytes.div_ceil(4)
    }

    /// The JSONL lines of `messages`.
    fn of(messages: &[Message], tool_calls: usize) -> anyhow::Result<History> {
        let lines = messages
            .iter()
            .map(|m| serde_json::to_string(m).context("encode a message"))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let bytes = lines.iter().map(|l| l.len() + 1).sum();
        Ok(History {
            lines,
            tool_calls,
            bytes,
        })
    }
}

/// Iterations between two user requests.
const TURN_LENGTH: usize = 25;

const FILES: &[&str] = &[
    "roocoded/src/agent/turn.rs",
    "roocoded/src/agent/mod.rs",
    "roocoded/src/store/messages.rs",
    "roocoded/src/store/events.rs",
    "roocoded/src/rpc/subscribe.rs",
    "roocoded/src/context/compact.rs",
    "roocoded/src/llm/call.rs",
    "roocode-cli/src/send.rs",
    "roocode-cli/src/attach.rs",
    "protocol/src/session.rs",
];

const PATTERNS: &[&str] = &[
    "fn context\\(",
    "replace_context",
    "events_after",
    "ORDER BY idx",
    "compact_threshold",
    "struct Turn",
    "subscribe_events",
    "chain::repair",
];

const COMMANDS: &[(&str, &str)] = &[
    ("cargo test -p roocoded store::", "Run the store tests"),
    (
        "cargo clippy -p roocoded --all-targets -- -D warnings",
        "Lint the daemon",
    ),
    ("git diff --stat", "Show what changed so far"),
    ("cargo build --release -p roocoded", "Build the daemon"),
];

const CODE: &[&str] = &[
    "use roocode_protocol::content::{ContentBlock, Message, Role};",
    "    pub async fn context(&self, session_id: &str) -> Result<Vec<Message>, StoreError> {",
    "        let rows = sqlx::query_as::<_, MessageRow>(",
    "            \"SELECT role, content FROM messages WHERE session_id = ? ORDER BY idx\",",
    "        .bind(session_id)",
    "        .fetch_all(&self.pool)",
    "        .await?;",
    "    /// Appends one message at position `idx` (the current context length).",
    "        let mut tx = self.pool.begin_with(\"BEGIN IMMEDIATE\").await?;",
    "        if chain::repair(&mut self.context, INTERRUPTED_BY_USER).changed() {",
    "            store.replace_context(self.id(), &self.context).await?;",
    "        self.emit(EventPayload::TurnStarted { turn_id: self.turn_id.to_string() })",
    "    }",
    "}",
];

const THOUGHTS: &[&str] = &[
    "Let me look at how the store loads the context before changing it.",
    "The replay pages through the event log; I want to see the page size.",
    "I'll check where the turn reloads messages from the database.",
    "Before editing, let me run the tests to know where we stand.",
    "I need to find every caller of this function first.",
    "That confirms the hypothesis; now let me see how compaction rewrites the history.",
];

/// Small deterministic generator (xorshift64*), so every run imports the same history.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A chain-valid history of exactly `messages` messages (even, at least 2).
pub fn long_session(messages: usize) -> anyhow::Result<History> {
    ensure!(
        messages >= 2 && messages.is_multiple_of(2),
        "a history has an even number of messages, at least 2"
    );
    let mut rng = Rng(0x5EED_0000_0000_0005);
    let mut out = vec![Message::user_text(
        "The session store gets slow on long sessions. Find out where the time goes when a long session is loaded and fix it; run the tests as you go.",
    )];
    let mut tool_calls = 0;
    for i in 0..(messages - 2) / 2 {
        if i % TURN_LENGTH == TURN_LENGTH - 1 {
            out.push(assistant(vec![ContentBlock::text(format!(
                "Done with step {}: the change is in and the tests pass. What next?",
                i / TURN_LENGTH + 1
            ))]));
            out.push(Message::user_text(format!(
                "Good. Next, look at {} and make it faster too.",
                rng.pick(FILES)
            )));
            continue;
        }
        let id = format!("toolu_bench_{i:05}");
        let (name, input, result) = tool_call(&mut rng);
        out.push(assistant(vec![
            ContentBlock::text(*rng.pick(THOUGHTS)),
            ContentBlock::ToolUse {
                id: id.clone(),
                name: name.to_string(),
                input,
            },
        ]));
        out.push(Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: id,
                content: result,
                is_error: false,
                images: Vec::new(),
            }],
        });
        tool_calls += 1;
    }
    out.push(assistant(vec![ContentBlock::text(
        "That is everything for now: the store loads long sessions in one query and the tests pass.",
    )]));
    History::of(&out, tool_calls)
}

/// The smallest resumable session: one request and its answer.
pub fn short_session() -> anyhow::Result<History> {
    History::of(
        &[
            Message::user_text("What does this project do?"),
            assistant(vec![ContentBlock::text(
                "It is a terminal coding agent: a daemon with thin clients.",
            )]),
        ],
        0,
    )
}

fn assistant(content: Vec<ContentBlock>) -> Message {
    Message {
        role: Role::Assistant,
        content,
    }
}

/// A tool name, its input and a plausible result of a few hundred characters.
fn tool_call(rng: &mut Rng) -> (&'static str, serde_json::Value, String) {
    match rng.below(3) {
        0 => {
            let file = rng.pick(FILES);
            let offset = 1 + rng.below(400);
            let lines = 6 + rng.below(7);
            let body: String = (0..lines)
                .map(|k| format!("{:>6}\t{}\n", offset + k, rng.pick(CODE)))
                .collect();
            (
                "Read",
                json!({"file_path": format!("/home/dev/roocode/{file}"), "offset": offset, "limit": lines}),
                body,
            )
        }
        1 => {
            let pattern = rng.pick(PATTERNS);
            let hits = 4 + rng.below(5);
            let body: String = (0..hits)
                .map(|_| {
                    format!(
                        "{}:{}:{}\n",
                        rng.pick(FILES),
                        1 + rng.below(600),
                        rng.pick(CODE).trim()
                    )
                })
                .collect();
            (
                "Grep",
                json!({"pattern": pattern, "path": "roocoded/src", "output_mode": "content", "-n": true}),
                body,
            )
        }
        _ => {
            let (command, description) = rng.pick(COMMANDS);
            let tests = 3 + rng.below(6);
            let mut body = String::from(
                "   Compiling roocoded v0.1.0 (/home/dev/roocode/roocoded)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 7.42s\n",
            );
            body.push_str(&format!("running {tests} tests\n"));
            for k in 0..tests {
                body.push_str(&format!("test store::messages::tests::case_{k} ... ok\n"));
            }
            body.push_str(&format!(
                "\ntest result: ok. {tests} passed; 0 failed; 0 ignored; finished in 0.{:02}s\n",
                rng.below(100)
            ));
            (
                "Bash",
                json!({"command": command, "description": description}),
                body,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_session_is_chain_valid_and_exactly_as_long_as_asked() {
        let history = long_session(10_000).unwrap();
        assert_eq!(history.lines.len(), 10_000);
        let messages: Vec<Message> = history
            .lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(messages[0].role, Role::User);
        assert_eq!(messages.last().unwrap().role, Role::Assistant);
        let mut calls = 0;
        for pair in messages.windows(2) {
            assert_ne!(pair[0].role, pair[1].role, "roles alternate");
            let uses: Vec<&str> = pair[0].tool_uses().map(|(id, _, _)| id).collect();
            let results: Vec<&str> = pair[1]
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                    _ => None,
                })
                .collect();
            if pair[0].role == Role::Assistant {
                assert_eq!(uses, results, "each call is answered in the next message");
                calls += uses.len();
            }
        }
        assert_eq!(calls, history.tool_calls);
        let sizes: Vec<usize> = messages
            .iter()
            .flat_map(|m| &m.content)
            .filter_map(|b| match b {
                ContentBlock::ToolResult { content, .. } => Some(content.len()),
                _ => None,
            })
            .collect();
        assert!(sizes.iter().all(|n| (100..=1_000).contains(n)), "{sizes:?}");
    }
}
