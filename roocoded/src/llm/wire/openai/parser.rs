//! OpenAI-compatible Chat Completions SSE parser. Handles what real servers send:
//! tool-call deltas interleaved by `index` (each routed to its own accumulator), `id`
//! and `name` repeated on every delta or sent only once (or not at all), role-only
//! deltas with `content: null`, usage-only chunks with empty `choices`, unknown extra
//! fields, `refusal` deltas (as text), `reasoning_content`/`reasoning` (as thinking),
//! `finish_reason` and `[DONE]`. A stream with neither a `finish_reason` nor `[DONE]`
//! is broken.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::llm::error::{ErrorContext, LlmError};
use crate::llm::sse::SseParser;
use crate::llm::wire::push_text;
use crate::llm::{ModelStopReason, StreamEvent, TokenUsage};

#[derive(Debug, Default)]
struct ToolAcc {
    id: Option<String>,
    name: Option<String>,
    /// Arguments received before the name (the start event needs it).
    pending: String,
    started: bool,
    ended: bool,
}

pub(crate) struct OpenAiParser {
    errors: ErrorContext,
    tools: BTreeMap<usize, ToolAcc>,
    last_index: Option<usize>,
    finish: Option<ModelStopReason>,
    done: bool,
    /// Makes ids generated for calls that arrive without one unique across streams.
    id_seed: u32,
}

impl OpenAiParser {
    pub(crate) fn new(errors: ErrorContext) -> Self {
        Self::with_id_seed(errors, fastrand::u32(..))
    }

    /// A parser whose generated call ids are `call_<seed>_<index>` (tests pin the seed).
    pub(crate) fn with_id_seed(errors: ErrorContext, id_seed: u32) -> Self {
        OpenAiParser {
            errors,
            tools: BTreeMap::new(),
            last_index: None,
            finish: None,
            done: false,
            id_seed,
        }
    }

    fn tool_delta(&mut self, tc: &Value, out: &mut Vec<StreamEvent>) {
        let id = tc["id"].as_str().filter(|s| !s.is_empty());
        let index = match tc["index"].as_u64().and_then(|i| usize::try_from(i).ok()) {
            Some(i) => i,
            // No index: a new call when it brings a new id, else the current one.
            None => match (self.last_index, id) {
                (Some(last), Some(id))
                    if self.tools.get(&last).and_then(|t| t.id.as_deref()) != Some(id) =>
                {
                    self.tools.keys().max().map_or(0, |m| m + 1)
                }
                (Some(last), _) => last,
                (None, _) => 0,
            },
        };
        self.last_index = Some(index);
        let acc = self.tools.entry(index).or_default();
        if acc.id.is_none() {
            acc.id = id.map(str::to_string);
        }
        let function = &tc["function"];
        if acc.name.is_none() {
            acc.name = function["name"]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string);
        }
        let args = match &function["arguments"] {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(), // a server that sends the arguments as an object
        };
        if acc.started {
            if !args.is_empty() {
                out.push(StreamEvent::ToolInputDelta {
                    index,
                    partial_json: args,
                });
            }
            return;
        }
        acc.pending.push_str(&args);
        if let Some(name) = acc.name.clone() {
            acc.started = true;
            let seed = self.id_seed;
            let id = acc
                .id
                .get_or_insert_with(|| format!("call_{seed:08x}_{index}"))
                .clone();
            out.push(StreamEvent::ToolCallStart { index, id, name });
            if !acc.pending.is_empty() {
                out.push(StreamEvent::ToolInputDelta {
                    index,
                    partial_json: std::mem::take(&mut acc.pending),
                });
            }
        }
    }

    fn end_tools(&mut self, out: &mut Vec<StreamEvent>) {
        for (&index, acc) in self.tools.iter_mut() {
            if acc.started && !acc.ended {
                acc.ended = true;
                out.push(StreamEvent::ToolCallEnd { index });
            }
        }
    }

    /// The terminal event; `stop` on a turn with tool calls is reported as tool use.
    fn end(&mut self, out: &mut Vec<StreamEvent>) {
        self.end_tools(out);
        let has_tools = self.tools.values().any(|t| t.started);
        let stop_reason = match self.finish.take() {
            Some(ModelStopReason::EndTurn) | None if has_tools => ModelStopReason::ToolUse,
            Some(reason) => reason,
            None => ModelStopReason::EndTurn,
        };
        out.push(StreamEvent::End { stop_reason });
        self.done = true;
    }

    fn choice(&mut self, choice: &Value, out: &mut Vec<StreamEvent>) {
        let delta = &choice["delta"];
        let reasoning = delta["reasoning_content"]
            .as_str()
            .or_else(|| delta["reasoning"].as_str());
        push_text(out, reasoning, StreamEvent::ThinkingDelta);
        for key in ["content", "refusal"] {
            push_text(out, delta[key].as_str(), StreamEvent::TextDelta);
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for tc in calls {
                self.tool_delta(tc, out);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish = Some(finish_reason(reason));
            self.end_tools(out);
        }
    }
}

impl SseParser for OpenAiParser {
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        let data = data.trim();
        if data == "[DONE]" {
            self.end(out);
            return Ok(());
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| self.errors.stream_error(format!("malformed chunk: {e}")))?;
        if event == "error" || v.get("error").is_some_and(|e| !e.is_null()) {
            return Err(self.errors.event_error(&v));
        }
        if let Some(choices) = v["choices"].as_array() {
            // Only the first choice is used (n = 1).
            for choice in choices
                .iter()
                .filter(|c| c["index"].as_u64().unwrap_or(0) == 0)
            {
                self.choice(choice, out);
            }
        }
        if v["usage"].is_object() {
            out.push(StreamEvent::Usage(usage_of(&v["usage"])));
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn on_eof(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if self.finish.is_some() {
            // Complete answer, only `[DONE]` (and maybe usage) missing.
            tracing::warn!(provider = %self.errors.provider, "stream ended without [DONE]");
            self.end(out);
            return Ok(());
        }
        Err(self
            .errors
            .stream_error("the stream ended before a finish_reason or [DONE]"))
    }
}

/// `prompt_tokens` includes cached tokens; they move to `cache_read_tokens`.
fn usage_of(u: &Value) -> TokenUsage {
    let prompt = u["prompt_tokens"].as_u64();
    let cached = u["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .or_else(|| u["prompt_cache_hit_tokens"].as_u64()); // DeepSeek
    TokenUsage {
        input_tokens: prompt.map(|p| p.saturating_sub(cached.unwrap_or(0))),
        output_tokens: u["completion_tokens"].as_u64(),
        cache_read_tokens: Some(cached.unwrap_or(0)),
        cache_write_tokens: None,
    }
}

fn finish_reason(reason: &str) -> ModelStopReason {
    match reason {
        "stop" => ModelStopReason::EndTurn,
        "tool_calls" | "function_call" => ModelStopReason::ToolUse,
        "length" => ModelStopReason::MaxTokens,
        "content_filter" => ModelStopReason::Refusal,
        other => ModelStopReason::Other(other.to_string()),
    }
}
