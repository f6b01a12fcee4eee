//! OpenAI Chat Completions (`POST /v1/chat/completions`): request validation, default
//! error bodies, and rendering a reply as the SSE `data:` chunks OpenAI-compatible
//! servers send (role chunk, `reasoning_content` / `content` / `tool_calls` deltas, the
//! `finish_reason` chunk, the optional usage-only chunk, `[DONE]`), with the llama.cpp
//! quirks `repeat_ids` and an unknown `timings` field, and interleaved tool calls.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::stream::{Ctx, Ending, Plan, input_json, split_chunks, split_pieces};

/// Checks the minimal shape of a Chat Completions request.
pub(crate) fn validate(body: &Value) -> Result<(), String> {
    let obj = body
        .as_object()
        .ok_or("the request body must be a JSON object")?;
    if !obj.get("model").is_some_and(Value::is_string) {
        return Err("`model` (string) is required".into());
    }
    let messages = obj.get("messages").and_then(Value::as_array);
    if messages.is_none_or(|m| m.is_empty()) {
        return Err("`messages` (non-empty array) is required".into());
    }
    if obj.get("stream") != Some(&Value::Bool(true)) {
        return Err("only streaming requests are supported: set \"stream\": true".into());
    }
    Ok(())
}

/// Whether the request asked for the usage chunk.
pub(crate) fn include_usage(body: &Value) -> bool {
    body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true))
}

/// An OpenAI-shaped error body.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        400 => ("invalid_request_error", Value::Null),
        401 => ("invalid_request_error", json!("invalid_api_key")),
        404 => ("invalid_request_error", json!("model_not_found")),
        429 => ("requests", json!("rate_limit_exceeded")),
        _ => ("server_error", Value::Null),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

struct Writer<'a> {
    plan: Plan,
    id: String,
    created: u64,
    model: &'a str,
    include_usage: bool,
}

impl Writer<'_> {
    fn base(&self, choices: Value) -> Value {
        let mut chunk = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": "fp_mock",
            "choices": choices,
        });
        if self.include_usage {
            chunk["usage"] = Value::Null;
        }
        chunk
    }

    fn chunk(&mut self, delta: Value, finish_reason: Option<&str>, extra: Option<Value>) {
        let mut chunk = self.base(json!([{
            "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason
        }]));
        if let Some(extra) = extra {
            chunk["timings"] = extra;
        }
        self.plan.data(&chunk.to_string());
    }
}

/// An unknown field as llama.cpp sends it; clients must ignore it.
fn timings(pieces: usize) -> Value {
    json!({"prompt_n": 12, "prompt_ms": 3.5, "predicted_n": pieces, "predicted_ms": 7.25})
}

/// Renders a streamed reply as OpenAI SSE chunks.
pub(crate) fn render(ctx: &Ctx<'_>) -> Plan {
    let reply = ctx.reply;
    let chunk = reply.chunk_chars;
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut w = Writer {
        plan: Plan::new(reply.gate.clone()),
        id: format!("chatcmpl-mock-{}", ctx.seq),
        created,
        model: &ctx.model,
        include_usage: ctx.include_usage,
    };
    w.chunk(json!({"role": "assistant", "content": null}), None, None);

    if let Some(thinking) = &reply.thinking {
        for piece in split_chunks(thinking, chunk) {
            w.chunk(json!({"reasoning_content": piece}), None, None);
        }
    }

    let shape = &ctx.shape;
    for (i, piece) in shape.text_pieces(chunk).into_iter().enumerate() {
        let extra = (i == 0).then(|| timings(1));
        w.chunk(json!({"content": piece}), None, extra);
        w.plan.gate_point();
    }

    match shape.ending {
        Ending::Disconnect => {
            w.plan.abort();
            return w.plan;
        }
        Ending::MidStreamError => {
            w.plan.gate_point();
            let error = json!({"error": {
                "message": "The server is overloaded, please retry.",
                "type": "server_error", "param": null, "code": "overloaded"
            }});
            w.plan.data(&error.to_string());
            return w.plan;
        }
        Ending::EndTurn | Ending::ToolUse | Ending::MaxTokens => {}
    }

    for delta in tool_call_deltas(ctx) {
        w.chunk(json!({"tool_calls": [delta]}), None, None);
        w.plan.gate_point();
    }

    w.plan.gate_point();
    let finish_reason = match shape.ending {
        Ending::ToolUse => "tool_calls",
        Ending::MaxTokens => "length",
        _ => "stop",
    };
    w.chunk(json!({}), Some(finish_reason), Some(timings(4)));

    if ctx.include_usage {
        let usage = ctx.usage;
        let prompt = usage.input + usage.cache_read + usage.cache_creation;
        let mut last = w.base(json!([]));
        last["usage"] = json!({
            "prompt_tokens": prompt,
            "completion_tokens": usage.output,
            "total_tokens": prompt + usage.output,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        });
        last["timings"] = timings(4);
        w.plan.data(&last.to_string());
    }
    w.plan.data("[DONE]");
    w.plan
}

/// The `tool_calls[]` entries of all calls, in streaming order: each call's header
/// delta (id, type, name, empty arguments) then its argument pieces; sequential by
/// default, round-robin by index with `interleave`.
fn tool_call_deltas(ctx: &Ctx<'_>) -> Vec<Value> {
    let reply = ctx.reply;
    let per_call: Vec<Vec<Value>> = ctx
        .shape
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let id = call
                .id
                .clone()
                .unwrap_or_else(|| format!("call_mock_{}_{i}", ctx.seq));
            let full = |arguments: &str| {
                json!({"index": i, "id": id, "type": "function",
                    "function": {"name": call.name, "arguments": arguments}})
            };
            let mut deltas = vec![full("")];
            for piece in split_pieces(&input_json(&call.input), reply.chunk_chars) {
                deltas.push(if reply.repeat_ids {
                    full(&piece)
                } else {
                    json!({"index": i, "function": {"arguments": piece}})
                });
            }
            deltas
        })
        .collect();

    if !reply.interleave {
        return per_call.into_iter().flatten().collect();
    }
    let rounds = per_call.iter().map(Vec::len).max().unwrap_or(0);
    let mut iters: Vec<_> = per_call.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    for _ in 0..rounds {
        out.extend(iters.iter_mut().filter_map(Iterator::next));
    }
    out
}
