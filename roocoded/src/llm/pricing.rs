//! Prices and context windows of known models. Prices are US dollars per million
//! tokens; an unknown model has no price (its cost is unknown, never zero). Model
//! names match exactly or with a `-suffix` (dated snapshots such as
//! `claude-sonnet-4-5-20250929`), longest known name first, after dropping any
//! `vendor/` prefix.

use roocode_protocol::content::Usage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

const fn p(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Price {
    Price {
        input,
        output,
        cache_read,
        cache_write,
    }
}

/// Known prices. Anthropic: cache writes are the 5-minute rate; OpenAI and DeepSeek
/// charge nothing extra for cache writes.
const PRICES: &[(&str, Price)] = &[
    // Anthropic
    ("claude-opus-5", p(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-8", p(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-7", p(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-6", p(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-5", p(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-1", p(15.0, 75.0, 1.5, 18.75)),
    ("claude-opus-4-0", p(15.0, 75.0, 1.5, 18.75)),
    ("claude-opus-4", p(15.0, 75.0, 1.5, 18.75)),
    ("claude-sonnet-5", p(2.0, 10.0, 0.2, 2.5)),
    ("claude-sonnet-4-6", p(3.0, 15.0, 0.3, 3.75)),
    ("claude-sonnet-4-5", p(3.0, 15.0, 0.3, 3.75)),
    ("claude-sonnet-4-0", p(3.0, 15.0, 0.3, 3.75)),
    ("claude-sonnet-4", p(3.0, 15.0, 0.3, 3.75)),
    ("claude-3-7-sonnet", p(3.0, 15.0, 0.3, 3.75)),
    ("claude-haiku-4-5", p(1.0, 5.0, 0.1, 1.25)),
    ("claude-3-5-haiku", p(0.8, 4.0, 0.08, 1.0)),
    // OpenAI
    ("gpt-5", p(1.25, 10.0, 0.125, 0.0)),
    ("gpt-5-mini", p(0.25, 2.0, 0.025, 0.0)),
    ("gpt-5-nano", p(0.05, 0.4, 0.005, 0.0)),
    ("gpt-4.1", p(2.0, 8.0, 0.5, 0.0)),
    ("gpt-4.1-mini", p(0.4, 1.6, 0.1, 0.0)),
    ("gpt-4.1-nano", p(0.1, 0.4, 0.025, 0.0)),
    ("gpt-4o", p(2.5, 10.0, 1.25, 0.0)),
    ("gpt-4o-mini", p(0.15, 0.6, 0.075, 0.0)),
    ("o1", p(15.0, 60.0, 7.5, 0.0)),
    ("o1-mini", p(1.1, 4.4, 0.55, 0.0)),
    ("o3", p(2.0, 8.0, 0.5, 0.0)),
    ("o3-pro", p(20.0, 80.0, 20.0, 0.0)),
    ("o3-mini", p(1.1, 4.4, 0.55, 0.0)),
    ("o4-mini", p(1.1, 4.4, 0.275, 0.0)),
    // DeepSeek (V3.2 pricing)
    ("deepseek-chat", p(0.28, 0.42, 0.028, 0.0)),
    ("deepseek-reasoner", p(0.28, 0.42, 0.028, 0.0)),
];

/// Known context windows; anything else gets [`DEFAULT_CONTEXT_WINDOW`].
const WINDOWS: &[(&str, u64)] = &[
    ("claude-opus-5", 1_000_000),
    ("claude-sonnet-5", 1_000_000),
    ("claude-opus-4-8", 1_000_000),
    ("claude-opus-4-7", 1_000_000),
    ("claude-opus-4-6", 1_000_000),
    ("claude-sonnet-4-6", 1_000_000),
    ("claude", 200_000),
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("deepseek", 128_000),
];

/// Context window of models not in the table.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// The known price of `model` (a provider-side name), if any.
pub fn price(model: &str) -> Option<Price> {
    lookup(PRICES, model).copied()
}

/// The context window of `model`: the table's value or [`DEFAULT_CONTEXT_WINDOW`].
/// (`context.window_tokens` in the config overrides it; see `resolve_model`.)
pub fn context_window(model: &str) -> u64 {
    lookup(WINDOWS, model)
        .copied()
        .unwrap_or(DEFAULT_CONTEXT_WINDOW)
}

/// Cost in US dollars of `usage` at `price`.
pub fn cost(price: &Price, usage: &Usage) -> f64 {
    let per_token = |tokens: u64, per_million: f64| tokens as f64 * per_million / 1_000_000.0;
    per_token(usage.input_tokens, price.input)
        + per_token(usage.output_tokens, price.output)
        + per_token(usage.cache_read_tokens, price.cache_read)
        + per_token(usage.cache_write_tokens, price.cache_write)
}

/// Exact name, else the longest table name `k` such that the model starts with `k-`.
fn lookup<'t, T>(table: &'t [(&str, T)], model: &str) -> Option<&'t T> {
    let name = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    let name = name.as_str();
    table
        .iter()
        .filter(|(k, _)| {
            name == *k
                || name
                    .strip_prefix(k)
                    .is_some_and(|rest| rest.starts_with('-'))
        })
        .max_by_key(|(k, _)| k.len())
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_models() {
        assert_eq!(price("claude-sonnet-4-5").unwrap().input, 3.0);
        assert_eq!(price("claude-sonnet-4-5-20250929").unwrap().output, 15.0);
        assert_eq!(price("claude-opus-4-1-20250805").unwrap().input, 15.0);
        assert_eq!(price("claude-opus-4-5").unwrap().input, 5.0);
        assert_eq!(price("claude-haiku-4-5").unwrap().cache_read, 0.1);
        assert_eq!(price("gpt-4o-mini").unwrap().input, 0.15);
        assert_eq!(price("gpt-4o-2024-08-06").unwrap().input, 2.5);
        assert_eq!(price("gpt-4.1-mini-2025-04-14").unwrap().input, 0.4);
        assert_eq!(price("o3-mini").unwrap().input, 1.1);
        assert_eq!(price("deepseek-chat").unwrap().output, 0.42);
        assert_eq!(price("openai/gpt-4.1").unwrap().input, 2.0);
        assert_eq!(price("qwen2.5-coder"), None);
        assert_eq!(price("gpt-4.10"), None);
        assert_eq!(price("o1x"), None);
    }

    #[test]
    fn windows() {
        assert_eq!(context_window("claude-sonnet-4-5"), 200_000);
        assert_eq!(context_window("claude-haiku-4-5-20251001"), 200_000);
        assert_eq!(context_window("gpt-4.1"), 1_047_576);
        assert_eq!(context_window("gpt-4o-mini"), 128_000);
        assert_eq!(context_window("llama3"), DEFAULT_CONTEXT_WINDOW);
    }

    #[test]
    fn cost_counts_every_kind() {
        let price = price("claude-sonnet-4-5").unwrap();
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 1_000_000,
            cache_write_tokens: 1_000_000,
            cost_usd: None,
        };
        let c = cost(&price, &usage);
        assert!((c - (3.0 + 1.5 + 0.3 + 3.75)).abs() < 1e-9, "{c}");
    }
}
