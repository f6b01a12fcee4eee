//! How long each tool call waited for a human (permission requests, questions, plan
//! approvals), so that a call's `duration_ms` is the tool's own time: the wait is
//! taken off when the call ends. Every wait goes through `Approvals::ask_permission` or
//! `Approvals::ask_question`, which hold a [`WaitClock`] while they wait.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Time waited on a human, by (session id, call id), until the call's end takes it.
#[derive(Debug, Default)]
pub struct HumanTime {
    waited: Mutex<HashMap<(String, String), Duration>>,
}

impl HumanTime {
    /// Starts timing one wait of a call; the time counts when the clock is dropped,
    /// however the wait ends (answer, cancel, error).
    pub fn clock<'a>(&'a self, session_id: &str, call_id: &str) -> WaitClock<'a> {
        WaitClock {
            owner: self,
            key: (session_id.to_owned(), call_id.to_owned()),
            started: Instant::now(),
        }
    }

    fn add(&self, key: (String, String), waited: Duration) {
        *self
            .waited
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default() += waited;
    }

    /// The time the call waited on a human, forgotten as it is read.
    pub fn take(&self, session_id: &str, call_id: &str) -> Duration {
        self.waited
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(session_id.to_owned(), call_id.to_owned()))
            .unwrap_or_default()
    }
}

/// One wait being timed (see [`HumanTime::clock`]).
pub struct WaitClock<'a> {
    owner: &'a HumanTime,
    key: (String, String),
    started: Instant,
}

impl Drop for WaitClock<'_> {
    fn drop(&mut self) {
        let key = std::mem::take(&mut self.key);
        self.owner.add(key, self.started.elapsed());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_add_up_per_call_and_are_taken_once() {
        let t = HumanTime::default();
        drop(t.clock("S", "c1"));
        let first = t.take("S", "c1");
        {
            let _a = t.clock("S", "c1");
            let _b = t.clock("S", "c1");
            std::thread::sleep(Duration::from_millis(5));
        }
        let both = t.take("S", "c1");
        assert!(both >= Duration::from_millis(10), "{both:?}");
        assert!(first < both);
        assert_eq!(t.take("S", "c1"), Duration::ZERO, "taken");
        drop(t.clock("S", "c2"));
        assert_eq!(t.take("T", "c2"), Duration::ZERO, "another session's call");
    }
}
