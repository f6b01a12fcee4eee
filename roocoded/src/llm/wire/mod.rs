//! The wire formats the one HTTP [`Provider`](super::Provider) speaks: for each, where
//! the request goes, its fixed headers, the request body encoder and the SSE parser
//! that turns the answer into normalised [`StreamEvent`](super::StreamEvent)s. Only
//! what differs between the formats lives here; the HTTP exchange, the SSE framing and
//! the error classification are shared.

mod anthropic;
mod openai;

use reqwest::header::{HeaderMap, HeaderValue};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::error::ErrorContext;
use super::sse::SseParser;
use super::{ModelRequest, StreamEvent};

/// A wire format, with the one setting that changes a format's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// Anthropic Messages: POST `{base}/v1/messages`, `anthropic-version` header.
    Anthropic,
    /// OpenAI-compatible Chat Completions: POST `{base}/chat/completions`, the base
    /// ending in `/v1` (OpenAI, DeepSeek, GLM, Ollama, llama.cpp, vLLM).
    OpenAi { max_tokens: MaxTokensField },
}

/// Which field carries the output limit: OpenAI's own API wants
/// `max_completion_tokens` (reasoning models reject `max_tokens`); compatible servers
/// know `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    MaxTokens,
    MaxCompletionTokens,
}

/// Anthropic's default base URL (without `/v1`).
pub(crate) const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// OpenAI's default base URL (with `/v1`).
pub(crate) const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

impl WireFormat {
    /// Chat Completions as the server at `base_url` (no trailing `/`) wants it.
    pub(crate) fn openai_for(base_url: &str) -> Self {
        let max_tokens = match base_url == OPENAI_BASE_URL {
            true => MaxTokensField::MaxCompletionTokens,
            false => MaxTokensField::MaxTokens,
        };
        WireFormat::OpenAi { max_tokens }
    }

    /// `"anthropic"` or `"openai"`.
    pub fn name(self) -> &'static str {
        match self {
            WireFormat::Anthropic => "anthropic",
            WireFormat::OpenAi { .. } => "openai",
        }
    }

    /// The POST URL for a base URL without a trailing `/`.
    pub(crate) fn url(self, base_url: &str) -> String {
        match self {
            WireFormat::Anthropic => format!("{base_url}/v1/messages"),
            WireFormat::OpenAi { .. } => format!("{base_url}/chat/completions"),
        }
    }

    /// Headers every request of this format carries (authentication aside).
    pub(crate) fn add_headers(self, headers: &mut HeaderMap) {
        if self == WireFormat::Anthropic {
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(anthropic::VERSION),
            );
        }
    }

    /// The JSON body for `req`.
    pub(crate) fn encode(self, req: &ModelRequest<'_>) -> Result<Vec<u8>, serde_json::Error> {
        match self {
            WireFormat::Anthropic => anthropic::encode(req),
            WireFormat::OpenAi { max_tokens } => openai::encode(req, max_tokens),
        }
    }

    /// A fresh parser for one response stream.
    pub(crate) fn parser(self, errors: ErrorContext) -> Box<dyn SseParser> {
        match self {
            WireFormat::Anthropic => Box::new(anthropic::AnthropicParser::new(errors)),
            WireFormat::OpenAi { .. } => Box::new(openai::OpenAiParser::new(errors)),
        }
    }
}

/// Pushes `make(text)` unless there is no text: servers send empty deltas.
pub(crate) fn push_text(
    out: &mut Vec<StreamEvent>,
    text: Option<&str>,
    make: fn(String) -> StreamEvent,
) {
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        out.push(make(text.to_string()));
    }
}

/// A tool input as both formats want it: an object. An input kept raw because it was
/// not valid JSON (or any other non-object) is wrapped, so the model still sees what it
/// sent; none is `{}`.
pub(crate) struct ObjectInput<'a>(pub &'a Value);

impl Serialize for ObjectInput<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(_) => self.0.serialize(serializer),
            Value::Null => serializer.serialize_map(Some(0))?.end(),
            other => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("_invalid_input", other)?;
                map.end()
            }
        }
    }
}
