//! The retry policy of one model call: attempts, exponential backoff with jitter,
//! `retry-after` capped, and an overall time budget. Built from the config's `retry:`
//! section and the client's `ROOCODE_RETRY_BASE_MS` (tests shorten waits with it).

use std::time::Duration;

use roocode_protocol::session::ClientEnv;

use crate::config::Config;

/// Client environment variable that overrides the base delay, in milliseconds.
pub const RETRY_BASE_ENV: &str = "ROOCODE_RETRY_BASE_MS";

/// Limits of the retry loop in `call_model`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included (default 5).
    pub max_attempts: u32,
    /// Backoff before the first retry; doubles each time (default 1 s).
    pub base_delay: Duration,
    /// Cap of one wait, `retry-after` included (default 60 s).
    pub max_delay: Duration,
    /// No retry is started when the call has run this long with the wait (default 2 min).
    pub max_total: Duration,
    /// A stream that sends nothing for this long is broken (default 5 min).
    pub idle_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(60),
            max_total: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// Defaults, then the config's `retry:` values, then `ROOCODE_RETRY_BASE_MS`.
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

#[cfg(test)]
mod tests {
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
