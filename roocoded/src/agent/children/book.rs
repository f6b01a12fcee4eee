//! What the daemon holds in memory about running sub-agents: for each, whether its
//! parent waits for it (foreground) or will be notified (background), why it was stopped,
//! and the channel its outcome is published on; and the [`Slots`] that bound how many
//! background agents run turns at once (`agents.max_concurrent`).
//!
//! The store is the record (`agents` rows); this book only coordinates the live side
//! and is rebuilt from nothing after a restart (recovery resumes background agents).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use roocode_protocol::agents::AgentState;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

/// How a child's run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub state: AgentState,
    /// Its last text (empty when it wrote none).
    pub result: String,
    pub error: Option<String>,
}

impl Outcome {
    /// The outcome of a finished run as its row records it.
    pub fn recorded(row: &crate::store::AgentRow) -> Self {
        Outcome {
            state: row.state,
            result: row.result.clone().unwrap_or_default(),
            error: row.error.clone(),
        }
    }
}

/// Who hears of a child's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Its parent's `Agent` call waits for the outcome.
    Foreground,
    /// Its parent gets a task notification through its inbox.
    Background,
}

/// Why a child was stopped before it ended on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCause {
    /// A user, its parent (`TaskStop`, Esc) or its parent's deletion.
    Stopped,
    /// Its time limit.
    TimedOut { after_s: u64 },
}

/// One running child.
pub struct Entry {
    phase: Mutex<Phase>,
    outcome: watch::Sender<Option<Outcome>>,
    /// Asked to move to the background (client action or the auto threshold).
    pub to_background: Notify,
    stop: Mutex<Option<StopCause>>,
    /// Cancels its wait for a slot (the running turn has its own token).
    pub queued_cancel: CancellationToken,
    last_progress: Mutex<Option<Instant>>,
    /// Set once it ran past its queue (it holds or held a slot, or needs none).
    started: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Entry {
    fn new(phase: Phase) -> Self {
        Entry {
            phase: Mutex::new(phase),
            outcome: watch::Sender::new(None),
            to_background: Notify::new(),
            stop: Mutex::new(None),
            queued_cancel: CancellationToken::new(),
            last_progress: Mutex::new(None),
            started: AtomicBool::new(false),
        }
    }

    pub fn phase(&self) -> Phase {
        *lock(&self.phase)
    }

    /// Publishes the outcome and returns the phase it was published in, atomically
    /// with [`Entry::move_to_background`]: exactly one of "the waiting parent gets it"
    /// and "the parent is notified" happens.
    pub fn finish(&self, outcome: Outcome) -> Phase {
        let phase = lock(&self.phase);
        self.outcome.send_replace(Some(outcome));
        *phase
    }

    /// Moves a foreground child to the background; `Err` with the outcome when it has
    /// ended already (the waiting parent takes it as a normal result).
    pub fn move_to_background(&self) -> Result<bool, Outcome> {
        let mut phase = lock(&self.phase);
        if let Some(outcome) = self.outcome.borrow().clone() {
            return Err(outcome);
        }
        let moved = *phase == Phase::Foreground;
        *phase = Phase::Background;
        Ok(moved)
    }

    pub fn outcome(&self) -> watch::Receiver<Option<Outcome>> {
        self.outcome.subscribe()
    }

    /// Records why it is being stopped (the first cause wins).
    pub fn set_stop(&self, cause: StopCause) {
        lock(&self.stop).get_or_insert(cause);
    }

    pub fn stop_cause(&self) -> Option<StopCause> {
        *lock(&self.stop)
    }

    /// True at most once a second: whether a progress event is due now.
    pub fn progress_due(&self) -> bool {
        let mut last = lock(&self.last_progress);
        let due = last.is_none_or(|t| t.elapsed().as_millis() >= 1000);
        if due {
            *last = Some(Instant::now());
        }
        due
    }

    pub fn mark_started(&self) {
        self.started.store(true, Ordering::SeqCst);
    }

    pub fn has_started(&self) -> bool {
        self.started.load(Ordering::SeqCst)
    }
}

/// The running children of the daemon, by agent id.
#[derive(Default)]
pub struct Book {
    entries: Mutex<HashMap<String, Arc<Entry>>>,
    pub slots: Arc<Slots>,
}

impl Book {
    /// A new entry for a run of `id` (a resumed agent gets a fresh one).
    pub fn open(&self, id: &str, phase: Phase) -> Arc<Entry> {
        let entry = Arc::new(Entry::new(phase));
        lock(&self.entries).insert(id.to_string(), entry.clone());
        entry
    }

    /// A new entry for a run of `id`, unless one is open (a run is queued, running or
    /// ending): then `None`.
    pub fn open_if_absent(&self, id: &str, phase: Phase) -> Option<Arc<Entry>> {
        let mut entries = lock(&self.entries);
        if entries.contains_key(id) {
            return None;
        }
        let entry = Arc::new(Entry::new(phase));
        entries.insert(id.to_string(), entry.clone());
        Some(entry)
    }

    pub fn get(&self, id: &str) -> Option<Arc<Entry>> {
        lock(&self.entries).get(id).cloned()
    }

    /// Forgets `entry`, the run of `id`, unless a newer run (a resume) replaced it.
    pub fn close_if(&self, id: &str, entry: &Arc<Entry>) {
        let mut entries = lock(&self.entries);
        if entries.get(id).is_some_and(|e| Arc::ptr_eq(e, entry)) {
            entries.remove(id);
        }
    }
}

/// Turn slots of background agents: at most `limit` held at once, handed out in the
/// order they were asked for. The limit is read from the configuration at each ask, so
/// a change applies to the next agent.
#[derive(Default)]
pub struct Slots {
    inner: Mutex<SlotsInner>,
    changed: Notify,
}

#[derive(Default)]
struct SlotsInner {
    held: usize,
    queue: VecDeque<u64>,
    next_ticket: u64,
}

/// A held slot; dropping it frees it.
pub struct SlotGuard {
    slots: Arc<Slots>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        lock(&self.slots.inner).held -= 1;
        self.slots.changed.notify_waiters();
    }
}

/// A place in the queue; dropping it before it is served leaves the queue.
struct Ticket<'a> {
    slots: &'a Slots,
    id: u64,
    served: bool,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if !self.served {
            lock(&self.slots.inner).queue.retain(|t| *t != self.id);
            self.slots.changed.notify_waiters();
        }
    }
}

impl Slots {
    /// Waits for a slot (in order of asking) under `limit`.
    pub async fn acquire(self: &Arc<Self>, limit: usize) -> SlotGuard {
        let mut ticket = {
            let mut inner = lock(&self.inner);
            let id = inner.next_ticket;
            inner.next_ticket += 1;
            inner.queue.push_back(id);
            Ticket {
                slots: self,
                id,
                served: false,
            }
        };
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut inner = lock(&self.inner);
                if inner.queue.front() == Some(&ticket.id) && inner.held < limit.max(1) {
                    inner.queue.pop_front();
                    inner.held += 1;
                    ticket.served = true;
                    drop(inner);
                    // The next in line may fit too.
                    self.changed.notify_waiters();
                    return SlotGuard {
                        slots: self.clone(),
                    };
                }
            }
            changed.await;
        }
    }

    /// (held, waiting).
    #[cfg(test)]
    pub fn counts(&self) -> (usize, usize) {
        let inner = lock(&self.inner);
        (inner.held, inner.queue.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome() -> Outcome {
        Outcome {
            state: AgentState::Completed,
            result: "done".into(),
            error: None,
        }
    }

    #[test]
    fn an_outcome_goes_to_the_waiter_or_to_the_inbox_never_both() {
        let entry = Entry::new(Phase::Foreground);
        assert_eq!(entry.move_to_background(), Ok(true));
        assert_eq!(entry.move_to_background(), Ok(false));
        assert_eq!(entry.finish(outcome()), Phase::Background);

        let entry = Entry::new(Phase::Foreground);
        assert_eq!(entry.finish(outcome()), Phase::Foreground);
        assert_eq!(entry.move_to_background(), Err(outcome()));
    }

    #[test]
    fn progress_is_due_at_most_once_a_second() {
        let entry = Entry::new(Phase::Background);
        assert!(entry.progress_due());
        assert!(!entry.progress_due());
    }

    #[tokio::test]
    async fn slots_are_bounded_and_served_in_order() {
        let slots = Arc::new(Slots::default());
        let a = slots.acquire(2).await;
        let _b = slots.acquire(2).await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for n in 0..3 {
            let shared = slots.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                let guard = shared.acquire(2).await;
                tx.send(n).unwrap();
                // Hold it until the test ends.
                std::mem::forget(guard);
            });
            // Each asks in turn.
            while slots.counts().1 < n + 1 {
                tokio::task::yield_now().await;
            }
        }
        assert_eq!(slots.counts(), (2, 3));
        drop(a);
        assert_eq!(rx.recv().await, Some(0));
        assert_eq!(slots.counts(), (2, 2));

        // A waiter that gives up leaves the queue.
        let waiting = {
            let slots = slots.clone();
            tokio::spawn(async move { slots.acquire(2).await })
        };
        while slots.counts().1 < 3 {
            tokio::task::yield_now().await;
        }
        waiting.abort();
        let _ = waiting.await;
        assert_eq!(slots.counts(), (2, 2));
    }
}
