//! `attach --until-idle`: when has the client caught up with a session that has no
//! turn running?
//!
//! Caught up: the newest seq seen reaches the first snapshot's `session.last_seq`.
//! No turn running: a `turn_completed` came after the last `turn_started`; or, when the
//! last turn started before the snapshot and its end is not in the log, the snapshot
//! status was not `running` (an interrupted turn never completes).
//! No child running: none of the session's sub-agents is queued, running or waiting —
//! from `agent.list` when attaching ([`IdleTracker::seed`]), then `agent_spawned` and
//! `agent_completed` on the stream (an agent the list showed ended stays ended when
//! the replay shows its start) — and no background child that ended on the stream is
//! still to be read by its parent (its `<task-notification>` not `injected` yet). An
//! `injected` event counts as a turn start: the turn that delivers it runs.

use std::collections::HashSet;

use roocode_protocol::agents::{AgentInfo, AgentState};
use roocode_protocol::event::{Event, EventPayload};
use roocode_protocol::session::SessionStatus;

/// Tracks the events of an attach for `--until-idle`.
#[derive(Debug, Default)]
pub struct IdleTracker {
    /// `last_seq` of the first snapshot; `None` until it arrives.
    target: Option<u64>,
    snapshot_running: bool,
    seen: u64,
    last_started: Option<u64>,
    last_completed: Option<u64>,
    /// Sub-agents of the session that are queued, running or waiting.
    active: HashSet<String>,
    /// Sub-agents `agent.list` showed ended.
    ended: HashSet<String>,
    /// Sub-agents seen running in the background (they notify their parent).
    background: HashSet<String>,
    /// Background sub-agents that ended, their notification not delivered yet.
    unread: HashSet<String>,
}

impl IdleTracker {
    /// Takes the sub-agents of `session_id` that `agent.list` shows into account.
    pub fn seed(&mut self, session_id: &str, agents: &[AgentInfo]) {
        for a in agents.iter().filter(|a| a.parent_id == session_id) {
            match a.state {
                AgentState::Queued | AgentState::Running | AgentState::Waiting => {
                    self.active.insert(a.id.clone());
                    if a.background {
                        self.background.insert(a.id.clone());
                    }
                }
                AgentState::Idle
                | AgentState::Completed
                | AgentState::Failed
                | AgentState::Cancelled
                | AgentState::Unknown => {
                    self.ended.insert(a.id.clone());
                }
            }
        }
    }

    /// Takes one event (snapshots included) into account.
    pub fn observe(&mut self, ev: &Event) {
        // Sub-agent events carry the child's id as the event's agent id.
        let agent_id = &ev.agent_id;
        match &ev.payload {
            EventPayload::Snapshot { session, .. } => {
                if self.target.is_none() {
                    self.target = Some(session.last_seq);
                    self.snapshot_running = session.status == SessionStatus::Running;
                }
                return;
            }
            EventPayload::Resync { .. } => return,
            EventPayload::TurnStarted { .. } => self.last_started = Some(ev.seq),
            EventPayload::TurnCompleted { .. } => self.last_completed = Some(ev.seq),
            EventPayload::AgentSpawned { background, .. } if !self.ended.contains(agent_id) => {
                self.active.insert(agent_id.clone());
                if *background {
                    self.background.insert(agent_id.clone());
                }
            }
            EventPayload::AgentBackgrounded => {
                self.background.insert(agent_id.clone());
            }
            EventPayload::AgentCompleted { .. } => self.child_ended(agent_id),
            EventPayload::Injected { text, .. } => {
                // Delivered by a running turn (before it says it started).
                self.last_started = Some(ev.seq);
                if let Some(note) = roocode_client::agents::TaskNotification::parse(text) {
                    self.unread.remove(note.task_id);
                }
            }
            _ => {}
        }
        self.seen = self.seen.max(ev.seq);
    }

    /// A child ended: a background one is still to be read by its parent.
    fn child_ended(&mut self, id: &str) {
        if self.active.remove(id) && self.background.contains(id) {
            self.unread.insert(id.to_string());
        }
    }

    /// Whether the client has caught up, no turn is running and no sub-agent is.
    pub fn is_idle(&self) -> bool {
        let Some(target) = self.target else {
            return false;
        };
        if self.seen < target || !self.active.is_empty() || !self.unread.is_empty() {
            return false;
        }
        match (self.last_started, self.last_completed) {
            (Some(s), Some(c)) if c > s => true,
            // A turn that started live is running until it completes.
            (Some(s), _) if s > target => false,
            _ => !self.snapshot_running,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use roocode_protocol::event::StopReason;

    fn tracker(events: &[Event]) -> Vec<bool> {
        let mut t = IdleTracker::default();
        events
            .iter()
            .map(|e| {
                t.observe(e);
                t.is_idle()
            })
            .collect()
    }

    #[test]
    fn an_empty_idle_session_is_idle_at_once() {
        assert_eq!(
            tracker(&[snapshot(0, "/w", SessionStatus::Idle, 0)]),
            [true]
        );
    }

    #[test]
    fn idle_once_the_replay_reaches_the_snapshot() {
        let events = [
            snapshot(0, "/w", SessionStatus::Idle, 4),
            ev(1, user("T", "I", "hi")),
            ev(2, started("T")),
            ev(3, delta("M", "yo")),
            ev(4, completed("T", StopReason::EndTurn)),
        ];
        assert_eq!(tracker(&events), [false, false, false, false, true]);
    }

    #[test]
    fn a_running_turn_must_complete() {
        let events = [
            snapshot(0, "/w", SessionStatus::Running, 3),
            ev(1, user("T", "I", "hi")),
            ev(2, started("T")),
            ev(3, delta("M", "yo")),
            ev(4, delta("M", "!")),
            ev(5, completed("T", StopReason::EndTurn)),
        ];
        assert_eq!(tracker(&events), [false, false, false, false, false, true]);
    }

    #[test]
    fn an_interrupted_turn_without_an_end_is_idle() {
        let events = [
            snapshot(0, "/w", SessionStatus::Interrupted, 2),
            ev(1, user("T", "I", "hi")),
            ev(2, started("T")),
        ];
        assert_eq!(tracker(&events), [false, false, true]);
    }

    fn spawned() -> EventPayload {
        EventPayload::AgentSpawned {
            name: "scout".into(),
            agent_type: "Explore".into(),
            description: "d".into(),
            background: true,
        }
    }

    fn agent_completed() -> EventPayload {
        EventPayload::AgentCompleted {
            state: AgentState::Completed,
            summary: String::new(),
            usage: roocode_protocol::content::Usage::default(),
        }
    }

    #[test]
    fn a_running_child_keeps_the_session_busy() {
        let events = [
            snapshot(0, "/w", SessionStatus::Idle, 3),
            ev(1, started("T")),
            child_ev(2, "A1", spawned()),
            ev(3, completed("T", StopReason::EndTurn)),
            child_ev(4, "A1", agent_completed()),
            // Its notification wakes the parent: delivered, then the turn says so.
            ev(5, notification("T2", "A1")),
            ev(6, started("T2")),
            ev(7, completed("T2", StopReason::EndTurn)),
        ];
        assert_eq!(
            tracker(&events),
            [false, false, false, false, false, false, false, true]
        );
    }

    fn notification(turn: &str, id: &str) -> EventPayload {
        EventPayload::Injected {
            turn_id: turn.into(),
            kind: "task_notification".into(),
            text: format!(
                "<task-notification>\n<task-id>{id}</task-id>\n<name>scout</name>\n<status>completed</status>\n</task-notification>"
            ),
        }
    }

    #[test]
    fn agent_list_seeds_the_children() {
        let mut t = IdleTracker::default();
        t.seed(
            SID,
            &[
                listed_agent("A1", SID, AgentState::Running),
                listed_agent("A2", SID, AgentState::Completed),
                // A sibling, when attached to a child: not ours.
                listed_agent("A3", "other", AgentState::Running),
            ],
        );
        t.observe(&snapshot(0, "/w", SessionStatus::Idle, 2));
        // The replay shows A2 start; the list said it ended.
        t.observe(&child_ev(1, "A2", spawned()));
        t.observe(&child_ev(2, "A1", spawned()));
        assert!(!t.is_idle());
        t.observe(&child_ev(3, "A1", agent_completed()));
        assert!(!t.is_idle(), "its notification is still to be read");
        t.observe(&ev(4, notification("T", "A1")));
        t.observe(&ev(5, started("T")));
        assert!(!t.is_idle());
        t.observe(&ev(6, completed("T", StopReason::EndTurn)));
        assert!(t.is_idle());
    }

    #[test]
    fn a_turn_started_after_the_snapshot_is_waited_for() {
        let mut t = IdleTracker::default();
        t.observe(&snapshot(0, "/w", SessionStatus::Idle, 0));
        assert!(t.is_idle());
        t.observe(&ev(1, user("T", "I", "hi")));
        t.observe(&ev(2, started("T")));
        assert!(!t.is_idle());
        // A resubscription's snapshot changes nothing.
        t.observe(&snapshot(0, "/w", SessionStatus::Running, 2));
        assert!(!t.is_idle());
        t.observe(&ev(3, completed("T", StopReason::Cancelled)));
        assert!(t.is_idle());
    }
}
