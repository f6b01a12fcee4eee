//! The order check of a session's numbered events: stored events carry seqs 1, 2, 3…
//! with no hole, so a client that knows the last seq it showed can tell, for each
//! incoming event, whether to show it, drop it as already shown, or re-sync because
//! events are missing. Pure bookkeeping, so the rules are tested without a daemon.

use roocode_protocol::event::Event;

/// What to do with an incoming event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The next stored event, or a per-subscription one (`snapshot`): show it.
    Deliver,
    /// Already delivered (a replay overlapping what was shown): drop it.
    Duplicate,
    /// Events between the last delivered and this one are missing: resubscribe after
    /// [`Sequence::last_seq`] and let the store fill them.
    Gap { expected: u64, got: u64 },
}

/// The last seq delivered, and whether a gap at it was already re-synced once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    last_seq: u64,
    /// A gap seen right after this seq survived a resubscription: the store itself
    /// lacks those events, so the next one is delivered rather than re-synced forever.
    retried_gap_at: Option<u64>,
}

impl Sequence {
    /// Starts after `since_seq` (0: before the first event).
    pub fn after(since_seq: u64) -> Self {
        Sequence {
            last_seq: since_seq,
            retried_gap_at: None,
        }
    }

    /// Seq of the last stored event delivered (or the starting point).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Judges `ev` and, when it is delivered, records it. `resync` events are the
    /// feed's business and never reach this.
    pub fn check(&mut self, ev: &Event) -> Verdict {
        if ev.payload.is_per_subscription() {
            return Verdict::Deliver;
        }
        if ev.seq <= self.last_seq {
            return Verdict::Duplicate;
        }
        let expected = self.last_seq + 1;
        if ev.seq > expected && self.retried_gap_at != Some(self.last_seq) {
            self.retried_gap_at = Some(self.last_seq);
            return Verdict::Gap {
                expected,
                got: ev.seq,
            };
        }
        self.last_seq = ev.seq;
        self.retried_gap_at = None;
        Verdict::Deliver
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::event::EventPayload;

    fn ev(seq: u64) -> Event {
        Event {
            seq,
            ts: String::new(),
            session_id: "S".into(),
            agent_id: "S".into(),
            payload: EventPayload::TurnStarted {
                turn_id: "T".into(),
            },
        }
    }

    /// A per-subscription event (a `snapshot` needs a whole session to build).
    fn per_subscription() -> Event {
        Event {
            payload: EventPayload::Resync { last_seq: 0 },
            ..ev(0)
        }
    }

    #[test]
    fn events_in_order_are_delivered_and_repeats_dropped() {
        let mut s = Sequence::after(2);
        assert_eq!(s.check(&ev(2)), Verdict::Duplicate);
        assert_eq!(s.check(&ev(3)), Verdict::Deliver);
        assert_eq!(s.check(&ev(4)), Verdict::Deliver);
        // A replay after a resubscription overlaps what was shown.
        assert_eq!(s.check(&ev(3)), Verdict::Duplicate);
        assert_eq!(s.check(&ev(4)), Verdict::Duplicate);
        assert_eq!(s.check(&ev(5)), Verdict::Deliver);
        assert_eq!(s.last_seq(), 5);
    }

    #[test]
    fn per_subscription_events_always_pass_and_move_nothing() {
        let mut s = Sequence::after(7);
        assert_eq!(s.check(&per_subscription()), Verdict::Deliver);
        assert_eq!(s.last_seq(), 7);
    }

    #[test]
    fn a_gap_asks_for_a_resync_once_then_is_accepted() {
        let mut s = Sequence::after(1);
        assert_eq!(
            s.check(&ev(4)),
            Verdict::Gap {
                expected: 2,
                got: 4
            }
        );
        assert_eq!(s.last_seq(), 1, "nothing is delivered past a gap");
        // The replay filled it: in order again.
        assert_eq!(s.check(&ev(2)), Verdict::Deliver);
        assert_eq!(s.check(&ev(3)), Verdict::Deliver);
        assert_eq!(s.check(&ev(4)), Verdict::Deliver);
        // A hole the store itself has: re-synced once, then delivered past.
        assert!(matches!(s.check(&ev(9)), Verdict::Gap { .. }));
        assert_eq!(s.check(&ev(9)), Verdict::Deliver);
        assert_eq!(s.last_seq(), 9);
        // A later gap is detected afresh.
        assert!(matches!(s.check(&ev(11)), Verdict::Gap { .. }));
    }
}
