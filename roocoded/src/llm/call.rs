//! `call_model`: one model call with retries. Each attempt streams through the
//! provider, forwards text and thinking deltas as progress and assembles the response;
//! retryable failures wait (reported before the wait, cancellable) and try again, with
//! a `StreamReset` first when the failed attempt had already shown text.

use std::borrow::Cow;
use std::time::Instant;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::assemble::Assembler;
use super::error::LlmError;
use super::{
    CallOutcome, ModelRequest, ModelResponse, Progress, ResolvedModel, RetryPolicy, StreamEvent,
};

/// One model call with retries: streams, reports progress, assembles the response.
///
/// Text and thinking deltas are reported as they arrive. When an attempt that already
/// reported deltas fails, `Progress::StreamReset` comes before anything else, so a
/// consumer that discards on reset never shows text twice. Each wait is reported as
/// `Progress::Retrying` before it starts. Cancellation returns `LlmError::Cancelled`
/// promptly, whether connecting, streaming or waiting.
#[tracing::instrument(
    name = "call_model",
    skip_all,
    fields(
        provider = %model.provider_name,
        format = model.protocol(),
        model = %model.model,
        attempts = tracing::field::Empty,
    )
)]
pub async fn call_model(
    model: &ResolvedModel,
    req: &ModelRequest<'_>,
    policy: &RetryPolicy,
    cancel: &CancellationToken,
    on_progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<CallOutcome, LlmError> {
    let started = Instant::now();
    // An empty `req.model` means "the resolved model's name".
    let req = match req.model.is_empty() {
        true => Cow::Owned(ModelRequest {
            model: model.model.clone(),
            ..req.clone()
        }),
        false => Cow::Borrowed(req),
    };
    let body = model.provider.encode(req.as_ref())?;
    let request_bytes = body.len() as u64;
    let max_attempts = policy.max_attempts.max(1);
    let mut attempt = 0;
    loop {
        attempt += 1;
        tracing::Span::current().record("attempts", attempt);
        let span = tracing::info_span!("model_attempt", attempt, status = tracing::field::Empty);
        let mut shown = false;
        let result = run_attempt(model, body.clone(), policy, cancel, on_progress, &mut shown)
            .instrument(span)
            .await;
        let err = match result {
            Ok(response) => {
                return Ok(CallOutcome {
                    response,
                    attempts: attempt,
                    latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    request_bytes,
                });
            }
            Err(LlmError::Cancelled) => return Err(LlmError::Cancelled),
            Err(err) => err,
        };
        if shown {
            on_progress(Progress::StreamReset);
        }
        if !err.is_retryable() {
            tracing::warn!(attempt, kind = err.kind(), error = %err, "model call failed");
            return Err(err);
        }
        let delay = policy.delay(attempt, err.retry_after());
        if attempt >= max_attempts || started.elapsed() + delay > policy.max_total {
            tracing::warn!(attempt, kind = err.kind(), error = %err, "model call failed, giving up");
            return Err(LlmError::RetriesExhausted {
                attempts: attempt,
                last: Box::new(err),
            });
        }
        let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        tracing::info!(attempt, delay_ms, error = %err, "retrying model call");
        on_progress(Progress::Retrying {
            attempt: attempt + 1,
            max_attempts,
            delay_ms,
            reason: err.reason(),
        });
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            _ = tokio::time::sleep(delay) => {}
        }
    }
}

/// One attempt (one HTTP request), inside its span; `shown` becomes true once a text
/// or thinking delta was reported.
async fn run_attempt(
    model: &ResolvedModel,
    body: bytes::Bytes,
    policy: &RetryPolicy,
    cancel: &CancellationToken,
    on_progress: &mut (dyn FnMut(Progress) + Send),
    shown: &mut bool,
) -> Result<ModelResponse, LlmError> {
    let provider = &model.provider;
    let errors = provider.errors();
    let connect = tokio::time::timeout(policy.idle_timeout, provider.send(body));
    let sent = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
        s = connect => s.map_err(|_| {
            errors.stream_error(format!(
                "no response from {} for {} s",
                provider.endpoint(),
                policy.idle_timeout.as_secs()
            ))
        })?,
    };
    let status = match &sent {
        Ok(response) => Some(response.status().as_u16()),
        Err(e) => e.status(),
    };
    if let Some(status) = status {
        tracing::Span::current().record("status", status);
    }
    let mut stream = provider.events(sent?);
    let mut assembler = Assembler::default();
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            n = tokio::time::timeout(policy.idle_timeout, stream.next()) => n,
        };
        let event = match next {
            Err(_) => {
                return Err(
                    errors.stream_error(format!("no data for {} s", policy.idle_timeout.as_secs()))
                );
            }
            Ok(None) => break,
            Ok(Some(event)) => event?,
        };
        match &event {
            StreamEvent::TextDelta(t) => {
                *shown = true;
                on_progress(Progress::TextDelta(t.clone()));
            }
            StreamEvent::ThinkingDelta(t) => {
                *shown = true;
                on_progress(Progress::ThinkingDelta(t.clone()));
            }
            _ => {}
        }
        let end = matches!(event, StreamEvent::End { .. });
        assembler.push(event);
        if end {
            break;
        }
    }
    assembler.finish(errors, model.price.as_ref())
}

#[cfg(test)]
mod tests;
