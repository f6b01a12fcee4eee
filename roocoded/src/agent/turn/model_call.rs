//! One model call of a turn: the call itself, its progress forwarded as events in
//! batches, and its record (usage, cost, latency) in the store.

use roocode_protocol::event::EventPayload;
use tokio::sync::mpsc;
use tracing::Instrument;

use super::Turn;
use crate::agent::AgentError;
use crate::agent::settings::TurnSettings;
use crate::llm::{self, CallOutcome, LlmError, ModelRequest, Progress};
use crate::store::{ModelCallRow, Purpose};
use crate::trace::bodies::BodyRecorder;
use crate::trace::parts::RequestParts;

use crate::agent::call_row::{CallOf, call_row};

impl Turn<'_> {
    /// One model call (one request: recovery decides what a failure leads to); its
    /// progress becomes events, batched as they arrive.
    pub(super) async fn call(
        &self,
        model: &llm::ResolvedModel,
        request: &ModelRequest<'_>,
        stall: std::time::Duration,
        message_id: &str,
    ) -> Result<CallOutcome, LlmError> {
        let (tx, mut rx) = mpsc::unbounded_channel::<Progress>();
        let cancel = self.cancel.clone();
        // A replayed session's answers come from its recording, never from a model.
        let replayed = self.engine.replays.agent(self.id());
        let call = async move {
            let mut on_progress = move |p: Progress| {
                let _ = tx.send(p);
            };
            if let Some(feed) = replayed {
                return feed
                    .answer(Purpose::Conversation, model, request, &mut on_progress)
                    .await;
            }
            let span = tracing::info_span!("model_attempt", status = tracing::field::Empty);
            llm::call_model(model, request, stall, &cancel, &mut on_progress)
                .instrument(span)
                .await
        };
        let forward = async {
            while let Some(first) = rx.recv().await {
                let mut batch = vec![first];
                while let Ok(p) = rx.try_recv() {
                    batch.push(p);
                }
                let payloads = progress_events(batch, message_id);
                if let Err(e) = self
                    .engine
                    .events()
                    .append_many(self.id(), self.id(), payloads)
                    .await
                {
                    tracing::error!("cannot record streamed events: {e}");
                }
            }
        };
        let (outcome, ()) = tokio::join!(call, forward);
        outcome
    }

    /// Records one call of the loop with the resolved model (the agent's model may be
    /// an alias such as `anthropic/sonnet`), as compaction and WebFetch record it.
    pub(super) async fn record_call(
        &self,
        settings: &TurnSettings<'_>,
        message_id: &str,
        parts: &RequestParts,
        purpose: Purpose,
        outcome: Option<&CallOutcome>,
        error: Option<&LlmError>,
    ) -> Result<(), AgentError> {
        let store = self.engine.store();
        let model = &settings.model;
        let call = ModelCallRow {
            // the row shares the id of the assistant message it produced
            id: message_id.to_string(),
            iteration: Some(i64::from(self.iterations) + 1),
            ttft_ms: outcome
                .and_then(|o| o.ttft_ms)
                .map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
            parts: (settings.config.trace_recording())
                .then(|| serde_json::to_string(parts).ok())
                .flatten(),
            ..call_row(
                CallOf {
                    session_id: self.id(),
                    turn_id: self.turn_id,
                    agent_id: &settings.agent.agent_id,
                    purpose,
                },
                model,
                outcome,
                error.map(ToString::to_string),
            )
        };
        if let Some(o) = outcome {
            let u = &o.response.usage;
            store.add_session_usage(self.id(), u).await?;
            self.emit(EventPayload::Usage {
                message_id: message_id.to_string(),
                model: settings.agent.model.clone(),
                usage: *u,
            })
            .await?;
        }
        store.record_model_call(&call).await?;
        if let (Some(o), Some(bodies)) = (
            outcome,
            BodyRecorder::new(&settings.env.vars, &settings.config),
        ) {
            self.engine
                .recorder()
                .body(&bodies, self.id(), message_id, o);
        }
        Ok(())
    }
}

/// Progress of a model call as events; adjacent deltas of one kind are merged.
fn progress_events(batch: Vec<Progress>, message_id: &str) -> Vec<EventPayload> {
    let mut out: Vec<EventPayload> = Vec::with_capacity(batch.len());
    for p in batch {
        let next = match p {
            Progress::TextDelta(text) => {
                if let Some(EventPayload::TextDelta { text: prev, .. }) = out.last_mut() {
                    prev.push_str(&text);
                    continue;
                }
                EventPayload::TextDelta {
                    message_id: message_id.to_string(),
                    text,
                }
            }
            Progress::ThinkingDelta(text) => {
                if let Some(EventPayload::ThinkingDelta { text: prev, .. }) = out.last_mut() {
                    prev.push_str(&text);
                    continue;
                }
                EventPayload::ThinkingDelta {
                    message_id: message_id.to_string(),
                    text,
                }
            }
            Progress::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } => EventPayload::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            },
            Progress::StreamReset => EventPayload::StreamReset {
                message_id: message_id.to_string(),
            },
        };
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_deltas_merge_but_resets_split_them() {
        let ev = progress_events(
            vec![
                Progress::TextDelta("a".into()),
                Progress::TextDelta("b".into()),
                Progress::StreamReset,
                Progress::TextDelta("c".into()),
            ],
            "m",
        );
        assert_eq!(
            ev,
            vec![
                EventPayload::TextDelta {
                    message_id: "m".into(),
                    text: "ab".into()
                },
                EventPayload::StreamReset {
                    message_id: "m".into()
                },
                EventPayload::TextDelta {
                    message_id: "m".into(),
                    text: "c".into()
                },
            ]
        );
    }
}
