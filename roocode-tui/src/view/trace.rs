//! Drawing the trace view (Ctrl+T) over the conversation: the session's timeline —
//! turns in bold, sub-agents in colour, tool names bold, steps dimmed, denials in
//! yellow and failures in red — with the selected line highlighted and kept on
//! screen, the "why" paragraph of a tool call under it when open, and the keys.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use roocode_client::trace::{LineKind, Tone, TraceLine};

use super::centered;
use super::dialog::keys;
use crate::theme;
use crate::trace_view::TraceView;
use crate::wrap::{Wrapper, str_width};

/// Widest view.
const MAX_WIDTH: u16 = 140;

/// Draws the view over `area`; `shown_id` is the session's short id.
pub fn draw(v: &mut TraceView, shown_id: &str, area: Rect, buf: &mut Buffer) {
    let width = area.width.saturating_sub(2).min(MAX_WIDTH);
    if width < 20 || area.height < 6 {
        return;
    }
    Clear.render(area, buf);
    let rect = centered(area, width, area.height.saturating_sub(2).max(6));
    let busy = if v.loading { " · loading…" } else { "" };
    let title = format!(" Trace · session {shown_id}{busy} ");
    let inner = super::dialog::frame(title, rect, buf);
    let w = inner.width as usize;
    let mut foot = Vec::new();
    if let Some(why) = &v.why {
        foot.push(Line::from(Span::styled("─".repeat(w), theme::BORDER)));
        let mut wr = Wrapper::plain(w);
        wr.push(why, Style::new());
        let mut lines = wr.finish();
        let most = (inner.height as usize / 2).max(1);
        if lines.len() > most {
            lines.truncate(most);
            if let Some(last) = lines.last_mut() {
                last.spans.push(Span::styled(" …", theme::DIM));
            }
        }
        foot.extend(lines);
    }
    if let Some(e) = &v.error {
        let mut wr = Wrapper::plain(w);
        wr.push(&format!("error: {e}"), theme::ERROR);
        foot.extend(wr.finish());
    }
    let why_key = if v.why.is_some() {
        ("Enter", "hide why")
    } else {
        ("Enter", "why")
    };
    foot.push(keys(&[
        ("↑↓", "select"),
        why_key,
        ("r", "refresh"),
        ("Esc", "close"),
    ]));
    let bottom = inner.bottom().saturating_sub(foot.len() as u16);
    let room = bottom.saturating_sub(inner.y);
    let drawn = body(
        v,
        Rect {
            height: room,
            ..inner
        },
        buf,
    );
    if let Some((first, last)) = drawn.filter(|(f, l)| *f > 0 || l + 1 < v.lines.len()) {
        let shown = format!(" {}–{} of {} ", first + 1, last + 1, v.lines.len());
        let x = rect.right().saturating_sub(str_width(&shown) as u16 + 2);
        buf.set_string(x, rect.bottom().saturating_sub(1), shown, theme::DIM);
    }
    for (i, line) in foot.iter().enumerate() {
        buf.set_line(inner.x, bottom + i as u16, line, inner.width);
    }
}

/// The timeline, scrolled so that the selected line shows whole; long lines wrap
/// under themselves.
fn body(v: &mut TraceView, area: Rect, buf: &mut Buffer) -> Option<(usize, usize)> {
    if v.lines.is_empty() {
        let text = if v.loading {
            "loading the session's trace…"
        } else {
            "no trace to show"
        };
        buf.set_string(area.x, area.y, text, theme::DIM);
        return None;
    }
    let rows = (area.height as usize).max(1);
    let w = (area.width as usize).saturating_sub(2);
    let wrapped: Vec<Vec<Line<'static>>> = v.lines.iter().map(|l| styled(l, w)).collect();
    v.page = rows.saturating_sub(1).max(1);
    v.offset = v.offset.min(v.selected);
    while v.offset < v.selected
        && wrapped[v.offset..=v.selected]
            .iter()
            .map(Vec::len)
            .sum::<usize>()
            > rows
    {
        v.offset += 1;
    }
    let mut y = area.y;
    let mut last = v.offset;
    for (i, lines) in wrapped.iter().enumerate().skip(v.offset) {
        if y >= area.bottom() {
            break;
        }
        let here = i == v.selected;
        for (k, line) in lines.iter().enumerate() {
            if y >= area.bottom() {
                break;
            }
            let line_area = Rect {
                y,
                height: 1,
                ..area
            };
            if here {
                buf.set_style(line_area, theme::SELECTED);
            }
            if k == 0 {
                buf.set_string(area.x, y, if here { "›" } else { " " }, theme::KEY);
            }
            let line = if here {
                line.clone().patch_style(theme::SELECTED)
            } else {
                line.clone()
            };
            buf.set_line(area.x + 2, y, &line, area.width.saturating_sub(2));
            y += 1;
        }
        last = i;
    }
    Some((v.offset, last))
}

/// A line of the timeline, indented and styled by its kind and tone, wrapped to
/// `width` under its own start.
fn styled(line: &TraceLine, width: usize) -> Vec<Line<'static>> {
    let indent = "  ".repeat(line.depth);
    let base = match line.kind {
        LineKind::Turn | LineKind::Totals => theme::HEADING,
        LineKind::Agent => theme::HEADING2,
        LineKind::Step => theme::DIM,
        LineKind::Iteration | LineKind::Tool => Style::new(),
    };
    let tone = match line.tone {
        Tone::Normal => Style::new(),
        Tone::Warn => theme::WARN,
        Tone::Error => theme::ERROR,
    };
    let mut w = Wrapper::new(
        width,
        vec![Span::raw(indent.clone())],
        vec![Span::raw(format!("{indent}    "))],
    );
    match (line.kind, line.text.split_once(' ')) {
        (LineKind::Tool, Some((tool, rest))) => {
            w.push(tool, theme::TOOL_NAME.patch(tone));
            w.push(&format!(" {rest}"), base.patch(tone));
        }
        _ => w.push(&line.text, base.patch(tone)),
    }
    w.finish()
}
