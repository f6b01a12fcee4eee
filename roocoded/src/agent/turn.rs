//! The agent loop of one turn (DESIGN.md §5): deliver queued messages, call the model,
//! run the tools it asks for, repeat until it answers without tools, the user cancels,
//! `max_turns` iterations pass, or it keeps calling tools that do not exist.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use roocode_protocol::Mode;
use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::event::{ErrorInfo, EventPayload, StopReason};
use roocode_protocol::session::SessionStatus;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::runtime::SessionRuntime;
use super::turn_config::TurnConfig;
use super::{AgentError, Agents, executor, prompt};
use crate::context::budget::{Budget, EstimatedContext, estimate_tokens};
use crate::context::chain;
use crate::llm::{self, ModelRequest, ModelStopReason};
use crate::store::{ContextWrite, Delivery, StoreError, TurnState};

mod config_change;
mod model_call;
mod request;
mod window;

/// Result text given to tool calls a user interrupt left without one.
pub const INTERRUPTED_BY_USER: &str = "Interrupted by user: this tool call did not complete.";
/// Three unknown or disabled tools in a row end the turn.
const MAX_UNKNOWN_STREAK: u32 = 3;
/// Output limit asked of the model per call.
const MAX_OUTPUT_TOKENS: u32 = 16_384;

type TurnEnd = (StopReason, Option<ErrorInfo>);

fn ended(stop: StopReason, kind: &str, message: impl Into<String>) -> TurnEnd {
    (
        stop,
        Some(ErrorInfo {
            kind: kind.to_string(),
            message: message.into(),
        }),
    )
}

/// Runs the session's current turn to its end and records how it ended.
pub(super) async fn run(agents: &Arc<Agents>, rt: &Arc<SessionRuntime>) {
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
        agents,
        rt,
        turn_id: &turn_id,
        cancel,
        context: EstimatedContext::default(),
        budget: None,
        reminder: None,
    };
    let result = turn.run(cached.take()).instrument(span.clone()).await;
    if result.is_ok() {
        // Every store write of the turn succeeded, so its context is the stored one.
        // After an error the next turn reloads it.
        *cached = Some(std::mem::take(&mut turn.context));
    }
    drop(cached);
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
    let store = agents.store();
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
    if let Err(e) = agents.events().append(&rt.id, &rt.id, done).await {
        tracing::error!(parent: &span, "cannot record turn_completed: {e}");
    }
    tracing::info!(parent: &span, stop_reason = stop.as_str(), "turn completed");
}

struct Turn<'a> {
    agents: &'a Arc<Agents>,
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
}

impl Turn<'_> {
    fn id(&self) -> &str {
        &self.rt.id
    }

    async fn emit(&self, payload: EventPayload) -> Result<(), AgentError> {
        self.agents
            .events()
            .append(self.id(), self.id(), payload)
            .await?;
        Ok(())
    }

    /// Runs the turn from `cached`, the context the previous turn left, if any
    /// (loaded from the store otherwise).
    async fn run(&mut self, cached: Option<EstimatedContext>) -> Result<TurnEnd, AgentError> {
        let store = self.agents.store();
        self.context = match cached {
            Some(context) => context,
            None => EstimatedContext::new(store.context(self.id()).await?),
        };
        self.ensure_valid_chain().await?;
        self.deliver_queued().await?;
        // The configuration is read once per turn (see `TurnConfig`).
        let mut turn_config = None;
        if let Some(row) = store.session(self.id()).await? {
            self.reminder = self.agents.session_reminder(&row);
            match TurnConfig::load(&self.agents.paths.user_dir, Path::new(&row.root)) {
                Ok(config) => {
                    let refused = self.rt.refused_config.lock().map(|mut r| r.take());
                    turn_config = Some(match refused.ok().flatten() {
                        Some(refused) => config.resume(refused),
                        None => config,
                    });
                }
                Err(e) => return Ok(ended(StopReason::Error, "config", e.to_string())),
            }
        }
        self.emit(EventPayload::TurnStarted {
            turn_id: self.turn_id.to_string(),
        })
        .await?;
        crate::sandbox::announce(self.agents, self.id()).await;

        let mut iterations: u32 = 0;
        let mut unknown_streak: u32 = 0;
        loop {
            if self.cancel.is_cancelled() {
                return self.cancelled().await;
            }
            if iterations > 0 {
                self.deliver_queued().await?;
            }
            let Some(row) = store.session(self.id()).await? else {
                return Ok(ended(
                    StopReason::Error,
                    "internal",
                    "the session was deleted",
                ));
            };
            let Some(turn_config) = &turn_config else {
                return Ok(ended(
                    StopReason::Error,
                    "internal",
                    "the session was deleted",
                ));
            };
            if !self.recheck_config(&row, turn_config).await? {
                return self.cancelled().await;
            }
            let env = self.agents.env_of(self.rt).await;
            let config = turn_config.get();
            let model = match llm::resolve_model(&row.model, &env, &config, &self.agents.http) {
                Ok(m) => m,
                Err(e) => return Ok(ended(StopReason::Error, e.kind(), e.to_string())),
            };
            let max_turns = env
                .get("ROOCODE_MAX_TURNS")
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|n| *n > 0)
                .unwrap_or_else(|| config.max_turns());
            if self.budget.is_none() {
                let tools = serde_json::to_string(&self.agents.tools.defs()).map_or(0, |t| t.len());
                let overhead =
                    estimate_tokens(&prompt::system_prompt(&row)) + tools.div_ceil(4) as u64;
                self.budget = Some(Budget::new(model.context_window).with_overhead(overhead));
            }
            self.clear_stale_if_tight(model.context_window).await?;
            self.compact_if_full(&model, &env, &config).await?;
            // The provider rejects a history whose tool calls are not paired.
            if self.ensure_valid_chain().await? {
                tracing::warn!("the context needed repair before the model call");
            }
            let plan_reminder = (row.mode == Mode::Plan)
                .then(|| prompt::plan_mode_reminder(&self.agents.plan_file(&row.id)));
            let request_len = self.context.len();
            let request = ModelRequest {
                model: model.model.clone(),
                system: prompt::system_prompt(&row),
                messages: request::messages(&self.context, self.reminder.as_deref(), plan_reminder),
                tools: self.agents.tools.defs(),
                max_tokens: MAX_OUTPUT_TOKENS,
            };
            store
                .set_turn_state(self.turn_id, TurnState::Requesting, iterations)
                .await?;
            let policy = llm::RetryPolicy::from_env_and_config(&env, &config);
            let message_id = uuid::Uuid::now_v7().to_string();
            let span =
                tracing::info_span!("model_call", model = %row.model, iteration = iterations);
            let outcome = self
                .call(&model, &request, &policy, &message_id)
                .instrument(span)
                .await;
            let outcome = match outcome {
                Ok(o) => o,
                Err(_) if self.cancel.is_cancelled() => return self.cancelled().await,
                Err(e) => {
                    self.record_call(&row, &model, &message_id, None, Some(&e))
                        .await?;
                    return Ok(ended(StopReason::Error, e.kind(), e.to_string()));
                }
            };
            let covered = request_len;
            self.budget
                .get_or_insert_with(|| Budget::new(model.context_window))
                .record(&outcome.response.usage, covered);
            self.record_call(&row, &model, &message_id, Some(&outcome), None)
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
                return Ok(match response.stop_reason {
                    ModelStopReason::MaxTokens => ended(
                        StopReason::MaxTokens,
                        "max_tokens",
                        "the answer reached the model's output limit (max_tokens) and was cut off",
                    ),
                    _ => (StopReason::EndTurn, None),
                });
            }

            store
                .set_turn_state(self.turn_id, TurnState::ExecutingTools, iterations)
                .await?;
            let results = executor::run_calls(
                self.agents,
                self.rt,
                &row,
                self.turn_id,
                &calls,
                &self.cancel,
                model.context_window,
                turn_config,
            )
            .await?;
            for r in &results {
                unknown_streak = if r.unknown_tool {
                    unknown_streak + 1
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
                return self.cancelled().await;
            }
            if unknown_streak >= MAX_UNKNOWN_STREAK {
                return Ok(ended(
                    StopReason::Error,
                    "unknown_tool",
                    "the model called tools that do not exist three times in a row, so the turn was stopped",
                ));
            }
            iterations += 1;
            if iterations >= max_turns {
                self.emit(EventPayload::Error {
                    error: ErrorInfo {
                        kind: "max_turns".into(),
                        message: format!(
                            "stopped after {max_turns} iterations (max_turns): send a message to let the agent continue, or raise max_turns in .roocode/config.yaml"
                        ),
                    },
                })
                .await?;
                return Ok((StopReason::MaxTurns, None));
            }
        }
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
        self.agents
            .store()
            .replace_context(self.id(), &self.context)
            .await?;
        Ok(true)
    }

    /// Appends a message to the context and the store.
    async fn push(&mut self, msg: Message) -> Result<(), AgentError> {
        self.agents
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
            // After tool results (or another queued message) the text joins that user
            // message, so roles keep alternating.
            let joined = match self.context.last() {
                Some(last) if last.role == Role::User => {
                    let mut last = last.clone();
                    last.content.push(ContentBlock::text(q.text.clone()));
                    Some(last)
                }
                _ => None,
            };
            let pushed = Message::user_text(q.text.clone());
            let write = match &joined {
                Some(message) => ContextWrite::Replace {
                    idx: self.context.len() - 1,
                    message,
                },
                None => ContextWrite::Push {
                    idx: self.context.len(),
                    message: &pushed,
                },
            };
            let delivery = Delivery {
                session_id: &self.rt.id,
                input_id: &q.input_id,
                turn_id: self.turn_id,
                write,
            };
            let payload = EventPayload::UserMessage {
                turn_id: self.turn_id.to_string(),
                input_id: q.input_id.clone(),
                text: q.text.clone(),
            };
            match self
                .agents
                .events()
                .append_delivery(delivery, payload)
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
            match joined {
                Some(message) => self.context.edit_last(|last| *last = message),
                None => self.context.push(pushed),
            }
            state.queue.pop_front();
        }
        Ok(())
    }
}
