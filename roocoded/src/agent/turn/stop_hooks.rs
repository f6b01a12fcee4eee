//! Bounded continuation (rolebox's auto-continue through `stop` hooks, issue 14 item
//! 5): when the agent answers without a tool call, its `stop` hooks (`subagent_stop`
//! for a sub-agent or teammate) may send it back to work in the same turn — at most
//! `continuation.max_per_message` times (default 5) per genuine user message and
//! `continuation.max_per_session` (default 25) in the session, the last one marked
//! `FINAL`, and never while the session's background agents still run. The counters
//! reset only when a user's own message is delivered; the reminder a continuation
//! sends is an injection, not a user message.

use std::sync::PoisonError;

use roocode_protocol::agents::AgentState;

use super::super::settings::TurnSettings;
use super::Turn;
use crate::agent::AgentError;
use crate::hooks::{HookEvent, HookInput};

/// The line that marks the last continuation allowed.
pub const FINAL_MARK: &str = "FINAL: this is the last continuation";

impl Turn<'_> {
    /// The agent stopped: whether its stop hooks sent it back to work (the reason
    /// is then delivered into its context).
    pub(super) async fn continue_by_hooks(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<bool, AgentError> {
        let Some(hooks) = self.hooks.clone() else {
            return Ok(false);
        };
        let child = self.child.is_some();
        let event = if child {
            HookEvent::SubagentStop
        } else {
            HookEvent::Stop
        };
        if !hooks.listens(event) {
            return Ok(false);
        }
        let active = self.continued > 0;
        let input = if child {
            HookInput::subagent_stop(hooks.context(), active)
        } else {
            HookInput::stop(hooks.context(), active)
        };
        let fired = hooks.fire(&self.engine.hook_results, &input).await;
        for e in fired.errors() {
            self.notice("hook_failed", e).await?;
        }
        let Some(reason) = fired.refusal() else {
            return Ok(false);
        };
        let max_message = settings.config.max_continuations_per_message();
        let max_session = settings.config.max_continuations_per_session();
        if self.background_agents_run().await? {
            let message = "a stop hook asked the agent to go on, but the session's background agents are still running: their results come first".to_string();
            self.notice("continuation_skipped", message).await?;
            return Ok(false);
        }
        let Some((n, total)) = self.take_continuation(max_message, max_session) else {
            let message = format!(
                "a stop hook asked the agent to go on, but it already went on {max_message} time(s) for this message or {max_session} in this session (continuation.max_per_message, continuation.max_per_session)"
            );
            self.notice("continuation_limit", message).await?;
            return Ok(false);
        };
        let last = n >= max_message || total >= max_session;
        let mut text = format!(
            "A stop hook sent you back to work (continuation {n} of at most {max_message} for this message): {reason}"
        );
        if last {
            text.push('\n');
            text.push_str(FINAL_MARK);
        }
        tracing::info!(continuation = n, total, "a stop hook continues the turn");
        self.engine
            .queue_hook_texts(self.id(), std::slice::from_ref(&text))
            .await?;
        self.deliver_injections().await?;
        self.continued += 1;
        Ok(true)
    }

    /// Counts one more continuation for the message and the session, and returns the
    /// two counts; `None` when either limit is reached (nothing counted).
    pub(super) fn take_continuation(
        &self,
        max_message: u32,
        max_session: u32,
    ) -> Option<(u32, u32)> {
        let mut counts = self
            .rt
            .continuations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let room = counts.0 < max_message && counts.1 < max_session;
        if room {
            counts.0 += 1;
            counts.1 += 1;
        }
        room.then_some(*counts)
    }

    /// Whether a background agent of this session is still at work.
    pub(super) async fn background_agents_run(&self) -> Result<bool, AgentError> {
        let children = self.engine.store().children(self.id()).await?;
        Ok(children.iter().any(|c| {
            c.background
                && matches!(
                    c.state,
                    AgentState::Queued | AgentState::Running | AgentState::Waiting
                )
        }))
    }

    /// A user's own message was delivered: the per-message count starts over.
    pub(super) fn reset_continuations(&self) {
        self.rt
            .continuations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0 = 0;
    }
}
