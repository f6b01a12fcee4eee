//! The `idle_prompt` notification (DESIGN.md §7 "Hooks"): a main agent whose turns have
//! ended waits for the user's next message; once it has waited
//! `notifications.idle_after_ms` (Claude Code's 60 s by default) with no client attached
//! to its session, the session's `notification` hooks hear of it — once per idle period,
//! for a user who is not watching.
//!
//! Event-driven, no polling: [`IdleBook`] is the decision, plain state under a lock; the
//! engine tells it when a session goes idle (its turns ended, `Engine::session_went_idle`)
//! or busy (a turn starts, `Engine::session_busy`), and the RPC layer when a client
//! attaches to the session's event stream and when it leaves (the [`Attached`] guard of
//! `Engine::attach_client`). Becoming idle with nobody attached arms one timer — a tokio
//! sleep raced against a cancellation token; a client attaching or a turn starting
//! cancels it; the last client leaving arms it again unless this idle period was
//! already notified.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::session::SessionKind;
use tokio_util::sync::CancellationToken;

use super::Engine;
use crate::hooks::{HookEvent, HookInput};

/// What the `idle_prompt` notification says.
pub const IDLE_MESSAGE: &str = "RooCode finished and is waiting for your input";

/// Which sessions wait for the user, which are watched, and their armed timers.
#[derive(Debug, Default)]
pub struct IdleBook {
    sessions: Mutex<HashMap<String, Slot>>,
    next_arm: AtomicU64,
}

/// One session's side of [`IdleBook`].
#[derive(Debug, Default)]
struct Slot {
    /// Clients following the session's events now.
    attached: usize,
    /// Since its turns last ended; `None` while a turn runs (or before any ran).
    idle: Option<Period>,
}

/// One idle period: from the end of the session's turns to the start of the next.
#[derive(Debug, Default)]
struct Period {
    /// Its notification fired: not again before the next turn.
    notified: bool,
    armed: Option<Armed>,
}

#[derive(Debug)]
struct Armed {
    id: u64,
    cancel: CancellationToken,
}

/// A timer to start: sleep the delay unless `cancel` fires first, then ask
/// [`IdleBook::due`] with `id` whether to notify.
#[derive(Debug)]
pub struct Arm {
    pub id: u64,
    pub cancel: CancellationToken,
}

impl Slot {
    fn disarm(&mut self) {
        if let Some(armed) = self.idle.as_mut().and_then(|p| p.armed.take()) {
            armed.cancel.cancel();
        }
    }

    /// Whether the slot says nothing worth keeping (nobody attached, no period that
    /// could still be notified).
    fn is_spent(&self) -> bool {
        self.attached == 0 && self.idle.as_ref().is_none_or(|p| p.notified)
    }
}

impl IdleBook {
    fn with<R>(&self, session_id: &str, f: impl FnOnce(&mut Slot, &Self) -> R) -> R {
        let mut map = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = map.entry(session_id.to_string()).or_default();
        let result = f(slot, self);
        if slot.is_spent() {
            map.remove(session_id);
        }
        result
    }

    /// Arms the period's timer if it could be notified and nobody watches.
    fn arm(&self, slot: &mut Slot) -> Option<Arm> {
        if slot.attached > 0 {
            return None;
        }
        let period = slot.idle.as_mut().filter(|p| !p.notified)?;
        if period.armed.is_some() {
            return None;
        }
        let id = self.next_arm.fetch_add(1, Ordering::Relaxed);
        let cancel = CancellationToken::new();
        period.armed = Some(Armed {
            id,
            cancel: cancel.clone(),
        });
        Some(Arm { id, cancel })
    }

    /// The session's turns ended: its agent waits for the user. A timer to start when
    /// nobody is attached.
    pub fn idle(&self, session_id: &str) -> Option<Arm> {
        self.with(session_id, |slot, book| {
            slot.disarm();
            slot.idle = Some(Period::default());
            book.arm(slot)
        })
    }

    /// A turn starts: the period ends, its timer is cancelled.
    pub fn busy(&self, session_id: &str) {
        self.with(session_id, |slot, _| {
            slot.disarm();
            slot.idle = None;
        });
    }

    /// A client follows the session's events: no notification while it does.
    pub fn attach(&self, session_id: &str) {
        self.with(session_id, |slot, _| {
            slot.attached += 1;
            slot.disarm();
        });
    }

    /// A client left; a timer to start when it was the last and the period was not
    /// notified yet.
    pub fn detach(&self, session_id: &str) -> Option<Arm> {
        self.with(session_id, |slot, book| {
            slot.attached = slot.attached.saturating_sub(1);
            book.arm(slot)
        })
    }

    /// The timer `arm_id` ran out: whether to notify now (then the period counts as
    /// notified). False when it was cancelled or replaced meanwhile.
    pub fn due(&self, session_id: &str, arm_id: u64) -> bool {
        self.with(session_id, |slot, _| {
            if slot.attached > 0 {
                return false;
            }
            let Some(period) = slot.idle.as_mut() else {
                return false;
            };
            if period.notified || period.armed.as_ref().is_none_or(|a| a.id != arm_id) {
                return false;
            }
            period.armed = None;
            period.notified = true;
            true
        })
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A client attached to a session's events, until dropped (see
/// `Engine::attach_client`).
pub struct Attached {
    engine: Arc<Engine>,
    session_id: String,
}

impl Drop for Attached {
    fn drop(&mut self) {
        if let Some(arm) = self.engine.idle.detach(&self.session_id) {
            self.engine.start_idle_timer(&self.session_id, arm);
        }
    }
}

impl Engine {
    /// The session's turns ended and its agent waits for the user (call under the
    /// session's state lock, as `session_busy` is: their order is the turns' order).
    pub(super) fn session_went_idle(self: &Arc<Self>, session_id: &str) {
        if let Some(arm) = self.idle.idle(session_id) {
            self.start_idle_timer(session_id, arm);
        }
    }

    /// A turn of the session starts: no idle notification for the period it ends.
    pub(super) fn session_busy(&self, session_id: &str) {
        self.idle.busy(session_id);
    }

    /// A client follows `session_id`'s events until the guard is dropped; meanwhile the
    /// session is not notified as idle.
    pub fn attach_client(self: &Arc<Self>, session_id: &str) -> Attached {
        self.idle.attach(session_id);
        Attached {
            engine: Arc::clone(self),
            session_id: session_id.to_string(),
        }
    }

    fn start_idle_timer(self: &Arc<Self>, session_id: &str, arm: Arm) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!(session = %session_id, "no runtime: no idle notification");
            return;
        };
        let engine = Arc::clone(self);
        let session_id = session_id.to_string();
        runtime.spawn(async move { engine.idle_timer(session_id, arm).await });
    }

    /// Sleeps the session's `notifications.idle_after_ms` unless cancelled, then fires
    /// its `notification` hooks with `idle_prompt` if the period is still due.
    async fn idle_timer(self: Arc<Self>, session_id: String, arm: Arm) {
        let row = match self.resolve(&session_id).await {
            Ok(row) => row,
            Err(e) => {
                tracing::debug!(session = %session_id, "no idle notification: {e}");
                self.idle.due(&session_id, arm.id);
                return;
            }
        };
        if row.kind != SessionKind::Main {
            // A sub-agent or a teammate waits for its parent or lead, not for the user.
            self.idle.due(&session_id, arm.id);
            return;
        }
        let delay = match self.config(Path::new(&row.root)) {
            Ok(config) => config.idle_notify_after(),
            Err(e) => {
                tracing::warn!(session = %session_id, "idle notification after the default delay: {e}");
                crate::config::Config::default().idle_notify_after()
            }
        };
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = arm.cancel.cancelled() => return,
        }
        if !self.idle.due(&session_id, arm.id) {
            return;
        }
        // Read again: the mode may have changed while the agent waited.
        let row = match self.resolve(&session_id).await {
            Ok(row) => row,
            Err(e) => {
                tracing::debug!(session = %session_id, "no idle notification: {e}");
                return;
            }
        };
        let env = self.client_env(&session_id).await;
        let hooks = self.session_hooks(&row, &env).await;
        if !hooks.listens(HookEvent::Notification) {
            return;
        }
        let input = HookInput::notification(
            hooks.context(),
            IDLE_MESSAGE,
            Some(HookInput::IDLE_PROMPT.to_string()),
        );
        tracing::info!(session = %session_id, "idle with nobody attached: notifying");
        let fired = hooks.fire(&self.hook_results, &input).await;
        for e in fired.errors() {
            tracing::warn!(session = %session_id, "{e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed(arm: Option<Arm>) -> Arm {
        arm.expect("a timer is armed")
    }

    #[test]
    fn an_unwatched_session_is_notified_once_per_idle_period() {
        let book = IdleBook::default();
        let arm = armed(book.idle("s"));
        assert!(book.due("s", arm.id));
        assert!(!book.due("s", arm.id), "once");
        assert!(book.detach("s").is_none(), "nothing left to notify");
        assert_eq!(book.tracked(), 0, "a notified period is forgotten");

        book.busy("s");
        let again = armed(book.idle("s"));
        assert!(book.due("s", again.id), "the next period is notified too");
    }

    #[test]
    fn a_session_watched_when_it_goes_idle_is_armed_when_its_client_leaves() {
        let book = IdleBook::default();
        book.attach("s");
        assert!(book.idle("s").is_none(), "a client is attached");
        let arm = armed(book.detach("s"));
        assert!(!arm.cancel.is_cancelled());
        assert!(book.due("s", arm.id));
    }

    #[test]
    fn attaching_before_the_delay_cancels_the_timer() {
        let book = IdleBook::default();
        let arm = armed(book.idle("s"));
        book.attach("s");
        assert!(arm.cancel.is_cancelled());
        assert!(!book.due("s", arm.id), "a late timer does not notify");
        // Two clients: only the last one leaving arms it again, with a new timer.
        book.attach("s");
        assert!(book.detach("s").is_none(), "one is still attached");
        let again = armed(book.detach("s"));
        assert_ne!(again.id, arm.id);
        assert!(!book.due("s", arm.id), "the old timer is not the armed one");
        assert!(book.due("s", again.id));
    }

    #[test]
    fn a_new_turn_cancels_the_timer_and_a_busy_session_is_never_due() {
        let book = IdleBook::default();
        let arm = armed(book.idle("s"));
        book.busy("s");
        assert!(arm.cancel.is_cancelled());
        assert!(!book.due("s", arm.id));
        book.attach("s");
        assert!(
            book.detach("s").is_none(),
            "a busy session waits for nobody"
        );
        assert_eq!(book.tracked(), 0);
    }

    #[test]
    fn going_idle_again_replaces_the_armed_timer() {
        let book = IdleBook::default();
        let first = armed(book.idle("s"));
        let second = armed(book.idle("s"));
        assert!(first.cancel.is_cancelled());
        assert!(!book.due("s", first.id));
        assert!(book.due("s", second.id));
    }

    #[test]
    fn sessions_are_apart() {
        let book = IdleBook::default();
        book.attach("watched");
        assert!(book.idle("watched").is_none());
        let other = armed(book.idle("other"));
        assert!(book.due("other", other.id));
        assert!(!book.due("watched", other.id));
    }
}
