//! `attach --until-idle`: when has the client caught up with a session that has no
//! turn running?
//!
//! Caught up: the newest seq seen reaches the first snapshot's `session.last_seq`.
//! No turn running: a `turn_completed` came after the last `turn_started`; or, when the
//! last turn started before the snapshot and its end is not in the log, the snapshot
//! status was not `running` (an interrupted turn never completes).

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
}

impl IdleTracker {
    /// Takes one event (snapshots included) into account.
    pub fn observe(&mut self, ev: &Event) {
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
            _ => {}
        }
        self.seen = self.seen.max(ev.seq);
    }

    /// Whether the client has caught up and no turn is running.
    pub fn is_idle(&self) -> bool {
        let Some(target) = self.target else {
            return false;
        };
        if self.seen < target {
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
