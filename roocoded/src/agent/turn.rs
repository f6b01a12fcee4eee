//! The agent loop of one turn (DESIGN.md §5): deliver queued messages, call the model,
//! run the tools it asks for, repeat until it answers without tools, the user cancels,
//! `max_turns` iterations pass, or it keeps calling tools that do not exist.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::event::{ErrorInfo, EventPayload, StopReason};
use roocode_protocol::session::SessionStatus;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::children::ChildSpec;
use super::runtime::SessionRuntime;
use super::settings::{Sources, TurnSettings};
use super::turn_config::TurnConfig;
use super::{AgentError, Engine, executor};
use crate::context::budget::{Budget, EstimatedContext, estimate_tokens};
use crate::context::chain;
use crate::llm::{ModelRequest, ModelResponse, ModelStopReason};
use crate::store::{
    ContextWrite, Delivered, Delivery, InjectionKind, MailRow, SessionRow, StoreError, TurnState,
};
use roocode_protocol::session::SessionKind;

/// Most mail read into the context in one iteration (the rest waits for the next).
pub(crate) const MAIL_PER_ITERATION_BYTES: usize = 200_000;

mod config_change;
mod model_call;
mod request;
mod stop_hooks;
mod window;

/// Result text given to tool calls a user interrupt left without one.
pub const INTERRUPTED_BY_USER: &str = "Interrupted by user: this tool call did not complete.";

type TurnEnd = (StopReason, Option<ErrorInfo>);

/// The turn's one re-send after a context-overflow error stated a smaller window (the
/// recovery engine will own retries; until then: learn, compact, send again once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WindowRetry {
    Unused,
    /// The last call failed and taught the window: the next iteration sends again.
    Pending,
    Used,
}

fn ended(stop: StopReason, kind: &str, message: impl Into<String>) -> TurnEnd {
    (
        stop,
        Some(ErrorInfo {
            kind: kind.into(),
            message: message.into(),
        }),
    )
}

/// Runs the session's current turn to its end and records how it ended.
pub(super) async fn run(engine: &Arc<Engine>, rt: &Arc<SessionRuntime>) {
    let (turn_id, cancel, interrupted) = {
        let state = rt.state.lock().await;
        match &state.running {
            Some(r) => (r.turn_id.clone(), r.cancel.clone(), r.interrupted.clone()),
            None => return,
        }
    };
    let span = tracing::info_span!("turn", session = %rt.id, turn = %turn_id);
    // Held to the end of the turn: nothing else reads the cached context or rewrites
    // the stored one meanwhile (see `SessionRuntime::context`).
    let mut cached = rt.context.lock().await;
    let mut turn = Turn {
        engine,
        rt,
        turn_id: &turn_id,
        cancel,
        context: EstimatedContext::default(),
        budget: None,
        reminder: None,
        iterations: 0,
        recorded: (TurnState::Requesting, 0),
        session: None,
        unknown_streak: 0,
        child: None,
        hooks: None,
        continued: 0,
        window_retry: WindowRetry::Unused,
    };
    let result = turn.run(cached.take()).instrument(span.clone()).await;
    if result.is_ok() {
        // Every store write of the turn succeeded, so its context is the stored one.
        // After an error the next turn reloads it.
        *cached = Some(std::mem::take(&mut turn.context));
    }
    drop(cached);
    // What the turn's commands and skills set ends with it.
    rt.scopes.clear();
    let (mut stop, error) = match result {
        Ok(end) => end,
        Err(e) => {
            tracing::error!(parent: &span, "turn failed: {e}");
            ended(StopReason::Error, "internal", e.to_string())
        }
    };
    if stop == StopReason::Cancelled && interrupted.load(Ordering::SeqCst) {
        stop = StopReason::Interrupted;
    }
    let store = engine.store();
    let err_text = error.as_ref().map(|e| e.message.as_str());
    if let Err(e) = store.finish_turn(&turn_id, stop, err_text).await {
        tracing::error!(parent: &span, "cannot record the end of the turn: {e}");
    }
    if stop == StopReason::Interrupted
        && let Err(e) = store
            .set_session_status(&rt.id, SessionStatus::Interrupted, None)
            .await
    {
        tracing::error!(parent: &span, "cannot mark the session interrupted: {e}");
    }
    let done = EventPayload::TurnCompleted {
        turn_id: turn_id.clone(),
        stop_reason: stop,
        error,
    };
    if let Err(e) = engine.events().append(&rt.id, &rt.id, done).await {
        tracing::error!(parent: &span, "cannot record turn_completed: {e}");
    }
    tracing::info!(parent: &span, stop_reason = stop.as_str(), "turn completed");
}

struct Turn<'a> {
    engine: &'a Arc<Engine>,
    rt: &'a Arc<SessionRuntime>,
    turn_id: &'a str,
    cancel: CancellationToken,
    /// The model context, mirrored in the store message by message; every change to
    /// it is written to the store before the turn goes on.
    context: EstimatedContext,
    /// Exact usage of the last call plus an estimate of what was added since.
    budget: Option<Budget>,
    /// Instruction files and the memory index, read once at the start of the turn.
    reminder: Option<String>,
    /// Model calls with tool use so far (`max_turns` counts them).
    iterations: u32,
    /// The state and iterations the turn's row holds (a new turn's row: requesting, 0).
    recorded: (TurnState, u32),
    /// The session's row as the turn's start read it, for its first iteration (later
    /// ones read it again: its mode and model may change).
    session: Option<SessionRow>,
    /// Calls of unknown or disabled tools in a row.
    unknown_streak: u32,
    /// The sub-agent this session runs, if it is one (read at the start of the turn).
    child: Option<ChildSpec>,
    /// The hooks of the turn, read at its start.
    hooks: Option<Arc<super::hooks::SessionHooks>>,
    /// Times a `stop` hook sent the agent back to work in this turn.
    continued: u32,
    /// The one re-send of the turn after an overflow error taught a smaller window.
    window_retry: WindowRetry,
}

impl Turn<'_> {
    fn id(&self) -> &str {
        &self.rt.id
    }

    async fn emit(&self, payload: EventPayload) -> Result<(), AgentError> {
        self.engine
            .events()
            .append(self.id(), self.id(), payload)
            .await?;
        Ok(())
    }

    /// Records the turn's state, unless its row says so already.
    async fn record_state(&mut self, state: TurnState) -> Result<(), AgentError> {
        if self.recorded != (state, self.iterations) {
            self.engine
                .store()
                .set_turn_state(self.turn_id, state, self.iterations)
                .await?;
            self.recorded = (state, self.iterations);
        }
        Ok(())
    }

    /// Runs the turn from `cached`, the context the previous turn left, if any
    /// (loaded from the store otherwise).
    async fn run(&mut self, cached: Option<EstimatedContext>) -> Result<TurnEnd, AgentError> {
        let live = match self.start(cached).await? {
            Ok(live) => live,
            Err(end) => return Ok(end),
        };
        // Woken with nothing new to read (another turn delivered it): nothing to say.
        if self.context.last().is_none_or(|m| m.role != Role::User) {
            return Ok((StopReason::EndTurn, None));
        }
        loop {
            let settings = match self.settings(live.as_ref()).await? {
                Ok(settings) => settings,
                Err(end) => return Ok(end),
            };
            if let Some(end) = self.iteration(&settings).await? {
                return Ok(end);
            }
        }
    }

    /// Loads the context, delivers the queued messages and reads the configuration
    /// the turn runs with (once per turn, see `TurnConfig`); `None` when the session
    /// is gone.
    async fn start(
        &mut self,
        cached: Option<EstimatedContext>,
    ) -> Result<Result<Option<TurnConfig>, TurnEnd>, AgentError> {
        let store = self.engine.store();
        self.context = match cached {
            Some(context) => context,
            None => EstimatedContext::new(store.context(self.id()).await?),
        };
        self.ensure_valid_chain().await?;
        self.deliver_queued().await?;
        let mut live = None;
        if let Some(row) = store.session(self.id()).await? {
            if matches!(row.kind, SessionKind::SubAgent | SessionKind::Teammate) {
                if let Some(spec) = self.rt.child_spec.get() {
                    self.child = Some(spec.clone());
                } else if let Some(agent) = store.agent(self.id()).await? {
                    match ChildSpec::from_json(&agent.spec) {
                        Ok(spec) => {
                            self.child = Some(self.rt.child_spec.get_or_init(|| spec).clone())
                        }
                        Err(e) => {
                            let message = format!("the sub-agent's stored spec is corrupt: {e}");
                            return Ok(Err(ended(StopReason::Error, "internal", message)));
                        }
                    }
                }
            }
            self.reminder = self.engine.session_reminder(&row);
            self.session = Some(row.clone());
            match TurnConfig::load(&self.engine.paths.user_dir, Path::new(&row.root)) {
                Ok(config) => {
                    let refused = self.rt.refused_config.lock().map(|mut r| r.take());
                    live = Some(match refused.ok().flatten() {
                        Some(refused) => config.resume(refused),
                        None => config,
                    });
                }
                Err(e) => return Ok(Err(ended(StopReason::Error, "config", e.to_string()))),
            }
            if let Some(config) = &live {
                let env = self.engine.env_of(self.rt).await;
                let now = config.get();
                let hooks = self.engine.session_hooks(&row, &env).await;
                if !hooks.unapproved.is_empty()
                    && !self.rt.hooks_unapproved_told.swap(true, Ordering::SeqCst)
                {
                    let n = hooks.unapproved.len();
                    tracing::warn!(session = %row.id, count = n, "project hooks not approved");
                    self.notice(
                        "hooks_not_approved",
                        format!(
                            "{n} hook(s) of this project's files (shared or local) do not run until you approve them: roocode-cli hooks list shows them, roocode-cli hooks approve runs them"
                        ),
                    )
                    .await?;
                }
                self.hooks = Some(hooks);
                // The first turn after a restart resumes the session.
                if row.kind == SessionKind::Main
                    && !self.rt.session_started.swap(true, Ordering::SeqCst)
                {
                    self.engine
                        .session_event(&row, &env, |c| {
                            crate::hooks::HookInput::session_start(
                                c,
                                crate::hooks::SessionSource::Resume,
                            )
                        })
                        .await;
                }
                let mcp = self.engine.mcp_turn_start(&row, &env, &now).await;
                self.reminder = join_reminders(self.reminder.take(), mcp);
                let told = &self.rt.skills_told;
                // The skill listing and what `session_start` hooks added, before the
                // first model call.
                self.engine
                    .skills_turn_start(&row, told, &env, &now)
                    .await?;
                self.deliver_inbox(false).await?;
            }
        }
        self.emit(EventPayload::TurnStarted {
            turn_id: self.turn_id.to_string(),
        })
        .await?;
        super::sandbox_notice::announce(self.engine, self.rt).await;
        Ok(Ok(live))
    }

    /// The settings of the next iteration: the queued messages delivered, the session
    /// read again (its mode and model may have changed), config changes made since
    /// acted on, the model resolved. `Err` ends the turn.
    async fn settings<'t>(
        &mut self,
        live: Option<&'t TurnConfig>,
    ) -> Result<Result<TurnSettings<'t>, TurnEnd>, AgentError> {
        let deleted = || ended(StopReason::Error, "internal", "the session was deleted");
        if self.cancel.is_cancelled() {
            return self.cancelled().await.map(Err);
        }
        if self.iterations > 0 {
            self.deliver_queued().await?;
        }
        let row = match self.session.take() {
            Some(row) => Some(row),
            None => self.engine.store().session(self.id()).await?,
        };
        let (Some(row), Some(live)) = (row, live) else {
            return Ok(Err(deleted()));
        };
        let mode = row.mode;
        if !self.recheck_config(mode, live).await? {
            return self.cancelled().await.map(Err);
        }
        let sources = Sources {
            env: self.engine.env_of(self.rt).await,
            tools: self.engine.session_tools(&row.id),
            deferral: self.engine.mcp_deferral(&row.id),
            plan_file: self.engine.plan_file(&row.id),
            user_dir: &self.engine.paths.user_dir,
            http: &self.engine.http,
            scope: crate::tools::turn_scope::combine(&self.rt.scopes.current()),
            hooks: self.hooks.clone(),
        };
        let mut built = TurnSettings::for_agent(row, self.child.as_ref(), live, sources)
            .map_err(|e| ended(StopReason::Error, e.kind(), e.to_string()));
        if let Ok(settings) = &mut built {
            // A local server's window, asked once per endpoint and model (bounded; a
            // server that does not say leaves the table's window).
            let knob = settings.env.get("ROOCODE_WINDOW_DISCOVERY_MS");
            if let Some(timeout) = crate::llm::discovery_timeout(knob) {
                crate::llm::discover_window(&mut settings.model, &self.engine.http, timeout).await;
            }
        }
        let hidden = match &built {
            Ok(settings) => settings.agent.tools.hidden(),
            Err(_) => Vec::new(),
        };
        if let Some(text) = self.engine.mcp_announcement(self.id(), &hidden) {
            self.engine
                .store()
                .queue_injection(self.id(), InjectionKind::DeferredTools, &text)
                .await?;
            self.deliver_injections().await?;
        }
        Ok(built)
    }

    /// One model call and the tools it asks for; `Some` when the turn ends.
    async fn iteration(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<Option<TurnEnd>, AgentError> {
        self.manage_context(settings).await?;
        let response = match self.ask_model(settings).await? {
            Ok(response) => response,
            Err(_) if self.window_retry == WindowRetry::Pending => {
                // The next iteration's settings budget with the learned window, so
                // `manage_context` compacts before the re-send.
                self.window_retry = WindowRetry::Used;
                return Ok(None);
            }
            Err(end) => return Ok(Some(end)),
        };
        let calls: Vec<executor::Call> = response
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, name, input } => Some(executor::Call {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                }),
                _ => None,
            })
            .collect();
        if calls.is_empty() {
            if response.stop_reason != ModelStopReason::MaxTokens
                && self.continue_by_hooks(settings).await?
            {
                return Ok(None);
            }
            return Ok(Some(match response.stop_reason {
                ModelStopReason::MaxTokens => ended(
                    StopReason::MaxTokens,
                    "max_tokens",
                    "the answer reached the model's output limit (max_tokens) and was cut off",
                ),
                _ => (StopReason::EndTurn, None),
            }));
        }
        let ran = self.run_tools(settings, &calls).await?;
        if self.child.is_some() {
            self.engine.child_progress(self.id(), &calls).await;
        }
        if let Some(end) = ran {
            return Ok(Some(end));
        }
        self.iterations += 1;
        let max_turns = settings.agent.limits.max_turns;
        if self.iterations >= max_turns {
            self.emit(EventPayload::Error {
                error: ErrorInfo {
                    kind: "max_turns".into(),
                    message: format!(
                        "stopped after {max_turns} iterations (max_turns): send a message to let the agent continue, or raise max_turns in .roocode/config.yaml"
                    ),
                },
            })
            .await?;
            return Ok(Some((StopReason::MaxTurns, None)));
        }
        Ok(None)
    }

    /// Before the model call: the budget known, old results cleared or the history
    /// compacted when the window is tight, the tool calls paired.
    async fn manage_context(&mut self, settings: &TurnSettings<'_>) -> Result<(), AgentError> {
        let window = settings.model.context_window;
        // A window learned since the budget was made (an overflow error stated it).
        if self.budget.as_ref().is_some_and(|b| b.window() != window) {
            self.budget = None;
        }
        if self.budget.is_none() {
            let agent = &settings.agent;
            let defs = crate::llm::tools_for_window(
                agent.tools.defs(),
                window,
                settings.config.small_window_tokens(),
            );
            let tools = serde_json::to_string(&defs).map_or(0, |t| t.len());
            let overhead = estimate_tokens(&agent.system_prompt) + tools.div_ceil(4) as u64;
            self.budget = Some(Budget::new(window).with_overhead(overhead));
        }
        self.clear_stale_if_tight(window).await?;
        self.compact_if_full(settings).await?;
        // The provider rejects a history whose tool calls are not paired.
        if self.ensure_valid_chain().await? {
            tracing::warn!("the context needed repair before the model call");
        }
        Ok(())
    }

    /// A context-overflow error that states the server's limit teaches the window
    /// (kept for the endpoint and model: later requests budget with it); the first time
    /// in a turn that it shrinks the window, the turn sends again after compacting.
    fn learn_window(&mut self, settings: &TurnSettings<'_>, error: &crate::llm::LlmError) {
        let crate::llm::LlmError::ContextOverflow { detail, .. } = error else {
            return;
        };
        let Some(limit) = crate::llm::overflow_limit(detail) else {
            return;
        };
        let mut model = settings.model.clone();
        let shrank = limit < model.context_window;
        if crate::llm::learn_window(&mut model, limit)
            && shrank
            && self.window_retry == WindowRetry::Unused
        {
            tracing::info!(
                window = limit,
                "sending again with the learned context window"
            );
            self.window_retry = WindowRetry::Pending;
        }
    }

    /// The model call of the iteration, recorded, its answer added to the context.
    /// `Err` ends the turn (the call failed or was cancelled).
    async fn ask_model(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<Result<ModelResponse, TurnEnd>, AgentError> {
        let agent = &settings.agent;
        let model = &settings.model;
        let request_len = self.context.len();
        self.record_state(TurnState::Requesting).await?;
        let request = ModelRequest {
            model: model.model.clone(),
            system: agent.system_prompt.clone(),
            messages: request::messages(
                &self.context,
                self.reminder.as_deref(),
                agent.plan_reminder(),
            ),
            // A small window gets the tools' short descriptions.
            tools: crate::llm::tools_for_window(
                agent.tools.defs(),
                model.context_window,
                settings.config.small_window_tokens(),
            ),
            max_tokens: agent.limits.max_output_tokens,
        };
        let message_id = uuid::Uuid::now_v7().to_string();
        let span =
            tracing::info_span!("model_call", model = %agent.model, iteration = self.iterations);
        let outcome = self
            .call(model, &request, &settings.retry, &message_id)
            .instrument(span)
            .await;
        let outcome = match outcome {
            Ok(o) => o,
            Err(_) if self.cancel.is_cancelled() => return self.cancelled().await.map(Err),
            Err(e) => {
                self.record_call(settings, &message_id, None, Some(&e))
                    .await?;
                self.learn_window(settings, &e);
                return Ok(Err(ended(StopReason::Error, e.kind(), e.to_string())));
            }
        };
        self.budget
            .get_or_insert_with(|| Budget::new(model.context_window))
            .record(&outcome.response.usage, request_len);
        self.record_call(settings, &message_id, Some(&outcome), None)
            .await?;
        let response = outcome.response;
        if !response.content.is_empty() {
            self.emit(EventPayload::AssistantMessage {
                message_id: message_id.clone(),
                content: response.content.clone(),
            })
            .await?;
            self.push(Message {
                role: Role::Assistant,
                content: response.content.clone(),
            })
            .await?;
        }
        Ok(Ok(response))
    }

    /// Runs the calls and adds their results to the context; `Some` when the turn
    /// ends (cancelled, or too many unknown tools in a row).
    async fn run_tools(
        &mut self,
        settings: &TurnSettings<'_>,
        calls: &[executor::Call],
    ) -> Result<Option<TurnEnd>, AgentError> {
        self.record_state(TurnState::ExecutingTools).await?;
        let results = executor::run_calls(
            self.engine,
            self.rt,
            settings,
            self.turn_id,
            calls,
            &self.cancel,
        )
        .await?;
        for r in &results {
            self.unknown_streak = if r.unknown_tool {
                self.unknown_streak + 1
            } else {
                0
            };
        }
        self.push(Message {
            role: Role::User,
            content: results.into_iter().map(|r| r.block).collect(),
        })
        .await?;
        if self.cancel.is_cancelled() {
            return self.cancelled().await.map(Some);
        }
        if self.unknown_streak >= settings.agent.limits.max_unknown_streak {
            return Ok(Some(ended(
                StopReason::Error,
                "unknown_tool",
                "the model called tools that do not exist three times in a row, so the turn was stopped",
            )));
        }
        Ok(None)
    }

    /// Ends the turn after a cancel: every tool call gets its result (repair).
    async fn cancelled(&mut self) -> Result<TurnEnd, AgentError> {
        self.ensure_valid_chain().await?;
        Ok((StopReason::Cancelled, None))
    }

    /// Repairs the context, in memory and in the store, if its tool calls and results
    /// are not paired (calls a cancel left without results, a damaged store); returns
    /// whether it had to. Validating reads the context without copying it.
    async fn ensure_valid_chain(&mut self) -> Result<bool, AgentError> {
        if chain::validate(&self.context).is_ok() {
            return Ok(false);
        }
        self.context.rewrite(|messages| {
            chain::repair(messages, INTERRUPTED_BY_USER);
            true
        });
        self.engine
            .store()
            .replace_context(self.id(), &self.context)
            .await?;
        Ok(true)
    }

    /// Appends a message to the context and the store.
    async fn push(&mut self, msg: Message) -> Result<(), AgentError> {
        self.engine
            .store()
            .push_message(self.id(), self.context.len(), &msg, Some(self.turn_id))
            .await?;
        self.context.push(msg);
        Ok(())
    }

    /// Delivers the messages queued since the last model call. Each one's status,
    /// `user_message` event and context row commit in one transaction
    /// ([`crate::store::Store::deliver_input`]), so a crash never loses one.
    async fn deliver_queued(&mut self) -> Result<(), AgentError> {
        let mut state = self.rt.state.lock().await;
        // Taken off the in-memory queue only once stored: a failed delivery leaves the
        // message queued in both places, for the next model call to deliver.
        while let Some(q) = state.queue.front().cloned() {
            let next = self.next_user_message(vec![ContentBlock::text(q.text.clone())]);
            let write = next.write(self.context.len());
            let delivery = Delivery {
                session_id: &self.rt.id,
                item: Delivered::Input(&q.input_id),
                turn_id: self.turn_id,
                write,
            };
            let payload = EventPayload::UserMessage {
                turn_id: self.turn_id.to_string(),
                input_id: q.input_id.clone(),
                text: q.text.clone(),
            };
            match self
                .engine
                .events()
                .append_delivery(delivery, vec![payload])
                .await
            {
                Ok(_) => {}
                // Delivered before (the store is the record): never twice.
                Err(StoreError::NotQueued { input_id }) => {
                    tracing::warn!(input = %input_id, "a queued message was delivered already; skipped");
                    state.queue.pop_front();
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
            self.apply(next);
            self.reset_continuations();
            if let Some(scope) = q.scope {
                self.rt.scopes.push(scope);
            }
            state.queue.pop_front();
        }
        // Whatever is queued after this read wakes the agent again (see `wake`).
        state.woken = false;
        drop(state);
        self.deliver_injections().await
    }

    /// Delivers the agent's inbox (task notifications, recovery notes, …), in its fixed
    /// order, as one user turn of synthetic text blocks: marked delivered, recorded as
    /// `injected` events and written into the context in one transaction, so each item
    /// reaches the model exactly once, crash or not.
    async fn deliver_injections(&mut self) -> Result<(), AgentError> {
        self.deliver_inbox(true).await
    }

    /// [`Turn::deliver_injections`], the team mail left for the next iteration unless
    /// `with_mail` (an iteration reads at most `MAIL_PER_ITERATION_BYTES` of it).
    async fn deliver_inbox(&mut self, with_mail: bool) -> Result<(), AgentError> {
        let (items, mut mail) = self.engine.store().inbox(self.id()).await?;
        if !with_mail {
            mail.clear();
        }
        if items.is_empty() {
            return self.deliver_mail(mail).await;
        }
        let blocks: Vec<ContentBlock> = items
            .iter()
            .map(|i| ContentBlock::text(injected_text(i.kind, &i.text)))
            .collect();
        let next = self.next_user_message(blocks);
        let write = next.write(self.context.len());
        let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
        let delivery = Delivery {
            session_id: &self.rt.id,
            item: Delivered::Injections(&ids),
            turn_id: self.turn_id,
            write,
        };
        let payloads = items
            .iter()
            .map(|i| EventPayload::Injected {
                turn_id: self.turn_id.to_string(),
                kind: i.kind.as_str().to_string(),
                text: i.text.clone(),
            })
            .collect();
        match self
            .engine
            .events()
            .append_delivery(delivery, payloads)
            .await
        {
            Ok(_) => {}
            Err(StoreError::NotQueued { input_id }) => {
                tracing::warn!(item = %input_id, "an injection was delivered already; skipped");
                return self.deliver_mail(mail).await;
            }
            Err(e) => return Err(e.into()),
        }
        self.apply(next);
        tracing::info!(count = ids.len(), "inbox delivered");
        self.deliver_mail(mail).await
    }

    /// Delivers the agent's unread team mail, one `<teammate-message>` block each, in
    /// the transaction that marks it read (the mailbox is the record; a crash before
    /// the commit leaves it unread, after it delivered once).
    async fn deliver_mail(&mut self, mut mail: Vec<MailRow>) -> Result<(), AgentError> {
        if mail.is_empty() {
            return Ok(());
        }
        // A flood of mail is read over several iterations, never all at once.
        let mut size = 0;
        let fits = mail
            .iter()
            .take_while(|m| {
                size += m.body.len() + m.summary.len();
                size <= MAIL_PER_ITERATION_BYTES
            })
            .count();
        if fits.max(1) < mail.len() {
            mail.truncate(fits.max(1));
            // What is left is read at the next iteration, or in one more turn if this
            // one ends first.
            self.rt.state.lock().await.woken = true;
        }
        let mut blocks = Vec::with_capacity(mail.len());
        let mut payloads = Vec::with_capacity(mail.len());
        // One lookup per sender, however many messages it sent.
        let mut names: std::collections::HashMap<&str, String> = Default::default();
        for m in &mail {
            if !names.contains_key(m.sender.as_str()) {
                let name = self.engine.team_name_of(&m.team_id, &m.sender).await;
                names.insert(&m.sender, name);
            }
            let from = names.get(m.sender.as_str()).cloned().unwrap_or_default();
            let text = super::team::mail_text(m, &from);
            blocks.push(ContentBlock::text(text.clone()));
            payloads.push(EventPayload::Injected {
                turn_id: self.turn_id.to_string(),
                kind: "team_message".into(),
                text,
            });
        }
        let next = self.next_user_message(blocks);
        let ids: Vec<i64> = mail.iter().map(|m| m.id).collect();
        let delivery = Delivery {
            session_id: &self.rt.id,
            item: Delivered::Mail(&ids),
            turn_id: self.turn_id,
            write: next.write(self.context.len()),
        };
        match self
            .engine
            .events()
            .append_delivery(delivery, payloads)
            .await
        {
            Ok(_) => {}
            Err(StoreError::NotQueued { input_id }) => {
                tracing::warn!(item = %input_id, "a message was read already; skipped");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
        self.apply(next);
        tracing::info!(count = ids.len(), "team mail delivered");
        Ok(())
    }

    /// `blocks` as the context's next user turn: joined to its last message when that
    /// is a user message (tool results, another delivered text), so roles keep
    /// alternating; else a new message.
    fn next_user_message(&self, blocks: Vec<ContentBlock>) -> NextUser {
        match self.context.last() {
            Some(last) if last.role == Role::User => {
                let mut last = last.clone();
                last.content.extend(blocks);
                NextUser::Joined(last)
            }
            _ => NextUser::New(Message {
                role: Role::User,
                content: blocks,
            }),
        }
    }

    /// The in-memory side of a delivery the store has committed.
    fn apply(&mut self, next: NextUser) {
        match next {
            NextUser::Joined(message) => self.context.edit_last(|last| *last = message),
            NextUser::New(message) => self.context.push(message),
        }
    }
}

/// What a delivery adds to the context (see `Turn::next_user_message`).
enum NextUser {
    /// The last message, with the new blocks.
    Joined(Message),
    New(Message),
}

impl NextUser {
    /// The store's side of it, for a context of `len` messages.
    fn write(&self, len: usize) -> ContextWrite<'_> {
        match self {
            NextUser::Joined(message) => ContextWrite::Replace {
                idx: len - 1,
                message,
            },
            NextUser::New(message) => ContextWrite::Push { idx: len, message },
        }
    }
}

/// The session's reminder with the MCP servers' `mcp` (their instructions, the
/// servers it cannot use) after it, in a system reminder of its own.
fn join_reminders(session: Option<String>, mcp: Option<String>) -> Option<String> {
    let mcp = mcp.map(|m| format!("<system-reminder>\n{m}\n</system-reminder>"));
    match (session, mcp) {
        (Some(s), Some(m)) => Some(format!("{s}\n\n{m}")),
        (s, m) => s.or(m),
    }
}

/// An inbox item as the model reads it: a task notification as it is (its own tag),
/// anything else as a system reminder.
fn injected_text(kind: InjectionKind, text: &str) -> String {
    match kind {
        InjectionKind::TaskNotification => text.to_string(),
        _ => format!("<system-reminder>\n{text}\n</system-reminder>"),
    }
}
