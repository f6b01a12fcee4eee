//! Material for benchmarks (and tests): a realistic session of any length — user
//! messages, Markdown answers with lists and code, tool calls with results and diffs —
//! and the events of one more answer streamed in small deltas, to time `draw` and the
//! delta-to-screen path on a `TestBackend`.

use roocode_protocol::content::{ContentBlock, Usage};
use roocode_protocol::event::{Event, EventPayload, StopReason};
use roocode_protocol::session::{SessionInfo, SessionKind, SessionStatus};
use serde_json::json;

use crate::app::App;

/// A session as `session.get` would return it.
pub fn session(id: &str, title: &str) -> SessionInfo {
    SessionInfo {
        id: id.to_owned(),
        short_id: String::new(),
        title: title.to_owned(),
        kind: SessionKind::Main,
        parent_session_id: None,
        cwd: "/work/proj".to_owned(),
        root: "/work/proj".to_owned(),
        model: "claude-sonnet-4-5".to_owned(),
        mode: roocode_protocol::Mode::Default,
        status: SessionStatus::Idle,
        running_turn_id: None,
        created_at: "2026-11-30T09:00:00.000Z".to_owned(),
        last_activity: "2026-11-30T10:00:00.000Z".to_owned(),
        last_seq: 0,
        message_count: 0,
        usage: Usage::default(),
        context_window: None,
    }
}

/// An event of session `S` at `seq`.
pub fn event(seq: u64, payload: EventPayload) -> Event {
    Event {
        seq,
        ts: "2026-11-30T10:00:00.000Z".to_owned(),
        session_id: "S".to_owned(),
        agent_id: "S".to_owned(),
        payload,
    }
}

/// The Markdown answer number `i` of the long session.
fn answer(i: usize) -> String {
    format!(
        "## Step {i}\n\nI looked at `src/module_{i}.rs` and found **two** problems:\n\n\
         1. the parser drops the *last* token when the input ends without a newline;\n\
         2. errors lose their span, so messages point at the wrong line.\n\n\
         ```rust\nfn parse(input: &str) -> Result<Vec<Token>, Error> {{\n    \
         let mut lexer = Lexer::new(input);\n    lexer.tokens().collect()\n}}\n```\n\n\
         Next I will fix both and run the tests. See [the docs](https://example.com/{i}) \
         for the token grammar, which this change keeps compatible.\n"
    )
}

/// A diff as `tool_result.diff` carries it.
fn edit_diff(i: usize) -> String {
    format!(
        "--- a/src/module_{i}.rs\n+++ b/src/module_{i}.rs\n@@ -10,4 +10,5 @@\n \
         fn parse(input: &str) -> Result<Vec<Token>, Error> {{\n-    let mut lexer = Lexer::new(input);\n\
         +    let input = ensure_newline(input);\n+    let mut lexer = Lexer::new(&input);\n     \
         lexer.tokens().collect()\n }}"
    )
}

/// Events of a session of about `n` conversation entries (user message, answer, a
/// read and an edit per round), seq from 1.
pub fn long_session_events(n: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut seq = 0;
    let mut push = |payload: EventPayload| {
        seq += 1;
        events.push(event(seq, payload));
    };
    for round in 0..n.div_ceil(4) {
        let turn = format!("T{round}");
        let msg = format!("M{round}");
        push(EventPayload::UserMessage {
            turn_id: turn.clone(),
            input_id: format!("I{round}"),
            text: format!("Please fix the parser bug in module {round} and keep the API."),
        });
        push(EventPayload::TurnStarted {
            turn_id: turn.clone(),
        });
        let text = answer(round);
        for chunk in text.as_bytes().chunks(64) {
            push(EventPayload::TextDelta {
                message_id: msg.clone(),
                text: String::from_utf8_lossy(chunk).into_owned(),
            });
        }
        push(EventPayload::AssistantMessage {
            message_id: msg.clone(),
            content: vec![ContentBlock::text(text)],
        });
        let path = format!("/work/proj/src/module_{round}.rs");
        for (k, name) in ["Read", "Edit"].iter().enumerate() {
            let call = format!("C{round}-{k}");
            push(EventPayload::ToolCall {
                call_id: call.clone(),
                name: (*name).to_owned(),
                input: json!({"file_path": path}),
            });
            push(EventPayload::ToolResult {
                call_id: call,
                output: format!(
                    "     1\tuse crate::lexer::Lexer;\n     2\t\n     3\tpub fn parse() {{}}\n(round {round})"
                ),
                is_error: false,
                duration_ms: 3 + k as u64 * 9,
                diff: (k == 1).then(|| edit_diff(round)),
            });
        }
        push(EventPayload::Usage {
            message_id: msg,
            model: "claude-sonnet-4-5".to_owned(),
            usage: Usage {
                input_tokens: 20_000 + round as u64,
                output_tokens: 400,
                cache_read_tokens: 10_000,
                cache_write_tokens: 0,
                cost_usd: Some(0.01),
            },
        });
        push(EventPayload::TurnCompleted {
            turn_id: turn,
            stop_reason: StopReason::EndTurn,
            error: None,
        });
    }
    events
}

/// An [`App`] holding a session of about `n` entries, and the events of one more
/// answer streamed in ~16-byte deltas (turn start, deltas, message, turn end).
pub fn long_session(n: usize) -> (App, Vec<Event>) {
    let mut app = App::new(session("S", "long session"), Vec::new());
    let events = long_session_events(n);
    for ev in &events {
        app.on_event(ev);
    }
    let mut seq = app.last_seq();
    let mut next = Vec::new();
    let mut push = |payload: EventPayload| {
        seq += 1;
        next.push(event(seq, payload));
    };
    push(EventPayload::TurnStarted {
        turn_id: "TX".to_owned(),
    });
    let text: String = (0..12).map(answer).collect::<Vec<_>>().join("\n");
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + 16).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        push(EventPayload::TextDelta {
            message_id: "MX".to_owned(),
            text: text[start..end].to_owned(),
        });
        start = end;
    }
    push(EventPayload::AssistantMessage {
        message_id: "MX".to_owned(),
        content: vec![ContentBlock::text(text)],
    });
    push(EventPayload::TurnCompleted {
        turn_id: "TX".to_owned(),
        stop_reason: StopReason::EndTurn,
        error: None,
    });
    (app, next)
}
