//! The trace view in the app: Ctrl+T opens it and fetches the trace, the view is
//! modal while open (a request's dialog still comes first), `r` fetches again, Esc or
//! Ctrl+T closes it, and answers that come after it closed go nowhere (a failure goes
//! to the conversation).

use crossterm::event::KeyCode;
use roocode_client::trace::example;

use super::tests::{lines, permission_request};
use super::*;
use crate::test_support::{app, ctrl, key};

/// An app on the example trace's session with the view open and the trace shown.
fn open() -> App {
    let mut a = app();
    a.session.cwd = example::CWD.to_owned();
    assert_eq!(a.on_key(ctrl('t')), [Action::Trace]);
    a.set_trace(example::session());
    a
}

#[test]
fn ctrl_t_opens_the_view_and_fetches_the_trace() {
    let mut a = app();
    assert!(!a.tracing());
    assert_eq!(a.on_key(ctrl('t')), [Action::Trace]);
    assert!(a.tracing());
    assert!(a.trace.as_ref().is_some_and(|v| v.loading));
    a.set_trace(example::session());
    let v = a.trace.as_ref().unwrap();
    assert!(!v.loading && !v.lines.is_empty());
}

#[test]
fn the_view_is_modal_and_closes_with_esc_or_ctrl_t() {
    let mut a = open();
    a.on_key(key(KeyCode::Char('x')));
    assert!(a.input.is_empty(), "typing does not reach the input");
    a.on_key(key(KeyCode::Down));
    assert_eq!(a.trace.as_ref().map(|v| v.selected), Some(1));
    assert_eq!(a.on_key(key(KeyCode::Char('r'))), [Action::Trace]);
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    assert!(!a.tracing());
    assert!(a.on_key(ctrl('t')) == [Action::Trace]);
    assert!(a.on_key(ctrl('t')).is_empty());
    assert!(!a.tracing(), "Ctrl+T closes it too");
    // Esc closed the view, not the turn: nothing was cancelled.
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
}

#[test]
fn enter_on_a_tool_line_shows_why() {
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
    let why = a.trace.as_ref().and_then(|v| v.why.clone()).unwrap();
    assert!(
        why.contains("/work/parser/.roocode/config.yaml at line 2"),
        "{why}"
    );
    a.on_key(key(KeyCode::Esc));
    assert!(a.tracing(), "the first Esc closes the paragraph only");
}

#[test]
fn a_permission_request_shows_over_the_view_and_takes_the_keys() {
    let mut a = open();
    a.on_event(&permission_request(1, "R1"));
    assert!(a.prompts.shown().is_some());
    let actions = a.on_key(key(KeyCode::Char('y')));
    assert!(
        matches!(actions.as_slice(), [Action::RespondPermission { .. }]),
        "{actions:?}"
    );
    assert!(a.tracing(), "the view is still there under it");
}

#[test]
fn answers_after_the_view_closed() {
    let mut a = open();
    a.on_key(key(KeyCode::Esc));
    a.set_trace(example::session());
    assert!(!a.tracing(), "a late trace does not reopen the view");
    a.trace_failed("the connection to the daemon was lost");
    assert!(
        lines(&mut a)
            .iter()
            .any(|l| l.contains("error: the connection to the daemon was lost")),
        "{:?}",
        lines(&mut a)
    );
    let mut a = open();
    a.on_key(key(KeyCode::Char('r')));
    a.trace_failed("session.trace is not known to this daemon");
    let v = a.trace.as_ref().unwrap();
    assert!(v.error.is_some() && !v.loading);
}
