//! `call_model`: one model call, one HTTP request. It streams through the provider,
//! forwards text and thinking deltas as progress and assembles the response; a failure
//! comes back classified, with a `StreamReset` reported first when the attempt had
//! already shown text. Nothing here retries: recovery (`crate::recovery`) decides what
//! a failure leads to, so one place retries and a request is never sent 5 × 5 times.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::assemble::Assembler;
use super::error::LlmError;
use super::{CallOutcome, ModelRequest, ModelResponse, Progress, ResolvedModel, StreamEvent};

/// Default of `llm.stall_timeout_s`: a stream that sends no byte for this long, its
/// connection open, is broken (a `network` failure).
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(90);

/// One model call (one request): streams, reports progress, assembles the response.
///
/// Text and thinking deltas are reported as they arrive. When the call fails after it
/// reported deltas, `Progress::StreamReset` is its last report, so a consumer that
/// discards on reset never shows text twice. A server that sends nothing for `stall`
/// (headers or stream) fails the call as a stream error. Cancellation returns
/// `LlmError::Cancelled` promptly, whether connecting or streaming. The HTTP status is
/// recorded as the `status` field of the current span (the caller's `model_attempt`).
pub async fn call_model(
    model: &ResolvedModel,
    req: &ModelRequest<'_>,
    stall: Duration,
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
    let mut shown = false;
    let mut first_event = None;
    let sent = body.clone();
    match run_attempt(
        model,
        body,
        stall,
        cancel,
        on_progress,
        &mut shown,
        &mut first_event,
    )
    .await
    {
        Ok(response) => Ok(CallOutcome {
            response,
            attempts: 1,
            latency_ms: millis(started.elapsed()),
            request_bytes,
            ttft_ms: first_event.map(|at: Instant| millis(at - started)),
            request_body: sent,
        }),
        Err(LlmError::Cancelled) => Err(LlmError::Cancelled),
        Err(err) => {
            if shown {
                on_progress(Progress::StreamReset);
            }
            tracing::warn!(kind = err.kind(), error = %err, "model call failed");
            Err(err)
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// One attempt (one HTTP request); `shown` becomes true once a text or thinking delta
/// was reported, `first_event` is when the stream's first event came.
async fn run_attempt(
    model: &ResolvedModel,
    body: bytes::Bytes,
    stall: Duration,
    cancel: &CancellationToken,
    on_progress: &mut (dyn FnMut(Progress) + Send),
    shown: &mut bool,
    first_event: &mut Option<Instant>,
) -> Result<ModelResponse, LlmError> {
    let provider = &model.provider;
    let errors = provider.errors();
    let connect = tokio::time::timeout(stall, provider.send(body));
    let sent = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
        s = connect => s.map_err(|_| {
            errors.stream_error(format!(
                "no response from {} for {} s",
                provider.endpoint(),
                stall.as_secs_f64()
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
            n = tokio::time::timeout(stall, stream.next()) => n,
        };
        let event = match next {
            Err(_) => {
                return Err(errors.stream_error(format!("no data for {} s", stall.as_secs_f64())));
            }
            Ok(None) => break,
            Ok(Some(event)) => event?,
        };
        first_event.get_or_insert_with(Instant::now);
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
