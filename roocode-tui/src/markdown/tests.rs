use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use super::render;
use crate::theme;
use crate::wrap::line_text;

fn texts(lines: &[Line<'_>]) -> Vec<String> {
    lines.iter().map(line_text).collect()
}

#[test]
fn blocks_are_separated_by_blank_lines() {
    let lines = render(
        "# Title\n\nSome *text*.\n\n- one\n- two\n\nEnd.",
        40,
        Style::new(),
    );
    assert_eq!(
        texts(&lines),
        ["Title", "", "Some text.", "", "• one", "• two", "", "End."]
    );
    assert_eq!(lines[0].spans[0].style, theme::HEADING1);
}

#[test]
fn list_items_wrap_under_their_text() {
    let lines = render("1. alpha beta gamma delta\n2. b", 14, Style::new());
    assert_eq!(texts(&lines), ["1. alpha beta", "   gamma delta", "2. b"]);
}

#[test]
fn nested_lists_indent() {
    let lines = render("- a\n  - b\n- c", 20, Style::new());
    assert_eq!(texts(&lines), ["• a", "  ◦ b", "• c"]);
}

#[test]
fn code_blocks_fill_the_width_on_their_background() {
    let lines = render("```rust\nlet x = 1;\n```", 20, Style::new());
    assert_eq!(lines.len(), 1);
    let text = line_text(&lines[0]);
    assert_eq!(text.chars().count(), 20);
    assert!(text.starts_with(" let x = 1;"));
    assert!(
        lines[0]
            .spans
            .iter()
            .all(|s| s.style.bg == Some(theme::CODE_BG))
    );
}

#[test]
fn inline_styles() {
    let lines = render("a `code` **bold** _it_ ~~gone~~", 60, Style::new());
    let spans = &lines[0].spans;
    let find = |t: &str| spans.iter().find(|s| s.content == t).map(|s| s.style);
    assert_eq!(find("code"), Some(theme::CODE_INLINE));
    assert!(find("bold").is_some_and(|s| s.add_modifier.contains(Modifier::BOLD)));
    assert!(find("it").is_some_and(|s| s.add_modifier.contains(Modifier::ITALIC)));
    assert!(find("gone").is_some_and(|s| s.add_modifier.contains(Modifier::CROSSED_OUT)));
}

#[test]
fn quotes_and_rules() {
    let lines = render("> quoted text\n\n---\n\nafter", 13, Style::new());
    assert_eq!(
        texts(&lines),
        ["│ quoted text", "", "─────────────", "", "after"]
    );
}

#[test]
fn tables_align_when_they_fit() {
    let md = "| name | n |\n|---|--:|\n| a | 10 |\n| bb | 2 |";
    let lines = render(md, 40, Style::new());
    assert_eq!(
        texts(&lines),
        ["name │  n", "─────┼───", "a    │ 10", "bb   │  2"]
    );
}

#[test]
fn an_unterminated_fence_still_renders_while_streaming() {
    let lines = render("text\n\n```\nfn a() {", 20, Style::new());
    assert_eq!(line_text(&lines[2]).trim_end(), " fn a() {");
}

#[test]
fn hard_breaks_and_soft_breaks() {
    let lines = render("a  \nb\nc", 20, Style::new());
    assert_eq!(texts(&lines), ["a", "b c"]);
}
