//! Shared output shaping for tools: bounded text for the model, line truncation and
//! path display.

use std::path::Path;

/// Cap on the text one tool call returns to the model (about 7.5k tokens). Larger
/// results are cut at a line boundary with a note saying how to get the rest.
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// `s` cut to at most `max` characters, with `…` appended when cut.
pub(crate) fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((byte, _)) => format!("{}…", &s[..byte]),
    }
}

/// A line cut to `max` characters with a marker saying how long it was.
pub(crate) fn truncate_line(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        None => line.to_string(),
        Some((byte, _)) => format!(
            "{}… [line truncated, {} chars total]",
            &line[..byte],
            line.chars().count()
        ),
    }
}

/// How a path is shown to the model: relative to `base` (the real working directory)
/// when under it, otherwise absolute.
pub(crate) fn display_path(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// Lines collected up to a character budget.
#[derive(Debug)]
pub(crate) struct BoundedLines {
    text: String,
    budget: usize,
    lines: usize,
    full: bool,
}

impl BoundedLines {
    pub(crate) fn new(budget: usize) -> Self {
        Self {
            text: String::new(),
            budget,
            lines: 0,
            full: false,
        }
    }

    /// Append one line; false (and nothing appended) once it would exceed the budget.
    pub(crate) fn push(&mut self, line: &str) -> bool {
        if self.full {
            return false;
        }
        let extra = line.len() + usize::from(!self.text.is_empty());
        if self.text.len() + extra > self.budget {
            self.full = true;
            return false;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(line);
        self.lines += 1;
        true
    }

    /// True once a line was refused.
    pub(crate) fn is_full(&self) -> bool {
        self.full
    }

    /// Number of lines accepted.
    pub(crate) fn len(&self) -> usize {
        self.lines
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lines == 0
    }

    pub(crate) fn into_string(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_respects_char_boundaries() {
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(truncate_chars("hé", 2), "hé");
        assert_eq!(
            truncate_line("abcdef", 3),
            "abc… [line truncated, 6 chars total]"
        );
        assert_eq!(truncate_line("abc", 3), "abc");
    }

    #[test]
    fn paths_are_relative_under_base() {
        assert_eq!(
            display_path(Path::new("/p/src/a.rs"), Path::new("/p")),
            "src/a.rs"
        );
        assert_eq!(
            display_path(Path::new("/q/a.rs"), Path::new("/p")),
            "/q/a.rs"
        );
        assert_eq!(
            display_path(Path::new("/p2/a.rs"), Path::new("/p")),
            "/p2/a.rs"
        );
        assert_eq!(display_path(Path::new("/p"), Path::new("/p")), "/p");
    }

    #[test]
    fn bounded_lines_stop_at_the_budget() {
        let mut out = BoundedLines::new(7);
        assert!(out.push("abc"));
        assert!(out.push("def"));
        assert!(!out.push("g"));
        assert!(out.is_full());
        assert_eq!(out.len(), 2);
        assert_eq!(out.into_string(), "abc\ndef");
    }
}
