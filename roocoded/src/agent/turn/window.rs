//! Context management before each model call of a turn: layer 2 (old tool results
//! become stubs past 60% of the window) and layer 3 (summary compaction past
//! `context.compact_threshold`), both judged by the turn's [`Budget`].

use super::Turn;
use crate::agent::AgentError;
use crate::agent::compaction::{SummaryCall, compaction_cut};
use crate::agent::settings::TurnSettings;
use crate::context::budget::Budget;
use crate::context::{compact, stale};
use crate::trace::bodies::BodyRecorder;

/// What [`Turn::compact_now`] did.
pub(super) enum Compacted {
    Done,
    /// Nothing was old enough to compact.
    Nothing,
    /// Why it failed (the context is as it was).
    Failed(String),
}

/// Share of the context window above which old tool results are cleared (layer 2).
const STALE_CLEAR_FRACTION: f64 = 0.6;

impl Turn<'_> {
    /// Layer 2 of context management: when the context passes 60% of the window, old
    /// tool results (outside the last three turns, and the last eight iterations)
    /// become short stubs.
    pub(super) async fn clear_stale_if_tight(&mut self, window: u64) -> Result<(), AgentError> {
        let budget = self.budget.get_or_insert_with(|| Budget::new(window));
        if budget.fraction(&self.context) < STALE_CLEAR_FRACTION {
            return Ok(());
        }
        let recent = stale::Recent {
            turns: 3,
            iterations: 8,
        };
        let mut report = stale::ClearReport::default();
        self.context.rewrite(|messages| {
            report = stale::clear_stale_results(messages, recent, 2_000);
            report.cleared > 0
        });
        if report.cleared > 0 {
            budget.invalidate();
            tracing::info!(
                cleared = report.cleared,
                chars = report.chars_saved,
                "cleared stale tool results"
            );
            self.engine
                .store()
                .replace_context(self.id(), &self.context)
                .await?;
        }
        Ok(())
    }

    /// Layer 3: past `context.compact_threshold` of the window (default 85%), older
    /// history is replaced by a summary and the turn goes on from it.
    pub(super) async fn compact_if_full(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<(), AgentError> {
        let model = &settings.model;
        let fraction = self
            .budget
            .get_or_insert_with(|| Budget::new(model.context_window))
            .fraction(&self.context);
        // A replay compacts where its recording did (the estimates of two runs in two
        // directories differ by a few characters).
        let due = match self.engine.replays.agent(self.id()) {
            Some(feed) => feed.compaction_due(),
            None => fraction >= settings.config.compact_threshold(),
        };
        if !due {
            return Ok(());
        }
        if let Compacted::Failed(e) = self.compact_now(settings).await? {
            // A failed compaction is not the end of the turn: the provider may still
            // take the request, and layer 1/2 already did what they could.
            tracing::warn!("automatic compaction failed: {e}");
        }
        Ok(())
    }

    /// Layer 3 now: older history replaced by a summary (or, when the summary call
    /// fails, the oldest iterations dropped), with the `pre_compact` and
    /// `session_start` hooks around it. The context is still the stored one whatever
    /// happens (`compact_context` updates it with the store).
    pub(super) async fn compact_now(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<Compacted, AgentError> {
        let model = &settings.model;
        // Nothing old enough to summarise: no compaction, so no `pre_compact` either
        // (it would otherwise fire before every model call of a full window).
        if compaction_cut(&self.context, compact::KEEP_RECENT, model).is_none() {
            return Ok(Compacted::Nothing);
        }
        self.fire_compaction_hook(settings, true).await;
        match self
            .engine
            .compact_context(
                &self.rt.id,
                &mut self.context,
                SummaryCall {
                    model,
                    policy: &settings.retry,
                    cancel: &self.cancel,
                    bodies: BodyRecorder::new(&settings.env.vars, &settings.config),
                },
                None,
                compact::KEEP_RECENT,
            )
            .await
        {
            Ok(Some(_)) => {
                if let Some(budget) = &mut self.budget {
                    budget.invalidate();
                }
                // The summary may have swallowed the skill listing: the next turn
                // tells it again.
                self.rt.skills_told.forget();
                self.fire_compaction_hook(settings, false).await;
                Ok(Compacted::Done)
            }
            Ok(None) => Ok(Compacted::Nothing),
            Err(e) => Ok(Compacted::Failed(e.to_string())),
        }
    }

    /// `pre_compact` (trigger `auto`) before an automatic compaction, `before`; else
    /// `session_start` (source `compact`) after it. What their hooks add is queued for
    /// the next model call.
    async fn fire_compaction_hook(&self, settings: &TurnSettings<'_>, before: bool) {
        use crate::hooks::{CompactTrigger, HookInput, SessionSource};
        let Some(hooks) = self.hooks.clone() else {
            return;
        };
        let input = if before {
            HookInput::pre_compact(hooks.context(), CompactTrigger::Auto, "")
        } else {
            HookInput::session_start(hooks.context(), SessionSource::Compact)
        };
        if !hooks.listens(input.event()) {
            return;
        }
        let fired = hooks.fire(&self.engine.hook_results, &input).await;
        for e in fired.errors() {
            tracing::warn!(session = %settings.session.id, "{e}");
        }
        if let Err(e) = self
            .engine
            .queue_hook_texts(self.id(), &fired.context())
            .await
        {
            tracing::error!("cannot queue a hook's context: {e}");
        }
    }
}
