//! The input box: a multi-line editor with history. Enter submits; Alt+Enter, Ctrl+J
//! and Shift+Enter insert a newline; Up and Down recall history from the first and last
//! line; the usual cursor and delete keys, Ctrl+A/E/W/U/K among them. Pasted text is
//! inserted and never submits.

mod editor;
mod history;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub use editor::Editor;
pub use history::History;

/// What a key did to the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKey {
    /// Enter: the text, taken out of the box (not empty).
    Submit(String),
    /// The text changed.
    Edited,
    /// The cursor moved or history was recalled.
    Moved,
    /// Not an input key.
    Ignored,
}

/// The input box's state.
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub editor: Editor,
    pub history: History,
}

impl Input {
    pub fn text(&self) -> &str {
        self.editor.text()
    }

    pub fn is_empty(&self) -> bool {
        self.editor.is_empty()
    }

    pub fn clear(&mut self) {
        self.editor.clear();
        self.history.reset();
    }

    /// Replaces the text (completion), cursor at the end.
    pub fn set(&mut self, text: &str) {
        self.editor.set(text);
    }

    /// Bracketed paste: inserted at the cursor, newlines included.
    pub fn paste(&mut self, text: &str) {
        self.editor.insert_str(text);
    }

    /// Applies an editing key.
    pub fn key(&mut self, key: KeyEvent) -> InputKey {
        if movement(&mut self.editor, key) {
            return InputKey::Moved;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let e = &mut self.editor;
        match key.code {
            KeyCode::Enter if alt || shift || ctrl => e.insert_char('\n'),
            KeyCode::Char('j') if ctrl => e.insert_char('\n'),
            KeyCode::Enter => {
                if e.text().trim().is_empty() {
                    return InputKey::Ignored;
                }
                let text = e.take();
                self.history.push(&text);
                return InputKey::Submit(text);
            }
            KeyCode::Char('w') if ctrl => e.delete_word_before(),
            KeyCode::Char('h') if ctrl => e.backspace(),
            KeyCode::Char('d') if alt => e.delete_word_after(),
            KeyCode::Char('d') if ctrl => e.delete(),
            KeyCode::Char('u') if ctrl => e.delete_to_line_start(),
            KeyCode::Char('k') if ctrl => e.delete_to_line_end(),
            KeyCode::Char(_) if ctrl => return InputKey::Ignored,
            KeyCode::Char(c) => e.insert_char(c),
            KeyCode::Backspace if alt || ctrl => e.delete_word_before(),
            KeyCode::Backspace => e.backspace(),
            KeyCode::Delete => e.delete(),
            KeyCode::Up => return self.recall(true),
            KeyCode::Down => return self.recall(false),
            _ => return InputKey::Ignored,
        }
        self.history.reset();
        InputKey::Edited
    }

    /// Up/Down: the line above or below, else the older or newer history entry.
    fn recall(&mut self, older: bool) -> InputKey {
        let moved = if older {
            self.editor.up()
        } else {
            self.editor.down()
        };
        if moved {
            return InputKey::Moved;
        }
        let current = self.editor.text().to_owned();
        let entry = if older {
            self.history.older(&current)
        } else {
            self.history.newer()
        };
        match entry.map(str::to_owned) {
            Some(text) => {
                self.editor.set(&text);
                InputKey::Moved
            }
            None => InputKey::Ignored,
        }
    }
}

/// Cursor moves: Left/Right (by word with Alt or Ctrl), Home/End, Ctrl+A/E/B/F,
/// Alt+B/F.
fn movement(e: &mut Editor, key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char('a') if ctrl => e.home(),
        KeyCode::Char('e') if ctrl => e.end(),
        KeyCode::Char('b') if ctrl => e.left(),
        KeyCode::Char('f') if ctrl => e.right(),
        KeyCode::Char('b') if alt => e.word_left(),
        KeyCode::Char('f') if alt => e.word_right(),
        KeyCode::Left if alt || ctrl => e.word_left(),
        KeyCode::Right if alt || ctrl => e.word_right(),
        KeyCode::Left => e.left(),
        KeyCode::Right => e.right(),
        KeyCode::Home => e.home(),
        KeyCode::End => e.end(),
        _ => return false,
    }
    true
}

/// A one-line field's editing keys (dialog feedback, free-text answers); false when
/// `key` is not one of them.
pub fn edit_line(e: &mut Editor, key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char('a') if ctrl => e.home(),
        KeyCode::Char('e') if ctrl => e.end(),
        KeyCode::Char('w') if ctrl => e.delete_word_before(),
        KeyCode::Char('u') if ctrl => e.delete_to_line_start(),
        KeyCode::Char('k') if ctrl => e.delete_to_line_end(),
        KeyCode::Char(_) if ctrl => return false,
        KeyCode::Char(c) => e.insert_char(c),
        KeyCode::Backspace if alt || ctrl => e.delete_word_before(),
        KeyCode::Backspace => e.backspace(),
        KeyCode::Delete => e.delete(),
        KeyCode::Left => e.left(),
        KeyCode::Right => e.right(),
        KeyCode::Home => e.home(),
        KeyCode::End => e.end(),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests;
