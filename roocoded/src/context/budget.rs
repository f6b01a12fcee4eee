//! Token accounting for one model's context window.
//!
//! Exact counts come only from the provider (`usage` of each call), and only after the
//! call. [`Budget`] anchors on the last exact count and adds a cheap estimate of the
//! messages appended since, so the number is exact up to the last call and
//! conservative after it. [`EstimatedContext`] keeps each message's estimate beside
//! it, so that the budget of a long history is a sum rather than a fresh estimate of
//! every message at every call. [`breakdown`] estimates where the tokens go for
//! `/context`.

use std::ops::Deref;

use roocode_protocol::content::{ContentBlock, Message, Usage};

/// Estimated tokens of one image block. The provider scales images to at most about
/// 1.15 megapixels, ~1,600 tokens; counting the base64 bytes would overcount ~50×.
pub const IMAGE_TOKENS: u64 = 1_600;

/// Estimated framing tokens per message (role markers, block separators).
pub const MESSAGE_OVERHEAD: u64 = 4;

/// Estimated tokens of `text`: UTF-8 bytes / 4, rounded up.
///
/// On code and English this is within ~5% of o200k (CRATES.md §7). Dividing *chars*
/// by 4 for non-ASCII text was considered and rejected: it is never larger than
/// bytes / 4, and CJK text costs about one token per character, so bytes / 4
/// (0.75 per CJK char) is the closer and the safer of the two.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// Estimated tokens of one block; tool inputs are counted as their JSON text.
pub fn estimate_block(block: &ContentBlock) -> u64 {
    match block {
        ContentBlock::Text { text } => estimate_tokens(text),
        ContentBlock::Thinking { thinking, .. } => estimate_tokens(thinking),
        ContentBlock::RedactedThinking { data } => estimate_tokens(data),
        ContentBlock::ToolUse { id, name, input } => {
            estimate_tokens(id) + estimate_tokens(name) + estimate_tokens(&input.to_string())
        }
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            images,
            ..
        } => {
            estimate_tokens(tool_use_id)
                + estimate_tokens(content)
                + IMAGE_TOKENS * images.len() as u64
        }
        ContentBlock::Image { .. } => IMAGE_TOKENS,
        ContentBlock::Unknown => 0,
    }
}

/// Estimated tokens of a whole message, all blocks included.
pub fn estimate_message(message: &Message) -> u64 {
    MESSAGE_OVERHEAD + message.content.iter().map(estimate_block).sum::<u64>()
}

/// Estimated tokens of a list of messages.
pub fn estimate_messages(messages: &[Message]) -> u64 {
    messages.iter().map(estimate_message).sum()
}

/// A model context with the estimated tokens of each message kept beside it.
///
/// The messages change only through the methods below, each of which estimates again
/// what it changed, so the estimates cannot drift from the messages (debug builds
/// check it at every [`EstimatedContext::estimate_from`]). Reading goes through
/// `Deref<Target = [Message]>`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EstimatedContext {
    messages: Vec<Message>,
    /// `estimates[i]` is `estimate_message(&messages[i])`.
    estimates: Vec<u64>,
}

impl EstimatedContext {
    pub fn new(messages: Vec<Message>) -> Self {
        let estimates = messages.iter().map(estimate_message).collect();
        EstimatedContext {
            messages,
            estimates,
        }
    }

    pub fn push(&mut self, message: Message) {
        self.estimates.push(estimate_message(&message));
        self.messages.push(message);
    }

    /// Changes the last message, if there is one.
    pub fn edit_last(&mut self, edit: impl FnOnce(&mut Message)) {
        if let (Some(last), Some(estimate)) = (self.messages.last_mut(), self.estimates.last_mut())
        {
            edit(last);
            *estimate = estimate_message(last);
        }
    }

    /// Lets `edit` change anything (chain repair, stale results); `edit` returns
    /// whether it changed something, and only then is everything estimated again.
    pub fn rewrite(&mut self, edit: impl FnOnce(&mut Vec<Message>) -> bool) -> bool {
        let changed = edit(&mut self.messages);
        if changed {
            self.estimates = self.messages.iter().map(estimate_message).collect();
        }
        changed
    }

    /// Replaces every message (compaction).
    pub fn replace(&mut self, messages: Vec<Message>) {
        *self = EstimatedContext::new(messages);
    }

    /// Estimated tokens of the messages from index `start` on (none past the end).
    pub fn estimate_from(&self, start: usize) -> u64 {
        debug_assert!(
            self.estimates.len() == self.messages.len()
                && self
                    .messages
                    .iter()
                    .zip(&self.estimates)
                    .all(|(m, e)| estimate_message(m) == *e),
            "the cached estimates no longer match the messages"
        );
        self.estimates.get(start..).map_or(0, |e| e.iter().sum())
    }
}

impl Deref for EstimatedContext {
    type Target = [Message];

    fn deref(&self) -> &[Message] {
        &self.messages
    }
}

/// The last exact count: the prompt of one provider call and how many messages it held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    tokens: u64,
    covered: usize,
}

/// Context usage of one model's window.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    window: u64,
    /// Estimated system prompt + tool definitions, used while no exact count exists.
    overhead: u64,
    anchor: Option<Anchor>,
}

impl Budget {
    /// A budget for a window of `window` tokens with no exact count yet.
    pub fn new(window: u64) -> Self {
        Budget {
            window,
            overhead: 0,
            anchor: None,
        }
    }

    /// Sets the estimated tokens of what precedes the messages (system prompt, tools),
    /// counted only until the provider reports an exact figure.
    pub fn with_overhead(mut self, overhead: u64) -> Self {
        self.overhead = overhead;
        self
    }

    pub fn window(&self) -> u64 {
        self.window
    }

    /// Records the usage of a call whose prompt held the first `covered_messages`
    /// messages. The prompt size is `input + cache_read + cache_write` (Anthropic
    /// reports the three apart; for OpenAI-style usage the cache fields are zero).
    pub fn record(&mut self, usage: &Usage, covered_messages: usize) {
        self.anchor = Some(Anchor {
            tokens: usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
            covered: covered_messages,
        });
    }

    /// Forgets the exact count; call it after the history was rewritten (stale results
    /// cleared, compaction), since the old count no longer describes it.
    pub fn invalidate(&mut self) {
        self.anchor = None;
    }

    /// The exact prompt size of the last call, if any is still valid.
    pub fn last_exact(&self) -> Option<u64> {
        self.anchor.map(|a| a.tokens)
    }

    /// Tokens the next prompt will use: the last exact count plus an estimate of the
    /// messages after it, or an estimate of everything when there is no valid count
    /// (none yet, invalidated, or the history became shorter than the count covered).
    pub fn used(&self, context: &EstimatedContext) -> u64 {
        match self.anchor {
            Some(a) if a.covered <= context.len() => a.tokens + context.estimate_from(a.covered),
            _ => self.overhead + context.estimate_from(0),
        }
    }

    /// `used / window`; 1.0 or more means the window is full. A zero window is full.
    pub fn fraction(&self, context: &EstimatedContext) -> f64 {
        if self.window == 0 {
            return 1.0;
        }
        self.used(context) as f64 / self.window as f64
    }

    /// Tokens left in the window (zero when over).
    pub fn remaining(&self, context: &EstimatedContext) -> u64 {
        self.window.saturating_sub(self.used(context))
    }
}

/// Estimated tokens per part of the prompt, for `/context`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub system: u64,
    pub tools: u64,
    pub instructions: u64,
    pub memory: u64,
    /// Messages without their tool results.
    pub messages: u64,
    pub tool_results: u64,
}

/// Estimates each part of a prompt. `tools_json_len` is the length of the serialized
/// tool definitions; `instructions` are the ROOCODE.md files, `memory` the MEMORY.md
/// index, if they are sent apart from `system`.
pub fn breakdown(
    system: &str,
    tools_json_len: usize,
    instructions: Option<&str>,
    memory: Option<&str>,
    messages: &[Message],
) -> Breakdown {
    let mut b = Breakdown {
        system: estimate_tokens(system),
        tools: (tools_json_len as u64).div_ceil(4),
        instructions: instructions.map_or(0, estimate_tokens),
        memory: memory.map_or(0, estimate_tokens),
        ..Breakdown::default()
    };
    for m in messages {
        b.messages += MESSAGE_OVERHEAD;
        for block in &m.content {
            let t = estimate_block(block);
            if matches!(block, ContentBlock::ToolResult { .. }) {
                b.tool_results += t;
            } else {
                b.messages += t;
            }
        }
    }
    b
}

impl Breakdown {
    pub fn total(&self) -> u64 {
        self.system
            + self.tools
            + self.instructions
            + self.memory
            + self.messages
            + self.tool_results
    }

    /// A plain-text table: one row per part with tokens and % of `window`, then the
    /// total and the free space.
    pub fn render(&self, window: u64) -> String {
        let rows = [
            ("System prompt", self.system),
            ("Tool definitions", self.tools),
            ("Instructions", self.instructions),
            ("Memory", self.memory),
            ("Messages", self.messages),
            ("Tool results", self.tool_results),
        ];
        let total = self.total();
        let mut out = format!("Context window: {} tokens (estimated)\n", group(window));
        let line = |label: &str, tokens: u64| {
            format!(
                "  {label:<18}{:>12}  {:>6}\n",
                group(tokens),
                percent(tokens, window)
            )
        };
        for (label, tokens) in rows {
            out.push_str(&line(label, tokens));
        }
        out.push_str(&format!("  {}\n", "-".repeat(38)));
        out.push_str(&line("Total", total));
        out.push_str(&line("Free", window.saturating_sub(total)));
        out
    }
}

fn percent(part: u64, window: u64) -> String {
    if window == 0 {
        return "-".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / window as f64)
}

/// `1234567` → `1,234,567`.
pub(crate) fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::content::{ImageData, Role};
    use serde_json::json;

    fn assistant(blocks: Vec<ContentBlock>) -> Message {
        Message {
            role: Role::Assistant,
            content: blocks,
        }
    }

    #[test]
    fn estimate_rounds_bytes_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abc"), 1);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        // 4 CJK chars = 12 bytes → 3 tokens (chars / 4 would say 1)
        assert_eq!(estimate_tokens("日本語字"), 3);
    }

    #[test]
    fn message_counts_every_block() {
        let input = json!({"file_path": "/a/b.rs"});
        let m = assistant(vec![
            ContentBlock::text("x".repeat(40)),
            ContentBlock::ToolUse {
                id: "id01".into(),
                name: "Read".into(),
                input: input.clone(),
            },
            ContentBlock::Image {
                media_type: "image/png".into(),
                data: "A".repeat(100_000),
            },
        ]);
        let expected =
            MESSAGE_OVERHEAD + 10 + 1 + 1 + estimate_tokens(&input.to_string()) + IMAGE_TOKENS;
        assert_eq!(estimate_message(&m), expected);
    }

    #[test]
    fn a_tool_result_counts_its_images_at_the_image_estimate() {
        let result = |images: Vec<ImageData>| ContentBlock::ToolResult {
            tool_use_id: "t1".into(),
            content: "x".repeat(40),
            is_error: false,
            images,
        };
        let png = ImageData::new("image/png", "A".repeat(1_000_000));
        assert_eq!(estimate_block(&result(vec![])), 1 + 10);
        assert_eq!(
            estimate_block(&result(vec![png.clone(), png])),
            1 + 10 + 2 * IMAGE_TOKENS,
            "the base64 bytes are not counted as text"
        );
    }

    #[test]
    fn used_is_exact_plus_estimate_of_what_follows() {
        let msgs = vec![
            Message::user_text("a".repeat(400)),
            assistant(vec![ContentBlock::text("b".repeat(40))]),
            Message::user_text("c".repeat(80)),
        ];
        let ctx = |m: &[Message]| EstimatedContext::new(m.to_vec());
        let mut b = Budget::new(1_000).with_overhead(50);
        assert_eq!(b.used(&ctx(&msgs)), 50 + estimate_messages(&msgs));
        let usage = Usage {
            input_tokens: 10,
            cache_read_tokens: 90,
            cache_write_tokens: 7,
            output_tokens: 999,
            cost_usd: None,
        };
        b.record(&usage, 1);
        assert_eq!(b.last_exact(), Some(107));
        assert_eq!(b.used(&ctx(&msgs)), 107 + estimate_messages(&msgs[1..]));
        assert_eq!(b.used(&ctx(&msgs[..1])), 107);
        // a history shorter than the count covered falls back to the estimate
        assert_eq!(b.used(&ctx(&[])), 50);
        let f = b.fraction(&ctx(&msgs));
        assert!((f - b.used(&ctx(&msgs)) as f64 / 1_000.0).abs() < 1e-9);
        assert_eq!(b.remaining(&ctx(&msgs)), 1_000 - b.used(&ctx(&msgs)));
        b.invalidate();
        assert_eq!(b.used(&ctx(&msgs)), 50 + estimate_messages(&msgs));
        assert_eq!(Budget::new(0).fraction(&ctx(&msgs)), 1.0);
    }

    #[test]
    fn estimated_context_follows_every_change() {
        let fresh = |c: &EstimatedContext| estimate_messages(c);
        let mut c = EstimatedContext::new(vec![Message::user_text("a".repeat(400))]);
        assert_eq!(c.estimate_from(0), fresh(&c));
        c.push(assistant(vec![ContentBlock::text("b".repeat(40))]));
        c.push(Message::user_text("c".repeat(80)));
        assert_eq!(c.len(), 3);
        assert_eq!(c.estimate_from(0), fresh(&c));
        assert_eq!(c.estimate_from(2), estimate_message(&c[2]));
        assert_eq!(c.estimate_from(3), 0);
        assert_eq!(c.estimate_from(9), 0);
        c.edit_last(|m| m.content.push(ContentBlock::text("d".repeat(4_000))));
        assert_eq!(c.estimate_from(0), fresh(&c));
        let changed = c.rewrite(|m| {
            m[0].content = vec![ContentBlock::text("short")];
            true
        });
        assert!(changed);
        assert_eq!(c.estimate_from(0), fresh(&c));
        assert!(!c.rewrite(|_| false));
        c.replace(vec![Message::user_text("summary")]);
        assert_eq!(c.len(), 1);
        assert_eq!(c.estimate_from(0), fresh(&c));
        let mut empty = EstimatedContext::default();
        empty.edit_last(|m| m.content.clear());
        assert_eq!(empty.estimate_from(0), 0);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "no longer match")]
    fn a_rewrite_that_hides_its_change_is_caught_in_debug_builds() {
        let mut c = EstimatedContext::new(vec![Message::user_text("a")]);
        c.rewrite(|m| {
            m[0].content = vec![ContentBlock::text("b".repeat(400))];
            false
        });
        c.estimate_from(0);
    }

    #[test]
    fn breakdown_separates_tool_results() {
        let msgs = vec![
            Message::user_text("x".repeat(40)),
            assistant(vec![ContentBlock::ToolUse {
                id: "t".into(),
                name: "Bash".into(),
                input: json!({}),
            }]),
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: "t".into(),
                    content: "y".repeat(400),
                    is_error: false,
                    images: Vec::new(),
                }],
            },
        ];
        let b = breakdown(&"s".repeat(800), 4_000, Some("ins"), None, &msgs);
        assert_eq!(b.system, 200);
        assert_eq!(b.tools, 1_000);
        assert_eq!(b.instructions, 1);
        assert_eq!(b.memory, 0);
        assert_eq!(b.tool_results, 101);
        assert_eq!(b.messages + b.tool_results, estimate_messages(&msgs));
        assert_eq!(b.total(), 200 + 1_000 + 1 + estimate_messages(&msgs));
    }

    #[test]
    fn render_shows_rows_percent_and_total() {
        let b = Breakdown {
            system: 2_000,
            tools: 10_000,
            instructions: 0,
            memory: 500,
            messages: 30_000,
            tool_results: 57_500,
        };
        let text = b.render(200_000);
        assert!(text.contains("Context window: 200,000 tokens"));
        let row = |label: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(label))
                .map(str::to_owned)
                .unwrap_or_default()
        };
        assert!(row("System prompt").ends_with("2,000    1.0%"), "{text}");
        assert!(row("Tool results").contains("57,500"));
        assert!(row("Total").ends_with("100,000   50.0%"), "{text}");
        assert!(row("Free").contains("100,000"));
        assert_eq!(b.render(0).lines().count(), 10);
    }

    #[test]
    fn group_thousands() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
    }
}
