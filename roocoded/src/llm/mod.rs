//! The LLM layer (DESIGN.md §4): one model call, from a [`ModelRequest`] to a
//! [`ModelResponse`].
//!
//! What callers use:
//! - [`resolve_model`] turns a spec (`anthropic/sonnet`, `openai/gpt-4.1`,
//!   `deepseek/deepseek-chat` for a provider from the config) into a [`ResolvedModel`]:
//!   the [`Provider`] to call, the price and the context window. Keys and base URLs come
//!   from the client's environment. [`check_model_spec`] and [`context_window`] read a
//!   spec the same way without needing a key; [`model_spec`] says which spec applies.
//! - [`call_model`] runs one call (one request), reports [`Progress`] (deltas, stream
//!   resets) and returns a [`CallOutcome`] or a classified [`LlmError`]. It never
//!   retries: what a failure leads to is recovery's decision (`crate::recovery`).
//! - [`pricing`] holds the tables of known models' prices and windows, by provider-side
//!   name; the window of a spec is [`context_window`]'s (alias expanded, config first).
//!
//! Inside, one [`Provider`] does the HTTP exchange, the SSE framing (`sse`) and the error
//! classification (`error`) for every endpoint. Its [`WireFormat`] (`wire/`: Anthropic
//! Messages, OpenAI Chat Completions) is what differs: the URL path, a fixed header, the
//! request encoder, and the stream parser that turns the answer into normalised events
//! (`event`), which `assemble` folds into the response. A new format is one new variant
//! with its encoder and parser. Nothing above this layer knows which format ran; it knows
//! nothing of the agent loop or of the tools' code (it only carries their [`ToolSpec`]s).

mod assemble;
mod call;
mod error;
mod event;
mod http;
pub mod pricing;
mod provider;
mod resolve;
mod short_tools;
mod sse;
#[cfg(test)]
pub(crate) mod test_history;
#[cfg(test)]
pub(crate) mod test_server;
pub mod window;
mod wire;

use std::borrow::Cow;
use std::sync::Arc;

use roocode_protocol::content::{ContentBlock, Message, Usage};

pub use call::{DEFAULT_STALL_TIMEOUT, call_model};
pub use error::LlmError;
pub(crate) use event::{EventStream, StreamEvent, TokenUsage};
pub use http::http_client;
pub use pricing::Price;
pub use provider::Provider;
pub use resolve::{
    DEFAULT_MODEL, ResolvedModel, check_model_spec, context_window, model_spec, resolve_model,
    tier_spec,
};
pub use short_tools::{short_description, tools_for_window};
pub use window::{
    discover as discover_window, discovery_timeout, learn as learn_window, overflow_limit,
};
pub use wire::{MaxTokensField, WireFormat};

/// A tool as the model sees it: name, description and JSON schema of its input. The
/// tool registry exports these; each provider's encoder turns them into its format.
/// Names and descriptions are shared, since tools known only at run time (MCP servers,
/// skills) own theirs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolSpec {
    pub name: Arc<str>,
    pub description: Arc<str>,
    pub input_schema: serde_json::Value,
}

/// One request to a model. Its messages are borrowed from the caller's context where
/// they go out as they are, and owned where the caller changed a copy (a reminder
/// added), so that building a request does not copy a long history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest<'a> {
    /// Provider-side model name (`claude-sonnet-4-5`, `gpt-4.1`); empty means the
    /// `ResolvedModel`'s name in `call_model`.
    pub model: String,
    /// System prompt; empty means none.
    pub system: String,
    pub messages: Vec<Cow<'a, Message>>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
}

/// Messages a request owns, for requests built from scratch (summaries, tests).
pub fn owned_messages(messages: Vec<Message>) -> Vec<Cow<'static, Message>> {
    messages.into_iter().map(Cow::Owned).collect()
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelStopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    StopSequence,
    Refusal,
    Other(String),
}

impl ModelStopReason {
    pub fn as_str(&self) -> &str {
        match self {
            ModelStopReason::EndTurn => "end_turn",
            ModelStopReason::ToolUse => "tool_use",
            ModelStopReason::MaxTokens => "max_tokens",
            ModelStopReason::StopSequence => "stop_sequence",
            ModelStopReason::Refusal => "refusal",
            ModelStopReason::Other(s) => s,
        }
    }
}

/// A complete assistant answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    /// Text, thinking (signature verbatim), redacted thinking and tool calls with parsed
    /// input, in stream order. A tool call whose input is not valid JSON has the raw
    /// text as a JSON string input (so schema validation rejects it); a call cut off by
    /// `max_tokens` is dropped.
    pub content: Vec<ContentBlock>,
    pub stop_reason: ModelStopReason,
    /// Cost filled from the price table, `None` for an unknown model.
    pub usage: Usage,
}

impl ModelResponse {
    /// The text blocks of the answer, concatenated (what a tool-less call is for).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// What `call_model` reports while it runs (and `recovery::call_retrying`, its waits).
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    TextDelta(String),
    ThinkingDelta(String),
    /// The attempt failed; attempt number `attempt` (2 for the first retry) of
    /// `max_attempts` starts after `delay_ms`. Sent before the wait.
    Retrying {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        reason: String,
    },
    /// Discard the text and thinking deltas reported so far: their attempt failed.
    StreamReset,
}

/// A successful call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub response: ModelResponse,
    /// Attempts made, 1 when the first one succeeded.
    pub attempts: u32,
    /// From the first request to the end of the successful stream, waits included.
    pub latency_ms: u64,
    /// Size of one request body.
    pub request_bytes: u64,
    /// From sending the request to the first event of its stream.
    pub ttft_ms: Option<u64>,
    /// The request body as sent (for the flight recorder's bodies; cheap to clone).
    pub request_body: bytes::Bytes,
}
