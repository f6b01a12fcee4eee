//! Builds a [`ModelResponse`] from normalised stream events: text and thinking blocks
//! in order (signatures verbatim), tool calls accumulated by index and parsed at the
//! end. A call cut off by `max_tokens` is dropped; a call whose input is not JSON keeps
//! the raw text as a JSON string so schema validation rejects it and tells the model.

use std::collections::HashMap;

use roocode_protocol::content::ContentBlock;
use serde_json::Value;

use super::error::{ErrorContext, LlmError};
use super::{ModelResponse, ModelStopReason, Price, StreamEvent, TokenUsage};

#[derive(Debug)]
enum Slot {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    Redacted(String),
    Tool {
        id: String,
        name: String,
        json: String,
        ended: bool,
    },
}

/// Accumulates one attempt's events.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    slots: Vec<Slot>,
    tools: HashMap<usize, usize>,
    usage: TokenUsage,
    stop: Option<ModelStopReason>,
}

impl Assembler {
    pub(crate) fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::TextDelta(t) => match self.slots.last_mut() {
                Some(Slot::Text(text)) => text.push_str(&t),
                _ => self.slots.push(Slot::Text(t)),
            },
            StreamEvent::ThinkingDelta(t) => match self.slots.last_mut() {
                Some(Slot::Thinking {
                    text,
                    signature: None,
                }) => text.push_str(&t),
                _ => self.slots.push(Slot::Thinking {
                    text: t,
                    signature: None,
                }),
            },
            StreamEvent::ThinkingSignature(s) => match self.slots.last_mut() {
                Some(Slot::Thinking { signature, .. }) => {
                    signature.get_or_insert_with(String::new).push_str(&s);
                }
                _ => self.slots.push(Slot::Thinking {
                    text: String::new(),
                    signature: Some(s),
                }),
            },
            StreamEvent::RedactedThinking(data) => self.slots.push(Slot::Redacted(data)),
            StreamEvent::ToolCallStart { index, id, name } => {
                if !self.tools.contains_key(&index) {
                    self.tools.insert(index, self.slots.len());
                    self.slots.push(Slot::Tool {
                        id,
                        name,
                        json: String::new(),
                        ended: false,
                    });
                }
            }
            StreamEvent::ToolInputDelta {
                index,
                partial_json,
            } => {
                if let Some(Slot::Tool { json, .. }) = self.tool_slot(index) {
                    json.push_str(&partial_json);
                }
            }
            StreamEvent::ToolCallEnd { index } => {
                if let Some(Slot::Tool { ended, .. }) = self.tool_slot(index) {
                    *ended = true;
                }
            }
            StreamEvent::Usage(u) => self.usage.merge(&u),
            StreamEvent::End { stop_reason } => self.stop = Some(stop_reason),
        }
    }

    fn tool_slot(&mut self, index: usize) -> Option<&mut Slot> {
        let at = *self.tools.get(&index)?;
        self.slots.get_mut(at)
    }

    /// The response, or a stream error when no terminal event arrived.
    pub(crate) fn finish(
        self,
        errors: &ErrorContext,
        price: Option<&Price>,
    ) -> Result<ModelResponse, LlmError> {
        let Some(stop_reason) = self.stop else {
            return Err(errors.stream_error("the stream ended without its terminal event"));
        };
        let cut_off = stop_reason == ModelStopReason::MaxTokens;
        let mut content = Vec::with_capacity(self.slots.len());
        for slot in self.slots {
            match slot {
                Slot::Text(text) if text.is_empty() => {}
                Slot::Text(text) => content.push(ContentBlock::Text { text }),
                Slot::Thinking { text, signature } => content.push(ContentBlock::Thinking {
                    thinking: text,
                    signature,
                }),
                Slot::Redacted(data) => content.push(ContentBlock::RedactedThinking { data }),
                Slot::Tool {
                    id,
                    name,
                    json,
                    ended,
                } => {
                    let parsed = parse_input(&json);
                    if cut_off && (!ended || parsed.is_err()) {
                        tracing::warn!(tool = %name, "dropping a tool call cut off by max_tokens");
                        continue;
                    }
                    let input = parsed.unwrap_or_else(|raw| {
                        tracing::warn!(tool = %name, "tool input is not valid JSON");
                        Value::String(raw)
                    });
                    content.push(ContentBlock::ToolUse { id, name, input });
                }
            }
        }
        Ok(ModelResponse {
            content,
            stop_reason,
            usage: self.usage.to_usage(price),
        })
    }
}

/// Empty input is `{}`; invalid JSON comes back as the raw text.
fn parse_input(json: &str) -> Result<Value, String> {
    if json.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(json).map_err(|_| json.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assemble(events: Vec<StreamEvent>) -> ModelResponse {
        let mut a = Assembler::default();
        for e in events {
            a.push(e);
        }
        a.finish(&ErrorContext::test("anthropic"), None).unwrap()
    }

    fn start(index: usize, id: &str) -> StreamEvent {
        StreamEvent::ToolCallStart {
            index,
            id: id.into(),
            name: "Read".into(),
        }
    }

    fn input(index: usize, s: &str) -> StreamEvent {
        StreamEvent::ToolInputDelta {
            index,
            partial_json: s.into(),
        }
    }

    #[test]
    fn blocks_in_order_with_signature_and_interleaved_tools() {
        let r = assemble(vec![
            StreamEvent::ThinkingDelta("let me ".into()),
            StreamEvent::ThinkingDelta("see".into()),
            StreamEvent::ThinkingSignature("sig==".into()),
            StreamEvent::TextDelta("Hi".into()),
            StreamEvent::TextDelta(" there".into()),
            start(0, "a"),
            start(1, "b"),
            input(1, "{\"path\":"),
            input(0, "{\"path\":\"x\"}"),
            input(1, "\"y\"}"),
            StreamEvent::ToolCallEnd { index: 0 },
            StreamEvent::ToolCallEnd { index: 1 },
            StreamEvent::End {
                stop_reason: ModelStopReason::ToolUse,
            },
        ]);
        assert_eq!(
            r.content,
            vec![
                ContentBlock::Thinking {
                    thinking: "let me see".into(),
                    signature: Some("sig==".into())
                },
                ContentBlock::text("Hi there"),
                ContentBlock::ToolUse {
                    id: "a".into(),
                    name: "Read".into(),
                    input: json!({"path": "x"})
                },
                ContentBlock::ToolUse {
                    id: "b".into(),
                    name: "Read".into(),
                    input: json!({"path": "y"})
                },
            ]
        );
        assert_eq!(r.usage.cost_usd, None);
    }

    #[test]
    fn empty_input_is_object_and_invalid_json_is_raw_string() {
        let r = assemble(vec![
            start(0, "a"),
            StreamEvent::ToolCallEnd { index: 0 },
            start(1, "b"),
            input(1, "{\"path\": oops}"),
            StreamEvent::ToolCallEnd { index: 1 },
            StreamEvent::End {
                stop_reason: ModelStopReason::ToolUse,
            },
        ]);
        let inputs: Vec<&Value> = r
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { input, .. } => Some(input),
                _ => None,
            })
            .collect();
        assert_eq!(inputs, [&json!({}), &json!("{\"path\": oops}")]);
    }

    #[test]
    fn tool_cut_off_by_max_tokens_is_dropped() {
        let r = assemble(vec![
            StreamEvent::TextDelta("I'll read it".into()),
            start(0, "a"),
            input(0, "{\"path\": \"src/ma"),
            StreamEvent::End {
                stop_reason: ModelStopReason::MaxTokens,
            },
        ]);
        assert_eq!(r.content, vec![ContentBlock::text("I'll read it")]);
        assert_eq!(r.stop_reason, ModelStopReason::MaxTokens);
    }

    #[test]
    fn usage_merges_and_costs() {
        let mut a = Assembler::default();
        a.push(StreamEvent::Usage(TokenUsage {
            input_tokens: Some(1_000_000),
            output_tokens: Some(1),
            cache_read_tokens: Some(0),
            cache_write_tokens: Some(0),
        }));
        a.push(StreamEvent::Usage(TokenUsage {
            output_tokens: Some(1_000_000),
            ..TokenUsage::default()
        }));
        a.push(StreamEvent::End {
            stop_reason: ModelStopReason::EndTurn,
        });
        let price = Price {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        };
        let r = a.finish(&ErrorContext::test("x"), Some(&price)).unwrap();
        assert_eq!(r.usage.output_tokens, 1_000_000);
        assert_eq!(r.usage.cost_usd, Some(18.0));
    }

    #[test]
    fn no_end_is_an_error() {
        let mut a = Assembler::default();
        a.push(StreamEvent::TextDelta("x".into()));
        let e = a.finish(&ErrorContext::test("x"), None).unwrap_err();
        assert_eq!(e.kind(), "stream");
    }
}
