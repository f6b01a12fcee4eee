//! Drawing the session picker: a framed list, the selected row highlighted, columns
//! dropped from the right as the terminal narrows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Widget};
use roocode_protocol::session::{SessionInfo, SessionStatus};

use crate::picker::Picker;
use crate::theme;
use crate::wrap::{clip, str_width};

pub fn draw(p: &mut Picker, frame: &mut Frame) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    let title = if p.filter.is_empty() {
        " RooCode · choose a session ".to_owned()
    } else {
        format!(" RooCode · sessions matching “{}” ", p.filter)
    };
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme::BORDER)
        .title_top(Line::from(Span::styled(title, theme::HEADING)))
        .title_bottom(Line::from(Span::styled(
            " ↑↓ select · Enter open · type to filter · Esc quit ",
            theme::DIM,
        )));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 || inner.width < 4 {
        return;
    }
    let visible = inner.height as usize;
    p.page = visible.saturating_sub(1).max(1);
    if p.selected < p.offset {
        p.offset = p.selected;
    }
    if p.selected >= p.offset + visible {
        p.offset = p.selected + 1 - visible;
    }
    let shown = p.shown();
    let width = inner.width as usize - 3;
    for row in 0..visible {
        let i = p.offset + row;
        let y = inner.y + row as u16;
        let selected = i == p.selected;
        let line = match i {
            0 => Line::from(Span::styled("+ New session", theme::OK)),
            i => match shown.get(i - 1) {
                Some(s) => session_line(s, width),
                None => break,
            },
        };
        let style = if selected {
            theme::SELECTED
        } else {
            Style::new()
        };
        if selected {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..inner
                },
                style,
            );
        }
        buf.set_string(inner.x, y, if selected { "›" } else { " " }, theme::KEY);
        buf.set_line(inner.x + 2, y, &line.patch_style(style), width as u16);
    }
    if shown.is_empty() && !p.sessions.is_empty() && visible > 1 {
        buf.set_string(inner.x + 2, inner.y + 1, "no session matches", theme::DIM);
    }
}

/// Room of the id column: short ids of up to 10 characters (8 until tens of thousands
/// of sessions; a longer one only pushes the end of its own line).
const ID_COLUMN: usize = 10;

/// `title  directory  status  2026-11-30 10:00  short id`, fitted to `width` (the
/// directory and the id only when there is room).
fn session_line(s: &SessionInfo, width: usize) -> Line<'static> {
    let (status, style) = match s.status {
        SessionStatus::Running => ("running", theme::WARN),
        SessionStatus::Interrupted => ("interrupted", theme::ERROR),
        SessionStatus::Idle => ("idle", theme::DIM),
        SessionStatus::Unknown => ("?", theme::DIM),
    };
    let when = activity(&s.last_activity);
    let title = if s.title.trim().is_empty() {
        "(untitled)"
    } else {
        s.title.trim()
    };
    // The id column has a fixed room, so that rows stay aligned.
    let id = s.shown_id();
    let with_id = width >= 70;
    let tail = 2 + 11 + 2 + when.len() + if with_id { 2 + ID_COLUMN } else { 0 };
    let mut spans = Vec::new();
    if width >= 70 {
        let dir_width = width.saturating_sub(tail) * 2 / 5;
        let title_width = width.saturating_sub(tail + dir_width + 2);
        spans.push(Span::raw(pad(title, title_width)));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(pad(&s.root, dir_width), theme::DIM));
    } else {
        spans.push(Span::raw(pad(title, width.saturating_sub(tail).max(4))));
    }
    spans.push(Span::raw("  "));
    spans.push(Span::styled(format!("{status:<11}"), style));
    spans.push(Span::raw("  "));
    spans.push(Span::styled(when, theme::DIM));
    if with_id {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(id.to_owned(), theme::DIM));
    }
    Line::from(spans)
}

fn pad(s: &str, width: usize) -> String {
    let s = clip(s, width);
    let w = str_width(&s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// `2026-11-30T10:00:00.000Z` → `2026-11-30 10:00`.
fn activity(ts: &str) -> String {
    match (ts.get(..10), ts.get(11..16)) {
        (Some(d), Some(t)) => format!("{d} {t}"),
        _ => ts.to_owned(),
    }
}
