//! `result_matches:`: the tests a termination applies to an agent's latest result
//! (`contains`, `regex`, `score_gte`, `no_changes`), read from YAML and checked against
//! the run's state.

use regex::Regex;
use serde::{Deserialize, Serialize};
use yaml_serde::Value;

use super::error::{GraphError, Place, describe};
use super::parse::{agent_name, string};
use super::state::GraphState;

/// Tests on one agent's latest result; every test given must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Matcher {
    /// The agent whose result is tested; `None`: the agent whose completion is being
    /// evaluated.
    #[serde(default)]
    pub agent: Option<String>,
    /// A case-sensitive substring.
    #[serde(default)]
    pub contains: Option<String>,
    /// A regular expression (checked when parsed).
    #[serde(default)]
    pub regex: Option<String>,
    /// The first number after the word `score` (any case) is at least this.
    #[serde(default)]
    pub score_gte: Option<f64>,
    /// The completion changed no files (`changed_files == Some(false)`).
    #[serde(default)]
    pub no_changes: bool,
}

/// The keys of `result_matches:`.
const KEYS: &str = "agent, contains, regex, score_gte, no_changes";

/// The furthest a score's number may sit after the word `score`, in characters.
const SCORE_REACH: usize = 12;

impl Matcher {
    /// Reads `result_matches:` at `at`; `agents` are the graph's.
    pub(crate) fn parse(value: &Value, at: &Place, agents: &[String]) -> Result<Self, GraphError> {
        let Some(map) = value.as_mapping() else {
            return Err(GraphError::Value {
                at: at.clone(),
                expected: "a mapping of agent, contains, regex, score_gte, no_changes",
                found: describe(value),
            });
        };
        let mut matcher = Self::default();
        for (key, value) in map {
            let name = key.as_str().unwrap_or_default();
            let here = at.key(name);
            match name {
                "agent" => matcher.agent = Some(agent_name(value, &here, agents)?),
                "contains" => {
                    let text = string(value, &here, "a non-empty string")?;
                    if text.is_empty() {
                        return Err(GraphError::Value {
                            at: here,
                            expected: "a non-empty string",
                            found: describe(value),
                        });
                    }
                    matcher.contains = Some(text);
                }
                "regex" => {
                    let pattern = string(value, &here, "a regular expression")?;
                    if let Err(source) = Regex::new(&pattern) {
                        return Err(GraphError::Regex {
                            at: here,
                            regex: pattern,
                            source: Box::new(source),
                        });
                    }
                    matcher.regex = Some(pattern);
                }
                "score_gte" => match value.as_f64() {
                    Some(n) if n.is_finite() => matcher.score_gte = Some(n),
                    Some(_) | None => {
                        return Err(GraphError::Value {
                            at: here,
                            expected: "a number",
                            found: describe(value),
                        });
                    }
                },
                "no_changes" => {
                    matcher.no_changes = value.as_bool().ok_or_else(|| GraphError::Value {
                        at: here,
                        expected: "true or false",
                        found: describe(value),
                    })?;
                }
                _ => {
                    return Err(GraphError::UnknownKey {
                        at: at.clone(),
                        key: key.as_str().map_or_else(|| describe(key), str::to_owned),
                        accepted: KEYS,
                    });
                }
            }
        }
        let tests = matcher.contains.is_some()
            || matcher.regex.is_some()
            || matcher.score_gte.is_some()
            || matcher.no_changes;
        if tests {
            Ok(matcher)
        } else {
            Err(GraphError::EmptyMatcher { at: at.clone() })
        }
    }

    /// When every test holds on the latest result of the tested agent (`agent`, or
    /// `completing`): what held, e.g. `reviewer's result contains "APPROVED"`.
    pub(crate) fn check(&self, state: &GraphState, completing: &str) -> Option<String> {
        let agent = self.agent.as_deref().unwrap_or(completing);
        let latest = state.last_results.get(agent)?.last()?;
        let mut held = Vec::new();
        if let Some(needle) = &self.contains {
            if !latest.contains(needle.as_str()) {
                return None;
            }
            held.push(format!("contains {needle:?}"));
        }
        if let Some(pattern) = &self.regex {
            let re = Regex::new(pattern).ok()?;
            if !re.is_match(latest) {
                return None;
            }
            held.push(format!("matches /{pattern}/"));
        }
        if let Some(threshold) = self.score_gte {
            let found = score(latest).filter(|s| *s >= threshold)?;
            held.push(format!("scores {found} (at least {threshold})"));
        }
        let mut reason = if held.is_empty() {
            String::new()
        } else {
            format!("{agent}'s result {}", held.join(" and "))
        };
        if self.no_changes {
            if state.changed_files.get(agent) != Some(&false) {
                return None;
            }
            if !reason.is_empty() {
                reason.push_str(" and ");
            }
            reason.push_str(&format!("{agent} changed no files"));
        }
        Some(reason)
    }
}

/// The first number after the word `score` in any case: `Score: 8/10` is 8,
/// `score = 7.5` is 7.5. The number must follow within 12 characters, on the same line
/// and before a full stop.
pub(crate) fn score(text: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    lower.match_indices("score").find_map(|(at, word)| {
        let after = &text[at + word.len()..];
        let start = after
            .char_indices()
            .take(SCORE_REACH)
            .take_while(|(_, c)| *c != '.' && *c != '\n')
            .find(|(_, c)| c.is_ascii_digit())?
            .0;
        let digits = &after[start..];
        let mut end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        if let Some(fraction) = digits[end..].strip_prefix('.') {
            let more = fraction
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(fraction.len());
            if more > 0 {
                end += 1 + more;
            }
        }
        digits[..end].parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_the_first_number_after_the_word() {
        let cases = [
            ("Score: 8/10", Some(8.0)),
            ("score = 7.5", Some(7.5)),
            ("Final SCORE 9.", Some(9.0)),
            ("**Score**: 6 out of 10", Some(6.0)),
            ("3 issues; score: 4", Some(4.0)),
            ("no score given. 10 files", None),
            ("the scorecard is empty; Score: 2", Some(2.0)),
            ("nothing here", None),
        ];
        for (text, want) in cases {
            assert_eq!(score(text), want, "{text}");
        }
    }

    fn state_with(agent: &str, result: &str, changed: Option<bool>) -> GraphState {
        let mut state = GraphState::default();
        state
            .last_results
            .insert(agent.to_owned(), vec![result.to_owned()]);
        if let Some(changed) = changed {
            state.changed_files.insert(agent.to_owned(), changed);
        }
        state
    }

    #[test]
    fn every_test_given_must_hold() {
        let approved = Matcher {
            contains: Some("APPROVED".to_owned()),
            ..Matcher::default()
        };
        let scored = Matcher {
            agent: Some("reviewer".to_owned()),
            score_gte: Some(8.0),
            regex: Some("(?i)lgtm".to_owned()),
            ..Matcher::default()
        };
        let unchanged = Matcher {
            no_changes: true,
            ..Matcher::default()
        };
        let cases = [
            (
                &approved,
                state_with("reviewer", "APPROVED, ship it", None),
                Some("reviewer's result contains \"APPROVED\""),
            ),
            (&approved, state_with("reviewer", "approved", None), None),
            (
                &scored,
                state_with("reviewer", "LGTM. Score: 9/10", None),
                Some("reviewer's result matches /(?i)lgtm/ and scores 9 (at least 8)"),
            ),
            (
                &scored,
                state_with("reviewer", "LGTM. Score: 7/10", None),
                None,
            ),
            (
                &scored,
                state_with("coder", "LGTM. Score: 9/10", None),
                None,
            ),
            (
                &unchanged,
                state_with("reviewer", "x", Some(false)),
                Some("reviewer changed no files"),
            ),
            (&unchanged, state_with("reviewer", "x", Some(true)), None),
            (&unchanged, state_with("reviewer", "x", None), None),
        ];
        for (matcher, state, want) in cases {
            assert_eq!(
                matcher.check(&state, "reviewer").as_deref(),
                want,
                "{matcher:?} {state:?}"
            );
        }
    }
}
