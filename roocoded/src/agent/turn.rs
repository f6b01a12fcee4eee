//! The agent loop of one turn (DESIGN.md §5): deliver queued messages, call the model,
//! run the tools it asks for, repeat until it answers without tools, the user cancels,
//! `max_turns` iterations pass, or it keeps calling tools that do not exist.

use std::path::{Path, PathBuf};
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
use crate::store::{InjectionKind, Purpose, SessionRow, TurnState};
use roocode_protocol::session::SessionKind;

/// Most mail read into the context in one iteration (the rest waits for the next).
pub(crate) const MAIL_PER_ITERATION_BYTES: usize = 200_000;

mod config_change;
mod deliver;
mod model_call;
mod recover;
mod request;
mod snapshot;
mod stop_hooks;
mod window;
mod workflow;

/// Result text given to tool calls a user interrupt left without one.
pub const INTERRUPTED_BY_USER: &str = "Interrupted by user: this tool call did not complete.";

type TurnEnd = (StopReason, Option<ErrorInfo>);

/// What running an iteration's tools came to.
struct ToolsRan {
    /// The turn ends (cancelled, or too many unknown tools in a row).
    end: Option<TurnEnd>,
    /// Per call, the failure recovery answers (see `executor::CallResult::failure`).
    failures: Vec<Option<(crate::recovery::Category, String)>>,
}

/// How the iteration's model call went.
enum Asked {
    Answer(ModelResponse),
    /// It failed; recovery decides what follows. With the window an overflow error
    /// taught, when it is smaller than the one budgeted.
    Failed(crate::llm::LlmError, Option<u64>),
    End(TurnEnd),
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
        recovery: recover::TurnRecovery::default(),
        snapshotted: None,
        skills: None,
    };
    let result = turn.run(cached.take()).instrument(span.clone()).await;
    turn.snapshot_after().instrument(span.clone()).await;
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
    /// Recovery's state in the turn (the counts themselves are in the store).
    recovery: recover::TurnRecovery,
    /// The workspace snapshotted before the turn, snapshotted again after it.
    snapshotted: Option<PathBuf>,
    /// The session's skills as the turn's start read them (workflow functions are
    /// evaluated against them).
    skills: Option<Arc<crate::skills::SkillSet>>,
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
        self.load_recovery().await;
        // The conversation a rewind of this turn goes back to (a main agent's: an
        // agent's spec is known from its first turn on).
        let before_delivery = self
            .rt
            .child_spec
            .get()
            .is_none()
            .then(|| self.context.to_vec());
        self.workflow_turn_start().await?;
        self.deliver_queued().await?;
        self.first_delivery_done();
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
            if let Some(config) = &live
                && self.engine.replays.contains(&row.id)
            {
                config.confine_to_workspace();
            }
            if let Some(config) = &live {
                let env = self.engine.env_of(self.rt).await;
                // The workspace before the turn changes it (a main agent's: a sub-agent
                // works in its parent's turn, or on a worktree's branch).
                if let (SessionKind::Main, Some(conversation)) = (row.kind, before_delivery) {
                    self.snapshot_workspace(&row, &env, conversation).await;
                }
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
                let skills = self
                    .engine
                    .skills_turn_start(&row, told, &env, &now)
                    .await?;
                self.workflow_auto(skills, &now.skills.auto).await?;
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
            .and_then(|settings| match &self.recovery.fallback {
                // Recovery switched the turn to the fallback model.
                Some(spec) => settings.with_model(spec, &self.engine.http),
                None => Ok(settings),
            })
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
        // After a compaction, so what the model is told is not summarised away at once.
        self.workflow_before_call().await?;
        if self
            .engine
            .graph_before_call(&settings.session, &settings.config)
            .await?
        {
            self.deliver_injections().await?;
        }
        let response = match self.ask_model(settings).await? {
            Asked::Answer(response) => {
                self.workflow_after_message(&response.content).await?;
                response
            }
            Asked::End(end) => return Ok(Some(end)),
            Asked::Failed(e, learned) => {
                return match recover::Failure::of_call(&e, learned, &settings.agent.model) {
                    Some(failure) => self.recover(settings, failure).await,
                    None => Ok(Some(ended(StopReason::Error, e.kind(), e.to_string()))),
                };
            }
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
        if calls.is_empty()
            && response.stop_reason != ModelStopReason::MaxTokens
            && recover::is_empty_answer(&response.content)
        {
            return self.recover_empty(settings).await;
        }
        if calls.is_empty() {
            if response.stop_reason != ModelStopReason::MaxTokens
                && (self.continue_by_functions(settings).await?
                    || self.continue_by_hooks(settings).await?)
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
        self.workflow_after_tools(&calls).await?;
        if self.child.is_some() {
            self.engine.child_progress(self.id(), &calls).await;
        }
        if let Some(end) = ran.end {
            return Ok(Some(end));
        }
        if let Some(end) = self.recover_tools(settings, &calls, &ran.failures).await? {
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
    /// (kept for the endpoint and model: later requests budget with it); the window
    /// when it is smaller than the one the request was built for.
    fn learn_window(
        &self,
        settings: &TurnSettings<'_>,
        error: &crate::llm::LlmError,
    ) -> Option<u64> {
        let crate::llm::LlmError::ContextOverflow { detail, .. } = error else {
            return None;
        };
        let limit = crate::llm::overflow_limit(detail)?;
        let mut model = settings.model.clone();
        let shrank = limit < model.context_window;
        if crate::llm::learn_window(&mut model, limit) && shrank {
            tracing::info!(window = limit, "learned a smaller context window");
            return Some(limit);
        }
        None
    }

    /// The model call of the iteration, recorded, its answer added to the context.
    async fn ask_model(&mut self, settings: &TurnSettings<'_>) -> Result<Asked, AgentError> {
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
        // Measured only to be recorded (`trace.record`).
        let parts = match settings.config.trace_recording() {
            true => crate::trace::parts::measure(&request),
            false => Default::default(),
        };
        let span =
            tracing::info_span!("model_call", model = %agent.model, iteration = self.iterations);
        let outcome = self
            .call(model, &request, settings.retry.stall_timeout, &message_id)
            .instrument(span)
            .await;
        let outcome = match outcome {
            Ok(o) => o,
            Err(_) if self.cancel.is_cancelled() => return self.cancelled().await.map(Asked::End),
            Err(e) => {
                self.record_call(
                    settings,
                    &message_id,
                    &parts,
                    Purpose::Conversation,
                    None,
                    Some(&e),
                )
                .await?;
                let learned = self.learn_window(settings, &e);
                return Ok(Asked::Failed(e, learned));
            }
        };
        self.call_succeeded(recover::is_empty_answer(&outcome.response.content))
            .await;
        self.budget
            .get_or_insert_with(|| Budget::new(model.context_window))
            .record(&outcome.response.usage, request_len);
        self.record_call(
            settings,
            &message_id,
            &parts,
            Purpose::Conversation,
            Some(&outcome),
            None,
        )
        .await?;
        let response = outcome.response;
        // An empty answer is left out of the context (providers refuse empty text);
        // recovery answers it.
        if !recover::is_empty_answer(&response.content) {
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
        Ok(Asked::Answer(response))
    }

    /// Runs the calls and adds their results to the context.
    async fn run_tools(
        &mut self,
        settings: &TurnSettings<'_>,
        calls: &[executor::Call],
    ) -> Result<ToolsRan, AgentError> {
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
        let mut failures = Vec::with_capacity(results.len());
        let mut blocks = Vec::with_capacity(results.len());
        for r in results {
            self.unknown_streak = if r.unknown_tool {
                self.unknown_streak + 1
            } else {
                0
            };
            failures.push(r.failure);
            blocks.push(r.block);
        }
        self.push(Message {
            role: Role::User,
            content: blocks,
        })
        .await?;
        let end = if self.cancel.is_cancelled() {
            Some(self.cancelled().await?)
        } else if self.unknown_streak >= settings.agent.limits.max_unknown_streak {
            Some(ended(
                StopReason::Error,
                "unknown_tool",
                "the model called tools that do not exist three times in a row, so the turn was stopped",
            ))
        } else {
            None
        };
        Ok(ToolsRan { end, failures })
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
