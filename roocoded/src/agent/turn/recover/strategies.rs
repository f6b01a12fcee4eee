//! The strategies of a chain, each answering [`Applied`]: `retry` (a backoff, then the
//! same request again), `fallback_model`, `truncate` (layer 1 on the largest results),
//! `compact` (layer 3 now), `remind_and_retry` (a reminder quoting the exact message)
//! and `summarize` (a tool-less note of where the task stands). `abort` is the chain's
//! end, in the parent module.

use std::time::{Duration, Instant};

use roocode_protocol::event::EventPayload;

use super::super::Turn;
use super::super::window::Compacted;
use super::{Applied, Failure, MAX_REMINDERS_IN_A_ROW, millis};
use crate::agent::AgentError;
use crate::agent::compaction::compaction_cut;
use crate::agent::settings::TurnSettings;
use crate::context::{compact, large_results};
use crate::llm::{self, ModelRequest};
use crate::recovery::{Category, Position};
use crate::store::{InjectionKind, Purpose};

impl Turn<'_> {
    /// `retry`: the same request again after a backoff (the server's `retry-after`
    /// when it gave one), unless the failures have lasted `retry.max_total_secs`.
    pub(super) async fn retry(
        &mut self,
        settings: &TurnSettings<'_>,
        failure: &Failure,
        position: Position,
    ) -> Result<Applied, AgentError> {
        let policy = &settings.retry;
        let since = *self.recovery.failing_since.get_or_insert_with(Instant::now);
        let delay = policy.delay(position.attempt, failure.retry_after);
        if since.elapsed() + delay > policy.max_total {
            return Ok(Applied::Next(format!(
                "retries stopped after {} s (retry.max_total_secs)",
                since.elapsed().as_secs()
            )));
        }
        let message = format!(
            "retrying in {} ({}, attempt {}/{})",
            human_delay(delay),
            failure.category.describe(),
            position.attempt,
            position.of
        );
        self.announce(failure, position, delay, message).await?;
        // For clients that predate the `recovery` event.
        self.emit(EventPayload::Retrying {
            attempt: position.attempt + 1,
            max_attempts: position.of + 1,
            delay_ms: millis(delay),
            reason: failure.message.clone(),
        })
        .await?;
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => return Ok(Applied::End(self.cancelled().await?)),
            _ = tokio::time::sleep(delay) => {}
        }
        self.tried(failure.category, "retry".into());
        Ok(Applied::Done)
    }

    /// `fallback_model`: `recovery.fallback_model` for the rest of the turn.
    pub(super) async fn fall_back(
        &mut self,
        settings: &TurnSettings<'_>,
        failure: &Failure,
        position: Position,
    ) -> Result<Applied, AgentError> {
        let Some(spec) = settings.config.recovery.fallback_model.clone() else {
            return Ok(Applied::Next(
                "no fallback model is configured (recovery.fallback_model)".into(),
            ));
        };
        if settings.agent.model == spec || self.recovery.fallback.as_ref() == Some(&spec) {
            return Ok(Applied::Next(format!(
                "the fallback model {spec} is the one that failed"
            )));
        }
        if let Err(e) =
            llm::resolve_model(&spec, &settings.env, &settings.config, &self.engine.http)
        {
            return Ok(Applied::Next(format!(
                "the fallback model {spec} cannot be used: {e}"
            )));
        }
        let message = format!(
            "{}: switching from {} to the fallback model {spec} for the rest of the turn",
            failure.category.describe(),
            settings.agent.model
        );
        self.announce(failure, position, Duration::ZERO, message)
            .await?;
        self.recovery.fallback = Some(spec.clone());
        self.tried(failure.category, format!("fallback to {spec}"));
        Ok(Applied::Done)
    }

    /// `truncate`: the largest tool results of the context (recent ones too) become
    /// layer 1's previews, their text in files the model can read.
    pub(super) async fn truncate(
        &mut self,
        settings: &TurnSettings<'_>,
        failure: &Failure,
        position: Position,
    ) -> Result<Applied, AgentError> {
        let window = failure
            .window_learned
            .unwrap_or(settings.model.context_window);
        // A quarter of what layer 1 keeps inline, and no more than a twentieth of the
        // window (layer 1 allows a tenth); never less than a preview itself takes.
        let configured =
            usize::try_from(settings.config.large_result_chars()).unwrap_or(usize::MAX);
        let threshold = large_results::threshold_for(configured / 4, window / 2);
        let dir = self.engine.tool_results_dir(self.id());
        let mut report = large_results::ShrinkReport::default();
        self.context.rewrite(|messages| {
            report = large_results::shrink_largest(messages, threshold, &dir);
            report.shrunk > 0
        });
        if report.shrunk > 0 {
            self.engine
                .store()
                .replace_context(self.id(), &self.context)
                .await?;
            if let Some(budget) = &mut self.budget {
                budget.invalidate();
            }
        }
        let message = match (report.shrunk, failure.window_learned) {
            (0, None) => {
                return Ok(Applied::Next(
                    "no tool result was large enough to shrink".into(),
                ));
            }
            (0, Some(window)) => format!(
                "context too long: the server's window is {window} tokens; fitting the request to it and retrying"
            ),
            (n, _) => format!(
                "context too long: shortened the {n} largest tool result(s) by {} characters (kept in files) and retrying",
                report.chars_saved
            ),
        };
        self.announce(failure, position, Duration::ZERO, message)
            .await?;
        self.tried(failure.category, "truncate".into());
        Ok(Applied::Done)
    }

    /// `compact`: layer 3 now, whatever the threshold.
    pub(super) async fn compact(
        &mut self,
        settings: &TurnSettings<'_>,
        failure: &Failure,
        position: Position,
    ) -> Result<Applied, AgentError> {
        if compaction_cut(&self.context, compact::KEEP_RECENT, &settings.model).is_none() {
            return Ok(Applied::Next(
                "compact: nothing old enough to summarise".into(),
            ));
        }
        let message = "context too long: compacting and retrying".to_string();
        self.announce(failure, position, Duration::ZERO, message)
            .await?;
        match self.compact_now(settings).await? {
            Compacted::Done => {
                self.tried(failure.category, "compact".into());
                Ok(Applied::Done)
            }
            Compacted::Nothing => Ok(Applied::Next(
                "compact: nothing old enough to summarise".into(),
            )),
            Compacted::Failed(e) => Ok(Applied::Next(format!("compaction failed: {e}"))),
        }
    }

    /// `remind_and_retry`: a reminder in the next request naming the tool and quoting
    /// the message, at most [`MAX_REMINDERS_IN_A_ROW`] for one cause.
    pub(super) async fn remind(
        &mut self,
        failure: &Failure,
        position: Position,
    ) -> Result<Applied, AgentError> {
        if position.attempt > MAX_REMINDERS_IN_A_ROW {
            return Ok(Applied::Next(format!(
                "{MAX_REMINDERS_IN_A_ROW} reminders in a row did not help"
            )));
        }
        let text = reminder(failure);
        let message = match &failure.tool {
            Some((tool, Some(file))) => format!(
                "{} ({tool} {file}): reminding the model (attempt {}/{})",
                failure.category.describe(),
                position.attempt,
                position.of
            ),
            Some((tool, None)) => format!(
                "{} ({tool}): reminding the model (attempt {}/{})",
                failure.category.describe(),
                position.attempt,
                position.of
            ),
            None => format!(
                "{}: reminding the model (attempt {}/{})",
                failure.category.describe(),
                position.attempt,
                position.of
            ),
        };
        self.announce(failure, position, Duration::ZERO, message)
            .await?;
        self.engine
            .store()
            .queue_injection(self.id(), InjectionKind::Recovery, &text)
            .await?;
        self.deliver_injections().await?;
        self.tried(failure.category, "reminder".into());
        Ok(Applied::Done)
    }

    /// `summarize`: a tool-less call in which the model states where the task stands
    /// and what it does next; its note goes into the next request as a reminder.
    pub(super) async fn summarize(
        &mut self,
        settings: &TurnSettings<'_>,
        failure: &Failure,
        position: Position,
    ) -> Result<Applied, AgentError> {
        let message = format!(
            "{}: asking the model where the task stands",
            failure.category.describe()
        );
        self.announce(failure, position, Duration::ZERO, message)
            .await?;
        let model = &settings.model;
        let request = ModelRequest {
            model: model.model.clone(),
            system: compact::PROGRESS_SYSTEM.to_string(),
            messages: llm::owned_messages(vec![compact::progress_request(
                &self.context,
                model.context_window * 8 / 10,
            )]),
            tools: Vec::new(),
            max_tokens: 1_024,
        };
        let id = uuid::Uuid::now_v7().to_string();
        // Measured only to be recorded (`trace.record`).
        let parts = match settings.config.trace_recording() {
            true => crate::trace::parts::measure(&request),
            false => Default::default(),
        };
        let span = tracing::info_span!("model_call", model = %model.spec, purpose = "summarize");
        let called = match self.engine.replays.agent(self.id()) {
            Some(feed) => {
                feed.answer(Purpose::Summarize, model, &request, &mut |_| {})
                    .await
            }
            None => {
                tracing::Instrument::instrument(
                    llm::call_model(
                        model,
                        &request,
                        settings.retry.stall_timeout,
                        &self.cancel,
                        &mut |_| {},
                    ),
                    span,
                )
                .await
            }
        };
        let outcome = match called {
            Ok(outcome) => outcome,
            Err(_) if self.cancel.is_cancelled() => {
                return Ok(Applied::End(self.cancelled().await?));
            }
            Err(e) => {
                self.record_call(settings, &id, &parts, Purpose::Summarize, None, Some(&e))
                    .await?;
                return Ok(Applied::Next(format!("the summary call failed: {e}")));
            }
        };
        self.record_call(
            settings,
            &id,
            &parts,
            Purpose::Summarize,
            Some(&outcome),
            None,
        )
        .await?;
        let note = outcome.response.text();
        if note.trim().is_empty() {
            return Ok(Applied::Next("the summary call was empty too".into()));
        }
        let text = format!(
            "Your last answers were empty. This is where the task stands, in your own words:\n\n{}\n\nGo on from here: make the next step, or give your final answer.",
            note.trim()
        );
        self.engine
            .store()
            .queue_injection(self.id(), InjectionKind::Recovery, &text)
            .await?;
        self.deliver_injections().await?;
        self.tried(failure.category, "summarize".into());
        Ok(Applied::Done)
    }
}

/// The reminder `remind_and_retry` puts in the next request.
fn reminder(failure: &Failure) -> String {
    let quoted = failure.message.trim();
    match (failure.category, &failure.tool) {
        (Category::EditError, Some((tool, file))) => {
            let file = file.as_deref().unwrap_or("the file");
            format!(
                "Your {tool} of {file} did not apply: {quoted}\nRead {file} again and copy old_string exactly as it is there now (whitespace included), with enough surrounding lines to be unique, or set replace_all."
            )
        }
        (Category::MalformedToolCall, Some((tool, _))) => format!(
            "Your call to {tool} could not run: {quoted}\nSend it again with arguments that are one valid JSON object matching the tool's schema."
        ),
        _ => "Your last answer was empty: no text and no tool call. Continue the task with your next step, or if it is done, say so in a sentence or two.".to_string(),
    }
}

/// `4 s`, `1.5 s`, `250 ms`.
fn human_delay(d: Duration) -> String {
    let ms = millis(d);
    if ms < 1_000 {
        return format!("{ms} ms");
    }
    let tenths = (ms + 50) / 100;
    if tenths.is_multiple_of(10) {
        format!("{} s", tenths / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_read_as_people_say_them() {
        assert_eq!(human_delay(Duration::from_millis(4_000)), "4 s");
        assert_eq!(human_delay(Duration::from_millis(1_520)), "1.5 s");
        assert_eq!(human_delay(Duration::from_millis(250)), "250 ms");
    }

    #[test]
    fn reminders_name_the_tool_and_file_and_quote_the_message() {
        let failure = Failure {
            category: Category::EditError,
            cause: "Edit src/a.rs".into(),
            tool: Some(("Edit".into(), Some("src/a.rs".into()))),
            message: "old_string was not found in src/a.rs".into(),
            kind: "edit_error".into(),
            retry_after: None,
            window_learned: None,
        };
        let text = reminder(&failure);
        assert!(text.contains("Edit of src/a.rs"), "{text}");
        assert!(
            text.contains("old_string was not found in src/a.rs"),
            "{text}"
        );
    }
}
