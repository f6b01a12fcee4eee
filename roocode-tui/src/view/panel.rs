//! The side panel: requests waiting in every session (selectable, a sub-agent's
//! labelled with its name), the other sessions with their status, and the attached
//! session's sub-agents, live (name, type, state, elapsed time, tokens, last activity),
//! and its team's members (`super::team`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Widget};
use roocode_protocol::agents::AgentState;
use roocode_protocol::session::SessionStatus;

use crate::app::{App, tokens};
use crate::theme;
use crate::wrap::clip;

pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    Clear.render(area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme::BORDER)
        .title_top(Line::from(Span::styled(" Overview ", theme::HEADING)))
        .title_bottom(Line::from(Span::styled(
            " ↑↓ select · Enter open · Esc close ",
            theme::DIM,
        )));
    let inner = block.inner(area);
    block.render(area, buf);
    let width = inner.width.saturating_sub(1) as usize;
    let p = &app.panel;
    let mut lines: Vec<Line<'static>> = Vec::new();
    let heading = |text: String| Line::from(Span::styled(text, theme::HEADING));

    lines.push(heading(format!("Waiting for you ({})", p.pending.len())));
    if !p.loaded {
        lines.push(Line::from(Span::styled("  loading…", theme::DIM)));
    } else if p.pending.is_empty() {
        lines.push(Line::from(Span::styled("  nothing", theme::DIM)));
    }
    for (i, req) in p.pending.iter().enumerate() {
        let selected = i == p.selected;
        let (mark, style) = match req.kind.as_str() {
            "question" => ("? ", theme::KEY),
            _ => ("⚠ ", theme::WARN),
        };
        let what = if req.kind == "question" {
            format!("question {}", req.summary)
        } else {
            format!("{} {}", req.tool, req.summary)
        };
        let row_style = if selected {
            theme::SELECTED
        } else {
            Style::new()
        };
        lines.push(
            Line::from(vec![
                Span::styled(if selected { "› " } else { "  " }, theme::KEY),
                Span::styled(mark, style),
                Span::styled(
                    clip(
                        what.lines().next().unwrap_or_default(),
                        width.saturating_sub(4),
                    ),
                    row_style,
                ),
            ])
            .style(row_style),
        );
        let own = req.session_id == app.session.id
            || app.agents.rows().iter().any(|r| r.id == req.session_id);
        let session = if let Some(name) = &req.agent_name {
            if own {
                format!("sub-agent {name} of this session")
            } else {
                format!("sub-agent {name}")
            }
        } else if own {
            "this session".to_owned()
        } else {
            p.sessions
                .iter()
                .find(|s| s.id == req.session_id)
                .map_or_else(|| req.session_id.clone(), |s| s.title.clone())
        };
        lines.push(Line::from(Span::styled(
            clip(&format!("    {session}"), width),
            theme::DIM,
        )));
    }

    lines.push(Line::default());
    let others: Vec<_> = p
        .sessions
        .iter()
        .filter(|s| s.id != app.session.id)
        .collect();
    lines.push(heading(format!("Other sessions ({})", others.len())));
    if p.loaded && others.is_empty() {
        lines.push(Line::from(Span::styled("  none", theme::DIM)));
    }
    for s in others {
        let (dot, style) = match s.status {
            SessionStatus::Running => ("● ", theme::WARN),
            SessionStatus::Interrupted => ("◐ ", theme::ERROR),
            SessionStatus::Idle | SessionStatus::Unknown => ("○ ", theme::DIM),
        };
        let title = if s.title.trim().is_empty() {
            s.shown_id()
        } else {
            &s.title
        };
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(dot, style),
            Span::raw(clip(title, width.saturating_sub(14))),
            Span::styled(format!(" {}", s.status.as_str()), style),
        ]));
        lines.push(Line::from(Span::styled(
            clip(&format!("    {}", s.root), width),
            theme::DIM,
        )));
    }

    lines.push(Line::default());
    let agents = app.agents.rows();
    lines.push(heading(format!("Agents ({})", agents.len())));
    if agents.is_empty() {
        lines.push(Line::from(Span::styled("  none", theme::DIM)));
    }
    for r in agents {
        let (dot, style) = match r.state {
            AgentState::Running => ("● ", theme::WARN),
            AgentState::Waiting => ("⚠ ", theme::WARN),
            AgentState::Queued => ("◌ ", theme::DIM),
            AgentState::Completed => ("✓ ", theme::OK),
            AgentState::Failed => ("✗ ", theme::ERROR),
            AgentState::Cancelled | AgentState::Idle | AgentState::Unknown => ("○ ", theme::DIM),
        };
        let where_ = if r.background { "" } else { " · fg" };
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(dot, style),
            Span::raw(clip(&r.name, width.saturating_sub(16))),
            Span::styled(format!(" {}{where_}", r.state.as_str()), style),
        ]));
        let secs = r.elapsed_ms(app.tick) / 1000;
        let mut detail = format!(
            "    {} · {} · {} tok",
            r.agent_type,
            elapsed(secs),
            tokens(r.tokens)
        );
        if r.is_active() && !r.last_activity.is_empty() {
            detail.push_str(&format!(" · {}", r.last_activity));
        }
        lines.push(Line::from(Span::styled(clip(&detail, width), theme::DIM)));
    }
    if app.agents.foreground_running().is_some() {
        let keys = if app.tmux { "Ctrl+B twice" } else { "Ctrl+B" };
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(keys, theme::KEY),
            Span::styled(": run it in the background", theme::DIM),
        ]));
    }

    lines.extend(super::team::lines(app, width));

    for (i, line) in lines.iter().take(inner.height as usize).enumerate() {
        let y = inner.y + i as u16;
        if line.style != Style::new() {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..inner
                },
                line.style,
            );
        }
        buf.set_line(inner.x + 1, y, line, inner.width.saturating_sub(1));
    }
}

/// `42s`, `3m 05s`, `1h 02m`.
fn elapsed(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3_599 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs / 60 % 60),
    }
}
