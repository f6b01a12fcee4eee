//! The conversation as a list of entries, each with its rendered lines cached per
//! width (and expansion, and spinner frame while it animates). Events change one entry
//! at a time in O(1) and drop only that entry's cache; drawing renders the few entries
//! on screen. The messages queued behind a running turn form one last block.

mod entry;
mod render;
mod stream;
mod tool;

use std::collections::HashMap;

use ratatui::style::Style;
use ratatui::text::Line;
use roocode_protocol::content::ContentBlock;
use serde_json::Value;

pub use entry::{Assistant, Entry, Notice, Tool, ToolResult};

use crate::spinner;
use stream::StreamCache;

/// What the rendered lines of an entry depend on besides the entry itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderCtx {
    pub width: u16,
    /// Ctrl+O: tool calls expanded.
    pub expand_all: bool,
    pub tick: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    width: u16,
    expanded: bool,
    frame: u8,
}

#[derive(Debug)]
struct Item {
    entry: Entry,
    cache: Option<(Key, Vec<Line<'static>>)>,
    /// Lines of an answer while it streams, kept across its deltas.
    stream: Option<Box<StreamCache>>,
}

/// A message waiting for the running turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    pub input_id: String,
    pub text: String,
}

/// The conversation of the attached session.
#[derive(Debug, Default)]
pub struct Transcript {
    items: Vec<Item>,
    /// Assistant messages still open to deltas, by message id.
    messages: HashMap<String, usize>,
    /// Tool calls by call id.
    tools: HashMap<String, usize>,
    /// Tool calls without a result yet.
    running: Vec<usize>,
    queued: Vec<Queued>,
    queued_cache: Option<(u16, Vec<Line<'static>>)>,
    /// Bumped on every change that shows.
    changes: u64,
}

impl Transcript {
    /// The number of entries (without the queued block).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.queued.is_empty()
    }

    /// The number of blocks drawn: every entry, then the queued messages.
    pub fn blocks(&self) -> usize {
        self.items.len() + 1
    }

    /// A counter that changes whenever something visible changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    pub fn entry(&self, i: usize) -> Option<&Entry> {
        self.items.get(i).map(|it| &it.entry)
    }

    pub fn queued(&self) -> &[Queued] {
        &self.queued
    }

    /// Appends an entry and returns its index.
    pub fn push(&mut self, entry: Entry) -> usize {
        self.changes += 1;
        self.items.push(Item {
            entry,
            cache: None,
            stream: None,
        });
        self.items.len() - 1
    }

    pub fn user(&mut self, text: &str) {
        self.push(Entry::User(text.to_owned()));
    }

    pub fn notice(&mut self, text: impl Into<String>, style: Style) {
        self.push(Entry::Notice(Notice {
            text: text.into(),
            style,
        }));
    }

    /// A rule across the width with `text` in it, set off by blank lines.
    pub fn divider(&mut self, text: impl Into<String>, style: Style) {
        self.push(Entry::Divider(Notice {
            text: text.into(),
            style,
        }));
    }

    /// The entry at `i`, for a change (its cache is dropped).
    fn touch(&mut self, i: usize) -> Option<&mut Entry> {
        let item = self.items.get_mut(i)?;
        item.cache = None;
        self.changes += 1;
        Some(&mut item.entry)
    }

    /// The open assistant message `id`, created at the end if new.
    fn assistant(&mut self, id: &str) -> Option<&mut Assistant> {
        let i = match self.messages.get(id) {
            Some(&i) => i,
            None => {
                let i = self.push(Entry::Assistant(Assistant {
                    streaming: true,
                    ..Assistant::default()
                }));
                self.messages.insert(id.to_owned(), i);
                i
            }
        };
        match self.touch(i) {
            Some(Entry::Assistant(a)) => Some(a),
            _ => None,
        }
    }

    pub fn text_delta(&mut self, id: &str, text: &str) {
        if let Some(a) = self.assistant(id) {
            a.text.push_str(text);
        }
    }

    pub fn thinking_delta(&mut self, id: &str, text: &str) {
        if let Some(a) = self.assistant(id) {
            a.thinking.push_str(text);
        }
    }

    /// The complete message replaces what its deltas built (or appears, when it was
    /// not streamed); a message with neither text nor thinking adds nothing.
    pub fn assistant_message(&mut self, id: &str, content: &[ContentBlock]) {
        let mut text = String::new();
        let mut thinking = String::new();
        for block in content {
            match block {
                ContentBlock::Text { text: t } => text.push_str(t),
                ContentBlock::Thinking { thinking: t, .. } => thinking.push_str(t),
                _ => {}
            }
        }
        if text.trim().is_empty() && thinking.trim().is_empty() && !self.messages.contains_key(id) {
            return;
        }
        if let Some(a) = self.assistant(id) {
            a.text = text;
            a.thinking = thinking;
            a.streaming = false;
        }
        self.messages.remove(id);
    }

    /// Discards the partial text of message `id`; later deltas start a new entry.
    pub fn stream_reset(&mut self, id: &str) {
        if let Some(i) = self.messages.remove(id)
            && let Some(Entry::Assistant(a)) = self.touch(i)
        {
            *a = Assistant::default();
        }
    }

    pub fn tool_call(&mut self, call_id: &str, name: &str, input: &Value, cwd: &str) {
        let i = self.push(Entry::Tool(Box::new(Tool {
            call_id: call_id.to_owned(),
            name: name.to_owned(),
            input: input.clone(),
            summary: crate::tool_summary::main_arg(input, cwd),
            live: String::new(),
            result: None,
            waiting: false,
            stopped: false,
            verdict: None,
            expanded: None,
        })));
        self.tools.insert(call_id.to_owned(), i);
        self.running.push(i);
    }

    /// The tool call `call_id`, for a change.
    pub fn tool_mut(&mut self, call_id: &str) -> Option<&mut Tool> {
        let i = *self.tools.get(call_id)?;
        match self.touch(i) {
            Some(Entry::Tool(t)) => Some(t),
            _ => None,
        }
    }

    pub fn tool_output(&mut self, call_id: &str, text: &str) {
        if let Some(t) = self.tool_mut(call_id) {
            t.live.push_str(text);
        }
    }

    pub fn tool_result(&mut self, call_id: &str, result: ToolResult) {
        if let Some(t) = self.tool_mut(call_id) {
            t.result = Some(result);
            t.waiting = false;
        }
        let items = &self.items;
        self.running
            .retain(|&i| !matches!(&items[i].entry, Entry::Tool(t) if t.call_id == call_id));
    }

    /// The turn ended: calls without a result stop turning, open messages close.
    pub fn end_turn(&mut self) {
        for i in std::mem::take(&mut self.running) {
            if let Some(Entry::Tool(t)) = self.touch(i) {
                t.stopped = true;
                t.waiting = false;
            }
        }
        for (_, i) in std::mem::take(&mut self.messages) {
            if let Some(Entry::Assistant(a)) = self.touch(i) {
                a.streaming = false;
            }
        }
    }

    /// Whether any tool call runs (its spinner needs frames).
    pub fn animating(&self) -> bool {
        !self.running.is_empty()
    }

    /// Flips the expansion of the tool call at `i` (a click on it).
    pub fn toggle_tool(&mut self, i: usize, expand_all: bool) -> bool {
        match self.touch(i) {
            Some(Entry::Tool(t)) => {
                t.expanded = Some(!t.expanded.unwrap_or(expand_all));
                true
            }
            _ => false,
        }
    }

    /// Ctrl+O: every call follows the global toggle again.
    pub fn reset_expansion(&mut self) {
        for item in &mut self.items {
            if let Entry::Tool(t) = &mut item.entry {
                t.expanded = None;
            }
        }
        self.changes += 1;
    }

    pub fn queue(&mut self, input_id: &str, text: &str) {
        if self.queued.iter().any(|q| q.input_id == input_id) {
            return;
        }
        self.queued.push(Queued {
            input_id: input_id.to_owned(),
            text: text.to_owned(),
        });
        self.queued_cache = None;
        self.changes += 1;
    }

    /// A queued message was delivered (its `user_message` arrived).
    pub fn deliver(&mut self, input_id: &str) {
        let before = self.queued.len();
        self.queued.retain(|q| q.input_id != input_id);
        if self.queued.len() != before {
            self.queued_cache = None;
            self.changes += 1;
        }
    }

    /// The lines of block `i` (an entry, or the queued messages for `i == len()`).
    pub fn block_lines(&mut self, i: usize, ctx: &RenderCtx) -> &[Line<'static>] {
        if i >= self.items.len() {
            if self
                .queued_cache
                .as_ref()
                .is_none_or(|(w, _)| *w != ctx.width)
            {
                let lines = render::queued(&self.queued, ctx.width);
                self.queued_cache = Some((ctx.width, lines));
            }
            return self
                .queued_cache
                .as_ref()
                .map_or(&[], |(_, l)| l.as_slice());
        }
        let first = i == 0;
        // A tool call after anything but a tool call starts a new paragraph.
        let gap = i > 0 && !matches!(self.items[i - 1].entry, Entry::Tool(_));
        let Item {
            entry,
            cache,
            stream,
        } = &mut self.items[i];
        if let Entry::Assistant(a) = entry
            && a.streaming
            && !a.text.trim().is_empty()
        {
            // Only the last block of a streaming answer is rendered again.
            let head_id = a.thinking.len() * 2 + usize::from(first);
            let width = ctx.width as usize;
            return stream.get_or_insert_default().lines(
                ctx.width,
                head_id,
                || render::assistant_head(a, first, width),
                &a.text,
            );
        }
        *stream = None;
        let key = key_of(entry, ctx);
        if cache.as_ref().is_none_or(|(k, _)| *k != key) {
            let lines = render::entry(
                entry,
                first,
                gap,
                ctx.width as usize,
                key.expanded,
                ctx.tick,
            );
            *cache = Some((key, lines));
        }
        cache.as_ref().map_or(&[], |(_, l)| l.as_slice())
    }

    /// The number of lines of block `i`.
    pub fn block_height(&mut self, i: usize, ctx: &RenderCtx) -> usize {
        self.block_lines(i, ctx).len()
    }
}

fn key_of(entry: &Entry, ctx: &RenderCtx) -> Key {
    let (expanded, frame) = match entry {
        Entry::Tool(t) => (
            t.expanded.unwrap_or(ctx.expand_all),
            if t.running() && !t.waiting {
                spinner::frame_index(ctx.tick)
            } else {
                0
            },
        ),
        _ => (false, 0),
    };
    Key {
        width: ctx.width,
        expanded,
        frame,
    }
}

#[cfg(test)]
mod tests;
