//! Snapshots of the trace view (Ctrl+T): the timeline with the selected line, the
//! "why" paragraph of a denied call, and a view still loading.

use crossterm::event::KeyCode;
use ratatui::style::Color;
use roocode_client::trace::example;

use crate::app::App;
use crate::test_support::{app, ctrl, draw, key, row_of};

fn open() -> App {
    let mut a = app();
    a.session.cwd = example::CWD.to_owned();
    a.on_key(ctrl('t'));
    a.set_trace(example::session());
    a
}

#[test]
fn trace_view_80x24() {
    let mut a = open();
    a.on_key(key(KeyCode::Down));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let (x, y) = row_of(&t, "Bash 0 ms · deny");
    assert_eq!(buf[(x, y)].fg, Color::Yellow, "a denial stands out");
    let (x, y) = row_of(&t, "Bash 2.3 s · allow");
    assert_eq!(buf[(x + 6, y)].fg, Color::Red, "a failed call is red");
    let (x, y) = row_of(&t, "sub-agent scout");
    assert_eq!(buf[(x, y)].fg, Color::Magenta);
    let (_, y) = row_of(&t, "› ");
    let (_, selected) = row_of(&t, "#1 anthropic/claude-sonnet-4-5");
    assert_eq!(y, selected, "the second line is selected");
}

#[test]
fn trace_view_why_of_a_denied_call_80x24() {
    let mut a = open();
    let denied = a
        .trace
        .as_ref()
        .unwrap()
        .lines
        .iter()
        .position(|l| l.call_id.as_deref() == Some(example::DENIED_CALL))
        .unwrap();
    for _ in 0..denied {
        a.on_key(key(KeyCode::Down));
    }
    a.on_key(key(KeyCode::Enter));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn trace_view_scrolled_to_the_end_80x24() {
    let mut a = open();
    draw(&mut a, 80, 24);
    a.on_key(key(KeyCode::End));
    let t = draw(&mut a, 80, 24);
    insta::assert_snapshot!(t.backend());
    row_of(&t, "Total: 3 turns");
}

#[test]
fn trace_view_loading_60x20() {
    let mut a = app();
    a.on_key(ctrl('t'));
    let t = draw(&mut a, 60, 20);
    insta::assert_snapshot!(t.backend());
    row_of(&t, "loading the session's trace…");
}
