//! Sub-agents as every client shows them on a parent's stream: the names of the
//! children ([`AgentNames`], learnt from `agent_spawned` events, `agent.list` and the
//! snapshot's pending requests, so a child's permission request can be labelled
//! `[Explore] …`), and the one-line forms of the sub-agent events (`⟶ agent Explore
//! "find tests" started (background)`, `⟵ agent Explore completed: …`, `⟵ task
//! notification: agent Explore completed`). Shared so the CLI and the TUI say the same.

use std::collections::HashMap;

use roocode_protocol::agents::{AgentInfo, AgentState};
use roocode_protocol::event::{Event, EventPayload};

use crate::display::clip;

/// Longest result summary shown on an `agent_completed` line.
const MAX_SUMMARY: usize = 120;
/// Characters of an agent's id shown when its name is not known.
const SHORT_ID: usize = 8;

/// The names of the sub-agents seen on a parent's stream, by agent id.
#[derive(Debug, Clone, Default)]
pub struct AgentNames {
    names: HashMap<String, String>,
}

impl AgentNames {
    /// Learns the names `ev` carries (`agent_spawned`, a snapshot's pending requests).
    pub fn observe(&mut self, ev: &Event) {
        match &ev.payload {
            EventPayload::AgentSpawned { name, .. } => {
                self.names.insert(ev.agent_id.clone(), name.clone());
            }
            EventPayload::Snapshot { pending, .. } => {
                for p in pending {
                    if let (Some(id), Some(name)) = (&p.agent_id, &p.agent_name) {
                        self.names.entry(id.clone()).or_insert_with(|| name.clone());
                    }
                }
            }
            _ => {}
        }
    }

    /// Learns the names of an `agent.list` answer.
    pub fn learn(&mut self, agents: &[AgentInfo]) {
        for a in agents {
            self.names.insert(a.id.clone(), a.name.clone());
        }
    }

    pub fn insert(&mut self, agent_id: &str, name: &str) {
        self.names.insert(agent_id.to_owned(), name.to_owned());
    }

    /// The name of agent `agent_id`: its own when known, else `sub-agent <id start>`.
    pub fn name(&self, agent_id: &str) -> String {
        match self.names.get(agent_id) {
            Some(name) if !name.is_empty() => name.clone(),
            _ => unnamed(agent_id),
        }
    }

    /// The label of an event raised by a sub-agent (`[Explore] `), empty for the
    /// session's own agent.
    pub fn label_of(&self, ev: &Event) -> String {
        if is_child_event(ev) {
            format!("[{}] ", self.name(&ev.agent_id))
        } else {
            String::new()
        }
    }
}

/// Whether `ev` comes from a sub-agent of the session whose stream it is on.
pub fn is_child_event(ev: &Event) -> bool {
    !ev.agent_id.is_empty() && ev.agent_id != ev.session_id
}

/// What an agent whose name is not known is called: `sub-agent <id start>`.
pub fn unnamed(agent_id: &str) -> String {
    format!("sub-agent {}", short(agent_id))
}

/// The start of an id's random tail (or of the id), as people see ids.
pub fn short(id: &str) -> String {
    let tail = roocode_protocol::short_id::tail(id).unwrap_or(id);
    tail.chars().take(SHORT_ID).collect()
}

/// `⟶ agent scout (Explore) "find tests" started (background)`; the type is left out
/// when it is the name.
pub fn spawned_line(name: &str, agent_type: &str, description: &str, background: bool) -> String {
    let mut line = format!("⟶ agent {name}");
    if agent_type != name && !agent_type.is_empty() {
        line.push_str(&format!(" ({agent_type})"));
    }
    let description = one_line(description, MAX_SUMMARY);
    if !description.is_empty() {
        line.push_str(&format!(" \"{description}\""));
    }
    line.push_str(" started");
    if background {
        line.push_str(" (background)");
    }
    line
}

/// `⟶ agent scout moved to the background`.
pub fn backgrounded_line(name: &str) -> String {
    format!("⟶ agent {name} moved to the background")
}

/// `⟵ agent scout completed: <the start of its result>`.
pub fn completed_line(name: &str, state: AgentState, summary: &str) -> String {
    let summary = one_line(summary, MAX_SUMMARY);
    if summary.is_empty() {
        format!("⟵ agent {name} {state}")
    } else {
        format!("⟵ agent {name} {state}: {summary}")
    }
}

/// `⟵ task notification: agent scout completed` for an `injected` task notification;
/// `⟵ <kind>` for another kind of injection.
pub fn injected_line(kind: &str, text: &str) -> String {
    match (kind, TaskNotification::parse(text)) {
        ("task_notification", Some(n)) => {
            let name = if n.name.is_empty() { n.task_id } else { n.name };
            format!("⟵ task notification: agent {name} {}", n.status)
        }
        ("task_notification", None) => "⟵ task notification".to_owned(),
        (other, _) => format!("⟵ {}", other.replace('_', " ")),
    }
}

/// The parts of a `<task-notification>` clients look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskNotification<'a> {
    pub task_id: &'a str,
    pub name: &'a str,
    pub status: &'a str,
}

impl<'a> TaskNotification<'a> {
    /// `None` when `text` is not a task notification with a `<task-id>`.
    pub fn parse(text: &'a str) -> Option<TaskNotification<'a>> {
        if !text.trim_start().starts_with("<task-notification>") {
            return None;
        }
        Some(TaskNotification {
            task_id: tag(text, "task-id").filter(|id| !id.is_empty())?,
            name: tag(text, "name").unwrap_or_default(),
            status: tag(text, "status").unwrap_or_default(),
        })
    }
}

/// The first line of `s` with text, at most `max` characters, `…` when cut or when
/// more lines follow.
fn one_line(s: &str, max: usize) -> String {
    let mut lines = s.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    let mut line = clip(first, max);
    if lines.next().is_some() && !line.ends_with('…') {
        line.push('…');
    }
    line
}

/// The trimmed content of the first `<name>…</name>` of `text`.
fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find(&close)?;
    Some(text[start..start + len].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(agent_id: &str, payload: EventPayload) -> Event {
        Event {
            seq: 1,
            ts: String::new(),
            session_id: "P".into(),
            agent_id: agent_id.into(),
            payload,
        }
    }

    const NOTE: &str = "<task-notification>\n<task-id>A1</task-id>\n<name>scout</name>\n<status>completed</status>\n<summary>Agent \"find tests\" completed</summary>\n<result>3 files</result>\n</task-notification>";

    #[test]
    fn names_come_from_spawn_events_and_label_child_events_only() {
        let mut names = AgentNames::default();
        let spawned = EventPayload::AgentSpawned {
            name: "scout".into(),
            agent_type: "Explore".into(),
            description: "find tests".into(),
            background: true,
        };
        names.observe(&ev("A1", spawned));
        let request = |agent: &str| {
            ev(
                agent,
                EventPayload::PermissionResolved {
                    request_id: "R".into(),
                    decision: "allow".into(),
                    decided_by: roocode_protocol::event::DecidedBy {
                        kind: "cli".into(),
                        pid: None,
                    },
                },
            )
        };
        assert_eq!(names.label_of(&request("A1")), "[scout] ");
        assert_eq!(names.label_of(&request("P")), "");
        assert_eq!(
            names.label_of(&request("019ad9f3-1c2e-7a10-8b00-aaaa12345678")),
            "[sub-agent aaaa1234] "
        );
    }

    #[test]
    fn one_line_forms() {
        assert_eq!(
            spawned_line("scout", "Explore", "find tests", true),
            "⟶ agent scout (Explore) \"find tests\" started (background)"
        );
        assert_eq!(
            spawned_line("Explore", "Explore", "find tests", false),
            "⟶ agent Explore \"find tests\" started"
        );
        assert_eq!(
            backgrounded_line("scout"),
            "⟶ agent scout moved to the background"
        );
        assert_eq!(
            completed_line("scout", AgentState::Completed, "Found 3 files.\nmore"),
            "⟵ agent scout completed: Found 3 files.…"
        );
        assert_eq!(
            completed_line("scout", AgentState::Cancelled, ""),
            "⟵ agent scout cancelled"
        );
        assert_eq!(
            injected_line("task_notification", NOTE),
            "⟵ task notification: agent scout completed"
        );
        assert_eq!(
            injected_line("task_notification", "odd"),
            "⟵ task notification"
        );
        assert_eq!(injected_line("hook_correction", "x"), "⟵ hook correction");
    }

    #[test]
    fn a_task_notification_is_parsed() {
        let n = TaskNotification::parse(NOTE).unwrap();
        assert_eq!(
            n,
            TaskNotification {
                task_id: "A1",
                name: "scout",
                status: "completed"
            }
        );
        assert!(TaskNotification::parse("<task-notification></task-notification>").is_none());
        assert!(TaskNotification::parse("hello <task-id>x</task-id>").is_none());
    }
}
