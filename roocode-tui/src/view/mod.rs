//! Drawing the [`App`]: the conversation on top (with the side panel on its right when
//! the terminal is wide, over it when narrow), the input box, the status bar, and the
//! overlays — slash completion above the input, the rewind dialog, the trace view
//! (Ctrl+T) and, over them, the modal dialog of a request. Nothing here
//! assumes a width: every frame lays out from the frame's area.

mod conversation;
mod dialog;
mod input;
mod panel;
pub mod picker;
mod rewind;
#[cfg(test)]
mod rewind_tests;
mod status;
mod team;
mod trace;
#[cfg(test)]
mod trace_tests;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};

use crate::app::App;

/// Widest terminal at which the panel covers the conversation instead of sitting
/// beside it.
const PANEL_SIDE_MIN_WIDTH: u16 = 100;
/// Width of the side panel beside the conversation.
const PANEL_WIDTH: u16 = 42;

/// Draws the whole screen.
pub fn draw(app: &mut App, frame: &mut Frame) {
    let area = frame.area();
    let input_height = input::height(app, area.width);
    let [main, input_area, status_area] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(input_height),
        Constraint::Length(1),
    ])
    .areas(area);

    let (conv_area, panel_area) = if app.panel.open && area.width >= PANEL_SIDE_MIN_WIDTH {
        let [c, _, p] = Layout::horizontal([
            Constraint::Min(20),
            Constraint::Length(1),
            Constraint::Length(PANEL_WIDTH),
        ])
        .areas(main);
        (c, Some(p))
    } else if app.panel.open {
        (main, Some(main))
    } else {
        (main, None)
    };

    conversation::draw(app, conv_area, frame.buffer_mut());
    let cursor = input::draw(app, input_area, frame.buffer_mut());
    status::draw(app, status_area, frame.buffer_mut());
    if let Some(p) = panel_area {
        panel::draw(app, p, frame.buffer_mut());
    }
    input::draw_completion(app, main, input_area, frame.buffer_mut());
    if let Some(d) = app.rewind.as_mut() {
        rewind::draw(d, main, frame.buffer_mut());
    }
    if let Some(v) = app.trace.as_mut() {
        trace::draw(v, app.session.shown_id(), main, frame.buffer_mut());
    }
    let dialog_cursor = dialog::draw(app, main, frame.buffer_mut());
    match (dialog_cursor, cursor) {
        (Some(c), _) => frame.set_cursor_position(c),
        (None, Some(c))
            if app.prompts.shown().is_none()
                && !app.panel.open
                && app.rewind.is_none()
                && app.trace.is_none() =>
        {
            frame.set_cursor_position(c);
        }
        _ => {}
    }
}

/// A rectangle of `width` × `height` centred in `area` (clipped to it).
pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

#[cfg(test)]
mod tests;
