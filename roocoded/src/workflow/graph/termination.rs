//! `termination:`: the terms that end a collaboration (`any_of`, `all_of`), read from
//! YAML and evaluated after each completion. A term either says the work succeeded
//! (`result_matches`, `converged`: the workflow ends Complete) or that it should give up
//! (`max_iterations`, `timeout_ms`, `stuck`: it ends Exhausted).

use serde::{Deserialize, Serialize};
use yaml_serde::Value;

use super::error::{GraphError, Place, describe};
use super::matcher::Matcher;
use super::state::{GraphState, RESULTS_KEPT, Status};

/// When the workflow ends: when any term of `any_of` holds, or when every term of a
/// non-empty `all_of` holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Termination {
    #[serde(default)]
    pub any_of: Vec<Term>,
    #[serde(default)]
    pub all_of: Vec<Term>,
}

/// One condition of a termination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Term {
    /// The iteration count reached n.
    MaxIterations(u32),
    /// This many milliseconds passed since the workflow started.
    TimeoutMs(u64),
    /// The LLM judge answered that the agents converged.
    Converged,
    /// An agent's latest result passes the matcher's tests.
    ResultMatches(Matcher),
    /// Some agent returned the same result n times in a row.
    Stuck(u32),
}

/// The keys of `termination:`.
const KEYS: &str = "any_of, all_of";

/// The keys a term may have.
const TERMS: &str = "max_iterations, timeout_ms, converged, result_matches, stuck";

/// What a term is evaluated against.
pub(crate) struct Facts<'a> {
    pub state: &'a GraphState,
    /// The agent whose completion is being evaluated (`result_matches`' default).
    pub agent: &'a str,
    pub now_ms: u64,
    /// The judge's answer; `None` before it was asked (`converged` does not hold).
    pub converged: Option<bool>,
}

/// A termination that holds: how the workflow ends, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub status: Status,
    pub reason: String,
}

impl Term {
    /// The status a workflow ends with when this term ends it.
    fn status(&self) -> Status {
        match self {
            Self::Converged | Self::ResultMatches(_) => Status::Complete,
            Self::MaxIterations(_) | Self::TimeoutMs(_) | Self::Stuck(_) => Status::Exhausted,
        }
    }

    /// Why the term holds, or `None`.
    fn check(&self, facts: &Facts<'_>) -> Option<String> {
        match self {
            Self::MaxIterations(n) => {
                (facts.state.iteration >= *n).then(|| format!("max_iterations ({n}) reached"))
            }
            Self::TimeoutMs(ms) => (facts.now_ms.saturating_sub(facts.state.started_ms) >= *ms)
                .then(|| format!("timeout_ms ({ms}) passed")),
            Self::Converged => (facts.converged == Some(true))
                .then(|| "the judge found the agents converged".to_owned()),
            Self::ResultMatches(matcher) => matcher
                .check(facts.state, facts.agent)
                .map(|held| format!("result_matches: {held}")),
            Self::Stuck(n) => stuck(facts.state, *n)
                .map(|agent| format!("stuck: {agent} returned the same result {n} times")),
        }
    }
}

/// The first agent (by name) whose last `n` results are the same, ignoring surrounding
/// whitespace.
fn stuck(state: &GraphState, n: u32) -> Option<&str> {
    let n = usize::try_from(n).ok()?;
    state.last_results.iter().find_map(|(agent, results)| {
        let tail = results.get(results.len().checked_sub(n)?..)?;
        let first = tail.first()?.trim();
        (n >= 2 && tail.iter().all(|r| r.trim() == first)).then_some(agent.as_str())
    })
}

impl Termination {
    /// Whether there is no term at all.
    pub fn is_empty(&self) -> bool {
        self.any_of.is_empty() && self.all_of.is_empty()
    }

    /// Whether a `converged` term is in either list.
    pub fn has_converged(&self) -> bool {
        self.any_of
            .iter()
            .chain(&self.all_of)
            .any(|t| *t == Term::Converged)
    }

    /// Every way the termination holds: each holding `any_of` term in order, then
    /// `all_of` when all its terms hold (Complete when one of them is a success term).
    pub(crate) fn verdicts(&self, facts: &Facts<'_>) -> Vec<Verdict> {
        let mut verdicts: Vec<Verdict> = self
            .any_of
            .iter()
            .filter_map(|term| {
                term.check(facts).map(|reason| Verdict {
                    status: term.status(),
                    reason,
                })
            })
            .collect();
        if !self.all_of.is_empty() {
            let reasons: Option<Vec<String>> =
                self.all_of.iter().map(|term| term.check(facts)).collect();
            if let Some(reasons) = reasons {
                let success = self.all_of.iter().any(|t| t.status() == Status::Complete);
                verdicts.push(Verdict {
                    status: if success {
                        Status::Complete
                    } else {
                        Status::Exhausted
                    },
                    reason: reasons.join(" and "),
                });
            }
        }
        verdicts
    }

    /// Whether the judge's answer could end the workflow now: `converged` is in
    /// `any_of`, or in an `all_of` whose other terms all hold.
    pub(crate) fn awaits_judge(&self, facts: &Facts<'_>) -> bool {
        self.any_of.contains(&Term::Converged)
            || (self.all_of.contains(&Term::Converged)
                && self
                    .all_of
                    .iter()
                    .filter(|t| **t != Term::Converged)
                    .all(|t| t.check(facts).is_some()))
    }

    /// Reads `termination:` at `at`; `agents` are the graph's.
    pub(crate) fn parse(value: &Value, at: &Place, agents: &[String]) -> Result<Self, GraphError> {
        let Some(map) = value.as_mapping() else {
            return Err(GraphError::Value {
                at: at.clone(),
                expected: "a mapping with any_of, all_of or both",
                found: describe(value),
            });
        };
        let mut termination = Self::default();
        for (key, value) in map {
            let list = match key.as_str() {
                Some("any_of") => &mut termination.any_of,
                Some("all_of") => &mut termination.all_of,
                Some(_) | None => {
                    return Err(GraphError::UnknownKey {
                        at: at.clone(),
                        key: key.as_str().map_or_else(|| describe(key), str::to_owned),
                        accepted: KEYS,
                    });
                }
            };
            let here = at.key(key.as_str().unwrap_or_default());
            let Some(items) = value.as_sequence() else {
                return Err(GraphError::Value {
                    at: here,
                    expected: "a list of terms",
                    found: describe(value),
                });
            };
            for (i, item) in items.iter().enumerate() {
                list.push(parse_term(item, &here.index(i), agents)?);
            }
        }
        Ok(termination)
    }
}

/// Reads one term: a mapping with exactly one key.
fn parse_term(value: &Value, at: &Place, agents: &[String]) -> Result<Term, GraphError> {
    let entry = value
        .as_mapping()
        .filter(|map| map.len() == 1)
        .and_then(|map| map.iter().next());
    let Some((key, value)) = entry else {
        return Err(GraphError::TermShape { at: at.clone() });
    };
    let name = key.as_str().unwrap_or_default();
    let here = at.key(name);
    let whole = |min: u64, max: u64, expected: &'static str| {
        value
            .as_u64()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| GraphError::Value {
                at: here.clone(),
                expected,
                found: describe(value),
            })
    };
    let max_kept = u64::try_from(RESULTS_KEPT).unwrap_or(u64::MAX);
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    match name {
        "max_iterations" => Ok(Term::MaxIterations(small(whole(
            1,
            u64::from(u32::MAX),
            "a whole number of at least 1",
        )?))),
        "timeout_ms" => Ok(Term::TimeoutMs(whole(
            1,
            u64::MAX,
            "a whole number of milliseconds, at least 1",
        )?)),
        "converged" => match value.as_bool() {
            Some(true) => Ok(Term::Converged),
            Some(false) | None => Err(GraphError::Value {
                at: here,
                expected: "true",
                found: describe(value),
            }),
        },
        "result_matches" => Ok(Term::ResultMatches(Matcher::parse(value, &here, agents)?)),
        "stuck" => Ok(Term::Stuck(small(whole(
            2,
            max_kept,
            "a whole number from 2 to 5 (the results kept per agent)",
        )?))),
        _ => Err(GraphError::UnknownKey {
            at: at.clone(),
            key: key.as_str().map_or_else(|| describe(key), str::to_owned),
            accepted: TERMS,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(state: &'a GraphState, now_ms: u64, converged: Option<bool>) -> Facts<'a> {
        Facts {
            state,
            agent: "reviewer",
            now_ms,
            converged,
        }
    }

    fn state(results: &[(&str, &[&str])], iteration: u32) -> GraphState {
        let mut state = GraphState {
            iteration,
            started_ms: 1_000,
            ..GraphState::default()
        };
        for (agent, list) in results {
            state.last_results.insert(
                (*agent).to_owned(),
                list.iter().map(|s| (*s).to_owned()).collect(),
            );
        }
        state
    }

    #[test]
    fn terms_hold_and_name_themselves() {
        let approved = Term::ResultMatches(Matcher {
            contains: Some("APPROVED".to_owned()),
            ..Matcher::default()
        });
        let cases = [
            (
                Term::MaxIterations(3),
                state(&[], 3),
                0,
                None,
                Some("max_iterations (3) reached"),
            ),
            (Term::MaxIterations(3), state(&[], 2), 0, None, None),
            (
                Term::TimeoutMs(600_000),
                state(&[], 0),
                601_000,
                None,
                Some("timeout_ms (600000) passed"),
            ),
            (Term::TimeoutMs(600_000), state(&[], 0), 600_999, None, None),
            (
                Term::Converged,
                state(&[], 0),
                0,
                Some(true),
                Some("the judge found the agents converged"),
            ),
            (Term::Converged, state(&[], 0), 0, None, None),
            (
                approved.clone(),
                state(&[("reviewer", &["fix it", "APPROVED"])], 1),
                0,
                None,
                Some("result_matches: reviewer's result contains \"APPROVED\""),
            ),
            (
                approved,
                state(&[("reviewer", &["APPROVED", "fix it"])], 1),
                0,
                None,
                None,
            ),
            (
                Term::Stuck(2),
                state(
                    &[("coder", &["a", "same", "same\n"]), ("reviewer", &["x"])],
                    0,
                ),
                0,
                None,
                Some("stuck: coder returned the same result 2 times"),
            ),
            (
                Term::Stuck(3),
                state(&[("coder", &["a", "same", "same"])], 0),
                0,
                None,
                None,
            ),
        ];
        for (term, state, now, converged, want) in cases {
            let got = term.check(&facts(&state, now, converged));
            assert_eq!(got.as_deref(), want, "{term:?}");
        }
    }

    #[test]
    fn all_of_holds_only_when_every_term_does() {
        let termination = Termination {
            any_of: vec![Term::TimeoutMs(10)],
            all_of: vec![Term::MaxIterations(1), Term::Converged],
        };
        let s = state(&[], 1);
        assert!(termination.verdicts(&facts(&s, 1_005, None)).is_empty());
        assert!(termination.awaits_judge(&facts(&s, 1_005, None)));
        assert_eq!(
            termination.verdicts(&facts(&s, 1_005, Some(true))),
            vec![Verdict {
                status: Status::Complete,
                reason: "max_iterations (1) reached and the judge found the agents converged"
                    .to_owned(),
            }]
        );
        assert_eq!(
            termination.verdicts(&facts(&s, 1_010, None)),
            vec![Verdict {
                status: Status::Exhausted,
                reason: "timeout_ms (10) passed".to_owned(),
            }]
        );
        let before = state(&[], 0);
        assert!(!termination.awaits_judge(&facts(&before, 0, None)));
    }
}
