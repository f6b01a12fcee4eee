//! Unified diffs (the `diff` of a `tool_result`) as coloured lines: `+` green,
//! `-` red, `@@` hunk headers cyan, `+++`/`---` file headers bold.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::theme;
use crate::wrap::hard_wrap;

/// The style of one diff line.
pub fn line_style(line: &str) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme::DIFF_FILE
    } else if line.starts_with('+') {
        theme::DIFF_ADD
    } else if line.starts_with('-') {
        theme::DIFF_DEL
    } else if line.starts_with("@@") {
        theme::DIFF_HUNK
    } else {
        Style::new()
    }
}

/// `diff` as lines of at most `width` cells after `prefix`, at most `max` lines of it
/// (then a dim `… N more lines`).
pub fn render(
    diff: &str,
    width: usize,
    prefix: &[Span<'static>],
    max: usize,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let total = diff.lines().count();
    for line in diff.lines().take(max) {
        out.extend(hard_wrap(line, width, prefix, line_style(line), false));
    }
    if total > max {
        let mut spans = prefix.to_vec();
        spans.push(Span::styled(
            format!("… {} more lines", total - max),
            theme::DIM,
        ));
        out.push(Line::from(spans));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_coloured_by_their_marker() {
        assert_eq!(line_style("+added"), theme::DIFF_ADD);
        assert_eq!(line_style("-removed"), theme::DIFF_DEL);
        assert_eq!(line_style("@@ -1,2 +1,2 @@"), theme::DIFF_HUNK);
        assert_eq!(line_style("+++ b/src/a.rs"), theme::DIFF_FILE);
        assert_eq!(line_style(" context"), Style::new());
    }

    #[test]
    fn long_diffs_are_cut() {
        let diff = (0..10)
            .map(|i| format!("+{i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let lines = render(&diff, 20, &[], 3);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[3].spans[0].content, "… 7 more lines");
    }
}
