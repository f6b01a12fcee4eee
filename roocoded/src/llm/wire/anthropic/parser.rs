//! Anthropic Messages SSE parser: `message_start` (input and cache usage),
//! `content_block_start/delta/stop` (text, tool_use with `input_json_delta` pieces,
//! thinking with its signature, redacted thinking), `message_delta` (stop reason, output
//! usage) and `message_stop` (terminal). `ping` and unknown events are ignored; an
//! `error` event is a classified failure; a stream without `message_stop` is broken.

use std::collections::HashMap;

use serde_json::Value;

use crate::llm::error::{ErrorContext, LlmError};
use crate::llm::sse::SseParser;
use crate::llm::wire::push_text;
use crate::llm::{ModelStopReason, StreamEvent, TokenUsage};

/// Event types whose payload must be JSON; others are ignored when they are not.
const KNOWN_EVENTS: &[&str] = &[
    "message",
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "error",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    Tool { got_delta: bool },
    Other,
}

pub(crate) struct AnthropicParser {
    errors: ErrorContext,
    blocks: HashMap<usize, Block>,
    /// Tool input sent whole in `content_block_start` (some compatible servers do).
    start_input: HashMap<usize, String>,
    stop_reason: Option<ModelStopReason>,
    done: bool,
}

impl AnthropicParser {
    pub(crate) fn new(errors: ErrorContext) -> Self {
        AnthropicParser {
            errors,
            blocks: HashMap::new(),
            start_input: HashMap::new(),
            stop_reason: None,
            done: false,
        }
    }

    fn block_start(&mut self, v: &Value, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let index = index_of(v).ok_or_else(|| {
            self.errors
                .stream_error("content_block_start without index")
        })?;
        let block = &v["content_block"];
        let kind = match block["type"].as_str().unwrap_or("") {
            "text" => {
                push_text(out, block["text"].as_str(), StreamEvent::TextDelta);
                Block::Text
            }
            "thinking" => {
                push_text(out, block["thinking"].as_str(), StreamEvent::ThinkingDelta);
                push_text(
                    out,
                    block["signature"].as_str(),
                    StreamEvent::ThinkingSignature,
                );
                Block::Thinking
            }
            "redacted_thinking" => {
                let data = block["data"].as_str().unwrap_or("").to_string();
                out.push(StreamEvent::RedactedThinking(data));
                Block::Other
            }
            "tool_use" => {
                let id = block["id"].as_str().unwrap_or("").to_string();
                let name = block["name"].as_str().unwrap_or("").to_string();
                if let Some(input) = block.get("input").filter(|i| is_non_empty(i)) {
                    self.start_input.insert(index, input.to_string());
                }
                out.push(StreamEvent::ToolCallStart { index, id, name });
                Block::Tool { got_delta: false }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, kind);
        Ok(())
    }

    fn block_delta(&mut self, v: &Value, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let index = index_of(v).ok_or_else(|| {
            self.errors
                .stream_error("content_block_delta without index")
        })?;
        let delta = &v["delta"];
        match delta["type"].as_str().unwrap_or("") {
            "text_delta" => push_text(out, delta["text"].as_str(), StreamEvent::TextDelta),
            "thinking_delta" => {
                push_text(out, delta["thinking"].as_str(), StreamEvent::ThinkingDelta)
            }
            "signature_delta" => push_text(
                out,
                delta["signature"].as_str(),
                StreamEvent::ThinkingSignature,
            ),
            "input_json_delta" => {
                if let Some(Block::Tool { got_delta }) = self.blocks.get_mut(&index) {
                    *got_delta = true;
                    let partial_json = delta["partial_json"].as_str().unwrap_or("").to_string();
                    if !partial_json.is_empty() {
                        out.push(StreamEvent::ToolInputDelta {
                            index,
                            partial_json,
                        });
                    }
                }
            }
            _ => {} // citations_delta and future delta types
        }
        Ok(())
    }

    fn block_stop(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        let Some(index) = index_of(v) else { return };
        if let Some(Block::Tool { got_delta }) = self.blocks.get(&index) {
            if let Some(input) = self.start_input.remove(&index).filter(|_| !got_delta) {
                out.push(StreamEvent::ToolInputDelta {
                    index,
                    partial_json: input,
                });
            }
            out.push(StreamEvent::ToolCallEnd { index });
        }
    }
}

impl SseParser for AnthropicParser {
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError> {
        if self.done || event == "ping" {
            return Ok(());
        }
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) if KNOWN_EVENTS.contains(&event) => {
                return Err(self
                    .errors
                    .stream_error(format!("malformed `{event}` event: {e}")));
            }
            Err(_) => return Ok(()), // an unknown event type with a non-JSON payload
        };
        let kind = v["type"].as_str().unwrap_or(event);
        match kind {
            "message_start" => {
                let usage = &v["message"]["usage"];
                if usage.is_object() {
                    out.push(StreamEvent::Usage(usage_of(usage)));
                }
            }
            "content_block_start" => self.block_start(&v, out)?,
            "content_block_delta" => self.block_delta(&v, out)?,
            "content_block_stop" => self.block_stop(&v, out),
            "message_delta" => {
                if let Some(reason) = v["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(stop_reason(reason));
                }
                if v["usage"].is_object() {
                    out.push(StreamEvent::Usage(usage_of(&v["usage"])));
                }
            }
            "message_stop" => {
                let stop_reason = self.stop_reason.take().unwrap_or(ModelStopReason::EndTurn);
                out.push(StreamEvent::End { stop_reason });
                self.done = true;
            }
            "error" => return Err(self.errors.event_error(&v)),
            _ => {} // ping sent as data, and event types added after this was written
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn on_eof(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        Err(self
            .errors
            .stream_error("the stream ended before message_stop"))
    }
}

fn index_of(v: &Value) -> Option<usize> {
    v["index"].as_u64().and_then(|i| usize::try_from(i).ok())
}

fn is_non_empty(v: &Value) -> bool {
    match v {
        Value::Object(map) => !map.is_empty(),
        Value::Null => false,
        _ => true,
    }
}

/// Anthropic reports `input_tokens` without cache reads and writes already.
fn usage_of(u: &Value) -> TokenUsage {
    TokenUsage {
        input_tokens: u["input_tokens"].as_u64(),
        output_tokens: u["output_tokens"].as_u64(),
        cache_read_tokens: u["cache_read_input_tokens"].as_u64(),
        cache_write_tokens: u["cache_creation_input_tokens"].as_u64(),
    }
}

fn stop_reason(reason: &str) -> ModelStopReason {
    match reason {
        "end_turn" => ModelStopReason::EndTurn,
        "tool_use" => ModelStopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => ModelStopReason::MaxTokens,
        "stop_sequence" => ModelStopReason::StopSequence,
        "refusal" => ModelStopReason::Refusal,
        other => ModelStopReason::Other(other.to_string()),
    }
}
