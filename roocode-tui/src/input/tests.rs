use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn with(code: KeyCode, m: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, m)
}

fn typed(text: &str) -> Input {
    let mut i = Input::default();
    for c in text.chars() {
        i.key(key(KeyCode::Char(c)));
    }
    i
}

#[test]
fn enter_submits_and_newline_keys_insert() {
    let mut i = typed("a");
    i.key(with(KeyCode::Enter, KeyModifiers::ALT));
    i.key(key(KeyCode::Char('b')));
    i.key(with(KeyCode::Char('j'), KeyModifiers::CONTROL));
    i.key(key(KeyCode::Char('c')));
    i.key(with(KeyCode::Enter, KeyModifiers::SHIFT));
    i.key(key(KeyCode::Char('d')));
    assert_eq!(
        i.key(key(KeyCode::Enter)),
        InputKey::Submit("a\nb\nc\nd".into())
    );
    assert!(i.is_empty());
}

#[test]
fn blank_input_does_not_submit() {
    let mut i = typed("  ");
    assert_eq!(i.key(key(KeyCode::Enter)), InputKey::Ignored);
}

#[test]
fn paste_inserts_newlines_without_submitting() {
    let mut i = typed("x ");
    i.paste("line one\nline two\n");
    assert_eq!(i.text(), "x line one\nline two\n");
}

#[test]
fn history_from_the_first_and_last_lines() {
    let mut i = typed("one");
    i.key(key(KeyCode::Enter));
    for c in "two".chars() {
        i.key(key(KeyCode::Char(c)));
    }
    i.key(key(KeyCode::Enter));
    i.paste("draft\nsecond line");
    // Up on the second line moves to the first; then history.
    assert_eq!(i.key(key(KeyCode::Up)), InputKey::Moved);
    assert_eq!(i.text(), "draft\nsecond line");
    i.key(key(KeyCode::Up));
    assert_eq!(i.text(), "two");
    i.key(key(KeyCode::Up));
    assert_eq!(i.text(), "one");
    i.key(key(KeyCode::Down));
    assert_eq!(i.text(), "two");
    i.key(key(KeyCode::Down));
    assert_eq!(i.text(), "draft\nsecond line");
}

#[test]
fn cursor_keys_and_word_delete() {
    let mut i = typed("hello big world");
    i.key(with(KeyCode::Char('w'), KeyModifiers::CONTROL));
    assert_eq!(i.text(), "hello big ");
    i.key(with(KeyCode::Char('a'), KeyModifiers::CONTROL));
    i.key(key(KeyCode::Delete));
    i.key(key(KeyCode::Right));
    i.key(key(KeyCode::Char('E')));
    assert_eq!(i.text(), "eEllo big ");
    i.key(with(KeyCode::Char('e'), KeyModifiers::CONTROL));
    i.key(key(KeyCode::Backspace));
    i.key(key(KeyCode::Home));
    i.key(key(KeyCode::Char('>')));
    assert_eq!(i.text(), ">eEllo big");
    i.key(key(KeyCode::End));
    i.key(with(KeyCode::Left, KeyModifiers::ALT));
    i.key(with(KeyCode::Char('k'), KeyModifiers::CONTROL));
    assert_eq!(i.text(), ">eEllo ");
}

#[test]
fn one_line_fields_edit() {
    let mut e = Editor::default();
    assert!(edit_line(&mut e, key(KeyCode::Char('a'))));
    assert!(edit_line(&mut e, key(KeyCode::Backspace)));
    assert!(!edit_line(&mut e, key(KeyCode::Enter)));
    assert!(e.is_empty());
}
