//! The LLM layer (DESIGN.md §4): providers that turn a [`ModelRequest`] into a stream of
//! normalised [`StreamEvent`]s (one parser per wire protocol), [`call_model`] which runs
//! one call with retries and assembles a [`ModelResponse`], model resolution from the
//! client's environment and the config, and the price / context-window tables.
//! Nothing above this layer knows which protocol ran; it knows nothing of the agent loop
//! or of the tools' code (it only carries their schemas).

mod anthropic;
mod assemble;
mod call;
mod error;
mod http;
mod openai;
pub mod pricing;
mod resolve;
mod retry;
mod sse;
#[cfg(test)]
pub(crate) mod test_history;
#[cfg(test)]
pub(crate) mod test_server;

use std::borrow::Cow;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use roocode_protocol::content::{ContentBlock, Message, Usage};

pub use anthropic::AnthropicProvider;
pub use call::call_model;
pub use error::LlmError;
pub use http::http_client;
pub use openai::OpenAiProvider;
pub use pricing::Price;
pub use resolve::{
    DEFAULT_MODEL, ResolvedModel, check_model_spec, context_window, model_spec, resolve_model,
};
pub use retry::RetryPolicy;

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

/// Token counts as a stream reports them; `None` means "not reported by this event".
/// Normalised: `input_tokens` excludes cache reads and writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
}

impl TokenUsage {
    /// Takes every count `later` reports (streams report running totals).
    pub fn merge(&mut self, later: &TokenUsage) {
        fn take(slot: &mut Option<u64>, later: Option<u64>) {
            if later.is_some() {
                *slot = later;
            }
        }
        take(&mut self.input_tokens, later.input_tokens);
        take(&mut self.output_tokens, later.output_tokens);
        take(&mut self.cache_read_tokens, later.cache_read_tokens);
        take(&mut self.cache_write_tokens, later.cache_write_tokens);
    }

    /// The protocol's usage record, with the cost computed from `price` when known.
    pub fn to_usage(&self, price: Option<&Price>) -> Usage {
        let mut usage = Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: self.cache_read_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_write_tokens.unwrap_or(0),
            cost_usd: None,
        };
        usage.cost_usd = price.map(|p| pricing::cost(p, &usage));
        usage
    }
}

/// One normalised stream event. Tool calls are addressed by `index`: several may be
/// open at once (OpenAI interleaves their deltas).
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ThinkingDelta(String),
    /// Closes the current thinking block; must be sent back verbatim.
    ThinkingSignature(String),
    RedactedThinking(String),
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    ToolInputDelta {
        index: usize,
        partial_json: String,
    },
    ToolCallEnd {
        index: usize,
    },
    Usage(TokenUsage),
    /// The terminal event; a stream that ends without it is a failure.
    End {
        stop_reason: ModelStopReason,
    },
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

/// A stream of normalised events.
pub type EventStream = BoxStream<'static, Result<StreamEvent, LlmError>>;

/// One wire protocol. `stream` resolves once the response headers arrived with a
/// success status (HTTP errors are classified [`LlmError`]s), then yields events.
pub trait Provider: Send + Sync {
    /// `"anthropic"` or `"openai"`.
    fn protocol(&self) -> &'static str;

    /// The request body this provider sends for `req` (encoded once per call, then
    /// reused by every attempt).
    fn encode(&self, req: &ModelRequest<'_>) -> Result<bytes::Bytes, LlmError>;

    /// Sends an encoded body and streams the answer.
    fn stream(&self, body: bytes::Bytes) -> BoxFuture<'_, Result<EventStream, LlmError>>;

    /// The URL requests go to (for diagnostics).
    fn endpoint(&self) -> &str {
        ""
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

/// What `call_model` reports while it runs.
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
}
