//! Snapshots of whole screens on a `TestBackend`, plus the colours that matter.

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::style::Color;
use roocode_protocol::content::{ContentBlock, Usage};
use roocode_protocol::event::{ErrorInfo, EventPayload};
use roocode_protocol::session::{PendingRequest, SessionStatus};
use serde_json::json;

use crate::app::{App, Connection};
use crate::picker::Picker;
use crate::test_support::{app, commands, draw, ev, key, row_of, session, type_text};

const ANSWER: &str = "## Plan\n\nThe parser drops the *last* token when the input ends \
without a newline. I will:\n\n1. add `ensure_newline` before lexing;\n2. keep the \
**public API** unchanged.\n\n```rust\nlet input = ensure_newline(input);\n```\n";

const DIFF: &str = "--- a/src/parser.rs\n+++ b/src/parser.rs\n@@ -10,3 +10,4 @@\n \
fn parse(input: &str) {\n-    let lexer = Lexer::new(input);\n+    let input = ensure_newline(input);\n\
+    let lexer = Lexer::new(&input);\n }";

/// A conversation: a question, a Markdown answer, a read (folded), an edit with its
/// diff (expanded), a failed command, an error.
fn conversation() -> App {
    let mut a = app();
    let mut seq = 0;
    let mut push = |a: &mut App, p: EventPayload| {
        seq += 1;
        a.on_event(&ev(seq, p));
    };
    push(
        &mut a,
        EventPayload::UserMessage {
            turn_id: "T".into(),
            input_id: "I".into(),
            text: "Fix the parser: it drops the last token.".into(),
        },
    );
    push(
        &mut a,
        EventPayload::TurnStarted {
            turn_id: "T".into(),
        },
    );
    push(
        &mut a,
        EventPayload::AssistantMessage {
            message_id: "M".into(),
            content: vec![ContentBlock::text(ANSWER)],
        },
    );
    let tools = [
        (
            "C1",
            "Read",
            json!({"file_path": "/work/proj/src/parser.rs"}),
            "fn parse() {}",
            false,
            4,
            None,
        ),
        (
            "C2",
            "Edit",
            json!({"file_path": "/work/proj/src/parser.rs"}),
            "edited src/parser.rs",
            false,
            12,
            Some(DIFF),
        ),
        (
            "C3",
            "Bash",
            json!({"command": "cargo test"}),
            "error[E0425]: cannot find value `input`",
            true,
            2300,
            None,
        ),
    ];
    for (id, name, input, output, is_error, ms, diff) in tools {
        push(
            &mut a,
            EventPayload::ToolCall {
                call_id: id.into(),
                name: name.into(),
                input,
            },
        );
        push(
            &mut a,
            EventPayload::ToolResult {
                call_id: id.into(),
                output: output.into(),
                is_error,
                duration_ms: ms,
                diff: diff.map(str::to_owned),
            },
        );
    }
    push(
        &mut a,
        EventPayload::Error {
            error: ErrorInfo {
                kind: "network".into(),
                message: "connection reset by the provider".into(),
            },
        },
    );
    push(
        &mut a,
        EventPayload::TurnCompleted {
            turn_id: "T".into(),
            stop_reason: roocode_protocol::event::StopReason::Cancelled,
            error: None,
        },
    );
    push(
        &mut a,
        EventPayload::Usage {
            message_id: "M".into(),
            model: "claude-sonnet-4-5".into(),
            usage: Usage {
                input_tokens: 41_000,
                output_tokens: 900,
                cache_read_tokens: 9_000,
                cache_write_tokens: 0,
                cost_usd: Some(0.1234),
            },
        },
    );
    // Expand the edit (entry 3: user, answer, read, edit).
    a.transcript.toggle_tool(3, false);
    a
}

#[test]
fn conversation_80x24() {
    let mut a = conversation();
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let (x, y) = row_of(&t, "+    let input = ensure_newline");
    assert_eq!(buf[(x, y)].fg, Color::Green);
    let (x, y) = row_of(&t, "-    let lexer");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let (x, y) = row_of(&t, "@@ -10,3");
    assert_eq!(buf[(x, y)].fg, Color::Cyan);
    let (x, y) = row_of(&t, "error: connection reset");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let (x, y) = row_of(&t, "✗ 2.3 s");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let (x, y) = row_of(&t, "let input = ensure_newline(input);");
    assert_eq!(buf[(x, y)].bg, crate::theme::CODE_BG);
}

#[test]
fn narrow_terminal_reflows_60x20() {
    let mut a = conversation();
    draw(&mut a, 80, 24);
    // The same state at another width: nothing cached assumes 80 columns.
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn clicking_a_tool_line_folds_it() {
    let mut a = conversation();
    let t = draw(&mut a, 80, 40);
    let (_, y) = row_of(&t, "● Edit");
    a.on_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 2,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    let t = draw(&mut a, 80, 40);
    assert!(!t.backend().to_string().contains("@@ -10,3"));
}

#[test]
fn permission_dialog_80x24() {
    let mut a = conversation();
    a.on_event(&ev(
        100,
        EventPayload::ToolCall {
            call_id: "C9".into(),
            name: "Bash".into(),
            input: json!({"command": "rm -rf target && cargo build --release"}),
        },
    ));
    a.on_event(&ev(
        101,
        EventPayload::PermissionRequest {
            request_id: "R1".into(),
            call_id: "C9".into(),
            tool: "Bash".into(),
            input: json!({"command": "rm -rf target && cargo build --release"}),
            reason: "rm is not in the allow list; commands need approval in default mode".into(),
        },
    ));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn permission_feedback_and_edit_preview_60x20() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::PermissionRequest {
            request_id: "R1".into(),
            call_id: "C1".into(),
            tool: "Edit".into(),
            input: json!({"file_path": "/work/proj/src/lib.rs",
                "old_string": "pub fn old() {}", "new_string": "pub fn new() {}\npub fn more() {}"}),
            reason: "edits need approval in default mode".into(),
        },
    ));
    a.on_key(key(KeyCode::Char('n')));
    type_text(&mut a, "use a new module instead");
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn question_dialog_80x24() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::Question {
            request_id: "Q1".into(),
            call_id: "C1".into(),
            questions: json!({"questions": [
                {"question": "Which database should the service use?", "header": "DB",
                 "options": [{"label": "Postgres", "description": "robust, needs a server"},
                             {"label": "SQLite", "description": "one file"}]},
                {"question": "Which features first?", "multiSelect": true,
                 "options": [{"label": "auth"}, {"label": "search"}, {"label": "export"}]}
            ]}),
        },
    ));
    a.on_key(key(KeyCode::Char('2')));
    a.on_key(key(KeyCode::Char('1')));
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Char(' ')));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn working_with_a_queued_message_80x24() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::UserMessage {
            turn_id: "T".into(),
            input_id: "I1".into(),
            text: "Run the tests and fix what fails.".into(),
        },
    ));
    a.on_event(&ev(
        2,
        EventPayload::TurnStarted {
            turn_id: "T".into(),
        },
    ));
    a.on_event(&ev(
        3,
        EventPayload::ThinkingDelta {
            message_id: "M".into(),
            text: "The user wants the tests run first.".into(),
        },
    ));
    a.on_event(&ev(
        4,
        EventPayload::TextDelta {
            message_id: "M".into(),
            text: "Running the **tests** now".into(),
        },
    ));
    a.on_event(&ev(
        5,
        EventPayload::ToolCall {
            call_id: "C".into(),
            name: "Bash".into(),
            input: json!({"command": "cargo test --workspace"}),
        },
    ));
    a.on_event(&ev(
        6,
        EventPayload::MessageQueued {
            input_id: "I2".into(),
            text: "also update the changelog".into(),
        },
    ));
    for _ in 0..3 {
        a.on_tick();
    }
    type_text(&mut a, "and the README");
    a.set_connection(Connection::Reconnecting { attempt: 2 });
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn slash_completion_80x24() {
    let mut a = app();
    type_text(&mut a, "/mo");
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn scrolled_up_with_new_output_60x20() {
    let mut a = conversation();
    draw(&mut a, 60, 20);
    a.on_key(key(KeyCode::PageUp));
    a.on_event(&ev(
        200,
        EventPayload::ModeChanged {
            mode: roocode_protocol::Mode::AcceptEdits,
        },
    ));
    a.set_connection(Connection::Disconnected("daemon stopped".into()));
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

fn overview(a: &mut App) {
    let mut other = session("S2", "write the release notes");
    other.status = SessionStatus::Running;
    other.root = "/work/docs".into();
    let idle = session("S3", "try the new lexer");
    a.set_overview(
        vec![
            PendingRequest {
                request_id: "R1".into(),
                session_id: "S".into(),
                kind: "permission".into(),
                tool: "Bash".into(),
                summary: "cargo publish".into(),
                reason: String::new(),
                input: json!({"command": "cargo publish"}),
                created_at: String::new(),
                agent_id: None,
                agent_name: None,
            },
            PendingRequest {
                request_id: "Q7".into(),
                session_id: "S2".into(),
                kind: "question".into(),
                tool: "AskUserQuestion".into(),
                summary: "Which version number?".into(),
                reason: String::new(),
                input: json!({"questions": [{"question": "Which version number?"}]}),
                created_at: String::new(),
                agent_id: None,
                agent_name: None,
            },
        ],
        vec![session("S", "fix the parser"), other, idle],
    );
}

#[test]
fn side_panel_beside_the_conversation_120x30() {
    let mut a = conversation();
    a.on_key(crate::test_support::ctrl('p'));
    overview(&mut a);
    let t = draw(&mut a, 120, 30);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn side_panel_over_a_narrow_terminal_60x20() {
    let mut a = conversation();
    a.on_key(crate::test_support::ctrl('p'));
    overview(&mut a);
    a.on_key(key(KeyCode::Down));
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn picker_80x24() {
    let mut a = session("A", "fix the parser");
    a.short_id = "a1b2c3d4".into();
    a.last_activity = "2026-11-30T10:05:00.000Z".into();
    let mut b = session("B", "write the release notes");
    b.short_id = "0f9e8d7c6".into();
    b.status = SessionStatus::Running;
    b.root = "/work/docs".into();
    b.last_activity = "2026-11-30T11:40:00.000Z".into();
    let mut c = session("C", "");
    c.status = SessionStatus::Interrupted;
    c.last_activity = "2026-11-29T18:00:00.000Z".into();
    let mut p = Picker::new(vec![a, b, c]);
    p.on_key(key(KeyCode::Down));
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24))
        .unwrap_or_else(|e| panic!("{e}"));
    t.draw(|f| p.draw(f)).unwrap_or_else(|e| panic!("{e}"));
    insta::assert_snapshot!(t.backend());
}

#[test]
fn empty_session_greets_60x20() {
    let mut a = App::new(session("S", "fix the parser"), commands());
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn multi_line_input_grows_then_scrolls_60x20() {
    let mut a = conversation();
    type_text(
        &mut a,
        "First line of a longer message that wraps inside the box.",
    );
    a.on_key(crate::test_support::alt(KeyCode::Enter));
    a.on_paste("pasted 1\npasted 2\npasted 3\npasted 4\npasted 5\npasted 6\npasted 7");
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn tiny_terminals_never_panic() {
    let mut states: Vec<App> = Vec::new();
    states.push(conversation());
    let mut with_dialog = conversation();
    with_dialog.on_event(&ev(
        100,
        EventPayload::PermissionRequest {
            request_id: "R".into(),
            call_id: "C".into(),
            tool: "ExitPlanMode".into(),
            input: json!({"plan": "# Plan\n\n1. one\n2. two"}),
            reason: "plans need approval".into(),
        },
    ));
    states.push(with_dialog);
    let mut with_panel = conversation();
    with_panel.on_key(crate::test_support::ctrl('p'));
    overview(&mut with_panel);
    states.push(with_panel);
    let mut with_completion = app();
    type_text(&mut with_completion, "/");
    states.push(with_completion);
    for a in &mut states {
        for (w, h) in [
            (1, 1),
            (2, 2),
            (10, 3),
            (20, 5),
            (30, 8),
            (12, 40),
            (200, 3),
        ] {
            draw(a, w, h);
        }
    }
    let mut p = Picker::new(vec![session("A", "a")]);
    for (w, h) in [(1, 1), (3, 3), (10, 4), (5, 30)] {
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h))
            .unwrap_or_else(|e| panic!("{e}"));
        t.draw(|f| p.draw(f)).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn answered_elsewhere_notice_and_hidden_request_60x20() {
    let mut a = app();
    let request = |seq, id: &str, cmd: &str| {
        ev(
            seq,
            EventPayload::PermissionRequest {
                request_id: id.into(),
                call_id: format!("C{seq}"),
                tool: "Bash".into(),
                input: json!({"command": cmd}),
                reason: String::new(),
            },
        )
    };
    a.on_event(&request(1, "R1", "make"));
    a.on_event(&request(2, "R2", "make install"));
    a.on_key(key(KeyCode::Esc));
    a.on_event(&ev(
        3,
        EventPayload::PermissionResolved {
            request_id: "R2".into(),
            decision: "deny".into(),
            decided_by: roocode_protocol::event::DecidedBy {
                kind: "cli".into(),
                pid: Some(4242),
            },
        },
    ));
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn agents_panel_and_child_request_120x30() {
    use roocode_protocol::agents::AgentState;
    let mut a = conversation();
    let mut seq = a.last_seq();
    let mut child = |a: &mut App, id: &str, p: EventPayload| {
        seq += 1;
        let mut e = ev(seq, p);
        e.agent_id = id.into();
        a.on_event(&e);
    };
    child(
        &mut a,
        "A1",
        EventPayload::AgentSpawned {
            name: "scout".into(),
            agent_type: "Explore".into(),
            description: "find the parser tests".into(),
            background: false,
        },
    );
    child(
        &mut a,
        "A2",
        EventPayload::AgentSpawned {
            name: "checker".into(),
            agent_type: "general-purpose".into(),
            description: "run the tests".into(),
            background: true,
        },
    );
    child(
        &mut a,
        "A1",
        EventPayload::AgentProgress {
            tool_calls: 5,
            tokens: 12_345,
            last_activity: "Grep".into(),
        },
    );
    child(
        &mut a,
        "A2",
        EventPayload::AgentCompleted {
            state: AgentState::Completed,
            summary: "All 42 tests pass.".into(),
            usage: Usage {
                input_tokens: 900,
                output_tokens: 100,
                ..Usage::default()
            },
        },
    );
    child(
        &mut a,
        "A1",
        EventPayload::PermissionRequest {
            request_id: "R9".into(),
            call_id: "CX".into(),
            tool: "Bash".into(),
            input: json!({"command": "rm -rf target"}),
            reason: "commands need approval".into(),
        },
    );
    for _ in 0..35 {
        a.on_tick();
    }
    let t = draw(&mut a, 120, 30);
    insta::assert_snapshot!("agents_dialog_120x30", t.backend());
    // Hide the dialog, open the panel.
    a.on_key(key(KeyCode::Esc));
    a.on_key(crate::test_support::ctrl('p'));
    overview(&mut a);
    let t = draw(&mut a, 120, 30);
    insta::assert_snapshot!("agents_panel_120x30", t.backend());
}
