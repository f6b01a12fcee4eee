//! The modal dialog of the first request not hidden: a permission request (tool, what
//! it would run or touch, why it asks, and the y/a/n keys, then the feedback field) or
//! a question (numbered options, multi-select boxes, a free-text row).

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Widget};
use serde_json::Value;

use super::centered;
use crate::app::App;
use crate::dialog::{Form, PermissionForm, QuestionForm};
use crate::theme;
use crate::tool_summary::relative;
use crate::wrap::{Wrapper, clip, hard_wrap, str_width};
use crate::{diff, markdown};

/// Widest dialog.
const MAX_WIDTH: u16 = 80;
/// Most lines of a command, plan or edit preview.
const MAX_PREVIEW: usize = 12;

/// Draws the dialog over `area`; returns where the cursor goes when a field is typed in.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) -> Option<Position> {
    let prompt = app.prompts.shown()?;
    let width = area.width.saturating_sub(2).min(MAX_WIDTH);
    if width < 10 || area.height < 5 {
        return None;
    }
    let inner_width = (width - 4) as usize;
    let (n, total) = app.prompts.position();
    let count = if total > 1 {
        format!(" ({n} of {total})")
    } else {
        String::new()
    };
    let elsewhere = (prompt.session_id != app.session.id).then(|| {
        let title = app
            .panel
            .sessions
            .iter()
            .find(|s| s.id == prompt.session_id)
            .map_or(prompt.session_id.as_str(), |s| s.title.as_str());
        format!(" · session {title}")
    });
    let (title, mut lines, field) = match &prompt.form {
        Form::Permission(f) => {
            let (lines, field) = permission(f, inner_width, &app.session.cwd);
            (format!(" Permission · {}{count} ", f.tool), lines, field)
        }
        Form::Question(f) => {
            let (lines, field) = question(f, inner_width);
            let q = if f.questions.len() > 1 {
                format!(" {}/{}", f.current + 1, f.questions.len())
            } else {
                String::new()
            };
            (format!(" Question{q}{count} "), lines, field)
        }
    };
    if let Some(e) = elsewhere {
        lines.insert(
            0,
            Line::from(Span::styled(clip(&e, inner_width), theme::DIM)),
        );
    }
    if let Some(name) = &prompt.agent {
        lines.insert(
            0,
            Line::from(Span::styled(
                clip(&format!("sub-agent {name} asks"), inner_width),
                theme::HEADING,
            )),
        );
    }
    let max_lines = area.height.saturating_sub(2) as usize;
    let height = lines.len().min(max_lines) as u16 + 2;
    let rect = centered(area, width, height);
    Clear.render(rect, buf);
    let inner = frame(title, rect, buf);
    // Keep the last lines (the keys and the field) when the dialog is cut.
    let skip = lines.len().saturating_sub(inner.height as usize);
    let keep_head = if skip > 0 { 2.min(lines.len()) } else { 0 };
    let mut y = inner.y;
    for (i, line) in lines.iter().enumerate() {
        if i >= keep_head && i < keep_head + skip {
            continue;
        }
        if y >= inner.bottom() {
            break;
        }
        buf.set_line(inner.x, y, line, inner.width);
        y += 1;
    }
    field.and_then(|(row, col)| {
        let row = if row >= keep_head + skip {
            row - skip
        } else {
            row
        };
        let y = inner.y + row as u16;
        (y < inner.bottom()).then_some(Position {
            x: inner.x + col as u16,
            y,
        })
    })
}

type Field = Option<(usize, usize)>;

fn wrapped(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let mut w = Wrapper::plain(width);
    w.push(text, style);
    w.finish()
}

fn permission(f: &PermissionForm, width: usize, cwd: &str) -> (Vec<Line<'static>>, Field) {
    let mut out = Vec::new();
    match f.subject() {
        Some(("Plan", plan)) => {
            out.push(Line::from(Span::styled("Plan:", theme::HEADING)));
            let lines = markdown::render(plan, width, Style::new());
            push_clipped(&mut out, lines, MAX_PREVIEW * 2);
        }
        Some(("Run", cmd)) => {
            out.push(Line::from(Span::styled("Run:", theme::HEADING)));
            let lines = hard_wrap(cmd, width, &[Span::raw("  ")], theme::CODE_INLINE, false);
            push_clipped(&mut out, lines, MAX_PREVIEW);
        }
        Some((label, value)) => {
            let value = if matches!(label, "File" | "Notebook" | "Path") {
                relative(value, cwd)
            } else {
                value.to_owned()
            };
            out.push(Line::from(vec![
                Span::styled(format!("{label}: "), theme::HEADING),
                Span::styled(value, theme::CODE_INLINE),
            ]));
        }
        None => {
            let json = clip(&f.input.to_string(), width * 3);
            out.extend(wrapped(&json, width, theme::DIM));
        }
    }
    out.extend(edit_preview(&f.input, width));
    if !f.reason.trim().is_empty() {
        out.extend(wrapped(
            &format!("Why: {}", f.reason.trim()),
            width,
            theme::DIM,
        ));
    }
    out.push(Line::default());
    match &f.feedback {
        None => {
            out.push(keys(&[
                ("y", "allow once"),
                ("a", "allow always"),
                ("n", "deny"),
                ("Esc", "hide"),
            ]));
            (out, None)
        }
        Some(fb) => {
            out.push(Line::from(Span::styled(
                "Deny — feedback for the model (optional):",
                theme::WARN,
            )));
            let row = out.len();
            let (text, col) = field_line(fb.text(), fb.cursor(), width.saturating_sub(2));
            out.push(Line::from(vec![
                Span::styled("› ", theme::KEY),
                Span::raw(text),
            ]));
            out.push(keys(&[("Enter", "deny"), ("Esc", "back")]));
            (out, Some((row, col + 2)))
        }
    }
}

/// `old_string`/`new_string` of an edit as `-`/`+` lines, `content` of a write as `+`.
fn edit_preview(input: &Value, width: usize) -> Vec<Line<'static>> {
    let get = |k: &str| input.get(k).and_then(Value::as_str);
    let mut text = String::new();
    if let (Some(old), Some(new)) = (get("old_string"), get("new_string")) {
        for l in old.lines().take(MAX_PREVIEW / 2) {
            text.push_str(&format!("-{l}\n"));
        }
        for l in new.lines().take(MAX_PREVIEW / 2) {
            text.push_str(&format!("+{l}\n"));
        }
    } else if let Some(content) = get("content") {
        for l in content.lines().take(MAX_PREVIEW) {
            text.push_str(&format!("+{l}\n"));
        }
    }
    if text.is_empty() {
        return Vec::new();
    }
    diff::render(text.trim_end(), width, &[Span::raw("  ")], MAX_PREVIEW)
}

fn push_clipped(out: &mut Vec<Line<'static>>, lines: Vec<Line<'static>>, max: usize) {
    let total = lines.len();
    out.extend(lines.into_iter().take(max));
    if total > max {
        out.push(Line::from(Span::styled(
            format!("  … {} more lines", total - max),
            theme::DIM,
        )));
    }
}

fn question(f: &QuestionForm, width: usize) -> (Vec<Line<'static>>, Field) {
    let mut out = Vec::new();
    let (Some(q), Some(st)) = (f.question(), f.state()) else {
        return (out, None);
    };
    out.extend(wrapped(&q.title(), width, theme::HEADING));
    for (i, c) in q.options.iter().enumerate() {
        let here = st.cursor == i;
        let pointer = if here { "› " } else { "  " };
        let mark = match (q.multi_select, st.chosen.contains(&i)) {
            (false, _) => String::new(),
            (true, true) => "[x] ".to_owned(),
            (true, false) => "[ ] ".to_owned(),
        };
        let style = if here { theme::SELECTED } else { Style::new() };
        let mut spans = vec![
            Span::styled(pointer, theme::KEY),
            Span::styled(format!("{mark}{}. {}", i + 1, c.label), style),
        ];
        if !c.description.trim().is_empty() {
            spans.push(Span::styled(
                format!(" — {}", c.description.trim()),
                theme::DIM,
            ));
        }
        let line = Line::from(spans);
        if line.width() > width {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            out.push(Line::from(Span::styled(clip(&text, width), style)));
        } else {
            out.push(line);
        }
    }
    let on_other = f.on_other();
    let label = if q.options.is_empty() {
        "Answer: "
    } else {
        "Other: "
    };
    let row = out.len();
    let prefix_width = 2 + str_width(label);
    let (text, col) = field_line(
        st.other.text(),
        st.other.cursor(),
        width.saturating_sub(prefix_width),
    );
    out.push(Line::from(vec![
        Span::styled(if on_other { "› " } else { "  " }, theme::KEY),
        Span::styled(
            label,
            if on_other {
                theme::SELECTED
            } else {
                theme::DIM
            },
        ),
        Span::raw(text),
    ]));
    out.push(Line::default());
    let mut hint = vec![("↑↓", "move")];
    if !q.options.is_empty() {
        hint.push(("1-9", "pick"));
    }
    if q.multi_select {
        hint.push(("Space", "toggle"));
    }
    hint.extend([("Enter", "confirm"), ("Esc", "hide")]);
    out.push(keys(&hint));
    let field = on_other.then_some((row, prefix_width + col));
    (out, field)
}

/// A one-line field's text scrolled so the cursor shows, and the cursor's column.
fn field_line(text: &str, cursor: usize, width: usize) -> (String, usize) {
    let before = str_width(&text[..cursor.min(text.len())]);
    if before < width {
        return (clip(text, width), before);
    }
    let mut shown = String::new();
    let mut w = 0;
    for c in text[..cursor].chars().rev() {
        let cw = crate::wrap::char_width(c);
        if w + cw >= width {
            break;
        }
        shown.insert(0, c);
        w += cw;
    }
    (shown, w)
}

/// `[y] allow once  [a] allow always …`.
pub(super) fn keys(list: &[(&str, &str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, (key, label)) in list.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(format!("[{key}]"), theme::KEY));
        spans.push(Span::raw(format!(" {label}")));
    }
    Line::from(spans)
}

/// A dialog's rounded border with its bold `title` drawn over `rect`; the area inside,
/// a column of margin on each side.
pub(super) fn frame(title: String, rect: Rect, buf: &mut Buffer) -> Rect {
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme::DIALOG_BORDER)
        .title_top(Line::from(Span::styled(
            title,
            theme::DIALOG_BORDER.add_modifier(Modifier::BOLD),
        )));
    let inner = block.inner(rect);
    block.render(rect, buf);
    Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(2),
        ..inner
    }
}
