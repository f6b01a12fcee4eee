//! The team section of the side panel: the attached session's team (it leads it or is
//! a member), live — each member with its state, the task it works on and its unread
//! mail, then the task counts. Every word the model chose goes through
//! `roocode_client::teams::plain`.

use ratatui::text::{Line, Span};
use roocode_client::teams::plain;
use roocode_protocol::teams::MemberState;

use crate::app::App;
use crate::theme;
use crate::wrap::clip;

/// The section's lines (none when the session is in no team).
pub fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let Some(team) = app.team.team() else {
        return Vec::new();
    };
    let mut lines = vec![
        Line::default(),
        Line::from(Span::styled(
            clip(
                &format!("Team {} ({})", plain(&team.name), team.members.len()),
                width,
            ),
            theme::HEADING,
        )),
    ];
    if team.members.is_empty() {
        lines.push(Line::from(Span::styled("  no members yet", theme::DIM)));
    }
    for m in &team.members {
        let (dot, style) = match m.state {
            MemberState::Active => ("● ", theme::WARN),
            MemberState::Idle => ("○ ", theme::DIM),
            MemberState::Stopped | MemberState::Unknown => ("■ ", theme::DIM),
        };
        let mail = if m.unread_mail > 0 {
            format!(" ✉ {}", m.unread_mail)
        } else {
            String::new()
        };
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(dot, style),
            Span::raw(clip(&plain(&m.name), width.saturating_sub(18))),
            Span::styled(format!(" {}", m.state.as_str()), style),
            Span::styled(mail, theme::KEY),
        ]));
        let task = match &m.current_task {
            Some(t) => format!("    #{} {}", t.id, plain(&t.subject)),
            None => format!("    {} · no task", plain(&m.agent_type)),
        };
        lines.push(Line::from(Span::styled(clip(&task, width), theme::DIM)));
    }
    let c = team.task_counts;
    let total = c.pending + c.in_progress + c.completed;
    let mut summary = format!(
        "  {total} {}: {} done, {} in progress",
        if total == 1 { "task" } else { "tasks" },
        c.completed,
        c.in_progress
    );
    if team.lead_unread_mail > 0 {
        summary.push_str(&format!(" · lead ✉ {}", team.lead_unread_mail));
    }
    lines.push(Line::from(Span::styled(clip(&summary, width), theme::DIM)));
    lines
}

#[cfg(test)]
mod tests {
    use roocode_protocol::event::{Event, EventPayload};
    use roocode_protocol::teams::MemberState;

    use crate::test_support::{app, ctrl, draw, ev};

    /// An event of the lead's (`S`) stream about member `A1`.
    fn member_ev(seq: u64, payload: EventPayload) -> Event {
        Event {
            agent_id: "A1".into(),
            ..ev(seq, payload)
        }
    }

    fn screen(t: &ratatui::Terminal<ratatui::backend::TestBackend>) -> String {
        let buf = t.backend().buffer();
        let mut text = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                text.push_str(buf[(x, y)].symbol());
            }
            text.push('\n');
        }
        text
    }

    #[test]
    fn the_panel_shows_members_state_current_task_and_unread_mail_live() {
        let mut a = app();
        a.on_event(&member_ev(
            1,
            EventPayload::TeamMember {
                team: "alpha".into(),
                name: "builder".into(),
                agent_type: "general-purpose".into(),
                state: MemberState::Active,
                joined: true,
            },
        ));
        a.on_event(&member_ev(
            2,
            EventPayload::TaskUpdated {
                team: "alpha".into(),
                task_id: 2,
                subject: "write the parser\x1b[2J".into(),
                status: "in_progress".into(),
                owner: Some("builder".into()),
                blocked_by: vec![],
            },
        ));
        a.on_event(&ev(
            3,
            EventPayload::MailboxMessage {
                team: "alpha".into(),
                from: "lead".into(),
                to: "builder".into(),
                kind: "message".into(),
                summary: "use the new lexer".into(),
            },
        ));
        assert!(a.take_team_refresh(), "unread counts come from team.get");
        assert!(!a.take_team_refresh());
        a.on_key(ctrl('p'));
        a.set_overview(vec![], vec![]);
        let text = screen(&draw(&mut a, 120, 30));
        assert!(text.contains("Team alpha (1)"), "{text}");
        assert!(text.contains("● builder active ✉ 1"), "{text}");
        assert!(text.contains("#2 write the parser[2J"), "{text}");
        assert!(text.contains("  1 task: 0 done, 1 in progress"), "{text}");
        // The transcript has a line for each.
        assert!(
            text.contains("⟶ teammate builder (general-purpose) joined team alpha"),
            "{text}"
        );
        assert!(
            text.contains("✉ lead → builder: use the new lexer"),
            "{text}"
        );

        // It goes idle; team.get then says it read its mail.
        a.on_event(&member_ev(
            4,
            EventPayload::TeamMember {
                team: "alpha".into(),
                name: "builder".into(),
                agent_type: "general-purpose".into(),
                state: MemberState::Idle,
                joined: false,
            },
        ));
        let mut team = a.team.team().cloned().unwrap();
        team.members[0].unread_mail = 0;
        a.set_team(Some(team));
        let text = screen(&draw(&mut a, 120, 30));
        assert!(text.contains("○ builder idle"), "{text}");
        assert!(!text.contains("✉ 1"), "{text}");
        // Outside a team: no section.
        a.set_team(None);
        let text = screen(&draw(&mut a, 120, 30));
        assert!(!text.contains("Team alpha"), "{text}");
    }
}
