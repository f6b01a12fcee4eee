//! `trace --otlp FILE`: a session's trace as an OTLP/JSON `ExportTraceServiceRequest`,
//! the file trace viewers (Jaeger, Tempo, otel-desktop-viewer, …) import. One trace per
//! session (its id is the session's uuid), one span per turn, model call (with its
//! attempt), tool call and permission decision, nested as they happened, named as the
//! daemon's own tracing spans are (`turn`, `model_call`, `model_attempt`, `tool_call`,
//! `permission`). Ids are hex, times nanoseconds since the epoch as strings, as the
//! OTLP/JSON mapping wants; sub-agents and teammates hang under the turn that started
//! them.

use roocode_protocol::trace::{AgentTrace, IterationTrace, SessionTrace, ToolTrace, TurnTrace};
use serde_json::{Value, json};

/// OTLP's `SPAN_KIND_INTERNAL`.
const KIND_INTERNAL: u64 = 1;
/// OTLP's `STATUS_CODE_OK` and `STATUS_CODE_ERROR`.
const STATUS_OK: u64 = 1;
const STATUS_ERROR: u64 = 2;

/// The request for `trace`.
pub fn export(trace: &SessionTrace) -> Value {
    let trace_id = trace_id(&trace.session_id);
    let mut spans = Vec::new();
    agent_spans(&trace_id, &trace.agent, None, &mut spans);
    json!({
        "resourceSpans": [{
            "resource": {"attributes": [
                attr("service.name", json!({"stringValue": "roocode"})),
                attr("roocode.session_id", json!({"stringValue": trace.session_id})),
            ]},
            "scopeSpans": [{
                "scope": {"name": "roocode", "version": roocode_protocol::VERSION},
                "spans": spans,
            }],
        }],
    })
}

/// 32 hex digits: the session's uuid without its dashes, else a hash of it.
fn trace_id(session_id: &str) -> String {
    let hex: String = session_id.chars().filter(char::is_ascii_hexdigit).collect();
    if hex.len() == 32 {
        return hex.to_ascii_lowercase();
    }
    format!(
        "{:016x}{:016x}",
        fnv(session_id),
        fnv(&format!("{session_id}/trace"))
    )
}

/// 16 hex digits naming a span by what it is.
fn span_id(kind: &str, id: &str) -> String {
    format!("{:016x}", fnv(&format!("{kind}/{id}")).max(1))
}

/// FNV-1a, 64 bits: stable ids without a hashing dependency.
fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn attr(key: &str, value: Value) -> Value {
    json!({"key": key, "value": value})
}

fn text(key: &str, value: &str) -> Value {
    attr(key, json!({"stringValue": value}))
}

fn int(key: &str, value: u64) -> Value {
    // OTLP/JSON carries 64-bit integers as strings.
    attr(key, json!({"intValue": value.to_string()}))
}

fn nanos(ms: i64) -> String {
    (i128::from(ms) * 1_000_000).to_string()
}

struct Span<'a> {
    trace_id: &'a str,
    id: String,
    parent: Option<&'a str>,
    name: &'a str,
    start_ms: i64,
    end_ms: i64,
    attributes: Vec<Value>,
    error: Option<&'a str>,
}

impl Span<'_> {
    fn into_json(self) -> Value {
        let mut span = json!({
            "traceId": self.trace_id,
            "spanId": self.id,
            "name": self.name,
            "kind": KIND_INTERNAL,
            "startTimeUnixNano": nanos(self.start_ms),
            "endTimeUnixNano": nanos(self.end_ms.max(self.start_ms)),
            "attributes": self.attributes,
            "status": match self.error {
                Some(message) => json!({"code": STATUS_ERROR, "message": message}),
                None => json!({"code": STATUS_OK}),
            },
        });
        if let Some(parent) = self.parent {
            span["parentSpanId"] = json!(parent);
        }
        span
    }
}

fn agent_spans(trace_id: &str, agent: &AgentTrace, parent: Option<&str>, out: &mut Vec<Value>) {
    for turn in &agent.turns {
        turn_spans(trace_id, agent, turn, parent, out);
    }
    for child in &agent.agents {
        agent_spans(trace_id, child, parent, out);
    }
}

fn turn_spans(
    trace_id: &str,
    agent: &AgentTrace,
    turn: &TurnTrace,
    parent: Option<&str>,
    out: &mut Vec<Value>,
) {
    let id = span_id("turn", &turn.turn_id);
    let last = turn
        .iterations
        .iter()
        .map(|i| i.at)
        .chain(
            turn.iterations
                .iter()
                .flat_map(|i| i.tools.iter().map(|t| t.started_at + t.duration_ms as i64)),
        )
        .max()
        .unwrap_or(turn.started_at);
    let mut attributes = vec![
        text("roocode.agent_id", &agent.agent_id),
        text("roocode.agent_kind", &agent.kind),
        text("roocode.turn_id", &turn.turn_id),
        int("roocode.turn", u64::from(turn.number)),
    ];
    if !agent.name.is_empty() {
        attributes.push(text("roocode.agent_name", &agent.name));
    }
    if let Some(stop) = &turn.stop_reason {
        attributes.push(text("roocode.stop_reason", stop));
    }
    let failed = turn.stop_reason.as_deref() == Some("error");
    out.push(
        Span {
            trace_id,
            id: id.clone(),
            parent,
            name: "turn",
            start_ms: turn.started_at,
            end_ms: turn.ended_at.unwrap_or(last),
            attributes,
            error: failed.then_some("the turn ended on an error"),
        }
        .into_json(),
    );
    for it in &turn.iterations {
        iteration_spans(trace_id, it, &id, out);
    }
    for child in &turn.agents {
        agent_spans(trace_id, child, Some(&id), out);
    }
}

fn iteration_spans(trace_id: &str, it: &IterationTrace, parent: &str, out: &mut Vec<Value>) {
    let id = span_id("model_call", &it.model_call_id);
    let start = it.at - it.latency_ms as i64;
    let mut attributes = vec![
        text("gen_ai.request.model", &it.model),
        int("gen_ai.usage.input_tokens", it.input_tokens),
        int("gen_ai.usage.output_tokens", it.output_tokens),
        int("roocode.cache_read_tokens", it.cache_read_tokens),
        int("roocode.cache_write_tokens", it.cache_write_tokens),
        int("roocode.iteration", u64::from(it.iteration)),
        int("roocode.request_bytes", it.request_bytes),
    ];
    if let Some(ttft) = it.ttft_ms {
        attributes.push(int("roocode.ttft_ms", ttft));
    }
    if let Some(stop) = &it.stop_reason {
        attributes.push(text("gen_ai.response.finish_reason", stop));
    }
    let error = it.error.as_deref();
    out.push(
        Span {
            trace_id,
            id: id.clone(),
            parent: Some(parent),
            name: "model_call",
            start_ms: start,
            end_ms: it.at,
            attributes,
            error,
        }
        .into_json(),
    );
    // One request per call: the attempt spans the call.
    out.push(
        Span {
            trace_id,
            id: span_id("model_attempt", &it.model_call_id),
            parent: Some(&id),
            name: "model_attempt",
            start_ms: start,
            end_ms: it.at,
            attributes: Vec::new(),
            error,
        }
        .into_json(),
    );
    for tool in &it.tools {
        tool_spans(trace_id, tool, parent, out);
    }
}

fn tool_spans(trace_id: &str, tool: &ToolTrace, parent: &str, out: &mut Vec<Value>) {
    let id = span_id("tool_call", &tool.call_id);
    let end = tool.started_at + tool.duration_ms as i64;
    let failed = matches!(tool.outcome.as_str(), "error" | "denied");
    out.push(
        Span {
            trace_id,
            id: id.clone(),
            parent: Some(parent),
            name: "tool_call",
            start_ms: tool.started_at,
            end_ms: end,
            attributes: vec![
                text("roocode.tool", &tool.tool),
                text("roocode.call_id", &tool.call_id),
                text("roocode.outcome", &tool.outcome),
                int("roocode.duration_ms", tool.duration_ms),
            ],
            error: failed.then(|| tool.error.as_deref().unwrap_or(&tool.outcome)),
        }
        .into_json(),
    );
    let mut attributes = vec![
        text("roocode.decision", &tool.decision),
        text("roocode.layer", &tool.layer),
        text("roocode.why", &tool.why),
    ];
    if let Some(answer) = &tool.answered_by {
        attributes.push(text("roocode.answered_by", answer));
    }
    out.push(
        Span {
            trace_id,
            id: span_id("permission", &tool.call_id),
            parent: Some(&id),
            name: "permission",
            start_ms: tool.started_at,
            end_ms: tool.started_at,
            attributes,
            error: None,
        }
        .into_json(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::trace::RequestParts;

    fn sample() -> SessionTrace {
        let tool = ToolTrace {
            call_id: "toolu_1".into(),
            tool: "Bash".into(),
            input: "{\"command\":\"ls\"}".into(),
            decision: "deny".into(),
            layer: "path_sandbox".into(),
            decided_by: json!({"layer": "path_sandbox"}),
            why: "outside the workspace".into(),
            answered_by: None,
            outcome: "denied".into(),
            error: Some("Permission denied".into()),
            started_at: 1_700_000_000_500,
            duration_ms: 0,
        };
        let iteration = IterationTrace {
            model_call_id: "0191-m1".into(),
            iteration: 1,
            model: "anthropic/claude-sonnet-4-5".into(),
            at: 1_700_000_000_400,
            request_bytes: 900,
            parts: RequestParts::default(),
            input_tokens: 120,
            output_tokens: 30,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cache_hit_ratio: 0.0,
            ttft_ms: Some(50),
            latency_ms: 300,
            stop_reason: Some("tool_use".into()),
            error: None,
            cost_usd: None,
            tools: vec![tool],
            has_bodies: true,
        };
        let child = AgentTrace {
            agent_id: "child".into(),
            kind: "sub_agent".into(),
            name: "helper".into(),
            agent_type: "Explore".into(),
            turns: vec![TurnTrace {
                number: 1,
                turn_id: "ct1".into(),
                started_at: 1_700_000_000_600,
                ended_at: Some(1_700_000_000_700),
                stop_reason: Some("end_turn".into()),
                prompt: String::new(),
                iterations: Vec::new(),
                steps: Vec::new(),
                agents: Vec::new(),
            }],
            agents: Vec::new(),
        };
        SessionTrace {
            session_id: "0191ab2c-0000-7000-8000-00000000abcd".into(),
            version: 1,
            agent: AgentTrace {
                agent_id: "0191ab2c-0000-7000-8000-00000000abcd".into(),
                kind: "main".into(),
                name: String::new(),
                agent_type: String::new(),
                turns: vec![TurnTrace {
                    number: 1,
                    turn_id: "t1".into(),
                    started_at: 1_700_000_000_000,
                    ended_at: Some(1_700_000_001_000),
                    stop_reason: Some("end_turn".into()),
                    prompt: "go".into(),
                    iterations: vec![iteration],
                    steps: Vec::new(),
                    agents: vec![child],
                }],
                agents: Vec::new(),
            },
        }
    }

    fn is_hex(s: &str, len: usize) -> bool {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    }

    #[test]
    fn the_export_has_the_structure_of_an_export_trace_service_request() {
        let request = export(&sample());
        let resource = &request["resourceSpans"][0];
        assert_eq!(
            resource["resource"]["attributes"][0],
            json!({"key": "service.name", "value": {"stringValue": "roocode"}})
        );
        let spans = resource["scopeSpans"][0]["spans"].as_array().unwrap();
        let names: Vec<&str> = spans.iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "turn",
                "model_call",
                "model_attempt",
                "tool_call",
                "permission",
                "turn"
            ]
        );
        let by_name = |name: &str| spans.iter().find(|s| s["name"] == name).unwrap();
        for span in spans {
            assert_eq!(span["traceId"], "0191ab2c00007000800000000000abcd");
            assert!(is_hex(span["spanId"].as_str().unwrap(), 16), "{span}");
            assert_eq!(span["kind"], 1);
            let start: u128 = span["startTimeUnixNano"].as_str().unwrap().parse().unwrap();
            let end: u128 = span["endTimeUnixNano"].as_str().unwrap().parse().unwrap();
            assert!(start <= end && start > 1_600_000_000_000_000_000, "{span}");
            assert!(span["attributes"].is_array());
        }
        let turn = by_name("turn");
        assert!(turn.get("parentSpanId").is_none(), "the root");
        assert_eq!(turn["startTimeUnixNano"], "1700000000000000000");
        let call = by_name("model_call");
        assert_eq!(call["parentSpanId"], turn["spanId"]);
        assert_eq!(
            call["startTimeUnixNano"], "1700000000100000000",
            "at − latency"
        );
        assert!(call["attributes"].as_array().unwrap().contains(&json!({
            "key": "gen_ai.usage.input_tokens", "value": {"intValue": "120"}
        })));
        assert_eq!(by_name("model_attempt")["parentSpanId"], call["spanId"]);
        let tool = by_name("tool_call");
        assert_eq!(tool["parentSpanId"], turn["spanId"]);
        assert_eq!(tool["status"]["code"], 2);
        let permission = by_name("permission");
        assert_eq!(permission["parentSpanId"], tool["spanId"]);
        assert!(
            permission["attributes"]
                .as_array()
                .unwrap()
                .contains(&json!({
                    "key": "roocode.layer", "value": {"stringValue": "path_sandbox"}
                }))
        );
        // The sub-agent's turn hangs under the turn that started it.
        assert_eq!(spans[5]["parentSpanId"], turn["spanId"]);
    }
}
