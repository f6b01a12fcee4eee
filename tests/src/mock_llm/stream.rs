//! Protocol-neutral streaming machinery: the [`Plan`] of frames a renderer produces (with
//! its gate and abort points), the hyper body that plays a plan (delays, gates,
//! dropped connections), the reply [`Shape`] and [`Usage`] both renderers share, and
//! text-splitting helpers.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::Frame;
use serde_json::Value;

use super::script::{Reply, ScriptedReply, ToolCall};
use super::state::State;

/// The response body type of every mock response.
pub(crate) type ResponseBody = UnsyncBoxBody<Bytes, io::Error>;

enum Step {
    Chunk(Bytes),
    Gate(String),
    Abort,
}

/// The frames of one streamed response, in order.
pub(crate) struct Plan {
    steps: VecDeque<Step>,
    gate: Option<String>,
}

impl Plan {
    pub(crate) fn new(gate: Option<String>) -> Self {
        Self {
            steps: VecDeque::new(),
            gate,
        }
    }

    /// Appends a frame.
    pub(crate) fn push(&mut self, frame: impl Into<Bytes>) {
        self.steps.push_back(Step::Chunk(frame.into()));
    }

    /// Appends an SSE event with an `event:` line.
    pub(crate) fn event(&mut self, event: &str, data: &Value) {
        self.push(format!("event: {event}\ndata: {data}\n\n"));
    }

    /// Appends an SSE `data:` line.
    pub(crate) fn data(&mut self, data: &str) {
        self.push(format!("data: {data}\n\n"));
    }

    /// Inserts the reply's gate here, the first time this is called.
    pub(crate) fn gate_point(&mut self) {
        if let Some(gate) = self.gate.take() {
            self.steps.push_back(Step::Gate(gate));
        }
    }

    /// Ends the stream by dropping the connection (no terminal chunk).
    pub(crate) fn abort(&mut self) {
        self.gate_point();
        self.steps.push_back(Step::Abort);
    }

    /// Plays the plan as a hyper body.
    pub(crate) fn into_body(self, delay: Duration, state: Arc<State>) -> ResponseBody {
        let stream = futures_util::stream::unfold(
            (self.steps, state),
            move |(mut steps, state)| async move {
                loop {
                    match steps.pop_front()? {
                        Step::Chunk(bytes) => {
                            if !delay.is_zero() {
                                tokio::time::sleep(delay).await;
                            }
                            return Some((Ok(Frame::data(bytes)), (steps, state)));
                        }
                        Step::Gate(name) => state.pass_gate(&name).await,
                        Step::Abort => {
                            // hyper drops its unflushed write buffer when a body fails;
                            // returning Pending once makes it flush what was sent so far.
                            tokio::task::yield_now().await;
                            steps.clear();
                            let err = io::Error::other("mock-llm: scripted disconnect");
                            return Some((Err(err), (steps, state)));
                        }
                    }
                }
            },
        );
        StreamBody::new(stream).boxed_unsync()
    }
}

/// How a streamed reply ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    EndTurn,
    ToolUse,
    MaxTokens,
    Disconnect,
    MidStreamError,
}

impl Ending {
    /// Whether the stream fails after part of its text.
    pub(crate) fn fails(self) -> bool {
        matches!(self, Self::Disconnect | Self::MidStreamError)
    }
}

/// The content of a streamed reply, independent of the protocol.
pub(crate) struct Shape<'a> {
    pub(crate) text: &'a str,
    pub(crate) calls: &'a [ToolCall],
    pub(crate) ending: Ending,
}

impl<'a> Shape<'a> {
    /// `None` for [`Reply::Error`], which is not streamed.
    pub(crate) fn of(reply: &'a Reply) -> Option<Self> {
        let (text, calls, ending): (&str, &[ToolCall], _) = match reply {
            Reply::Text { text } => (text, &[], Ending::EndTurn),
            Reply::ToolCalls { text, calls } => {
                (text.as_deref().unwrap_or(""), calls, Ending::ToolUse)
            }
            Reply::MaxTokens { text } => (text, &[], Ending::MaxTokens),
            Reply::Disconnect { text } => (text, &[], Ending::Disconnect),
            Reply::MidStreamError { text } => (text, &[], Ending::MidStreamError),
            Reply::Error { .. } => return None,
        };
        Some(Self {
            text,
            calls,
            ending,
        })
    }

    /// The text pieces to stream: all of them, or about half when the stream fails.
    pub(crate) fn text_pieces(&self, chunk_chars: usize) -> Vec<String> {
        let mut pieces = split_chunks(self.text, chunk_chars);
        if self.ending.fails() {
            pieces.truncate(pieces.len().div_ceil(2));
        }
        pieces
    }
}

/// Everything a renderer needs to stream one reply.
pub(crate) struct Ctx<'a> {
    pub(crate) reply: &'a ScriptedReply,
    pub(crate) shape: Shape<'a>,
    /// The `model` of the request, echoed back.
    pub(crate) model: String,
    /// Unique per answered request; used in generated ids.
    pub(crate) seq: u64,
    pub(crate) usage: Usage,
    /// OpenAI `stream_options.include_usage`.
    pub(crate) include_usage: bool,
}

/// Compact JSON of a tool input (`{}` for `null`).
pub(crate) fn input_json(input: &Value) -> String {
    if input.is_null() {
        "{}".to_owned()
    } else {
        input.to_string()
    }
}

/// Token counts reported for one reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Usage {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_creation: u64,
}

impl Usage {
    /// Defaults from the request size and generated characters, then the overrides.
    pub(crate) fn of(reply: &ScriptedReply, shape: &Shape<'_>, request_len: usize) -> Self {
        let generated = shape.text.chars().count()
            + reply.thinking.as_deref().map_or(0, |t| t.chars().count())
            + shape
                .calls
                .iter()
                .map(|c| input_json(&c.input).chars().count())
                .sum::<usize>();
        let spec = reply.usage.clone().unwrap_or_default();
        Self {
            input: spec.input_tokens.unwrap_or((request_len / 4) as u64),
            output: spec
                .output_tokens
                .unwrap_or(((generated / 4) as u64).max(1)),
            cache_read: spec.cache_read_input_tokens.unwrap_or(0),
            cache_creation: spec.cache_creation_input_tokens.unwrap_or(0),
        }
    }
}

/// Splits `text` into pieces of `size` characters (at least 1); empty text gives none.
pub(crate) fn split_chunks(text: &str, size: usize) -> Vec<String> {
    let size = size.max(1);
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// Like [`split_chunks`], but at least two pieces when the text has two characters or
/// more (tool input JSON always arrives in several pieces).
pub(crate) fn split_pieces(text: &str, size: usize) -> Vec<String> {
    let len = text.chars().count();
    split_chunks(text, size.clamp(1, len.div_ceil(2).max(1)))
}

/// A deterministic fake thinking signature.
pub(crate) fn signature_for(thinking: &str) -> String {
    // FNV-1a, so the same thinking always gets the same signature.
    let hash = thinking.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("EqMockSig{hash:016x}==")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_char_boundaries() {
        assert_eq!(split_chunks("héllo", 2), vec!["hé", "ll", "o"]);
        assert!(split_chunks("", 8).is_empty());
        assert_eq!(split_pieces("{}", 8), vec!["{", "}"]);
        assert_eq!(split_pieces("{\"a\":1}", 3).concat(), "{\"a\":1}");
    }

    #[test]
    fn failing_shapes_stream_half() {
        let reply = Reply::disconnect("abcdefghij");
        let shape = Shape::of(&reply);
        assert!(shape.is_some_and(|s| s.text_pieces(2) == vec!["ab", "cd", "ef"]));
    }
}
