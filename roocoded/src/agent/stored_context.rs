//! Rewrites of a session's stored model context outside a turn (`/clear`, recovery,
//! `session.import`), kept in step with the copy its runtime caches (see
//! `SessionRuntime::context` for the locking rule).

use roocode_protocol::content::Message;
use roocode_protocol::event::EventPayload;

use super::{AgentError, Engine};
use crate::context::budget::EstimatedContext;

impl Engine {
    /// Empties the model context (`/clear`); refused while a turn runs. A running turn
    /// holds the cached context, so holding it here (not just checking `running`, then
    /// rewriting) keeps a turn that starts meanwhile from being wiped when it ends; that
    /// turn waits and starts from the cleared context.
    pub async fn clear_context(&self, id: &str) -> Result<(), AgentError> {
        let busy = || AgentError::Busy("clear the context".into());
        match self.runtimes.get(id) {
            Some(rt) => {
                let mut cached = rt.context.try_lock().map_err(|_| busy())?;
                if rt.state.lock().await.running.is_some() {
                    return Err(busy());
                }
                *cached = None;
                self.store.replace_context(id, &[]).await?;
                *cached = Some(EstimatedContext::new(Vec::new()));
                // The next turn tells the model its skills again.
                rt.skills_told.forget();
            }
            None => self.store.replace_context(id, &[]).await?,
        }
        self.events
            .append(id, id, EventPayload::ContextCleared)
            .await?;
        if let Some(row) = self.store.session(id).await? {
            use crate::hooks::{HookInput, SessionSource};
            let env = self.client_env(id).await;
            self.session_event(&row, &env, |c| HookInput::session_end(c, "clear"))
                .await;
            self.session_event(&row, &env, |c| {
                HookInput::session_start(c, SessionSource::Clear)
            })
            .await;
        }
        Ok(())
    }

    /// Replaces the session's stored context outside a turn, and its cached copy with
    /// it (waiting for a turn that holds the copy to end).
    pub(super) async fn rewrite_context(
        &self,
        id: &str,
        messages: Vec<Message>,
    ) -> Result<(), AgentError> {
        let Some(rt) = self.runtimes.get(id) else {
            self.store.replace_context(id, &messages).await?;
            return Ok(());
        };
        let mut cached = rt.context.lock().await;
        // Emptied first: if the write fails, the next turn reloads what the store has.
        *cached = None;
        self.store.replace_context(id, &messages).await?;
        *cached = Some(EstimatedContext::new(messages));
        rt.skills_told.forget();
        Ok(())
    }

    /// Drops the session's cached context, so that its next turn reloads it from the
    /// store. Call it after rewriting a session's stored context from outside the
    /// agent loop (`session.import`). It waits for a running turn to end: that turn
    /// holds the cache and would otherwise put its stale copy back.
    pub async fn forget_cached_context(&self, id: &str) {
        if let Some(rt) = self.runtimes.get(id) {
            *rt.context.lock().await = None;
        }
    }
}
