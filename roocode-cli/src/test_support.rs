//! Builders of events and sessions for the unit tests.

use roocode_protocol::content::{ContentBlock, Usage};
use roocode_protocol::event::{Event, EventPayload, StopReason};
use roocode_protocol::session::{PendingRequest, SessionInfo, SessionKind, SessionStatus};
use serde_json::{Value, json};

pub const SID: &str = "S1";

pub fn session(cwd: &str, status: SessionStatus, last_seq: u64) -> SessionInfo {
    SessionInfo {
        id: SID.into(),
        short_id: String::new(),
        title: "fix the test".into(),
        kind: SessionKind::Main,
        parent_session_id: None,
        cwd: cwd.into(),
        root: cwd.into(),
        model: "claude-x".into(),
        mode: roocode_protocol::Mode::Default,
        status,
        running_turn_id: None,
        created_at: "2026-11-30T10:00:00.000Z".into(),
        last_activity: "2026-11-30T10:05:00.000Z".into(),
        last_seq,
        message_count: 0,
        usage: Usage::default(),
        context_window: None,
    }
}

/// An event of sub-agent `agent` on the session's stream.
pub fn child_ev(seq: u64, agent: &str, payload: EventPayload) -> Event {
    Event {
        agent_id: agent.into(),
        ..ev(seq, payload)
    }
}

pub fn ev(seq: u64, payload: EventPayload) -> Event {
    Event {
        seq,
        ts: "2026-11-30T10:00:00.000Z".into(),
        session_id: SID.into(),
        agent_id: SID.into(),
        payload,
    }
}

pub fn snapshot(seq: u64, cwd: &str, status: SessionStatus, last_seq: u64) -> Event {
    ev(
        seq,
        EventPayload::Snapshot {
            session: Box::new(session(cwd, status, last_seq)),
            pending: vec![],
        },
    )
}

pub fn user(turn: &str, input: &str, text: &str) -> EventPayload {
    EventPayload::UserMessage {
        turn_id: turn.into(),
        input_id: input.into(),
        text: text.into(),
    }
}

pub fn started(turn: &str) -> EventPayload {
    EventPayload::TurnStarted {
        turn_id: turn.into(),
    }
}

pub fn delta(msg: &str, text: &str) -> EventPayload {
    EventPayload::TextDelta {
        message_id: msg.into(),
        text: text.into(),
    }
}

pub fn message(msg: &str, text: &str, tools: &[(&str, &str, Value)]) -> EventPayload {
    let mut content = vec![];
    if !text.is_empty() {
        content.push(ContentBlock::text(text));
    }
    for (id, name, input) in tools {
        content.push(ContentBlock::ToolUse {
            id: (*id).into(),
            name: (*name).into(),
            input: input.clone(),
        });
    }
    EventPayload::AssistantMessage {
        message_id: msg.into(),
        content,
    }
}

pub fn tool_call(id: &str, name: &str, input: Value) -> EventPayload {
    EventPayload::ToolCall {
        call_id: id.into(),
        name: name.into(),
        input,
    }
}

pub fn tool_result(id: &str, output: &str, is_error: bool) -> EventPayload {
    EventPayload::ToolResult {
        call_id: id.into(),
        output: output.into(),
        is_error,
        duration_ms: 3,
        diff: None,
    }
}

pub fn usage(input: u64, output: u64, cost: Option<f64>) -> EventPayload {
    EventPayload::Usage {
        message_id: "M".into(),
        model: "claude-x".into(),
        usage: Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: cost,
        },
    }
}

pub fn completed(turn: &str, stop: StopReason) -> EventPayload {
    EventPayload::TurnCompleted {
        turn_id: turn.into(),
        stop_reason: stop,
        error: None,
    }
}

pub fn read_input(path: &str) -> Value {
    json!({"file_path": path})
}

pub fn pending(request_id: &str, kind: &str) -> PendingRequest {
    let (tool, summary, input) = if kind == "question" {
        ("AskUserQuestion", "Which database?", questions_input())
    } else {
        ("Bash", "cargo test", json!({"command": "cargo test"}))
    };
    PendingRequest {
        request_id: request_id.into(),
        session_id: SID.into(),
        kind: kind.into(),
        tool: tool.into(),
        summary: summary.into(),
        reason: if kind == "question" {
            String::new()
        } else {
            "commands need approval".into()
        },
        input,
        created_at: "2026-11-30T10:00:00.000Z".into(),
        agent_id: None,
        agent_name: None,
    }
}

/// An `AskUserQuestion` input: a single-select and a multi-select question.
pub fn questions_input() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "DB", "options": [
            {"label": "Postgres", "description": "robust"},
            {"label": "SQLite", "description": "simple"}
        ], "multiSelect": false},
        {"question": "Which features?", "header": "Features", "options": [
            {"label": "auth", "description": ""},
            {"label": "search"},
            {"label": "a, b"}
        ], "multiSelect": true}
    ]})
}

/// A sub-agent `id` of `parent` in `state`, as `agent.list` lists it (named `scout`).
pub fn listed_agent(
    id: &str,
    parent: &str,
    state: roocode_protocol::agents::AgentState,
) -> roocode_protocol::agents::AgentInfo {
    roocode_protocol::agents::AgentInfo {
        id: id.into(),
        short_id: String::new(),
        name: "scout".into(),
        agent_type: "Explore".into(),
        parent_id: parent.into(),
        description: String::new(),
        state,
        background: true,
        started_at: String::new(),
        elapsed_ms: 0,
        tokens: 0,
        cost_usd: None,
        tool_calls: 0,
        result: None,
        error: None,
        branch: None,
    }
}
