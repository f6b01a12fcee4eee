//! Accepting messages and running turns: a message starts a turn, or waits in the
//! session's queue behind the running one; one task per session runs turns until the
//! queue is empty. Cancel interrupts the running turn.

use std::path::Path;
use std::sync::Arc;

use roocode_protocol::event::EventPayload;
use roocode_protocol::session::{ClientEnv, SendParams, SendResponse};

use super::children::SlotGuard;
use super::runtime::{Queued, Running, SessionRuntime};
use super::{AgentError, Engine, turn};
use crate::store::InjectionKind;
use crate::tools::turn_scope::TurnScope;

impl Engine {
    /// Accepts a user message: starts a turn, or queues it behind the running one.
    /// Skills activated at its start (`|name|`) come with it (see `agent::skills`).
    pub async fn send(
        self: &Arc<Self>,
        mut params: SendParams,
    ) -> Result<SendResponse, AgentError> {
        if params.text.trim().is_empty() {
            return Err(AgentError::Invalid("the message is empty".into()));
        }
        let row = self.resolve(&params.session_id).await?;
        let mut extra = self.prompt_hooks(&row, &params).await?;
        let activated = self.activate(&row, &params.env, &params.text).await?;
        if let Some(looping) = &activated.looping {
            let told = self
                .start_loop(&row, &params.env, looping, &activated.text)
                .await?;
            params.text = activated.text;
            extra.push((InjectionKind::Workflow, told));
            return self.enqueue(params, None, extra).await;
        }
        if let Some(skills) = activated.skills {
            self.activate_functions(&row, skills, &activated.functions)
                .await?;
        }
        params.text = activated.text;
        let mut injections: Vec<(InjectionKind, String)> = activated
            .injections
            .into_iter()
            .map(|text| (InjectionKind::Skill, text))
            .collect();
        injections.append(&mut extra);
        self.enqueue(params, activated.scope, injections).await
    }

    /// The `user_prompt_submit` hooks of a message: an error when one blocks it, else
    /// the context they add (delivered with it).
    async fn prompt_hooks(
        &self,
        row: &crate::store::SessionRow,
        params: &SendParams,
    ) -> Result<Vec<(InjectionKind, String)>, AgentError> {
        let hooks = self.session_hooks(row, &params.env).await;
        if !hooks.listens(crate::hooks::HookEvent::UserPromptSubmit) {
            return Ok(Vec::new());
        }
        let input = crate::hooks::HookInput::user_prompt_submit(hooks.context(), &params.text);
        let fired = hooks.fire(&self.hook_results, &input).await;
        for e in fired.errors() {
            tracing::warn!(session = %row.id, "{e}");
        }
        if let Some(reason) = fired.refusal() {
            return Err(AgentError::Invalid(format!(
                "a user_prompt_submit hook blocked the message: {reason}"
            )));
        }
        Ok(fired
            .context()
            .into_iter()
            .map(|text| (InjectionKind::Hook, text))
            .collect())
    }

    /// [`Engine::send`] for a slash command: `scope` (its tools, rules, model) holds
    /// for the rest of the turn the message is delivered in.
    pub async fn send_scoped(
        self: &Arc<Self>,
        params: SendParams,
        scope: Option<TurnScope>,
    ) -> Result<SendResponse, AgentError> {
        self.enqueue(params, scope, Vec::new()).await
    }

    /// Queues the message with its `scope`, and what comes with it (the skills it
    /// activated, its hooks' context) in the agent's inbox, delivered with it; then
    /// starts a turn if none runs.
    async fn enqueue(
        self: &Arc<Self>,
        params: SendParams,
        scope: Option<TurnScope>,
        injections: Vec<(InjectionKind, String)>,
    ) -> Result<SendResponse, AgentError> {
        let scope = scope.filter(|s| !s.is_empty());
        let text = params.text.trim_end().to_string();
        if text.trim().is_empty() {
            return Err(AgentError::Invalid("the message is empty".into()));
        }
        let id = self.apply_send_settings(&params).await?;
        let rt = self.runtime(&id).await?;
        let input_id = uuid::Uuid::now_v7().to_string();
        let mut state = rt.state.lock().await;
        state.env = params.env;
        // Under the state lock: a running turn reads its queue and inbox together.
        for (kind, text) in &injections {
            self.store.queue_injection(&id, *kind, text).await?;
        }
        let stored_scope = scope.as_ref().map(TurnScope::to_json);
        self.store
            .queue_input(&id, &input_id, &text, stored_scope.as_deref())
            .await?;
        state.queue.push_back(Queued {
            input_id: input_id.clone(),
            text: text.clone(),
            scope,
        });
        if state.running.is_some() {
            let queued = EventPayload::MessageQueued {
                input_id: input_id.clone(),
                text,
            };
            self.events.append(&id, &id, queued).await?;
            return Ok(SendResponse {
                input_id,
                turn_id: None,
                queued: true,
            });
        }
        let running = Running::new(uuid::Uuid::now_v7().to_string());
        let turn_id = running.turn_id.clone();
        self.begin_turn(&id, &running).await?;
        state.running = Some(running);
        drop(state);
        self.spawn_turns(rt, None);
        Ok(SendResponse {
            input_id,
            turn_id: Some(turn_id),
            queued: false,
        })
    }

    /// The model and mode a message asks for, its model and key checked (so a missing
    /// key is a clear error at once), and the session's title; returns the session id.
    async fn apply_send_settings(&self, params: &SendParams) -> Result<String, AgentError> {
        let row = self.resolve(&params.session_id).await?;
        let id = row.id.clone();
        if let Some(model) = &params.model
            && *model != row.model
        {
            self.set_model(&id, model).await?;
        }
        if let Some(mode) = &params.mode
            && *mode != row.mode.as_str()
        {
            self.set_mode(&id, mode).await?;
        }
        let row = self.resolve(&id).await?;
        let config = self.config(Path::new(&row.root))?;
        crate::llm::resolve_model(&row.model, &params.env, &config, &self.http)
            .map_err(|e| AgentError::Config(e.to_string()))?;
        if row.title.is_empty() {
            let title = title_of(params.text.trim_end());
            self.store.set_session_title(&id, &title).await?;
        }
        Ok(id)
    }

    async fn begin_turn(&self, session_id: &str, running: &Running) -> Result<(), AgentError> {
        self.session_busy(session_id);
        Ok(self.store.begin_turn(&running.turn_id, session_id).await?)
    }

    /// Starts a turn on the session unless one is running (it will see what is due);
    /// returns whether it started one. `slot` (a background agent's) is held until
    /// the session's turns end.
    pub(super) async fn start_turn_if_idle(
        self: &Arc<Self>,
        rt: Arc<SessionRuntime>,
        slot: Option<SlotGuard>,
    ) -> Result<bool, AgentError> {
        let mut state = rt.state.lock().await;
        if state.running.is_some() {
            return Ok(false);
        }
        if state.env.vars.is_empty() {
            // A turn the daemon starts (a notification, a resumed agent) before any client
            // sent this session its environment since the daemon started: the daemon's
            // own, which is its starting terminal's (keys stay in memory either way).
            tracing::info!(session = %rt.id, "no client environment yet: using the daemon's");
            state.env = ClientEnv::capture();
        }
        let running = Running::new(uuid::Uuid::now_v7().to_string());
        self.begin_turn(&rt.id, &running).await?;
        state.running = Some(running);
        drop(state);
        self.spawn_turns(rt, slot);
        Ok(true)
    }

    /// Something was queued in the agent's inbox: an idle agent starts a turn (which
    /// delivers it); a running one sees it before its next model call, or runs one more
    /// turn if it was ending.
    pub async fn wake(self: &Arc<Self>, session_id: &str) -> Result<(), AgentError> {
        if self.is_teammate(session_id).await? {
            return self.wake_teammate(session_id).await;
        }
        let rt = self.runtime(session_id).await?;
        let idle = {
            let mut state = rt.state.lock().await;
            state.woken = true;
            state.running.is_none()
        };
        if idle {
            tracing::info!(session = %session_id, "woken by its inbox");
            self.start_turn_if_idle(rt, None).await?;
        }
        Ok(())
    }

    /// Runs turns on the session until its queue and inbox are empty; then, for a
    /// sub-agent, its run is over.
    fn spawn_turns(self: &Arc<Self>, rt: Arc<SessionRuntime>, slot: Option<SlotGuard>) {
        let engine = self.clone();
        self.tasks.spawn(async move {
            loop {
                turn::run(&engine, &rt).await;
                let mut state = rt.state.lock().await;
                let stopping = state.running.as_ref().is_some_and(Running::was_interrupted);
                if stopping {
                    // The daemon is stopping: queued messages stay stored for later.
                    state.running = None;
                    break;
                }
                // Woken while the turn ran: another turn only if its inbox still holds
                // something (the turn may have delivered it already).
                if state.woken && state.queue.is_empty() {
                    state.woken = engine
                        .store
                        .has_queued_injections(&rt.id)
                        .await
                        .unwrap_or(true);
                }
                if state.queue.is_empty() && !state.woken {
                    state.running = None;
                    engine.session_went_idle(&rt.id);
                    drop(state);
                    if let Err(e) = engine.finish_idle(&rt.id).await {
                        tracing::error!(session = %rt.id, "cannot mark the session idle: {e}");
                    }
                    break;
                }
                // Messages queued while the turn ended start the next turn at once.
                let next = Running::new(uuid::Uuid::now_v7().to_string());
                if let Err(e) = engine.begin_turn(&rt.id, &next).await {
                    tracing::error!(session = %rt.id, "cannot start the next turn: {e}");
                    state.running = None;
                    break;
                }
                state.running = Some(next);
            }
            drop(slot);
            rt.turn_ended.notify_waiters();
            engine.child_ended(&rt.id).await;
        });
    }

    async fn finish_idle(&self, id: &str) -> Result<(), AgentError> {
        self.store.settle_session(id).await?;
        Ok(())
    }

    /// Interrupts the running turn. Returns whether one was running.
    pub async fn cancel(&self, id: &str) -> Result<bool, AgentError> {
        let row = self.resolve(id).await?;
        // A replay's cancel ends the replay too: no further recorded message is sent.
        let replay_stopped = self.replays.cancel(&row.id);
        let Some(rt) = self.runtimes.get(&row.id) else {
            return Ok(replay_stopped);
        };
        let state = rt.state.lock().await;
        match &state.running {
            Some(running) => {
                tracing::info!(session = %row.id, turn = %running.turn_id, "cancel requested");
                running.cancel.cancel();
                Ok(true)
            }
            None => Ok(replay_stopped),
        }
    }

    /// The in-memory side of a session, created on first use with its stored queue.
    pub(super) async fn runtime(&self, id: &str) -> Result<Arc<SessionRuntime>, AgentError> {
        Ok(self.runtimes.load(&self.store, id).await?)
    }

    /// The environment the session's client sent last.
    pub(super) async fn env_of(&self, rt: &SessionRuntime) -> ClientEnv {
        rt.state.lock().await.env.clone()
    }

    /// The environment the session's client sent last (empty when none has yet).
    pub async fn client_env(&self, session_id: &str) -> ClientEnv {
        match self.runtimes.get(session_id) {
            Some(rt) => self.env_of(&rt).await,
            None => ClientEnv::default(),
        }
    }
}

/// A session title from its first prompt: the first line, at most 60 characters.
fn title_of(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut title: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        title.push('…');
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_line() {
        assert_eq!(title_of("\n  fix the test\nplease"), "fix the test");
        assert_eq!(title_of(&"x".repeat(70)).chars().count(), 61);
    }
}
