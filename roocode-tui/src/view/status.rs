//! The status bar: a spinner and "working" while a turn runs, the model, the mode, the
//! session's short id, the context in use, the session's cost, the sub-agents at work
//! (with the Ctrl+B hint while one runs in the foreground), requests hidden from the
//! dialog, and the state of the link to the daemon; the session's title on the right
//! when there is room.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use roocode_protocol::session::SessionStatus;

use crate::app::{App, Connection};
use crate::spinner;
use crate::theme;
use crate::wrap::{clip, str_width};

pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    buf.set_style(area, theme::STATUS);
    let mut segments = segments(app);
    // Drop the least important segments until the bar fits.
    let width = area.width as usize;
    while segments.len() > 1 && total_width(&segments) > width {
        let Some(i) = segments
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| s.priority)
            .map(|(i, _)| i)
        else {
            break;
        };
        segments.remove(i);
    }
    let mut spans = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme::STATUS.patch(theme::DIM)));
        }
        spans.push(Span::styled(
            seg.text.clone(),
            theme::STATUS.patch(seg.style),
        ));
    }
    let line = Line::from(spans);
    let used = line.width();
    buf.set_line(area.x, area.y, &line, area.width);
    let title = app.session.title.trim();
    let room = width.saturating_sub(used + 3);
    if !title.is_empty() && room >= 8 {
        let shown = clip(title, room - 1);
        let w = str_width(&shown) as u16 + 1;
        buf.set_string(
            area.right() - w,
            area.y,
            format!("{shown} "),
            theme::STATUS.patch(Style::new().add_modifier(Modifier::ITALIC)),
        );
    }
}

/// One item of the bar; the lowest priorities go first when it does not fit.
struct Segment {
    text: String,
    style: Style,
    priority: u8,
}

fn total_width(segments: &[Segment]) -> usize {
    segments.iter().map(|s| str_width(&s.text)).sum::<usize>()
        + 3 * segments.len().saturating_sub(1)
}

fn segments(app: &App) -> Vec<Segment> {
    let seg = |text: String, style: Style, priority: u8| Segment {
        text,
        style,
        priority,
    };
    let mut out = Vec::new();
    out.push(if app.status.running {
        seg(
            format!(" {} working", spinner::frame(app.tick)),
            theme::WARN,
            10,
        )
    } else if app.session.status == SessionStatus::Interrupted {
        seg(" interrupted".to_owned(), theme::WARN, 10)
    } else {
        seg(" idle".to_owned(), Style::new(), 10)
    });
    out.push(seg(
        app.session.model.clone(),
        Style::new().add_modifier(Modifier::BOLD),
        5,
    ));
    out.push(seg(app.session.mode.to_string(), Style::new(), 8));
    // The short id, to type in `roocode-tui --session` or `roocode-cli attach` elsewhere.
    out.push(seg(app.session.shown_id().to_owned(), theme::DIM, 4));
    out.push(seg(
        app.status
            .context_text(&app.session.model, app.session.context_window),
        Style::new(),
        7,
    ));
    out.push(seg(app.status.cost_text(), Style::new(), 6));
    out.push(match &app.connection {
        Connection::Connected => seg("connected".to_owned(), theme::OK, 3),
        Connection::Reconnecting { attempt } => {
            seg(format!("reconnecting… ({attempt})"), theme::WARN, 9)
        }
        Connection::Disconnected(why) => seg(format!("disconnected: {why}"), theme::ERROR, 9),
    });
    let active = app.agents.active();
    if let Some(fg) = app.agents.foreground_running() {
        let keys = if app.tmux { "^B^B" } else { "^B" };
        out.push(seg(
            format!("agent {}: {keys} background", fg.name),
            theme::KEY,
            8,
        ));
    } else if active > 0 {
        out.push(seg(
            format!("{active} agent(s) running (^P)"),
            theme::DIM,
            2,
        ));
    }
    let hidden = app.prompts.hidden();
    if hidden > 0 {
        out.push(seg(
            format!("⚠ {hidden} waiting (^P)"),
            theme::WARN.add_modifier(Modifier::BOLD),
            9,
        ));
    }
    out
}
