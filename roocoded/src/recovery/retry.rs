//! The `retry` strategy's parameters — attempts, exponential backoff with jitter,
//! `retry-after` capped, an overall time budget — built from the config's `retry:`
//! section, `llm.stall_timeout_s` and the client's `ROOCODE_RETRY_BASE_MS` (tests
//! shorten waits with it); and [`call_retrying`], the retry loop of the model calls
//! made outside the agent loop (a compaction's summary, WebFetch's reader), which run
//! no chain of their own. The agent loop's calls are retried by the turn's chain
//! (`agent/turn/recover.rs`) with the same policy: the LLM layer itself never retries.

use std::time::{Duration, Instant};

use roocode_protocol::session::ClientEnv;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::config::Config;
use crate::llm::{self, CallOutcome, LlmError, ModelRequest, Progress, ResolvedModel};

/// Client environment variable that overrides the base delay, in milliseconds.
pub const RETRY_BASE_ENV: &str = "ROOCODE_RETRY_BASE_MS";

/// Limits of retrying one model call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Sends in total, the first included (default 5): the `retry` step of the default
    /// chains makes `max_attempts - 1` retries.
    pub max_attempts: u32,
    /// Backoff before the first retry; doubles each time (default 1 s).
    pub base_delay: Duration,
    /// Cap of one wait, `retry-after` included (default 60 s).
    pub max_delay: Duration,
    /// No retry is started when the failures have lasted this long with the wait
    /// (default 2 min).
    pub max_total: Duration,
    /// A server that sends nothing for this long, its connection open, has stalled: a
    /// `network` failure (`llm.stall_timeout_s`, default 90 s).
    pub stall_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(60),
            max_total: Duration::from_secs(120),
            stall_timeout: llm::DEFAULT_STALL_TIMEOUT,
        }
    }
}

impl RetryPolicy {
    /// Defaults, then the config's `retry:` values and `llm.stall_timeout_s`, then
    /// `ROOCODE_RETRY_BASE_MS`.
    pub fn from_env_and_config(env: &ClientEnv, config: &Config) -> Self {
        let mut policy = RetryPolicy::default();
        let r = &config.retry;
        if let Some(n) = r.max_attempts {
            policy.max_attempts = n.max(1);
        }
        if let Some(ms) = r.base_delay_ms {
            policy.base_delay = Duration::from_millis(ms);
        }
        if let Some(s) = r.max_delay_secs {
            policy.max_delay = Duration::from_secs(s);
        }
        if let Some(s) = r.max_total_secs {
            policy.max_total = Duration::from_secs(s);
        }
        policy.stall_timeout = config.stall_timeout();
        if let Some(ms) = env
            .get(RETRY_BASE_ENV)
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            policy.base_delay = Duration::from_millis(ms);
        }
        policy
    }

    /// The wait after failed attempt number `attempt` (1-based): the server's
    /// `retry-after` when given, else `base * 2^(attempt-1)` with jitter in
    /// [half, full]; both capped at `max_delay`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(20));
        let full = self.base_delay.saturating_mul(factor).min(self.max_delay);
        let half = full / 2;
        half + full.saturating_sub(half).mul_f64(fastrand::f64())
    }
}

/// One model call outside the agent loop, retried under `policy` while its failure is
/// retryable: each wait is reported as `Progress::Retrying` before it starts and is
/// cancellable. Traces a `call_model` span (provider, format, model, attempts) around a
/// `model_attempt` span per request (attempt, status).
pub async fn call_retrying(
    model: &ResolvedModel,
    req: &ModelRequest<'_>,
    policy: &RetryPolicy,
    cancel: &CancellationToken,
    on_progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<CallOutcome, LlmError> {
    let span = tracing::info_span!(
        "call_model",
        provider = %model.provider_name,
        format = model.protocol(),
        model = %model.model,
        attempts = tracing::field::Empty,
    );
    async {
        let started = Instant::now();
        let max_attempts = policy.max_attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            tracing::Span::current().record("attempts", attempt);
            let span =
                tracing::info_span!("model_attempt", attempt, status = tracing::field::Empty);
            let result = llm::call_model(model, req, policy.stall_timeout, cancel, on_progress)
                .instrument(span)
                .await;
            let err = match result {
                Ok(mut outcome) => {
                    outcome.attempts = attempt;
                    outcome.latency_ms =
                        u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    return Ok(outcome);
                }
                Err(err) => err,
            };
            if !err.is_retryable() {
                return Err(err);
            }
            let delay = policy.delay(attempt, err.retry_after());
            if attempt >= max_attempts || started.elapsed() + delay > policy.max_total {
                tracing::warn!(
                    attempt,
                    kind = err.kind(),
                    error = %err,
                    "model call failed, giving up"
                );
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
    .instrument(span)
    .await
}

#[cfg(test)]
mod policy_tests {
    use super::*;

    #[test]
    fn from_config_and_env() {
        let mut env = ClientEnv::default();
        let mut config = Config::default();
        assert_eq!(
            RetryPolicy::from_env_and_config(&env, &config),
            RetryPolicy::default()
        );
        config.retry.max_attempts = Some(3);
        config.retry.base_delay_ms = Some(500);
        config.retry.max_total_secs = Some(10);
        let p = RetryPolicy::from_env_and_config(&env, &config);
        assert_eq!(
            (p.max_attempts, p.base_delay),
            (3, Duration::from_millis(500))
        );
        assert_eq!(p.max_total, Duration::from_secs(10));
        env.vars.insert(RETRY_BASE_ENV.into(), "5".into());
        let p = RetryPolicy::from_env_and_config(&env, &config);
        assert_eq!(p.base_delay, Duration::from_millis(5));
    }

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let p = RetryPolicy::default();
        for attempt in 1..=4 {
            let full = Duration::from_secs(1 << (attempt - 1));
            let d = p.delay(attempt, None);
            assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
        }
        assert!(p.delay(30, None) <= Duration::from_secs(60));
        assert_eq!(p.delay(1, Some(Duration::ZERO)), Duration::ZERO);
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(3600))),
            Duration::from_secs(60)
        );
    }
}

#[cfg(test)]
mod tests;
