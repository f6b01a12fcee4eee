//! The input box (growing up to eight lines, a short notice in its top border and the
//! key hints in its bottom border) and the slash-completion list above it.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Widget};

use crate::app::App;
use crate::theme;
use crate::wrap::{clip, str_width};

/// Most text lines the input box shows.
const MAX_LINES: usize = 8;
/// Most commands the completion list shows.
const MAX_COMPLETIONS: usize = 6;
/// The prompt before the first line, and the column where the text starts.
const PROMPT: &str = " › ";
const PROMPT_WIDTH: u16 = 3;

/// Height of the input box at terminal width `width`, borders included.
pub fn height(app: &App, width: u16) -> u16 {
    let inner = text_width(width);
    let (rows, _) = app.input.editor.layout(inner);
    rows.len().clamp(1, MAX_LINES) as u16 + 2
}

fn text_width(width: u16) -> usize {
    (width as usize)
        .saturating_sub(3 + PROMPT_WIDTH as usize)
        .max(1)
}

/// Draws the box; returns where the cursor goes.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) -> Option<Position> {
    if area.is_empty() {
        return None;
    }
    let mut block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme::BORDER);
    if let Some(f) = &app.flash {
        block = block.title_top(Line::from(Span::styled(format!(" {} ", f.text), f.style)));
    }
    block = block.title_bottom(hints(app, area.width.saturating_sub(4) as usize).right_aligned());
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.width == 0 || inner.height == 0 {
        return None;
    }
    let width = text_width(area.width);
    let (rows, (crow, ccol)) = app.input.editor.layout(width);
    let visible = inner.height as usize;
    let first = (crow + 1).saturating_sub(visible);
    for (i, row) in rows.iter().skip(first).take(visible).enumerate() {
        let y = inner.y + i as u16;
        if first + i == 0 {
            buf.set_string(inner.x, y, PROMPT, theme::USER);
        }
        buf.set_string(inner.x + PROMPT_WIDTH, y, row, Style::new());
    }
    if app.input.is_empty() {
        let placeholder = if app.status.running {
            "type to queue a message for the running turn"
        } else {
            "message, or / for commands"
        };
        buf.set_string(
            inner.x + PROMPT_WIDTH,
            inner.y,
            clip(placeholder, width),
            theme::DIM,
        );
    }
    Some(Position {
        x: inner.x + PROMPT_WIDTH + ccol as u16,
        y: inner.y + (crow - first) as u16,
    })
}

/// The key hints that fit in `width` cells.
fn hints(app: &App, width: usize) -> Line<'static> {
    let mut list: Vec<(&str, &str)> = Vec::new();
    if app.status.running {
        list.push(("Esc", "cancel"));
    }
    list.extend([
        ("Enter", "send"),
        ("Alt+Enter", "newline"),
        (
            "^O",
            if app.expand_all {
                "fold tools"
            } else {
                "expand tools"
            },
        ),
        ("^P", "panel"),
        ("⇧Tab", "mode"),
        ("^C", "exit"),
        ("^T", "trace"),
    ]);
    let mut spans = vec![Span::raw(" ")];
    let mut used = 2;
    for (key, label) in list {
        let w = str_width(key) + 1 + str_width(label) + 3;
        if used + w > width {
            break;
        }
        spans.push(Span::styled(key.to_owned(), theme::KEY));
        spans.push(Span::styled(format!(" {label} · "), theme::DIM));
        used += w;
    }
    if let Some(last) = spans.last_mut() {
        let text = last.content.trim_end_matches(" · ").to_owned();
        last.content = format!("{text} ").into();
    }
    Line::from(spans)
}

/// The completion list, just above the input box.
pub fn draw_completion(app: &App, main: Rect, input_area: Rect, buf: &mut Buffer) {
    if app.prompts.shown().is_some() {
        return;
    }
    let text = app.input.text();
    let list = app.completion.visible(text, &app.commands);
    if list.is_empty() || main.height < 3 || input_area.is_empty() {
        return;
    }
    let selected = app.completion.selected.min(list.len() - 1);
    let shown = list.len().min(MAX_COMPLETIONS);
    let first = (selected + 1).saturating_sub(shown);
    let height = (shown as u16 + 2).min(main.height);
    let width = input_area.width.min(70);
    let area = Rect {
        x: input_area.x,
        y: input_area.y.saturating_sub(height),
        width,
        height,
    };
    Clear.render(area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme::BORDER)
        .title_bottom(Line::from(Span::styled(
            " Tab complete · Esc hide ",
            theme::DIM,
        )));
    let inner = block.inner(area);
    block.render(area, buf);
    let name_width = list
        .iter()
        .map(|c| c.name.trim_start_matches('/').len() + 1)
        .max()
        .unwrap_or(0);
    for (row, (i, c)) in list.iter().enumerate().skip(first).take(shown).enumerate() {
        let style = if i == selected {
            theme::SELECTED
        } else {
            Style::new()
        };
        let name = format!(
            "/{:<w$}",
            c.name.trim_start_matches('/'),
            w = name_width - 1
        );
        // Skills, prompt commands and MCP prompts start a turn: their kind is shown.
        let kind = match c.kind.as_str() {
            "skill" => "skill · ",
            "prompt" => "prompt · ",
            "mcp" => "mcp · ",
            _ => "",
        };
        let line = Line::from(vec![
            Span::styled(format!(" {name}  "), style.patch(theme::KEY)),
            Span::styled(kind, style.patch(theme::DIM)),
            Span::styled(c.description.clone(), style.patch(theme::DIM)),
        ])
        .style(style);
        let y = inner.y + row as u16;
        if i == selected {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..inner
                },
                theme::SELECTED,
            );
        }
        buf.set_line(inner.x, y, &line, inner.width);
    }
}
