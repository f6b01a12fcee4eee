//! What the status bar reports about the session besides its model and mode: whether
//! a turn runs, the context used by the last model call, and the session's cost.

use roocode_protocol::content::Usage;

/// Turn, context and cost of the attached session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    pub running: bool,
    /// Input and cache tokens of the latest `usage` event: the context in use.
    pub context_tokens: Option<u64>,
    /// Cost of the session in dollars; `None` once any call had no known price.
    pub cost: Option<f64>,
    /// `usage` events up to this seq are already in `cost` (the snapshot's total).
    pub cost_seq: u64,
}

impl Status {
    /// The session's usage as a snapshot (or the session list) reports it, up to `seq`.
    pub fn set_cost_baseline(&mut self, usage: &Usage, seq: u64) {
        let tokens = usage.input_tokens
            + usage.output_tokens
            + usage.cache_read_tokens
            + usage.cache_write_tokens;
        self.cost = if tokens == 0 {
            Some(usage.cost_usd.unwrap_or(0.0))
        } else {
            usage.cost_usd
        };
        self.cost_seq = seq;
    }

    /// A `usage` event (stored at `seq`).
    pub fn usage(&mut self, usage: &Usage, seq: u64) {
        self.context_tokens =
            Some(usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens);
        if seq > self.cost_seq {
            self.cost = match (self.cost, usage.cost_usd) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
        }
    }

    /// `ctx 45.2k (23%)`, or `ctx ?` before any model call; `window` is the daemon's
    /// (older daemons do not say: then it is guessed from the model's name).
    pub fn context_text(&self, model: &str, window: Option<u64>) -> String {
        match self.context_tokens {
            Some(t) => {
                let window = window.unwrap_or_else(|| context_window(model)).max(1);
                let pct = (t as f64 * 100.0 / window as f64).round() as u64;
                format!("ctx {} ({pct}%)", tokens(t))
            }
            None => "ctx ?".to_owned(),
        }
    }

    /// `$0.42`, `$0.0031`, or `—` when unknown.
    pub fn cost_text(&self) -> String {
        match self.cost {
            Some(c) if c > 0.0 && c < 0.01 => format!("${c:.4}"),
            Some(c) => format!("${c:.2}"),
            None => "—".to_owned(),
        }
    }
}

/// The context window assumed for `model` when the daemon does not say: 200k for
/// Claude models, 128k otherwise.
pub fn context_window(model: &str) -> u64 {
    if model.to_ascii_lowercase().contains("claude") {
        200_000
    } else {
        128_000
    }
}

/// `812`, `45.2k`, `1.2M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, cache: u64, cost: Option<f64>) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: 10,
            cache_read_tokens: cache,
            cache_write_tokens: 0,
            cost_usd: cost,
        }
    }

    #[test]
    fn context_is_the_latest_calls_input_and_cache() {
        let mut s = Status::default();
        assert_eq!(s.context_text("claude-sonnet-4", None), "ctx ?");
        s.usage(&usage(40_000, 10_000, None), 5);
        assert_eq!(s.context_text("claude-sonnet-4", None), "ctx 50.0k (25%)");
        assert_eq!(s.context_text("gpt-5", None), "ctx 50.0k (39%)");
    }

    #[test]
    fn the_daemons_window_beats_the_guess() {
        // `anthropic/sonnet` names no Claude model: only the daemon knows it is 200k.
        let mut s = Status::default();
        s.usage(&usage(40_000, 10_000, None), 5);
        assert_eq!(s.context_text("anthropic/sonnet", None), "ctx 50.0k (39%)");
        assert_eq!(
            s.context_text("anthropic/sonnet", Some(200_000)),
            "ctx 50.0k (25%)"
        );
    }

    #[test]
    fn cost_sums_after_the_baseline_and_unknown_sticks() {
        let mut s = Status::default();
        s.set_cost_baseline(&usage(100, 0, Some(0.5)), 10);
        s.usage(&usage(1, 0, Some(0.25)), 9);
        assert_eq!(s.cost_text(), "$0.50");
        s.usage(&usage(1, 0, Some(0.25)), 11);
        assert_eq!(s.cost_text(), "$0.75");
        s.usage(&usage(1, 0, None), 12);
        assert_eq!(s.cost_text(), "—");
    }

    #[test]
    fn a_new_session_costs_nothing_yet() {
        let mut s = Status::default();
        s.set_cost_baseline(&Usage::default(), 0);
        assert_eq!(s.cost_text(), "$0.00");
    }
}
