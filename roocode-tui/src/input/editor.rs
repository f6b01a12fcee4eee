//! A multi-line text field: one string with a cursor (a byte offset on a character
//! boundary) and the usual terminal editing moves. Used by the input box and by the
//! one-line fields of dialogs.

use crate::wrap::char_width;

/// Text being edited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Editor {
    text: String,
    cursor: usize,
}

impl Editor {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text; the cursor goes to its end.
    pub fn set(&mut self, text: &str) {
        self.text = text.to_owned();
        self.cursor = self.text.len();
    }

    /// Takes the text out, leaving the field empty.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text)
    }

    pub fn clear(&mut self) {
        self.take();
    }

    pub fn insert_char(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Inserts `s` as typed (pasted line endings become `\n`, tabs four spaces).
    pub fn insert_str(&mut self, s: &str) {
        let s = s
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\t', "    ");
        let s: String = s
            .chars()
            .filter(|c| !c.is_control() || *c == '\n')
            .collect();
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    fn prev_boundary(&self, at: usize) -> usize {
        self.text[..at]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    pub fn backspace(&mut self) {
        if self.cursor > 0 {
            let start = self.prev_boundary(self.cursor);
            self.text.replace_range(start..self.cursor, "");
            self.cursor = start;
        }
    }

    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            let end = self.next_boundary(self.cursor);
            self.text.replace_range(self.cursor..end, "");
        }
    }

    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    fn line_start_of(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end_of(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i)
    }

    pub fn home(&mut self) {
        self.cursor = self.line_start_of(self.cursor);
    }

    pub fn end(&mut self) {
        self.cursor = self.line_end_of(self.cursor);
    }

    pub fn at_line_end(&self) -> bool {
        self.cursor == self.line_end_of(self.cursor)
    }

    pub fn on_first_line(&self) -> bool {
        !self.text[..self.cursor].contains('\n')
    }

    pub fn on_last_line(&self) -> bool {
        !self.text[self.cursor..].contains('\n')
    }

    /// The start of the word before the cursor (spaces first, then the word).
    fn word_start_before(&self) -> usize {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches([' ', '\n']);
        trimmed
            .rfind(|c: char| c.is_whitespace())
            .map_or(0, |i| i + 1)
    }

    /// The end of the word after the cursor.
    fn word_end_after(&self) -> usize {
        let after = &self.text[self.cursor..];
        let skip = after.len() - after.trim_start_matches([' ', '\n']).len();
        let rest = &after[skip..];
        let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.cursor + skip + word
    }

    pub fn word_left(&mut self) {
        self.cursor = self.word_start_before();
    }

    pub fn word_right(&mut self) {
        self.cursor = self.word_end_after();
    }

    /// Ctrl+W: deletes the word before the cursor.
    pub fn delete_word_before(&mut self) {
        let start = self.word_start_before();
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Alt+D: deletes the word after the cursor.
    pub fn delete_word_after(&mut self) {
        let end = self.word_end_after();
        self.text.replace_range(self.cursor..end, "");
    }

    /// Ctrl+U: deletes from the start of the line to the cursor.
    pub fn delete_to_line_start(&mut self) {
        let start = self.line_start_of(self.cursor);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Ctrl+K: deletes from the cursor to the end of the line.
    pub fn delete_to_line_end(&mut self) {
        let end = self.line_end_of(self.cursor);
        self.text.replace_range(self.cursor..end, "");
    }

    /// Moves to the line above at the same column; false on the first line.
    pub fn up(&mut self) -> bool {
        if self.on_first_line() {
            return false;
        }
        let start = self.line_start_of(self.cursor);
        let col = self.text[start..self.cursor].chars().count();
        let prev_start = self.line_start_of(start - 1);
        self.cursor = advance(&self.text, prev_start, start - 1, col);
        true
    }

    /// Moves to the line below at the same column; false on the last line.
    pub fn down(&mut self) -> bool {
        if self.on_last_line() {
            return false;
        }
        let start = self.line_start_of(self.cursor);
        let col = self.text[start..self.cursor].chars().count();
        let next_start = self.line_end_of(self.cursor) + 1;
        let next_end = self.line_end_of(next_start);
        self.cursor = advance(&self.text, next_start, next_end, col);
        true
    }

    /// The text cut into rows of `width` cells (hard wrapped, as the box shows it)
    /// and the row and column of the cursor among them.
    pub fn layout(&self, width: usize) -> (Vec<String>, (usize, usize)) {
        let width = width.max(1);
        let mut rows = vec![String::new()];
        let mut w = 0;
        let mut cursor = (0, 0);
        for (i, c) in self.text.char_indices() {
            if i == self.cursor {
                cursor = (rows.len() - 1, w);
            }
            if c == '\n' {
                rows.push(String::new());
                w = 0;
                continue;
            }
            let cw = char_width(c);
            if w + cw > width {
                rows.push(String::new());
                w = 0;
                if i == self.cursor {
                    cursor = (rows.len() - 1, 0);
                }
            }
            if let Some(row) = rows.last_mut() {
                row.push(c);
            }
            w += cw;
        }
        if self.cursor >= self.text.len() {
            if w >= width {
                rows.push(String::new());
                w = 0;
            }
            cursor = (rows.len() - 1, w);
        }
        (rows, cursor)
    }
}

/// The offset `col` characters after `start`, at most `end`.
fn advance(text: &str, start: usize, end: usize, col: usize) -> usize {
    text[start..end]
        .char_indices()
        .nth(col)
        .map_or(end, |(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn editor(text: &str) -> Editor {
        let mut e = Editor::default();
        e.set(text);
        e
    }

    #[test]
    fn insert_and_delete_around_the_cursor() {
        let mut e = editor("héllo");
        e.left();
        e.left();
        e.backspace();
        assert_eq!(e.text(), "hélo");
        e.delete();
        assert_eq!(e.text(), "héo");
        e.insert_char('!');
        assert_eq!(e.text(), "hé!o");
    }

    #[test]
    fn home_end_stay_on_the_line() {
        let mut e = editor("one\ntwo");
        e.home();
        assert_eq!(e.cursor(), 4);
        e.end();
        assert_eq!(e.cursor(), 7);
        assert!(e.at_line_end());
    }

    #[test]
    fn word_deletes() {
        let mut e = editor("git commit -m  ");
        e.delete_word_before();
        assert_eq!(e.text(), "git commit ");
        e.home();
        e.delete_word_after();
        assert_eq!(e.text(), " commit ");
        e.end();
        e.delete_to_line_start();
        assert_eq!(e.text(), "");
    }

    #[test]
    fn up_and_down_keep_the_column() {
        let mut e = editor("abcdef\nxy\nlonger line");
        assert!(!e.down());
        assert!(e.up());
        assert_eq!(e.cursor(), 9); // end of "xy"
        assert!(e.up());
        assert_eq!(e.cursor(), 2);
        assert!(!e.up());
        assert!(e.on_first_line());
    }

    #[test]
    fn paste_normalises_line_endings() {
        let mut e = Editor::default();
        e.insert_str("a\r\nb\rc\td");
        assert_eq!(e.text(), "a\nb\nc    d");
    }

    #[test]
    fn layout_wraps_and_places_the_cursor() {
        let e = editor("abcdef\ngh");
        let (rows, cursor) = e.layout(4);
        assert_eq!(rows, ["abcd", "ef", "gh"]);
        assert_eq!(cursor, (2, 2));
        let e = editor("abcd");
        let (rows, cursor) = e.layout(4);
        assert_eq!(rows, ["abcd", ""]);
        assert_eq!(cursor, (1, 0));
    }
}
