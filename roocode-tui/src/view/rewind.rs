//! Drawing the rewind dialog over the conversation: the session's turns (number, start
//! time, the start of the prompt, how many files each changed; those that cannot be
//! chosen dimmed, with why), the files of the selected turn under them; or the plan of
//! the chosen turn — the files with their actions, conflicts and coloured diffs, what
//! cannot be restored, the messages and prompt the conversation loses — scrolled
//! between a fixed heading and the keys.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use roocode_client::rewind as shown;
use roocode_protocol::rewind::{FileAction, RewindPlan, RewindScope, TurnSummary};

use super::centered;
use super::dialog::keys;
use crate::diff;
use crate::rewind::{RewindDialog, Waiting, selectable};
use crate::theme;
use crate::wrap::{Wrapper, clip, str_width};

/// Widest dialog.
const MAX_WIDTH: u16 = 100;
/// Most diff lines shown per file (then `… N more lines`).
const MAX_DIFF: usize = 40;
/// Most lines listing the selected turn's files.
const MAX_FILE_LINES: usize = 3;

/// Draws the dialog over `area`.
pub fn draw(d: &mut RewindDialog, area: Rect, buf: &mut Buffer) {
    let width = area.width.saturating_sub(2).min(MAX_WIDTH);
    if width < 20 || area.height < 6 {
        return;
    }
    // The conversation behind is hidden whole: the dialog is nearly as large.
    Clear.render(area, buf);
    let rect = centered(area, width, area.height.saturating_sub(2).max(6));
    let busy = match d.waiting {
        Some(Waiting::Turns) => " · loading…",
        Some(Waiting::Plan) => " · planning…",
        Some(Waiting::Apply) => " · rewinding…",
        None => "",
    };
    let title = match &d.plan {
        Some(p) => format!(" Rewind · turn {} of {}{busy} ", p.turn, p.last_turn),
        None => format!(" Rewind · choose a turn to undo{busy} "),
    };
    let inner = super::dialog::frame(title, rect, buf);
    let w = inner.width as usize;
    let mut foot = Vec::new();
    if let Some(e) = &d.error {
        let mut wr = Wrapper::plain(w);
        wr.push(&format!("error: {e}"), theme::ERROR);
        foot.extend(wr.finish());
    }
    let (head, body) = match &d.plan {
        Some(plan) => {
            foot.extend(plan_keys(d, plan));
            let body = plan_body(plan, d.overwrite, w);
            (plan_head(plan, w), Body::Scrolled(body))
        }
        None => {
            foot.push(scope_line(d.scope));
            foot.push(keys(&[
                ("↑↓", "select"),
                ("Enter", "show the plan"),
                ("Esc", "close"),
            ]));
            (Vec::new(), Body::Turns)
        }
    };
    let mut y = inner.y;
    for line in &head {
        buf.set_line(inner.x, y, line, inner.width);
        y += 1;
    }
    let bottom = inner.bottom().saturating_sub(foot.len() as u16);
    let room = bottom.saturating_sub(y) as usize;
    let body_area = Rect {
        y,
        height: room as u16,
        ..inner
    };
    match body {
        Body::Scrolled(lines) => {
            d.plan_page = room.saturating_sub(1).max(1);
            d.scroll = d.scroll.min(lines.len().saturating_sub(room));
            for (row, line) in lines.iter().skip(d.scroll).take(room).enumerate() {
                buf.set_line(inner.x, y + row as u16, line, inner.width);
            }
            if lines.len() > room && room > 0 {
                let shown = format!(
                    " {}–{} of {} ",
                    d.scroll + 1,
                    (d.scroll + room).min(lines.len()),
                    lines.len()
                );
                let x = rect.right().saturating_sub(str_width(&shown) as u16 + 2);
                buf.set_string(x, rect.bottom().saturating_sub(1), shown, theme::DIM);
            }
        }
        Body::Turns => turns(d, body_area, buf),
    }
    for (i, line) in foot.iter().enumerate() {
        buf.set_line(inner.x, bottom + i as u16, line, inner.width);
    }
}

enum Body {
    Turns,
    Scrolled(Vec<Line<'static>>),
}

/// The turn list, and the selected turn's files under it.
fn turns(d: &mut RewindDialog, area: Rect, buf: &mut Buffer) {
    let w = area.width as usize;
    if d.waiting == Some(Waiting::Turns) && d.turns.is_empty() {
        buf.set_string(area.x, area.y, "loading the session's turns…", theme::DIM);
        return;
    }
    if d.turns.is_empty() {
        buf.set_string(area.x, area.y, "this session has no turn yet", theme::DIM);
        return;
    }
    let mut files: Vec<Line<'static>> = vec![Line::default()];
    match d.turns.get(d.selected) {
        Some(t) if selectable(t) => files.extend(turn_files(t, w)),
        _ => files.push(Line::from(Span::styled(
            "no turn can be rewound: each was undone already or has no snapshot",
            theme::DIM,
        ))),
    }
    let rows = (area.height as usize).saturating_sub(files.len()).max(1);
    d.page = rows.saturating_sub(1).max(1);
    if d.selected < d.offset {
        d.offset = d.selected;
    }
    if d.selected >= d.offset + rows {
        d.offset = d.selected + 1 - rows;
    }
    for (row, (i, t)) in d
        .turns
        .iter()
        .enumerate()
        .skip(d.offset)
        .take(rows)
        .enumerate()
    {
        let y = area.y + row as u16;
        let here = i == d.selected && selectable(t);
        if here {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..area
                },
                theme::SELECTED,
            );
        }
        buf.set_string(area.x, y, if here { "›" } else { " " }, theme::KEY);
        let line = turn_line(t, w.saturating_sub(2));
        let line = if here {
            line.patch_style(theme::SELECTED)
        } else {
            line
        };
        buf.set_line(area.x + 2, y, &line, area.width.saturating_sub(2));
    }
    let top = area.y + rows.min(d.turns.len() - d.offset) as u16;
    for (y, line) in (top..area.bottom()).zip(&files) {
        buf.set_line(area.x, y, line, area.width);
    }
}

/// ` 3  2026-11-30 10:42  fix the failing test…      2 files`; dimmed, with why, when
/// the turn cannot be chosen.
fn turn_line(t: &TurnSummary, width: usize) -> Line<'static> {
    let files = match t.files.len() {
        0 => "no file".to_owned(),
        n => shown::plural(n as u64, "file", "files"),
    };
    let why = if t.rewound {
        "  rewound"
    } else if !t.rewindable {
        "  no snapshot"
    } else {
        ""
    };
    let tail = format!("  {files:>9}{why}");
    let when = utc_minute(t.started_at);
    let head = format!("{:>3}  {when}  ", t.number);
    let room = width
        .saturating_sub(str_width(&head) + str_width(&tail))
        .max(4);
    let prompt = match t.prompt.lines().next().map(str::trim) {
        Some(p) if !p.is_empty() => crate::wrap::clean(p).into_owned(),
        _ => "(started by a notification)".to_owned(),
    };
    let prompt = clip(&prompt, room);
    let pad = " ".repeat(room.saturating_sub(str_width(&prompt)));
    if selectable(t) {
        Line::from(vec![
            Span::styled(head, theme::DIM),
            Span::raw(prompt),
            Span::raw(pad),
            Span::styled(tail, theme::DIM),
        ])
    } else {
        Line::from(Span::styled(
            format!("{head}{prompt}{pad}{tail}"),
            theme::DIM,
        ))
    }
}

/// `Turn 3 changed: src/a.rs, tests/a.rs` (at most [`MAX_FILE_LINES`] lines).
fn turn_files(t: &TurnSummary, width: usize) -> Vec<Line<'static>> {
    let mut w = Wrapper::plain(width);
    if t.files.is_empty() {
        w.push(
            &format!(
                "Turn {} changed no file (its conversation can still be cut)",
                t.number
            ),
            theme::DIM,
        );
    } else {
        w.push(&format!("Turn {} changed: ", t.number), theme::HEADING);
        w.push(&t.files.join(", "), Style::new());
    }
    let mut lines = w.finish();
    if lines.len() > MAX_FILE_LINES {
        lines.truncate(MAX_FILE_LINES);
        if let Some(last) = lines.last_mut() {
            last.spans.push(Span::styled(" …", theme::DIM));
        }
    }
    lines
}

/// What the plan undoes, above the scrolled part.
fn plan_head(plan: &RewindPlan, width: usize) -> Vec<Line<'static>> {
    let mut w = Wrapper::plain(width);
    w.push("Undo ", theme::HEADING);
    w.push(
        &shown::undone_turns(plan.turn, plan.last_turn),
        theme::HEADING,
    );
    w.push(&format!(" · {}", shown::scope_name(plan.scope)), theme::DIM);
    let mut out = w.finish();
    out.push(Line::default());
    out
}

/// The files, what cannot be restored and the conversation's loss, as lines.
fn plan_body(plan: &RewindPlan, overwrite: bool, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if shown::is_noop(plan) {
        out.push(Line::from(Span::styled(
            "Nothing to rewind: no file to put back and no message to remove.",
            theme::DIM,
        )));
    }
    if plan.scope.files() {
        if !plan.files.is_empty() {
            out.push(Line::from(Span::styled(
                format!("Files ({})", plan.files.len()),
                theme::HEADING,
            )));
        }
        for f in &plan.files {
            let style = match f.action {
                FileAction::Remove => theme::DIFF_DEL,
                FileAction::Restore | FileAction::Unknown => theme::DIFF_ADD,
            };
            out.push(Line::from(vec![
                Span::styled(format!("  {:<8} ", shown::action_word(f.action)), style),
                Span::raw(clip(&crate::wrap::clean(&f.path), width.saturating_sub(11))),
            ]));
            if let Some(why) = &f.conflict {
                let then = if overwrite {
                    "overwritten ([o] to keep it)"
                } else {
                    "kept ([o] to overwrite it)"
                };
                let mut w = Wrapper::new(
                    width,
                    vec![Span::styled("    ⚠ ", theme::WARN)],
                    vec![Span::raw("      ")],
                );
                w.push(&format!("conflict: {why}: {then}"), theme::WARN);
                out.extend(w.finish());
            }
            if let Some(d) = f.diff.as_deref().filter(|d| !d.trim().is_empty()) {
                out.extend(diff::render(
                    d.trim_end_matches('\n'),
                    width.saturating_sub(4),
                    &[Span::raw("    ")],
                    MAX_DIFF,
                ));
            }
        }
        if !plan.not_restorable.is_empty() {
            out.push(Line::default());
            out.push(Line::from(Span::styled(
                format!(
                    "Cannot be restored ({}): the snapshots do not hold them",
                    plan.not_restorable.len()
                ),
                theme::HEADING,
            )));
            for n in &plan.not_restorable {
                let mut w = Wrapper::new(width, vec![Span::raw("  ")], vec![Span::raw("    ")]);
                w.push(&format!("{}: {}", n.path, n.why), theme::DIM);
                out.extend(w.finish());
            }
        }
        for note in &plan.notes {
            out.push(Line::default());
            let mut w = Wrapper::new(width, vec![Span::raw("Note: ")], vec![Span::raw("  ")]);
            w.push(note, theme::DIM);
            out.extend(w.finish());
        }
    } else {
        out.push(Line::from(Span::styled(
            "Files: left as they are",
            theme::DIM,
        )));
    }
    out.push(Line::default());
    if !plan.scope.conversation() {
        out.push(Line::from(Span::styled("Conversation: kept", theme::DIM)));
    } else if plan.messages_removed > 0 {
        out.push(Line::from(vec![
            Span::styled("Conversation: ", theme::HEADING),
            Span::raw(format!(
                "{} removed",
                shown::plural(plan.messages_removed, "message", "messages")
            )),
        ]));
        if !plan.prompt.trim().is_empty() {
            out.push(Line::from(Span::styled(
                "  the prompt that began the turn (it comes back in the input):",
                theme::DIM,
            )));
            let mut w = Wrapper::new(
                width,
                vec![Span::styled("  > ", theme::USER)],
                vec![Span::styled("    ", theme::USER)],
            );
            w.push(plan.prompt.trim_end(), theme::USER);
            out.extend(w.finish());
        }
    } else {
        out.push(Line::from(Span::styled(
            "Conversation: nothing to remove",
            theme::DIM,
        )));
    }
    out
}

/// `scope: [f] files  [c] conversation  [b] both`, the current one highlighted.
fn scope_line(scope: RewindScope) -> Line<'static> {
    let mut spans = vec![Span::styled("scope: ", theme::DIM)];
    for (key, label, this) in [
        ("f", "files", RewindScope::Files),
        ("c", "conversation", RewindScope::Conversation),
        ("b", "both", RewindScope::Both),
    ] {
        spans.push(Span::styled(format!("[{key}]"), theme::KEY));
        let style = if this == scope {
            theme::SELECTED
        } else {
            Style::new()
        };
        spans.push(Span::styled(format!(" {label}"), style));
        spans.push(Span::raw("  "));
    }
    Line::from(spans)
}

/// The plan's keys: the scope, the conflicts' fate, apply, scroll, back.
fn plan_keys(d: &RewindDialog, plan: &RewindPlan) -> Vec<Line<'static>> {
    let mut out = vec![scope_line(d.scope)];
    if shown::conflicts(plan) > 0 {
        let fate = if d.overwrite {
            "conflicts: overwrite"
        } else {
            "conflicts: keep"
        };
        out.push(keys(&[("o", fate)]));
    }
    let mut list = vec![];
    if shown::is_noop(plan) {
        list.push(("Enter", "close"));
    } else {
        list.push(("Enter", "rewind"));
    }
    list.extend([("↑↓", "scroll"), ("r", "refresh"), ("Esc", "back")]);
    out.push(keys(&list));
    out
}

/// Unix milliseconds as `2026-11-30 10:42` (UTC, as the session picker shows times).
fn utc_minute(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // H. Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc_minute;

    #[test]
    fn times_are_utc_minutes() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        assert_eq!(utc_minute(1_796_040_000_000), "2026-11-30 12:00");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00");
    }
}
