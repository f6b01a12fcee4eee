//! A tool call as lines: folded, one line `● Read src/main.rs ✓ 12 ms` (a spinner
//! while it runs, a red `✗` on error); expanded, its input, its output (live while it
//! runs) and the coloured diff of the files it changed.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::entry::Tool;
use crate::diff;
use crate::spinner;
use crate::theme;
use crate::tool_summary::duration;
use crate::wrap::{clip, hard_wrap, str_width};

/// Most lines of input shown when expanded.
const MAX_INPUT: usize = 16;
/// Most lines of a result shown when expanded.
const MAX_OUTPUT: usize = 20;
/// Most lines of live output shown while a call runs.
const MAX_LIVE: usize = 8;
/// Most lines of a diff shown.
const MAX_DIFF: usize = 400;

/// The lines of tool call `t`.
pub fn render(t: &Tool, width: usize, expanded: bool, tick: u64) -> Vec<Line<'static>> {
    let mut out = vec![header(t, width, tick)];
    if expanded {
        body(t, width, &mut out);
    }
    out
}

/// `● Name summary  status`, always one line: the summary is clipped to fit.
fn header(t: &Tool, width: usize, tick: u64) -> Line<'static> {
    let (bullet_style, status): (Style, Vec<Span<'static>>) = match &t.result {
        _ if t.waiting => (
            theme::WARN,
            vec![Span::styled("⏸ waiting for you", theme::WARN)],
        ),
        None if t.stopped => (theme::DIM, vec![Span::styled("✗ stopped", theme::DIM)]),
        None => (
            Style::new(),
            vec![Span::styled(spinner::frame(tick), theme::WARN)],
        ),
        Some(r) if r.is_error => (
            theme::ERROR,
            vec![
                Span::styled("✗ ", theme::ERROR),
                Span::styled(duration(r.duration_ms), theme::DIM),
            ],
        ),
        Some(r) => (
            theme::OK,
            vec![
                Span::styled("✓ ", theme::OK),
                Span::styled(duration(r.duration_ms), theme::DIM),
            ],
        ),
    };
    let status_width: usize = status.iter().map(|s| s.width()).sum();
    let name_width = str_width(&t.name);
    let mut spans = vec![
        Span::styled("● ", bullet_style),
        Span::styled(t.name.clone(), theme::TOOL_NAME),
    ];
    let room = width.saturating_sub(2 + name_width + 1 + 2 + status_width);
    if let Some(summary) = &t.summary
        && room >= 4
    {
        spans.push(Span::raw(format!(" {}", clip(summary, room))));
    }
    spans.push(Span::raw("  "));
    spans.extend(status);
    Line::from(spans)
}

fn body(t: &Tool, width: usize, out: &mut Vec<Line<'static>>) {
    let bar = [Span::styled("  │ ", theme::DIM)];
    for line in input_lines(&t.input) {
        out.extend(hard_wrap(&line, width, &bar, theme::DIM, false));
    }
    if let Some(verdict) = &t.verdict {
        out.extend(hard_wrap(verdict, width, &bar, theme::WARN, false));
    }
    let elbow = Span::styled("  ⎿ ", theme::DIM);
    let indent = Span::raw("    ");
    match &t.result {
        None => {
            let live: Vec<&str> = t.live.lines().collect();
            let skip = live.len().saturating_sub(MAX_LIVE);
            for (i, line) in live[skip..].iter().enumerate() {
                let prefix = if i == 0 { &elbow } else { &indent };
                out.extend(hard_wrap(
                    line,
                    width,
                    std::slice::from_ref(prefix),
                    theme::DIM,
                    false,
                ));
            }
        }
        Some(r) => {
            let style = if r.is_error {
                theme::ERROR
            } else {
                Style::new()
            };
            let lines: Vec<&str> = r.output.trim_end().lines().collect();
            if lines.is_empty() {
                out.push(Line::from(vec![
                    elbow.clone(),
                    Span::styled("(no output)", theme::DIM),
                ]));
            }
            for (i, line) in lines.iter().take(MAX_OUTPUT).enumerate() {
                let prefix = if i == 0 { &elbow } else { &indent };
                out.extend(hard_wrap(
                    line,
                    width,
                    std::slice::from_ref(prefix),
                    style,
                    false,
                ));
            }
            if lines.len() > MAX_OUTPUT {
                out.push(Line::from(vec![
                    indent.clone(),
                    Span::styled(
                        format!("… {} more lines", lines.len() - MAX_OUTPUT),
                        theme::DIM,
                    ),
                ]));
            }
            if let Some(d) = r.diff.as_deref().filter(|d| !d.trim().is_empty()) {
                out.extend(diff::render(
                    d,
                    width,
                    std::slice::from_ref(&indent),
                    MAX_DIFF,
                ));
            }
        }
    }
}

/// The input of a call as text lines: `key: value`, multi-line strings below their key.
fn input_lines(input: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match input {
        Value::Object(obj) => {
            for (k, v) in obj {
                match v {
                    Value::String(s) if s.contains('\n') => {
                        out.push(format!("{k}:"));
                        let lines: Vec<&str> = s.lines().collect();
                        for l in lines.iter().take(8) {
                            out.push(format!("  {l}"));
                        }
                        if lines.len() > 8 {
                            out.push(format!("  … {} more lines", lines.len() - 8));
                        }
                    }
                    Value::String(s) => out.push(format!("{k}: {s}")),
                    other => out.push(format!("{k}: {}", clip(&other.to_string(), 200))),
                }
            }
        }
        Value::Null => {}
        other => out.push(clip(&other.to_string(), 200)),
    }
    if out.len() > MAX_INPUT {
        let more = out.len() - MAX_INPUT;
        out.truncate(MAX_INPUT);
        out.push(format!("… {more} more lines"));
    }
    out
}
