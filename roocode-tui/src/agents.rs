//! The attached session's sub-agents, live: seeded by `agent.list` on every (re)connect
//! ([`Agents::set`]) and kept current by the parent's stream (`agent_spawned`,
//! `agent_progress`, `agent_backgrounded`, `agent_completed`). The agents panel draws
//! them; Ctrl+B moves the running foreground one to the background
//! ([`Agents::foreground_running`]).
//!
//! Elapsed time counts UI ticks (about ten a second) from what the daemon last said,
//! so drawing stays a pure function of the state.

use roocode_client::agents::AgentNames;
use roocode_protocol::agents::{AgentInfo, AgentState};
use roocode_protocol::event::{Event, EventPayload};

/// Milliseconds of one UI tick.
const TICK_MS: u64 = 100;

/// One sub-agent as the panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRow {
    pub id: String,
    pub name: String,
    pub agent_type: String,
    pub state: AgentState,
    pub background: bool,
    pub tokens: u64,
    pub tool_calls: u64,
    /// What it did last (`agent_progress`), empty until it says.
    pub last_activity: String,
    /// Elapsed time as of `since_tick`.
    elapsed_ms: u64,
    since_tick: u64,
}

impl AgentRow {
    /// Its elapsed time at UI tick `tick` (frozen once it has ended).
    pub fn elapsed_ms(&self, tick: u64) -> u64 {
        if self.state.is_final() || self.state == AgentState::Idle {
            self.elapsed_ms
        } else {
            self.elapsed_ms + tick.saturating_sub(self.since_tick) * TICK_MS
        }
    }

    /// Still has work on: queued, running or waiting for a human.
    pub fn is_active(&self) -> bool {
        matches!(
            self.state,
            AgentState::Queued | AgentState::Running | AgentState::Waiting
        )
    }

    fn freeze(&mut self, tick: u64) {
        self.elapsed_ms = self.elapsed_ms(tick);
        self.since_tick = tick;
    }
}

/// The session's sub-agents, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Agents {
    rows: Vec<AgentRow>,
    names: AgentNames,
}

impl Agents {
    pub fn rows(&self) -> &[AgentRow] {
        &self.rows
    }

    /// The names of the agents seen, for labels.
    pub fn names(&self) -> &AgentNames {
        &self.names
    }

    /// The `agent.list` of the session's tree, keeping only `parent`'s children (an
    /// agent the stream has shown ending keeps that end).
    pub fn set(&mut self, parent: &str, list: &[AgentInfo], tick: u64) {
        self.names.learn(list);
        for a in list.iter().filter(|a| a.parent_id == parent) {
            let row = AgentRow {
                id: a.id.clone(),
                name: a.name.clone(),
                agent_type: a.agent_type.clone(),
                state: a.state,
                background: a.background,
                tokens: a.tokens,
                tool_calls: a.tool_calls,
                last_activity: String::new(),
                elapsed_ms: a.elapsed_ms,
                since_tick: tick,
            };
            match self.rows.iter_mut().find(|r| r.id == a.id) {
                // The stream said it ended after the list was taken.
                Some(r) if r.state.is_final() && !a.state.is_final() => {}
                Some(r) => {
                    let activity = std::mem::take(&mut r.last_activity);
                    *r = AgentRow {
                        last_activity: activity,
                        ..row
                    };
                }
                None => self.rows.push(row),
            }
        }
    }

    /// Takes one event of the parent's stream into account; true when it changed a row.
    pub fn on_event(&mut self, ev: &Event, tick: u64) -> bool {
        self.names.observe(ev);
        // Sub-agent events carry the child's id as the event's agent id.
        let agent_id = &ev.agent_id;
        match &ev.payload {
            EventPayload::AgentSpawned {
                name,
                agent_type,
                background,
                ..
            } => {
                let row = AgentRow {
                    id: agent_id.clone(),
                    name: name.clone(),
                    agent_type: agent_type.clone(),
                    state: AgentState::Running,
                    background: *background,
                    tokens: 0,
                    tool_calls: 0,
                    last_activity: String::new(),
                    elapsed_ms: 0,
                    since_tick: tick,
                };
                match self.rows.iter_mut().find(|r| r.id == *agent_id) {
                    // A resumed agent runs again.
                    Some(r) => {
                        r.state = AgentState::Running;
                        r.background = *background;
                        r.since_tick = tick;
                    }
                    None => self.rows.push(row),
                }
            }
            EventPayload::AgentProgress {
                tool_calls,
                tokens,
                last_activity,
            } => {
                let Some(r) = self.row_mut(agent_id) else {
                    return false;
                };
                r.tool_calls = *tool_calls;
                r.tokens = *tokens;
                r.last_activity = last_activity.clone();
            }
            EventPayload::AgentBackgrounded => {
                let Some(r) = self.row_mut(agent_id) else {
                    return false;
                };
                r.background = true;
            }
            EventPayload::AgentCompleted { state, usage, .. } => {
                let Some(r) = self.row_mut(agent_id) else {
                    return false;
                };
                r.freeze(tick);
                r.state = *state;
                r.tokens = usage.input_tokens + usage.output_tokens;
            }
            // A child waiting for a human, and its answer.
            EventPayload::PermissionRequest { .. } | EventPayload::Question { .. } => {
                let Some(r) = self.row_mut(&ev.agent_id).filter(|r| !r.state.is_final()) else {
                    return false;
                };
                r.state = AgentState::Waiting;
            }
            EventPayload::PermissionResolved { .. } | EventPayload::QuestionResolved { .. } => {
                let Some(r) = self
                    .row_mut(&ev.agent_id)
                    .filter(|r| r.state == AgentState::Waiting)
                else {
                    return false;
                };
                r.state = AgentState::Running;
            }
            _ => return false,
        }
        true
    }

    /// The newest foreground agent with work on (Ctrl+B moves it to the background).
    pub fn foreground_running(&self) -> Option<&AgentRow> {
        self.rows
            .iter()
            .rev()
            .find(|r| !r.background && r.is_active())
    }

    /// How many agents have work on.
    pub fn active(&self) -> usize {
        self.rows.iter().filter(|r| r.is_active()).count()
    }

    fn row_mut(&mut self, id: &str) -> Option<&mut AgentRow> {
        self.rows.iter_mut().find(|r| r.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ev;
    use roocode_protocol::content::Usage;

    fn child(seq: u64, payload: EventPayload) -> Event {
        Event {
            agent_id: "A1".into(),
            ..ev(seq, payload)
        }
    }

    fn spawned(background: bool) -> EventPayload {
        EventPayload::AgentSpawned {
            name: "scout".into(),
            agent_type: "Explore".into(),
            description: "find tests".into(),
            background,
        }
    }

    #[test]
    fn the_stream_keeps_the_rows_current() {
        let mut a = Agents::default();
        assert!(a.on_event(&child(1, spawned(false)), 10));
        assert_eq!(
            a.foreground_running().map(|r| r.name.as_str()),
            Some("scout")
        );
        let progress = EventPayload::AgentProgress {
            tool_calls: 4,
            tokens: 900,
            last_activity: "Grep".into(),
        };
        a.on_event(&child(2, progress), 20);
        let r = &a.rows()[0];
        assert_eq!(
            (r.tool_calls, r.tokens, r.last_activity.as_str()),
            (4, 900, "Grep")
        );
        assert_eq!(r.elapsed_ms(30), 2_000, "20 ticks since it started");
        a.on_event(&child(3, EventPayload::AgentBackgrounded), 30);
        assert!(a.foreground_running().is_none(), "it is in the background");
        assert_eq!(a.active(), 1);
        let done = EventPayload::AgentCompleted {
            state: AgentState::Completed,
            summary: "3 files".into(),
            usage: Usage {
                input_tokens: 1000,
                output_tokens: 200,
                ..Usage::default()
            },
        };
        a.on_event(&child(4, done), 40);
        let r = &a.rows()[0];
        assert_eq!((r.state, r.tokens), (AgentState::Completed, 1200));
        assert_eq!(r.elapsed_ms(99), 3_000, "frozen at its end");
        assert_eq!(a.active(), 0);
    }

    #[test]
    fn agent_list_seeds_the_children_of_the_session_only() {
        let info = |id: &str, parent: &str, state| AgentInfo {
            id: id.into(),
            short_id: String::new(),
            name: format!("n-{id}"),
            agent_type: "Plan".into(),
            parent_id: parent.into(),
            description: String::new(),
            state,
            background: false,
            started_at: String::new(),
            elapsed_ms: 5_000,
            tokens: 10,
            cost_usd: None,
            tool_calls: 1,
            result: None,
            error: None,
            branch: None,
        };
        let mut a = Agents::default();
        a.set(
            "S",
            &[
                info("A1", "S", AgentState::Running),
                info("A2", "S", AgentState::Completed),
                info("B1", "other", AgentState::Running),
            ],
            0,
        );
        assert_eq!(a.rows().len(), 2);
        assert_eq!(a.rows()[0].elapsed_ms(10), 6_000);
        assert_eq!(a.rows()[1].elapsed_ms(10), 5_000);
        assert_eq!(a.foreground_running().map(|r| r.id.as_str()), Some("A1"));
        assert_eq!(a.names().name("B1"), "n-B1");
        // A child's permission request makes it wait.
        let req = EventPayload::PermissionRequest {
            request_id: "R".into(),
            call_id: "C".into(),
            tool: "Bash".into(),
            input: serde_json::json!({}),
            reason: String::new(),
        };
        a.on_event(&child(1, req), 1);
        assert_eq!(a.rows()[0].state, AgentState::Waiting);
    }
}
