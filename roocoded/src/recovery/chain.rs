//! Strategies and chains: what recovery tries for a category, in order
//! ([`Chain::default_for`] is the design's table), and the `recovery.chains`
//! configuration that replaces a default (`[retry, {retry: 3}, abort]`), whose unknown
//! names are errors naming the closest valid one.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;
use thiserror::Error;

use super::Category;

/// The global cap of attempts for one error, whatever its chain says.
pub const DEFAULT_MAX_TOTAL_ATTEMPTS: u32 = 10;

/// Times the retry strategy runs in the default chains.
const DEFAULT_RETRIES: u32 = 5;

/// Times `remind_and_retry` runs in a row for the same cause by default.
const DEFAULT_REMINDERS: u32 = 2;

/// One thing recovery can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Send the same request again after a backoff with jitter (or the server's
    /// `retry-after`).
    Retry,
    /// Go on with `recovery.fallback_model` for the rest of the turn (skipped when
    /// none is configured).
    FallbackModel,
    /// Shrink the largest tool results in the context (context layer 1), then retry.
    Truncate,
    /// Summarise the older history (context layer 3), then retry.
    Compact,
    /// Tell the model, in the next request, what was wrong — the tool and the parser's
    /// or matcher's exact message — and let it try again.
    RemindAndRetry,
    /// Ask the model, without tools, where the task stands and what it will do next,
    /// and give it that as a reminder: the way out of a loop of empty answers.
    Summarize,
    /// Stop the turn with a message saying what was tried.
    Abort,
}

impl Strategy {
    pub const ALL: [Strategy; 7] = [
        Strategy::Retry,
        Strategy::FallbackModel,
        Strategy::Truncate,
        Strategy::Compact,
        Strategy::RemindAndRetry,
        Strategy::Summarize,
        Strategy::Abort,
    ];

    /// Its name in the configuration and in `recovery` events.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Retry => "retry",
            Strategy::FallbackModel => "fallback_model",
            Strategy::Truncate => "truncate",
            Strategy::Compact => "compact",
            Strategy::RemindAndRetry => "remind_and_retry",
            Strategy::Summarize => "summarize",
            Strategy::Abort => "abort",
        }
    }

    /// The strategy named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A strategy and how many attempts it gets before the chain moves on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub strategy: Strategy,
    /// At least 1.
    pub times: u32,
}

impl Step {
    fn once(strategy: Strategy) -> Self {
        Step { strategy, times: 1 }
    }
}

/// The strategies of one category, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    pub steps: Vec<Step>,
}

/// Where a chain stands after some attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub strategy: Strategy,
    /// Which attempt of its step this is (1-based) and how many the step allows.
    pub attempt: u32,
    pub of: u32,
}

impl Chain {
    /// The design's chain for `category`: transient failures are retried 5 times, then
    /// the fallback model (if configured), then abort; a context overflow is
    /// truncated, then compacted; a malformed call or a missed edit gets two reminders;
    /// an empty answer one reminder, then a summary; `auth` and `bad_request` abort at
    /// once; a `tool_failure` starts no chain (its result goes to the model as it is).
    pub fn default_for(category: Category) -> Chain {
        use Strategy::*;
        let steps = match category {
            Category::RateLimited
            | Category::Overloaded
            | Category::ServerError
            | Category::Network => vec![
                Step {
                    strategy: Retry,
                    times: DEFAULT_RETRIES,
                },
                Step::once(FallbackModel),
                Step::once(Abort),
            ],
            Category::ContextOverflow => {
                vec![Step::once(Truncate), Step::once(Compact), Step::once(Abort)]
            }
            Category::MalformedToolCall | Category::EditError => vec![
                Step {
                    strategy: RemindAndRetry,
                    times: DEFAULT_REMINDERS,
                },
                Step::once(Abort),
            ],
            Category::EmptyResult => vec![
                Step::once(RemindAndRetry),
                Step::once(Summarize),
                Step::once(Abort),
            ],
            Category::Auth | Category::BadRequest => vec![Step::once(Abort)],
            Category::ToolFailure => Vec::new(),
        };
        Chain { steps }
    }

    /// What the chain does after `attempts` attempts at one error: `None` once it is
    /// spent (the caller aborts) — never past `max_total`.
    pub fn position(&self, attempts: u32, max_total: u32) -> Option<Position> {
        if attempts >= max_total {
            return None;
        }
        let mut before = 0u32;
        for step in &self.steps {
            if attempts < before.saturating_add(step.times) {
                return Some(Position {
                    strategy: step.strategy,
                    attempt: attempts - before + 1,
                    of: step.times,
                });
            }
            before = before.saturating_add(step.times);
        }
        None
    }

    /// Every category's chain: the defaults, with `configured` (the parsed
    /// `recovery.chains`) replacing theirs.
    pub fn all(configured: &BTreeMap<Category, Chain>) -> BTreeMap<Category, Chain> {
        Category::ALL
            .into_iter()
            .map(|c| {
                let chain = configured
                    .get(&c)
                    .cloned()
                    .unwrap_or_else(|| Chain::default_for(c));
                (c, chain)
            })
            .collect()
    }

    /// Parses `recovery.chains`: a map from category names to lists of strategies, each
    /// a name (`retry`) or a name with its count (`{retry: 3}`).
    pub fn parse_map(value: &Value) -> Result<BTreeMap<Category, Chain>, ChainError> {
        let Value::Object(map) = value else {
            return Err(ChainError::NotAMap);
        };
        let mut out = BTreeMap::new();
        for (name, steps) in map {
            let category = Category::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
                ChainError::UnknownCategory {
                    name: name.clone(),
                    hint: hint(name, &names),
                }
            })?;
            out.insert(category, Chain::parse(category, steps)?);
        }
        Ok(out)
    }

    fn parse(category: Category, value: &Value) -> Result<Chain, ChainError> {
        let Value::Array(items) = value else {
            return Err(ChainError::NotAList(category.as_str().to_string()));
        };
        let mut steps = Vec::with_capacity(items.len());
        for item in items {
            let (name, times) = match item {
                Value::String(name) => (name.as_str(), 1),
                Value::Object(one) if one.len() == 1 => {
                    let Some((name, count)) = one.iter().next() else {
                        return Err(ChainError::BadStep(category.as_str().to_string()));
                    };
                    let times = count
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .filter(|n| *n >= 1)
                        .ok_or_else(|| ChainError::BadCount {
                            category: category.as_str().to_string(),
                            strategy: name.clone(),
                            given: count.to_string(),
                        })?;
                    (name.as_str(), times)
                }
                _ => return Err(ChainError::BadStep(category.as_str().to_string())),
            };
            let strategy = Strategy::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.as_str()).collect();
                ChainError::UnknownStrategy {
                    category: category.as_str().to_string(),
                    name: name.to_string(),
                    hint: hint(name, &names),
                }
            })?;
            steps.push(Step { strategy, times });
        }
        Ok(Chain { steps })
    }
}

/// ` (did you mean `x`?)`, or the valid names when none is close.
fn hint(name: &str, names: &[&str]) -> String {
    match roocode_protocol::command::closest(name, names).first() {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!("valid: {}", names.join(", ")),
    }
}

/// A `recovery.chains` that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChainError {
    #[error("`recovery.chains` must map categories to lists of strategies")]
    NotAMap,
    #[error("`recovery.chains` has no category `{name}` ({hint})")]
    UnknownCategory { name: String, hint: String },
    #[error("`recovery.chains.{0}` must be a list of strategies")]
    NotAList(String),
    #[error(
        "`recovery.chains.{0}`: each step is a strategy's name or `{{name: count}}`, e.g. `{{retry: 3}}`"
    )]
    BadStep(String),
    #[error("`recovery.chains.{category}`: no strategy `{name}` ({hint})")]
    UnknownStrategy {
        category: String,
        name: String,
        hint: String,
    },
    #[error("`recovery.chains.{category}`: `{strategy}` needs a count of at least 1, not {given}")]
    BadCount {
        category: String,
        strategy: String,
        given: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(chain: &Chain) -> Vec<(&'static str, u32)> {
        chain
            .steps
            .iter()
            .map(|s| (s.strategy.as_str(), s.times))
            .collect()
    }

    #[test]
    fn the_default_chains_are_the_designs_table() {
        let table: [(Category, &[(&str, u32)]); 11] = [
            (
                Category::RateLimited,
                &[("retry", 5), ("fallback_model", 1), ("abort", 1)],
            ),
            (
                Category::Overloaded,
                &[("retry", 5), ("fallback_model", 1), ("abort", 1)],
            ),
            (
                Category::ServerError,
                &[("retry", 5), ("fallback_model", 1), ("abort", 1)],
            ),
            (
                Category::Network,
                &[("retry", 5), ("fallback_model", 1), ("abort", 1)],
            ),
            (Category::Auth, &[("abort", 1)]),
            (
                Category::ContextOverflow,
                &[("truncate", 1), ("compact", 1), ("abort", 1)],
            ),
            (
                Category::MalformedToolCall,
                &[("remind_and_retry", 2), ("abort", 1)],
            ),
            (
                Category::EditError,
                &[("remind_and_retry", 2), ("abort", 1)],
            ),
            (
                Category::EmptyResult,
                &[("remind_and_retry", 1), ("summarize", 1), ("abort", 1)],
            ),
            (Category::ToolFailure, &[]),
            (Category::BadRequest, &[("abort", 1)]),
        ];
        for (category, expected) in table {
            assert_eq!(names(&Chain::default_for(category)), expected, "{category}");
        }
    }

    #[test]
    fn a_chain_walks_its_steps_and_stops_at_the_cap() {
        let chain = Chain::default_for(Category::RateLimited);
        let walk: Vec<Option<(&str, u32, u32)>> = (0..8)
            .map(|n| {
                chain
                    .position(n, DEFAULT_MAX_TOTAL_ATTEMPTS)
                    .map(|p| (p.strategy.as_str(), p.attempt, p.of))
            })
            .collect();
        assert_eq!(
            walk,
            [
                Some(("retry", 1, 5)),
                Some(("retry", 2, 5)),
                Some(("retry", 3, 5)),
                Some(("retry", 4, 5)),
                Some(("retry", 5, 5)),
                Some(("fallback_model", 1, 1)),
                Some(("abort", 1, 1)),
                None,
            ]
        );
        assert_eq!(chain.position(2, 2), None, "the global cap wins");
        assert_eq!(
            Chain::default_for(Category::ToolFailure).position(0, 10),
            None
        );
    }

    #[test]
    fn configured_chains_replace_defaults_and_bad_names_say_what_is_valid() {
        let parsed = Chain::parse_map(&json!({"rate_limited": [{"retry": 2}, "abort"]})).unwrap();
        let all = Chain::all(&parsed);
        assert_eq!(
            names(&all[&Category::RateLimited]),
            [("retry", 2), ("abort", 1)]
        );
        assert_eq!(all[&Category::Auth], Chain::default_for(Category::Auth));

        let err = Chain::parse_map(&json!({"rate_limted": ["abort"]})).unwrap_err();
        assert!(
            err.to_string().contains("did you mean `rate_limited`"),
            "{err}"
        );
        let err = Chain::parse_map(&json!({"network": ["retyr"]})).unwrap_err();
        assert!(err.to_string().contains("did you mean `retry`"), "{err}");
        let err = Chain::parse_map(&json!({"network": [{"retry": 0}]})).unwrap_err();
        assert!(err.to_string().contains("at least 1"), "{err}");
        let err = Chain::parse_map(&json!({"network": "retry"})).unwrap_err();
        assert_eq!(err, ChainError::NotAList("network".into()));
        let err = Chain::parse_map(&json!({"network": [{"retry": 1, "abort": 1}]})).unwrap_err();
        assert_eq!(err, ChainError::BadStep("network".into()));
    }
}
