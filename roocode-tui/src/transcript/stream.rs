//! Rendering an answer while it streams, at the cost of its last block: the text is
//! cut at block boundaries that cannot change meaning as more text arrives (a blank
//! line, outside code fences, followed by an unindented line that does not continue a
//! list); the blocks before the last cut are rendered once and kept, only the text
//! after it is rendered again at each frame. The complete message is rendered whole.

use ratatui::style::Style;
use ratatui::text::Line;

use crate::markdown;

/// The lines of a streaming text, kept between frames.
#[derive(Debug, Default)]
pub struct StreamCache {
    /// What the kept lines were rendered for: width and the lines before the text.
    key: Option<(u16, usize)>,
    lines: Vec<Line<'static>>,
    /// Lines before the text (gap, thinking).
    head: usize,
    /// Lines of the text up to `stable_end`.
    stable_lines: usize,
    /// Bytes of the text rendered into the kept lines.
    stable_end: usize,
    /// Bytes of the text scanned for cuts (whole lines only).
    scanned: usize,
    /// The fence open at `scanned` (its character and length).
    fence: Option<(char, usize)>,
    /// A blank line was seen since the last cut.
    blank: bool,
}

impl StreamCache {
    /// The lines of `head` followed by `text` rendered at `width`; `head_id` says when
    /// the head changed (it is rendered by `head` only then).
    pub fn lines(
        &mut self,
        width: u16,
        head_id: usize,
        head: impl FnOnce() -> Vec<Line<'static>>,
        text: &str,
    ) -> &[Line<'static>] {
        if self.key != Some((width, head_id)) || text.len() < self.stable_end {
            *self = StreamCache {
                key: Some((width, head_id)),
                lines: head(),
                ..StreamCache::default()
            };
            self.head = self.lines.len();
        }
        self.lines.truncate(self.head + self.stable_lines);
        while let Some(cut) = self.next_cut(text) {
            let chunk = &text[self.stable_end..cut];
            let rendered = markdown::render(chunk, width as usize, Style::new());
            if self.stable_lines > 0 && !rendered.is_empty() {
                self.lines.push(Line::default());
            }
            self.lines.extend(rendered);
            self.stable_lines = self.lines.len() - self.head;
            self.stable_end = cut;
        }
        let tail = markdown::render(&text[self.stable_end..], width as usize, Style::new());
        if self.stable_lines > 0 && !tail.is_empty() {
            self.lines.push(Line::default());
        }
        self.lines.extend(tail);
        &self.lines
    }

    /// The next cut after the kept text, scanning whole lines not scanned yet.
    fn next_cut(&mut self, text: &str) -> Option<usize> {
        while let Some(nl) = text[self.scanned..].find('\n') {
            let start = self.scanned;
            let line = &text[start..start + nl];
            self.scanned = start + nl + 1;
            let fence = fence_of(line);
            if let Some((c, n)) = self.fence {
                if fence.is_some_and(|(fc, fnum)| fc == c && fnum >= n) {
                    self.fence = None;
                }
                continue;
            }
            if line.trim().is_empty() {
                self.blank = true;
                continue;
            }
            let cut = self.blank
                && start > self.stable_end
                && !line.starts_with([' ', '\t'])
                && !is_list_item(line);
            self.blank = false;
            self.fence = fence;
            if cut {
                return Some(start);
            }
        }
        None
    }
}

/// The fence a line opens or closes: ```` ``` ```` or `~~~` (up to three spaces in).
fn fence_of(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// `- a`, `* a`, `+ a`, `1. a`, `1) a`.
fn is_list_item(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.is_empty() || rest.starts_with(' ');
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && line[digits..]
            .strip_prefix(['.', ')'])
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrap::line_text;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(line_text).collect()
    }

    /// Streaming `text` in pieces gives the lines of rendering it whole.
    fn check(text: &str, step: usize) {
        let mut cache = StreamCache::default();
        let mut end = 0;
        while end < text.len() {
            end = (end + step).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            cache.lines(40, 0, Vec::new, &text[..end]);
        }
        let streamed = texts(cache.lines(40, 0, Vec::new, text));
        let whole = texts(&markdown::render(text, 40, Style::new()));
        assert_eq!(streamed, whole, "{text:?}");
    }

    #[test]
    fn streamed_rendering_matches_the_whole() {
        let text = "# Title\n\nA paragraph that wraps over more than one line of forty.\n\n\
                    ```rust\nfn a() {}\n\nfn b() {}\n```\n\n- one\n- two\n\n- loose\n\n  \
                    continued\n\nEnd *here*.\n\n> quote\n\n1. a\n\n2. b\n\nlast";
        for step in [1, 3, 7, 16, 64] {
            check(text, step);
        }
    }

    #[test]
    fn blocks_before_the_last_cut_are_kept() {
        let mut cache = StreamCache::default();
        // The line after a blank one is looked at once it is complete.
        cache.lines(40, 0, Vec::new, "one\n\ntwo\n\nthr");
        assert_eq!(cache.stable_end, "one\n\n".len());
        assert_eq!(texts(&cache.lines), ["one", "", "two", "", "thr"]);
    }

    #[test]
    fn no_cut_inside_a_fence() {
        let mut cache = StreamCache::default();
        cache.lines(40, 0, Vec::new, "```\na\n\nb\n");
        assert_eq!(cache.stable_end, 0);
    }

    #[test]
    fn list_markers() {
        assert!(is_list_item("- a"));
        assert!(is_list_item("12. a"));
        assert!(!is_list_item("-a"));
        assert!(!is_list_item("2020 was"));
    }
}
