//! `send --wait-agents`: when has everything our turn set going finished?
//!
//! After our turn, the session's background agents run on; each one that ends puts a
//! `<task-notification>` in the parent's inbox, which the parent reads before its next
//! model call — in a turn that was running, or in a new turn the notification wakes
//! (`turn_started` with no user message). The wait is over when no turn of the parent
//! runs, every sub-agent we know of has ended, and every background one that ended
//! has had its notification delivered (its `injected` event, whose turn then ran to
//! its end). A teammate never completes: it is done with when it is idle and the lead
//! has read its idle notice (or when it stopped). Everything comes from the parent's
//! events (`agent_spawned`, `agent_backgrounded`, `agent_completed`, `team_member`,
//! `injected`, turn events, a loop round's `workflow` end) plus one `agent.list` for
//! the agents started before we subscribed; no polling. An idle notice names its teammate, not an agent id: the
//! names come from `team_member` events only (a plain sub-agent may share a
//! teammate's name).

use std::collections::HashMap;

use roocode_client::agents::TaskNotification;
use roocode_protocol::agents::{AgentInfo, AgentState};
use roocode_protocol::event::{Event, EventPayload};
use roocode_protocol::teams::MemberState;

/// What we know of one sub-agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Child {
    background: bool,
    ended: bool,
    /// Its task notification reached the parent (or none will come).
    notified: bool,
}

/// The state of a `--wait-agents` wait.
#[derive(Debug, Default)]
pub struct AgentWait {
    children: HashMap<String, Child>,
    /// Teammates' agent ids by name (from `team_member` events), for their idle notices
    /// (which name their sender). Not sub-agents' names: those can repeat a teammate's.
    teammates: HashMap<String, String>,
    /// The parent's running turn.
    running: Option<String>,
}

impl AgentWait {
    /// Starts from `agent.list` (taken after subscribing): agents that had ended are
    /// done with; the others are waited for.
    pub fn new(agents: &[AgentInfo]) -> Self {
        let mut wait = AgentWait::default();
        for a in agents {
            let done = a.state.is_final() || a.state == AgentState::Idle;
            wait.children.insert(
                a.id.clone(),
                Child {
                    background: a.background,
                    ended: done,
                    notified: done,
                },
            );
        }
        wait
    }

    /// Takes one event of the parent's stream into account.
    pub fn observe(&mut self, ev: &Event) {
        // Sub-agent events carry the child's id as the event's agent id.
        let agent_id = &ev.agent_id;
        match &ev.payload {
            // A resumed agent is spawned again: it runs (and notifies) anew.
            EventPayload::AgentSpawned { background, .. } => {
                self.children.insert(
                    agent_id.clone(),
                    Child {
                        background: *background,
                        ended: false,
                        notified: false,
                    },
                );
            }
            EventPayload::AgentBackgrounded => {
                if let Some(c) = self.children.get_mut(agent_id) {
                    c.background = true;
                }
            }
            EventPayload::AgentCompleted { .. } => {
                // One we never heard of started before `agent.list` answered and ended
                // since: whether it notifies is unknown, so it is not waited for.
                let c = self.children.entry(agent_id.clone()).or_insert(Child {
                    background: false,
                    ended: true,
                    notified: true,
                });
                c.ended = true;
                // A foreground agent's result went into its parent's tool result.
                if !c.background {
                    c.notified = true;
                }
            }
            // Delivered in turn `turn_id` (a woken turn's injections come before its
            // `turn_started`): that turn runs until its `turn_completed`.
            EventPayload::Injected {
                turn_id,
                kind,
                text,
            } => {
                if self.running.is_none() {
                    self.running = Some(turn_id.clone());
                }
                if kind == "task_notification"
                    && let Some(n) = TaskNotification::parse(text)
                    && let Some(c) = self.children.get_mut(n.task_id)
                {
                    c.notified = true;
                }
                if kind == "team_message"
                    && let Some(name) = idle_notice_sender(text)
                    && let Some(id) = self.teammates.get(name)
                    && let Some(c) = self.children.get_mut(id)
                {
                    c.notified = true;
                }
            }
            // A teammate: idle until a message resumes it; its lead reads a notice of it.
            EventPayload::TeamMember { name, state, .. } => {
                self.teammates.insert(name.clone(), agent_id.clone());
                if let Some(c) = self.children.get_mut(agent_id) {
                    match state {
                        MemberState::Active => {
                            c.ended = false;
                            c.notified = false;
                        }
                        MemberState::Idle => c.ended = true,
                        MemberState::Stopped | MemberState::Unknown => {
                            c.ended = true;
                            c.notified = true;
                        }
                    }
                }
            }
            // A `|loop|` round's worker ended and the loop took its end over (a line in
            // the parent's inbox, read at its next model call, never a wake): it is
            // done with. The loop's last round notifies as usual.
            EventPayload::Workflow { step, .. } if step == "loop_round" => {
                if let Some(c) = self.children.get_mut(agent_id) {
                    c.notified = true;
                }
            }
            EventPayload::TurnStarted { turn_id } => self.running = Some(turn_id.clone()),
            EventPayload::UserMessage { turn_id, .. } if self.running.is_none() => {
                self.running = Some(turn_id.clone());
            }
            EventPayload::TurnCompleted { turn_id, .. }
                if self.running.as_ref() == Some(turn_id) =>
            {
                self.running = None;
            }
            _ => {}
        }
    }

    /// Whether a turn of the parent runs.
    pub fn turn_running(&self) -> bool {
        self.running.is_some()
    }

    /// Sub-agents that have not ended, or whose notification has not been read yet.
    pub fn outstanding(&self) -> usize {
        self.children
            .values()
            .filter(|c| !c.ended || !c.notified)
            .count()
    }

    /// Whether nothing is left to wait for.
    pub fn is_done(&self) -> bool {
        !self.turn_running() && self.outstanding() == 0
    }
}

/// The teammate an idle notice is about: the `from` of a delivered
/// `<teammate-message … kind="idle_notification">`.
fn idle_notice_sender(text: &str) -> Option<&str> {
    let head = text.strip_prefix("<teammate-message from=\"")?;
    let (from, rest) = head.split_once('"')?;
    rest.starts_with(" kind=\"idle_notification\"")
        .then_some(from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use roocode_protocol::content::Usage;
    use roocode_protocol::event::StopReason;

    fn spawned(background: bool) -> EventPayload {
        EventPayload::AgentSpawned {
            name: "scout".into(),
            agent_type: "Explore".into(),
            description: "d".into(),
            background,
        }
    }

    fn ended() -> EventPayload {
        EventPayload::AgentCompleted {
            state: AgentState::Completed,
            summary: "done".into(),
            usage: Usage::default(),
        }
    }

    fn notified(turn: &str, id: &str) -> EventPayload {
        EventPayload::Injected {
            turn_id: turn.into(),
            kind: "task_notification".into(),
            text: format!(
                "<task-notification>\n<task-id>{id}</task-id>\n<name>scout</name>\n<status>completed</status>\n</task-notification>"
            ),
        }
    }

    /// An event of the session's own agent.
    fn s(payload: EventPayload) -> Event {
        ev(0, payload)
    }

    /// An event of sub-agent `id`.
    fn a(id: &str, payload: EventPayload) -> Event {
        child_ev(0, id, payload)
    }

    /// Whether the wait is over after each event (numbered in order).
    fn trace(wait: &mut AgentWait, events: &[Event]) -> Vec<bool> {
        events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let seq = i as u64 + 1;
                wait.observe(&Event { seq, ..e.clone() });
                wait.is_done()
            })
            .collect()
    }

    #[test]
    fn a_background_agent_is_waited_for_until_its_notification_turn_ends() {
        let mut w = AgentWait::new(&[]);
        let done = trace(
            &mut w,
            &[
                s(user("T1", "I1", "go")),
                s(started("T1")),
                a("A1", spawned(true)),
                s(completed("T1", StopReason::EndTurn)),
                // The agent ends: its notification is due, no turn runs yet.
                a("A1", ended()),
                s(started("T2")),
                s(notified("T2", "A1")),
                s(delta("M", "it found 3")),
                s(completed("T2", StopReason::EndTurn)),
            ],
        );
        assert_eq!(
            done,
            [false, false, false, false, false, false, false, false, true]
        );
    }

    #[test]
    fn a_woken_turn_delivers_its_notification_before_it_says_it_started() {
        let mut w = AgentWait::new(&[]);
        let done = trace(
            &mut w,
            &[
                s(started("T1")),
                a("A1", spawned(true)),
                s(completed("T1", StopReason::EndTurn)),
                a("A1", ended()),
                s(notified("T2", "A1")),
                s(started("T2")),
                s(completed("T2", StopReason::EndTurn)),
            ],
        );
        assert_eq!(done, [false, false, false, false, false, false, true]);
    }

    #[test]
    fn a_notification_read_in_the_running_turn_needs_no_new_turn() {
        let mut w = AgentWait::new(&[]);
        let done = trace(
            &mut w,
            &[
                s(started("T1")),
                a("A1", spawned(true)),
                a("A1", ended()),
                s(notified("T1", "A1")),
                s(completed("T1", StopReason::EndTurn)),
            ],
        );
        assert_eq!(done, [false, false, false, false, true]);
    }

    #[test]
    fn foreground_agents_need_no_notification_but_moved_ones_do() {
        let mut w = AgentWait::new(&[]);
        let done = trace(
            &mut w,
            &[
                s(started("T1")),
                a("F", spawned(false)),
                a("F", ended()),
                a("B", spawned(false)),
                a("B", EventPayload::AgentBackgrounded),
                s(completed("T1", StopReason::EndTurn)),
                a("B", ended()),
                s(started("T2")),
                s(notified("T2", "B")),
                s(completed("T2", StopReason::EndTurn)),
            ],
        );
        assert_eq!(
            done,
            [
                false, false, false, false, false, false, false, false, false, true
            ]
        );
    }

    #[test]
    fn agents_listed_before_subscribing() {
        let running = AgentInfo {
            name: "old".into(),
            ..listed_agent("OLD", SID, AgentState::Running)
        };
        let finished = AgentInfo {
            id: "DONE".into(),
            state: AgentState::Completed,
            ..running.clone()
        };
        let mut w = AgentWait::new(&[running, finished]);
        assert_eq!(w.outstanding(), 1);
        let done = trace(
            &mut w,
            &[
                a("OLD", ended()),
                s(started("T")),
                s(notified("T", "OLD")),
                s(completed("T", StopReason::EndTurn)),
            ],
        );
        assert_eq!(done, [false, false, false, true]);
        // An agent never heard of that ends is not waited for.
        w.observe(&child_ev(9, "NEW", ended()));
        assert!(w.is_done());
    }

    fn member(state: MemberState) -> EventPayload {
        EventPayload::TeamMember {
            team: "alpha".into(),
            name: "scout".into(),
            agent_type: "general-purpose".into(),
            state,
            joined: false,
        }
    }

    fn idle_notice(turn: &str) -> EventPayload {
        EventPayload::Injected {
            turn_id: turn.into(),
            kind: "team_message".into(),
            text: "<teammate-message from=\"scout\" kind=\"idle_notification\" summary=\"scout is idle\">\nscout finished its turn and is idle.\n</teammate-message>".into(),
        }
    }

    #[test]
    fn a_teammate_is_waited_for_until_its_lead_read_its_idle_notice() {
        let mut w = AgentWait::new(&[]);
        let done = trace(
            &mut w,
            &[
                s(started("T1")),
                a("M1", spawned(true)),
                s(completed("T1", StopReason::EndTurn)),
                a("M1", member(MemberState::Idle)),
                s(idle_notice("T2")),
                s(started("T2")),
                s(completed("T2", StopReason::EndTurn)),
                // A message resumes it: waited for again; stopping ends the wait.
                a("M1", member(MemberState::Active)),
                a("M1", member(MemberState::Stopped)),
            ],
        );
        assert_eq!(
            done,
            [false, false, false, false, false, false, true, false, true]
        );
        assert_eq!(
            idle_notice_sender("<teammate-message from=\"x\" kind=\"message\">"),
            None
        );
    }

    #[test]
    fn a_sub_agent_named_like_a_teammate_does_not_take_its_idle_notice() {
        let mut w = AgentWait::new(&[]);
        let done = trace(
            &mut w,
            &[
                s(started("T1")),
                // Teammate "scout" (M1) joins, then a plain background sub-agent also
                // named "scout" (A1) is started.
                a("M1", spawned(true)),
                a("M1", member(MemberState::Active)),
                a("A1", spawned(true)),
                s(completed("T1", StopReason::EndTurn)),
                a("M1", member(MemberState::Idle)),
                s(idle_notice("T2")),
                s(started("T2")),
                s(completed("T2", StopReason::EndTurn)),
                // The sub-agent still owes its own notification.
                a("A1", ended()),
                s(notified("T3", "A1")),
                s(started("T3")),
                s(completed("T3", StopReason::EndTurn)),
            ],
        );
        assert_eq!(
            done,
            [
                false, false, false, false, false, false, false, false, false, false, false, false,
                true
            ]
        );
        assert!(w.children.get("M1").is_some_and(|c| c.notified));
    }
}
