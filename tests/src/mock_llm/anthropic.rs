//! Anthropic Messages API (`POST /v1/messages`): request validation, default error
//! bodies, and rendering a reply as the SSE events Anthropic sends (`message_start`,
//! `ping`, content blocks with `text_delta` / `input_json_delta` / `thinking_delta` /
//! `signature_delta`, `message_delta`, `message_stop`, mid-stream `error`).

use serde_json::{Value, json};

use super::stream::{Ctx, Ending, Plan, input_json, signature_for, split_chunks, split_pieces};

/// Checks the minimal shape of a Messages request.
pub(crate) fn validate(body: &Value) -> Result<(), String> {
    let obj = body
        .as_object()
        .ok_or("the request body must be a JSON object")?;
    if !obj.get("model").is_some_and(Value::is_string) {
        return Err("`model` (string) is required".into());
    }
    if !obj.get("messages").is_some_and(Value::is_array) {
        return Err("`messages` (array) is required".into());
    }
    if !obj.get("max_tokens").is_some_and(Value::is_u64) {
        return Err("`max_tokens` (positive integer) is required".into());
    }
    if obj.get("stream") != Some(&Value::Bool(true)) {
        return Err("only streaming requests are supported: set \"stream\": true".into());
    }
    Ok(())
}

/// An Anthropic-shaped error body.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

struct Writer {
    plan: Plan,
    index: usize,
    pinged: bool,
}

impl Writer {
    fn start_block(&mut self, block: Value) {
        let index = self.index;
        self.plan.event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        if !self.pinged {
            self.pinged = true;
            self.plan.event("ping", &json!({"type": "ping"}));
        }
    }

    fn delta(&mut self, delta: Value) {
        let index = self.index;
        self.plan.event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
    }

    fn stop_block(&mut self) {
        let index = self.index;
        self.plan.event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
        self.index += 1;
    }
}

/// Renders a streamed reply as Anthropic SSE.
pub(crate) fn render(ctx: &Ctx<'_>) -> Plan {
    let reply = ctx.reply;
    let chunk = reply.chunk_chars;
    let usage = ctx.usage;
    let mut w = Writer {
        plan: Plan::new(reply.gate.clone()),
        index: 0,
        pinged: false,
    };
    w.plan.event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": format!("msg_mock_{}", ctx.seq),
            "type": "message",
            "role": "assistant",
            "model": ctx.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.input,
                "cache_creation_input_tokens": usage.cache_creation,
                "cache_read_input_tokens": usage.cache_read,
                "output_tokens": 1
            }
        }}),
    );

    if let Some(thinking) = &reply.thinking {
        w.start_block(json!({"type": "thinking", "thinking": "", "signature": ""}));
        for piece in split_chunks(thinking, chunk) {
            w.delta(json!({"type": "thinking_delta", "thinking": piece}));
        }
        let signature = reply
            .signature
            .clone()
            .unwrap_or_else(|| signature_for(thinking));
        w.delta(json!({"type": "signature_delta", "signature": signature}));
        w.stop_block();
    }

    let shape = &ctx.shape;
    let pieces = shape.text_pieces(chunk);
    if !pieces.is_empty() {
        w.start_block(json!({"type": "text", "text": ""}));
        for piece in pieces {
            w.delta(json!({"type": "text_delta", "text": piece}));
            w.plan.gate_point();
        }
        if !shape.ending.fails() {
            w.stop_block();
        }
    }

    match shape.ending {
        Ending::Disconnect => {
            w.plan.abort();
            return w.plan;
        }
        Ending::MidStreamError => {
            w.plan.gate_point();
            w.plan.event(
                "error",
                &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            );
            return w.plan;
        }
        Ending::EndTurn | Ending::ToolUse | Ending::MaxTokens => {}
    }

    for (i, call) in shape.calls.iter().enumerate() {
        let id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_mock_{}_{i}", ctx.seq));
        w.start_block(json!({"type": "tool_use", "id": id, "name": call.name, "input": {}}));
        w.delta(json!({"type": "input_json_delta", "partial_json": ""}));
        for piece in split_pieces(&input_json(&call.input), chunk) {
            w.delta(json!({"type": "input_json_delta", "partial_json": piece}));
            w.plan.gate_point();
        }
        w.stop_block();
    }

    w.plan.gate_point();
    let stop_reason = match shape.ending {
        Ending::ToolUse => "tool_use",
        Ending::MaxTokens => "max_tokens",
        _ => "end_turn",
    };
    w.plan.event(
        "message_delta",
        &json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": {"output_tokens": usage.output}}),
    );
    w.plan
        .event("message_stop", &json!({"type": "message_stop"}));
    w.plan
}
