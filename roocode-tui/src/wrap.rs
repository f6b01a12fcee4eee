//! Wrapping styled text to a terminal width: word wrapping for prose (with a prefix on
//! the first line and another on the following ones, for bullets and quotes) and hard
//! wrapping for code, diffs and tool output. Every line the conversation shows is
//! wrapped here once and cached, so drawing never wraps.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Display width of `s` in terminal cells.
pub fn str_width(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        Span::raw(s).width()
    }
}

/// Display width of one character.
pub fn char_width(c: char) -> usize {
    if c.is_ascii() {
        1
    } else {
        let mut buf = [0u8; 4];
        Span::raw(&*c.encode_utf8(&mut buf)).width()
    }
}

/// `s` without the characters a terminal would interpret: tabs become four spaces,
/// carriage returns and other control characters (but newlines) are dropped.
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\n' => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` cut to at most `max` cells, with `…` when cut.
pub fn clip(s: &str, max: usize) -> String {
    if str_width(s) <= max {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// Builds word-wrapped lines from styled pieces of text.
pub struct Wrapper {
    width: usize,
    rest_prefix: Vec<Span<'static>>,
    rest_prefix_width: usize,
    lines: Vec<Line<'static>>,
    cur: Vec<Span<'static>>,
    cur_width: usize,
    /// Width of the prefix at the start of `cur`.
    cur_prefix_width: usize,
    /// The current line was started by a soft wrap: its leading spaces are dropped.
    soft: bool,
}

impl Wrapper {
    /// A wrapper for lines of `width` cells; the first line starts with `first`, the
    /// others with `rest`.
    pub fn new(width: usize, first: Vec<Span<'static>>, rest: Vec<Span<'static>>) -> Self {
        let first_width = spans_width(&first);
        let rest_prefix_width = spans_width(&rest);
        Wrapper {
            width: width.max(1),
            rest_prefix: rest,
            rest_prefix_width,
            lines: Vec::new(),
            cur: first,
            cur_width: first_width,
            cur_prefix_width: first_width,
            soft: false,
        }
    }

    /// A wrapper without prefixes.
    pub fn plain(width: usize) -> Self {
        Self::new(width, Vec::new(), Vec::new())
    }

    /// Appends `text` in `style`; newlines in it break the line.
    pub fn push(&mut self, text: &str, style: Style) {
        let text = clean(text);
        let mut pieces = text.split('\n');
        if let Some(first) = pieces.next() {
            self.push_piece(first, style);
        }
        for piece in pieces {
            self.hard_break();
            self.push_piece(piece, style);
        }
    }

    /// Ends the current line (even when it is empty).
    pub fn hard_break(&mut self) {
        self.new_line(false);
    }

    /// Whether anything besides the first prefix was written.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.cur_width == self.cur_prefix_width
    }

    /// The wrapped lines; a last line holding only its prefix is dropped unless it is
    /// the only one.
    pub fn finish(mut self) -> Vec<Line<'static>> {
        if self.cur_width > self.cur_prefix_width || self.lines.is_empty() {
            let cur = std::mem::take(&mut self.cur);
            self.lines.push(Line::from(cur));
        }
        self.lines
    }

    fn push_piece(&mut self, piece: &str, style: Style) {
        let mut rest = piece;
        while !rest.is_empty() {
            let space = rest.starts_with(' ');
            let end = rest
                .find(|c: char| (c == ' ') != space)
                .unwrap_or(rest.len());
            let (token, tail) = rest.split_at(end);
            rest = tail;
            if space {
                self.push_space(token, style);
            } else {
                self.push_word(token, style);
            }
        }
    }

    fn push_space(&mut self, token: &str, style: Style) {
        if self.soft && self.cur_width == self.cur_prefix_width {
            return;
        }
        let w = token.len();
        if self.cur_width + w > self.width {
            self.new_line(true);
            return;
        }
        self.append(token, style, w);
    }

    fn push_word(&mut self, word: &str, style: Style) {
        let w = str_width(word);
        if self.cur_width + w <= self.width {
            self.append(word, style, w);
            return;
        }
        if self.cur_width > self.cur_prefix_width {
            self.new_line(true);
            if self.cur_width + w <= self.width {
                self.append(word, style, w);
                return;
            }
        }
        // Longer than a whole line: break it between characters.
        for c in word.chars() {
            let cw = char_width(c);
            if self.cur_width + cw > self.width && self.cur_width > self.cur_prefix_width {
                self.new_line(true);
            }
            let mut buf = [0u8; 4];
            self.append(c.encode_utf8(&mut buf), style, cw);
        }
    }

    fn append(&mut self, text: &str, style: Style, w: usize) {
        self.soft = false;
        self.cur_width += w;
        push_styled(&mut self.cur, text, style);
    }

    fn new_line(&mut self, soft: bool) {
        if soft {
            trim_trailing_spaces(&mut self.cur, self.cur_prefix_width);
        }
        let cur = std::mem::replace(&mut self.cur, self.rest_prefix.clone());
        self.lines.push(Line::from(cur));
        self.cur_width = self.rest_prefix_width;
        self.cur_prefix_width = self.rest_prefix_width;
        self.soft = soft;
    }
}

/// Appends `text` to `spans`, merged into the last span when the style is the same.
pub fn push_styled(spans: &mut Vec<Span<'static>>, text: &str, style: Style) {
    if let Some(last) = spans.last_mut()
        && last.style == style
    {
        last.content.to_mut().push_str(text);
        return;
    }
    spans.push(Span::styled(text.to_owned(), style));
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| str_width(&s.content)).sum()
}

/// Drops trailing spaces of the text after the prefix (a soft wrap never leaves them).
fn trim_trailing_spaces(spans: &mut Vec<Span<'static>>, prefix_width: usize) {
    let mut removable = spans_width(spans).saturating_sub(prefix_width);
    while removable > 0 {
        let Some(last) = spans.last_mut() else { return };
        let spaces = last.content.len() - last.content.trim_end_matches(' ').len();
        let cut = spaces.min(removable);
        if cut == 0 {
            return;
        }
        removable -= cut;
        let keep = last.content.len() - cut;
        if keep == 0 {
            spans.pop();
        } else {
            last.content.to_mut().truncate(keep);
            if cut < spaces {
                return;
            }
        }
    }
}

/// Lines of `text` cut every `width` cells (no word logic: code, diffs, output), each
/// starting with `prefix`; with `fill`, every line is padded with spaces to the full
/// width in `style` (code block backgrounds).
pub fn hard_wrap(
    text: &str,
    width: usize,
    prefix: &[Span<'static>],
    style: Style,
    fill: bool,
) -> Vec<Line<'static>> {
    let text = clean(text);
    let prefix_width = spans_width(prefix);
    let avail = width.saturating_sub(prefix_width).max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut chunk = String::new();
        let mut w = 0;
        for c in line.chars() {
            let cw = char_width(c);
            if w + cw > avail && w > 0 {
                out.push(finish_hard(prefix, &mut chunk, w, avail, style, fill));
                w = 0;
            }
            chunk.push(c);
            w += cw;
        }
        out.push(finish_hard(prefix, &mut chunk, w, avail, style, fill));
    }
    out
}

fn finish_hard(
    prefix: &[Span<'static>],
    chunk: &mut String,
    w: usize,
    avail: usize,
    style: Style,
    fill: bool,
) -> Line<'static> {
    let mut text = std::mem::take(chunk);
    if fill && w < avail {
        text.extend(std::iter::repeat_n(' ', avail - w));
    }
    let mut spans = prefix.to_vec();
    spans.push(Span::styled(text, style));
    Line::from(spans)
}

/// The plain text of a line (tests and clipboard-like uses).
pub fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(line_text).collect()
    }

    #[test]
    fn words_wrap_at_the_width_without_trailing_spaces() {
        let mut w = Wrapper::plain(10);
        w.push("the quick brown fox jumps", Style::new());
        assert_eq!(texts(&w.finish()), ["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn prefixes_apply_to_first_and_following_lines() {
        let mut w = Wrapper::new(10, vec![Span::raw("• ")], vec![Span::raw("  ")]);
        w.push("one two three four", Style::new());
        assert_eq!(texts(&w.finish()), ["• one two", "  three", "  four"]);
    }

    #[test]
    fn long_words_break_between_characters() {
        let mut w = Wrapper::plain(4);
        w.push("abcdefghij", Style::new());
        assert_eq!(texts(&w.finish()), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn newlines_break_and_keep_blank_lines() {
        let mut w = Wrapper::plain(20);
        w.push("a\n\n  b\n", Style::new());
        assert_eq!(texts(&w.finish()), ["a", "", "  b"]);
    }

    #[test]
    fn wide_characters_count_double() {
        let mut w = Wrapper::plain(5);
        w.push("日本語 ok", Style::new());
        assert_eq!(texts(&w.finish()), ["日本", "語 ok"]);
    }

    #[test]
    fn same_style_pieces_merge_into_one_span() {
        let mut w = Wrapper::plain(40);
        w.push("ab", Style::new());
        w.push("cd", Style::new());
        let lines = w.finish();
        assert_eq!(lines[0].spans.len(), 1);
    }

    #[test]
    fn hard_wrap_cuts_and_fills() {
        let lines = hard_wrap("abcdef\nxy", 4, &[], Style::new(), true);
        assert_eq!(texts(&lines), ["abcd", "ef  ", "xy  "]);
    }

    #[test]
    fn clean_replaces_tabs_and_drops_controls() {
        assert_eq!(clean("a\tb\r\n\x1b[0m"), "a    b\n[0m");
        assert!(matches!(clean("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn clip_adds_an_ellipsis() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
