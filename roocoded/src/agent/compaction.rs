//! Summary compaction of a session's context (layer 3): `/compact [focus]` by hand, and
//! automatically before a model call once the context passes `context.compact_threshold`
//! of the window. The summary call has no tools and says what it is; it is recorded
//! like every other model call, and a `compaction` event reports before/after tokens.

use roocode_protocol::event::EventPayload;
use tokio_util::sync::CancellationToken;

use super::{AgentError, Engine};
use crate::context::budget::EstimatedContext;
use crate::context::compact;
use crate::llm::{self, ModelRequest, ResolvedModel};
use crate::recovery::{RetryPolicy, call_retrying};
use crate::store::COMPACTION_TURN_ID;
use crate::trace::bodies::BodyRecorder;

use super::call_row::{CallOf, call_row};

/// The model that writes the summary, and how its call is retried and cancelled.
pub(super) struct SummaryCall<'a> {
    pub model: &'a ResolvedModel,
    pub policy: &'a RetryPolicy,
    pub cancel: &'a CancellationToken,
    /// Keeps the call's bodies (`None`: `trace.bodies` is off).
    pub bodies: Option<BodyRecorder>,
}

/// By hand, only the last iteration is kept verbatim.
const KEEP_BY_HAND: usize = 1;

/// What `/compact` says when the conversation has nothing old enough to summarise.
const NOTHING_TO_COMPACT: &str = "Nothing to compact yet: the conversation is short.";

/// Where [`Engine::compact_context`] would cut `context` (everything before it is
/// summarised); `None` when nothing is old enough to compact. What is kept verbatim
/// may take at most 30% of the window, so compaction always leaves room to work in.
pub(super) fn compaction_cut(
    context: &EstimatedContext,
    keep: usize,
    model: &ResolvedModel,
) -> Option<usize> {
    compact::plan_cut_within(context, keep, model.context_window * 3 / 10)
}

impl Engine {
    /// Compacts `context`, the session's stored context, in the store and in place;
    /// `Ok(None)` when there is nothing old enough. The caller holds the session's
    /// context lock. Whatever it returns, `context` is still what the store holds: it
    /// changes only once the store took the compacted history.
    pub(super) async fn compact_context(
        &self,
        session_id: &str,
        context: &mut EstimatedContext,
        call: SummaryCall<'_>,
        focus: Option<&str>,
        keep: usize,
    ) -> Result<Option<(u64, u64)>, AgentError> {
        let SummaryCall {
            model,
            policy,
            cancel,
            bodies,
        } = call;
        let Some(cut) = compaction_cut(context, keep, model) else {
            return Ok(None);
        };
        let before = context.estimate_from(0);
        let request = ModelRequest {
            model: model.model.clone(),
            system: compact::SUMMARY_SYSTEM.to_string(),
            messages: llm::owned_messages(vec![compact::summary_request(
                &context[..cut],
                focus,
                model.context_window * 8 / 10,
            )]),
            tools: Vec::new(),
            max_tokens: 8_192,
        };
        let span = tracing::info_span!("model_call", model = %model.spec, purpose = "compaction");
        let called = match self.replays.agent(session_id) {
            Some(feed) => {
                feed.answer(
                    crate::store::Purpose::Compaction,
                    model,
                    &request,
                    &mut |_| {},
                )
                .await
            }
            None => {
                tracing::Instrument::instrument(
                    call_retrying(model, &request, policy, cancel, &mut |_| {}),
                    span,
                )
                .await
            }
        };
        // No summary (the call failed, or wrote nothing): the oldest iterations go
        // instead, so the turn can go on. A cancel is the user's, and stops here.
        let max_kept = model.context_window / 2;
        let outcome = match called {
            Ok(outcome) if !outcome.response.text().trim().is_empty() => outcome,
            Err(llm::LlmError::Cancelled) => {
                return Err(AgentError::Invalid("compaction cancelled".into()));
            }
            Ok(_) => {
                return self
                    .drop_oldest_context(
                        session_id,
                        context,
                        max_kept,
                        "the model wrote no summary",
                    )
                    .await;
            }
            Err(e) => {
                return self
                    .drop_oldest_context(session_id, context, max_kept, &e.reason())
                    .await;
            }
        };
        let summary = outcome.response.text();
        let kept = context.len() - cut;
        let new = compact::compacted(&summary, &context[cut..]);
        let after = compact::estimate(&new);
        self.store.replace_context(session_id, &new).await?;
        context.replace(new);
        let u = &outcome.response.usage;
        self.store.add_session_usage(session_id, u).await?;
        let row = call_row(
            CallOf {
                session_id,
                turn_id: COMPACTION_TURN_ID,
                agent_id: session_id,
                purpose: crate::store::Purpose::Compaction,
            },
            model,
            Some(&outcome),
            None,
        );
        self.store.record_model_call(&row).await?;
        if let Some(bodies) = &bodies {
            self.recorder.body(bodies, session_id, &row.id, &outcome);
        }
        self.events
            .append(
                session_id,
                session_id,
                EventPayload::Compaction {
                    before_tokens: before,
                    after_tokens: after,
                    summarized: cut as u64,
                    kept: kept as u64,
                    how: Some("summary".into()),
                },
            )
            .await?;
        tracing::info!(session = %session_id, before, after, "context compacted");
        Ok(Some((before, after)))
    }

    /// `/compact [focus]`: compaction by hand, with the client's last environment.
    pub async fn compact_command(
        &self,
        id: &str,
        focus: Option<&str>,
    ) -> Result<String, AgentError> {
        let row = self.resolve(id).await?;
        let rt = self.runtime(&row.id).await?;
        let env = {
            let state = rt.state.lock().await;
            if state.running.is_some() {
                return Err(AgentError::Busy("compact".into()));
            }
            state.env.clone()
        };
        let config = self.config(std::path::Path::new(&row.root))?;
        let model = llm::resolve_model(&row.model, &env, &config, &self.http)
            .map_err(|e| AgentError::Config(e.to_string()))?;
        let policy = RetryPolicy::from_env_and_config(&env, &config);
        // A turn that starts meanwhile waits for the compacted context.
        let mut cached = rt.context.lock().await;
        let mut context = match cached.take() {
            Some(context) => context,
            None => EstimatedContext::new(self.store.context(&row.id).await?),
        };
        // `pre_compact` announces a compaction that happens: none for a short one.
        if compaction_cut(&context, KEEP_BY_HAND, &model).is_none() {
            *cached = Some(context);
            return Ok(NOTHING_TO_COMPACT.into());
        }
        self.session_event(&row, &env, |c| {
            crate::hooks::HookInput::pre_compact(
                c,
                crate::hooks::CompactTrigger::Manual,
                focus.unwrap_or_default(),
            )
        })
        .await;
        let compacted = self
            .compact_context(
                &row.id,
                &mut context,
                SummaryCall {
                    model: &model,
                    policy: &policy,
                    cancel: &CancellationToken::new(),
                    bodies: BodyRecorder::new(&env.vars, &config),
                },
                focus,
                KEEP_BY_HAND,
            )
            .await;
        if compacted.is_ok() {
            *cached = Some(context);
        }
        drop(cached);
        if let Ok(Some(_)) = &compacted {
            self.session_event(&row, &env, |c| {
                crate::hooks::HookInput::session_start(c, crate::hooks::SessionSource::Compact)
            })
            .await;
        }
        match compacted? {
            Some((before, after)) => Ok(format!(
                "Compacted: about {before} → {after} tokens. The agent continues from the summary."
            )),
            None => Ok(NOTHING_TO_COMPACT.into()),
        }
    }
}
