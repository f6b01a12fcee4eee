//! The normalised stream between a wire format's parser and the assembler: what every
//! format's answer is reduced to, so that nothing after the parser knows the format.

use futures_util::stream::BoxStream;
use roocode_protocol::content::Usage;

use super::error::LlmError;
use super::{ModelStopReason, Price, pricing};

/// Token counts as a stream reports them; `None` means "not reported by this event".
/// Normalised: `input_tokens` excludes cache reads and writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TokenUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
}

impl TokenUsage {
    /// Takes every count `later` reports (streams report running totals).
    pub(crate) fn merge(&mut self, later: &TokenUsage) {
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
    pub(crate) fn to_usage(self, price: Option<&Price>) -> Usage {
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
pub(crate) enum StreamEvent {
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

/// A stream of normalised events.
pub(crate) type EventStream = BoxStream<'static, Result<StreamEvent, LlmError>>;
