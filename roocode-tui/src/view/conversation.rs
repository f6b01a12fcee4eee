//! The conversation area: only the lines on screen are taken from the transcript's
//! per-entry caches (rendering the entries not cached yet at this width), written
//! straight into the buffer. When scrolled up, a hint at the bottom says how to get
//! back and whether new output arrived.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::{App, Pos};
use crate::theme;

pub fn draw(app: &mut App, area: Rect, buf: &mut Buffer) {
    app.drawn.conversation = area;
    app.drawn.rows.clear();
    if area.width == 0 || area.height == 0 {
        return;
    }
    if app.transcript.is_empty() {
        let hello = Line::from(vec![
            Span::styled(format!("Attached to {}", title(app)), theme::DIM),
            Span::styled(" — type a message, Enter sends", theme::DIM),
        ]);
        buf.set_line(area.x, area.y, &hello, area.width);
        return;
    }
    let ctx = app.render_ctx();
    let height = area.height as usize;
    let top = app.scroll.window(&mut app.transcript, &ctx, height);
    let blocks = app.transcript.blocks();
    let mut y = 0;
    let mut p = top;
    while y < height && p.block < blocks {
        let lines = app.transcript.block_lines(p.block, &ctx);
        for (i, line) in lines.iter().enumerate().skip(p.line) {
            if y >= height {
                break;
            }
            buf.set_line(area.x, area.y + y as u16, line, area.width);
            app.drawn.rows.push((p.block, i));
            y += 1;
        }
        p = Pos {
            block: p.block + 1,
            line: 0,
        };
    }
    if !app.scroll.following() {
        let text = if app.scroll.new_output(&app.transcript) {
            " ↓ new output · End to follow "
        } else {
            " ↑ scrolled · End to follow "
        };
        let hint = Span::styled(text, theme::WARN.bg(theme::CODE_BG));
        let w = hint.width() as u16;
        if w <= area.width {
            buf.set_span(area.right() - w, area.bottom() - 1, &hint, w);
        }
    }
}

fn title(app: &App) -> String {
    let s = &app.session;
    if s.title.trim().is_empty() {
        s.shown_id().to_owned()
    } else {
        s.title.clone()
    }
}
