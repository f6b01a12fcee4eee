//! Entries as lines at a width: `> ` user messages, Markdown answers after their
//! dimmed thinking, notices, and (in [`super::tool`]) tool calls. User messages and
//! answers are separated from what precedes them by a blank line.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::entry::{Assistant, Entry};
use super::{Queued, tool};
use crate::markdown;
use crate::theme;
use crate::wrap::{Wrapper, str_width};

/// The lines of `entry` (`first`: the conversation's first entry, with no gap above;
/// `tool_gap`: a tool call after something else, with a blank line above).
pub fn entry(
    entry: &Entry,
    first: bool,
    tool_gap: bool,
    width: usize,
    expanded: bool,
    tick: u64,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    match entry {
        Entry::User(text) => {
            gap(&mut out, first);
            out.extend(user(text, width, theme::USER, ""));
        }
        Entry::Assistant(a) => {
            let body = assistant(a, width);
            if !body.is_empty() {
                gap(&mut out, first);
                out.extend(body);
            }
        }
        Entry::Tool(t) => {
            gap(&mut out, !tool_gap);
            out.extend(tool::render(t, width, expanded, tick));
        }
        Entry::Notice(n) => {
            let mut w = Wrapper::plain(width);
            w.push(&n.text, n.style);
            out.extend(w.finish());
        }
        Entry::Divider(n) => {
            gap(&mut out, first);
            out.extend(divider(&n.text, n.style, width));
            out.push(Line::default());
        }
    }
    out
}

/// `── text ─────…` across `width`; a text too long for one line is wrapped between
/// two full rules.
fn divider(text: &str, style: Style, width: usize) -> Vec<Line<'static>> {
    let text = text.trim();
    let room = width.saturating_sub(4);
    if str_width(text) <= room.saturating_sub(2) {
        let rest = width.saturating_sub(str_width(text) + 4);
        return vec![Line::from(vec![
            Span::styled("── ", style),
            Span::styled(text.to_owned(), style.add_modifier(Modifier::BOLD)),
            Span::styled(format!(" {}", "─".repeat(rest)), style),
        ])];
    }
    let rule = || Line::from(Span::styled("─".repeat(width), style));
    let mut w = Wrapper::plain(width);
    w.push(text, style.add_modifier(Modifier::BOLD));
    let mut out = vec![rule()];
    out.extend(w.finish());
    out.push(rule());
    out
}

fn gap(out: &mut Vec<Line<'static>>, first: bool) {
    if !first {
        out.push(Line::default());
    }
}

/// `> text`, continuation lines indented under it; `suffix` after the text (dim).
pub fn user(text: &str, width: usize, style: Style, suffix: &str) -> Vec<Line<'static>> {
    let mut w = Wrapper::new(
        width,
        vec![Span::styled("> ", style)],
        vec![Span::styled("  ", style)],
    );
    w.push(text.trim_end_matches('\n'), style);
    if !suffix.is_empty() {
        w.push(suffix, theme::DIM);
    }
    w.finish()
}

/// What precedes the Markdown of an answer with text: the gap above it, then its
/// thinking and a blank line when it has some.
pub fn assistant_head(a: &Assistant, first: bool, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    gap(&mut out, first);
    out.extend(thinking(a, width));
    if !a.thinking.trim().is_empty() {
        out.push(Line::default());
    }
    out
}

fn thinking(a: &Assistant, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let thinking = a.thinking.trim();
    if !thinking.is_empty() {
        let mut w = Wrapper::new(
            width,
            vec![Span::styled("✻ ", theme::THINKING)],
            vec![Span::styled("  ", theme::THINKING)],
        );
        w.push(thinking, theme::THINKING);
        out.extend(w.finish());
    }
    out
}

fn assistant(a: &Assistant, width: usize) -> Vec<Line<'static>> {
    let mut out = thinking(a, width);
    if !a.text.trim().is_empty() {
        if !out.is_empty() {
            out.push(Line::default());
        }
        out.extend(markdown::render(&a.text, width, Style::new()));
    }
    out
}

/// The messages waiting for the running turn, shown under the conversation.
pub fn queued(queued: &[Queued], width: u16) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for q in queued {
        if out.is_empty() {
            out.push(Line::default());
        }
        out.extend(user(&q.text, width as usize, theme::QUEUED, "  (queued)"));
    }
    out
}
