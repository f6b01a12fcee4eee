//! Agent teams as every client shows them: the one-line forms of the team events of a
//! lead's stream (`⟶ teammate builder joined team alpha`, `◦ task #2 "parser" in
//! progress: builder`, `✉ builder → lead: idle`) and [`TeamBoard`], a team kept live
//! from `team.get` and those events — the model of `roocode-cli team --watch` and of
//! the TUI's team panel. Shared so the CLI and the TUI say the same.
//!
//! Names, subjects and summaries are the model's words: [`plain`] keeps control
//! characters (escape sequences, carriage returns) out of the user's terminal.

use roocode_protocol::event::{Event, EventPayload};
use roocode_protocol::teams::{MemberInfo, MemberState, TaskCounts, TeamInfo, TeamTaskInfo};

use crate::display::clip;

/// Longest subject or summary shown on one line.
const MAX_TEXT: usize = 100;

/// `s` on one line with no control characters: newlines and tabs become spaces, every
/// other control character (ESC, CR, BEL, C1 controls, …) is dropped.
pub fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `s` with its lines kept but every other control character dropped (tabs become
/// spaces): for message bodies printed as they are.
pub fn plain_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// [`plain`], cut to `max` characters.
fn short(s: &str, max: usize) -> String {
    clip(plain(s).trim(), max)
}

/// `⟶ teammate builder (Explore) joined team alpha`, `◦ teammate builder is idle`.
pub fn member_line(
    team: &str,
    name: &str,
    agent_type: &str,
    state: MemberState,
    joined: bool,
) -> String {
    let name = short(name, MAX_TEXT);
    if joined {
        let kind = short(agent_type, MAX_TEXT);
        let kind = if kind.is_empty() || kind == name {
            String::new()
        } else {
            format!(" ({kind})")
        };
        return format!(
            "⟶ teammate {name}{kind} joined team {}",
            short(team, MAX_TEXT)
        );
    }
    format!("◦ teammate {name} is {state}")
}

/// `◦ task #2 "write the parser" in progress: builder (blocked by #1)`.
pub fn task_line(
    task_id: i64,
    subject: &str,
    status: &str,
    owner: Option<&str>,
    blocked_by: &[i64],
) -> String {
    let mut line = format!(
        "◦ task #{task_id} \"{}\" {}",
        short(subject, MAX_TEXT),
        status_words(status)
    );
    if let Some(owner) = owner.map(|o| short(o, MAX_TEXT)).filter(|o| !o.is_empty()) {
        line.push_str(&format!(": {owner}"));
    }
    if !blocked_by.is_empty() {
        line.push_str(&format!(" (blocked by {})", ids(blocked_by)));
    }
    line
}

/// `✉ lead → builder: fix the tests`, `✉ builder → lead (idle notification)`, with the
/// kind named unless it is a plain message.
pub fn mail_line(from: &str, to: &str, kind: &str, summary: &str) -> String {
    let mut line = format!("✉ {} → {}", short(from, MAX_TEXT), short(to, MAX_TEXT));
    if kind != "message" {
        line.push_str(&format!(" ({})", short(&kind.replace('_', " "), MAX_TEXT)));
    }
    let summary = short(summary, MAX_TEXT);
    if !summary.is_empty() {
        line.push_str(&format!(": {summary}"));
    }
    line
}

/// The line of a team event (`team_member`, `task_updated`, `mailbox_message`);
/// `None` for every other event.
pub fn event_line(ev: &Event) -> Option<String> {
    match &ev.payload {
        EventPayload::TeamMember {
            team,
            name,
            agent_type,
            state,
            joined,
        } => Some(member_line(team, name, agent_type, *state, *joined)),
        EventPayload::TaskUpdated {
            task_id,
            subject,
            status,
            owner,
            blocked_by,
            ..
        } => Some(task_line(
            *task_id,
            subject,
            status,
            owner.as_deref(),
            blocked_by,
        )),
        EventPayload::MailboxMessage {
            from,
            to,
            kind,
            summary,
            ..
        } => Some(mail_line(from, to, kind, summary)),
        _ => None,
    }
}

/// `in progress` for `in_progress`.
pub fn status_words(status: &str) -> String {
    plain(&status.replace('_', " "))
}

/// `#1, #2`.
pub fn ids(ids: &[i64]) -> String {
    ids.iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A team kept current by its lead's stream: seeded by `team.get` ([`TeamBoard::set`])
/// and moved by the team events ([`TeamBoard::on_event`]). Reading mail raises no
/// event, so a client refreshes from `team.get` when [`TeamBoard::take_stale`] says
/// the unread counts may have moved.
#[derive(Debug, Clone, Default)]
pub struct TeamBoard {
    team: Option<TeamInfo>,
    /// Its tasks (by id), from `team.get` and `task_updated`.
    tasks: Vec<TeamTaskInfo>,
    stale: bool,
}

impl TeamBoard {
    /// The team, once known (from `team.get`, or a member joining).
    pub fn team(&self) -> Option<&TeamInfo> {
        self.team.as_ref()
    }

    pub fn tasks(&self) -> &[TeamTaskInfo] {
        &self.tasks
    }

    /// What `team.get` says now (`None`: the session is in no team, or it was deleted).
    pub fn set(&mut self, team: Option<TeamInfo>) {
        self.tasks = team.as_ref().map(|t| t.tasks.clone()).unwrap_or_default();
        self.team = team;
        self.refresh_tasks();
    }

    /// Takes one event of the lead's stream into account; true when it changed the
    /// board.
    pub fn on_event(&mut self, ev: &Event) -> bool {
        match &ev.payload {
            EventPayload::TeamMember {
                team,
                name,
                agent_type,
                state,
                ..
            } => {
                let board = self
                    .team
                    .get_or_insert_with(|| empty_team(team, &ev.session_id));
                match board.members.iter_mut().find(|m| m.agent_id == ev.agent_id) {
                    Some(m) => m.state = *state,
                    None => board.members.push(MemberInfo {
                        name: name.clone(),
                        agent_id: ev.agent_id.clone(),
                        short_id: String::new(),
                        agent_type: agent_type.clone(),
                        model: String::new(),
                        state: *state,
                        backend: String::new(),
                        worktree: None,
                        plan_mode_required: false,
                        joined_at: ev.ts.clone(),
                        current_task: None,
                        unread_mail: 0,
                        usage: Default::default(),
                    }),
                }
                // A member that ran read its mail.
                self.stale = true;
            }
            EventPayload::TaskUpdated {
                task_id,
                subject,
                status,
                owner,
                blocked_by,
                ..
            } => {
                let task = TeamTaskInfo {
                    id: *task_id,
                    subject: subject.clone(),
                    description: String::new(),
                    status: status.clone(),
                    owner: owner.clone(),
                    blocked_by: blocked_by.clone(),
                };
                match self.tasks.iter_mut().find(|t| t.id == *task_id) {
                    Some(t) => {
                        t.subject = task.subject;
                        t.status = task.status;
                        t.owner = task.owner;
                        t.blocked_by = task.blocked_by;
                    }
                    None => {
                        self.tasks.push(task);
                        self.tasks.sort_by_key(|t| t.id);
                    }
                }
                self.refresh_tasks();
            }
            EventPayload::MailboxMessage { to, .. } => {
                let Some(team) = self.team.as_mut() else {
                    return false;
                };
                if to == "lead" {
                    team.lead_unread_mail += 1;
                } else if let Some(m) = team.members.iter_mut().find(|m| m.name == *to) {
                    m.unread_mail += 1;
                }
                self.stale = true;
            }
            _ => return false,
        }
        true
    }

    /// Whether unread counts may have moved since the last call (then ask `team.get`).
    pub fn take_stale(&mut self) -> bool {
        std::mem::take(&mut self.stale)
    }

    /// Members' current tasks and the counts, from the task list.
    fn refresh_tasks(&mut self) {
        let Some(team) = self.team.as_mut() else {
            return;
        };
        if self.tasks.is_empty() && team.tasks.is_empty() {
            // A list without tasks (`team.list`) keeps what it says.
            return;
        }
        let mut counts = TaskCounts::default();
        for t in &self.tasks {
            match t.status.as_str() {
                "pending" => counts.pending += 1,
                "in_progress" => counts.in_progress += 1,
                "completed" => counts.completed += 1,
                _ => {}
            }
        }
        team.task_counts = counts;
        for m in &mut team.members {
            m.current_task = self
                .tasks
                .iter()
                .find(|t| t.status == "in_progress" && t.owner.as_deref() == Some(&m.name))
                .cloned();
        }
    }
}

fn empty_team(name: &str, lead: &str) -> TeamInfo {
    TeamInfo {
        id: String::new(),
        name: name.to_owned(),
        lead_session_id: lead.to_owned(),
        lead_short_id: String::new(),
        description: String::new(),
        isolation: String::new(),
        created_at: String::new(),
        members: Vec::new(),
        lead_unread_mail: 0,
        task_counts: TaskCounts::default(),
        tasks: Vec::new(),
        usage: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(agent_id: &str, payload: EventPayload) -> Event {
        Event {
            seq: 1,
            ts: String::new(),
            session_id: "L".into(),
            agent_id: agent_id.into(),
            payload,
        }
    }

    fn member(name: &str, state: MemberState, joined: bool) -> EventPayload {
        EventPayload::TeamMember {
            team: "alpha".into(),
            name: name.into(),
            agent_type: "general-purpose".into(),
            state,
            joined,
        }
    }

    fn task(id: i64, status: &str, owner: Option<&str>) -> EventPayload {
        EventPayload::TaskUpdated {
            team: "alpha".into(),
            task_id: id,
            subject: format!("task {id}"),
            status: status.into(),
            owner: owner.map(String::from),
            blocked_by: vec![],
        }
    }

    fn mail(to: &str) -> EventPayload {
        EventPayload::MailboxMessage {
            team: "alpha".into(),
            from: "lead".into(),
            to: to.into(),
            kind: "message".into(),
            summary: "fix the tests".into(),
        }
    }

    #[test]
    fn team_events_read_as_one_line_each() {
        let joined = ev("A", member("builder", MemberState::Active, true));
        assert_eq!(
            event_line(&joined).unwrap(),
            "⟶ teammate builder (general-purpose) joined team alpha"
        );
        let idle = ev("A", member("builder", MemberState::Idle, false));
        assert_eq!(event_line(&idle).unwrap(), "◦ teammate builder is idle");
        let mut t = task(2, "in_progress", Some("builder"));
        if let EventPayload::TaskUpdated { blocked_by, .. } = &mut t {
            blocked_by.push(1);
        }
        assert_eq!(
            event_line(&ev("A", t)).unwrap(),
            "◦ task #2 \"task 2\" in progress: builder (blocked by #1)"
        );
        assert_eq!(
            event_line(&ev("L", mail("builder"))).unwrap(),
            "✉ lead → builder: fix the tests"
        );
        assert_eq!(
            mail_line("builder", "lead", "idle_notification", ""),
            "✉ builder → lead (idle notification)"
        );
        let other = ev("L", EventPayload::ContextCleared);
        assert!(event_line(&other).is_none());
    }

    #[test]
    fn the_models_words_carry_no_control_sequences() {
        let line = mail_line(
            "builder",
            "lead",
            "message",
            "done\x1b]0;pwned\x07\r\n\x1b[2Jnext\u{9b}31m",
        );
        assert!(!line.chars().any(char::is_control), "{line:?}");
        assert_eq!(line, "✉ builder → lead: done]0;pwned [2Jnext31m");
        let subject = task_line(1, "a\x1b[31mred", "pending", Some("x\ry"), &[]);
        assert_eq!(subject, "◦ task #1 \"a[31mred\" pending: xy");
        assert_eq!(plain_lines("one\n\x1b[1mtwo\r"), "one\n[1mtwo");
    }

    #[test]
    fn the_board_follows_members_tasks_and_mail() {
        let mut b = TeamBoard::default();
        assert!(b.on_event(&ev("A", member("builder", MemberState::Active, true))));
        assert!(b.take_stale());
        b.on_event(&ev("A", task(1, "pending", None)));
        b.on_event(&ev("A", task(1, "in_progress", Some("builder"))));
        b.on_event(&ev("L", mail("builder")));
        b.on_event(&ev("A", mail("lead")));
        let team = b.team().unwrap();
        assert_eq!(
            (team.name.as_str(), team.lead_session_id.as_str()),
            ("alpha", "L")
        );
        let m = &team.members[0];
        assert_eq!(m.current_task.as_ref().map(|t| t.id), Some(1));
        assert_eq!((m.unread_mail, team.lead_unread_mail), (1, 1));
        assert_eq!(team.task_counts.in_progress, 1);
        b.on_event(&ev("A", task(1, "completed", Some("builder"))));
        b.on_event(&ev("A", member("builder", MemberState::Idle, false)));
        let team = b.team().unwrap();
        assert_eq!(team.members.len(), 1, "a state change is no new member");
        assert_eq!(team.members[0].state, MemberState::Idle);
        assert!(team.members[0].current_task.is_none());
        assert_eq!(team.task_counts.completed, 1);
        assert!(!b.on_event(&ev("L", EventPayload::ContextCleared)));
        // `team.get` replaces what the events built; a deleted team is gone.
        b.set(None);
        assert!(b.team().is_none() && b.tasks().is_empty());
    }
}
