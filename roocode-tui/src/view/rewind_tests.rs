//! Snapshots of the rewind dialog (the turns, the plan with its diffs and conflicts, a
//! refusal) and of the rule a conversation rewind leaves in the transcript.

use crossterm::event::KeyCode;
use ratatui::style::Color;
use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::{EventPayload, StopReason};
use roocode_protocol::rewind::RewindScope;

use crate::app::App;
use crate::rewind::tests::{plan, turns};
use crate::test_support::{app, draw, ev, key, row_of, type_text};

/// A short conversation of one turn.
fn conversation() -> App {
    let mut a = app();
    let events = [
        EventPayload::UserMessage {
            turn_id: "T".into(),
            input_id: "I".into(),
            text: "fix the failing test".into(),
        },
        EventPayload::TurnStarted {
            turn_id: "T".into(),
        },
        EventPayload::AssistantMessage {
            message_id: "M".into(),
            content: vec![ContentBlock::text(
                "Fixed: the lexer now gets the input with its newline.",
            )],
        },
        EventPayload::TurnCompleted {
            turn_id: "T".into(),
            stop_reason: StopReason::EndTurn,
            error: None,
        },
    ];
    for (i, p) in events.into_iter().enumerate() {
        a.on_event(&ev(i as u64 + 1, p));
    }
    a
}

/// The dialog open on the session's turns.
fn with_turns() -> App {
    let mut a = conversation();
    type_text(&mut a, "/rewind");
    a.on_key(key(KeyCode::Enter));
    a.set_turns(turns());
    a
}

#[test]
fn rewind_turns_80x24() {
    let mut a = with_turns();
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let (x, y) = row_of(&t, "rename Lexer to Scanner");
    assert_eq!(buf[(x, y)].fg, Color::DarkGray, "a rewound turn is dimmed");
    let (x, y) = row_of(&t, "explain the parser");
    assert_eq!(buf[(x, y)].fg, Color::DarkGray, "no snapshot: dimmed");
    let (x, y) = row_of(&t, "›   3");
    assert_eq!(
        buf[(x, y)].fg,
        Color::Cyan,
        "the last turn that can be rewound"
    );
    assert_eq!(
        buf[(x + 10, y)].bg,
        crate::theme::SELECTED.bg.unwrap_or_default()
    );
}

#[test]
fn rewind_plan_with_diffs_and_a_conflict_80x24() {
    let mut a = with_turns();
    a.on_key(key(KeyCode::Up));
    a.on_key(key(KeyCode::Enter));
    a.rewind_answer(plan(2, RewindScope::Both));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let (x, y) = row_of(&t, "-    let input = ensure_newline");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let (x, y) = row_of(&t, "conflict: changed after turn 3");
    assert_eq!(buf[(x, y)].fg, Color::Yellow);
}

#[test]
fn rewind_plan_of_the_files_scrolled_and_overwriting_60x20() {
    let mut a = with_turns();
    a.on_key(key(KeyCode::Enter));
    a.rewind_answer(plan(3, RewindScope::Both));
    a.on_key(key(KeyCode::Char('f')));
    a.rewind_answer(plan(3, RewindScope::Files));
    a.on_key(key(KeyCode::Char('o')));
    draw(&mut a, 60, 20);
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Down));
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn rewind_refused_while_a_turn_runs_80x24() {
    let mut a = with_turns();
    a.on_key(key(KeyCode::Enter));
    a.rewind_answer(plan(3, RewindScope::Both));
    a.on_key(key(KeyCode::Enter));
    a.rewind_failed("cannot rewind while a turn is running: cancel it first with Esc");
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn a_conversation_rewind_is_a_rule_in_the_transcript_80x24() {
    let mut a = conversation();
    a.on_event(&ev(
        10,
        EventPayload::Rewound {
            turn: 1,
            files: true,
            conversation: true,
            restored: 1,
            removed: 1,
            kept: 0,
            messages_removed: 2,
        },
    ));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let (x, y) = row_of(&t, "rewound to before turn 1");
    assert_eq!(buf[(x, y)].fg, Color::Yellow);
}
