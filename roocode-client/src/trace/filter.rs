//! The part of a trace one asked for: `--turn N` keeps turn N of the main agent (as
//! `rewind --to` numbers them) with the sub-agents and teammates started in it;
//! `--agent ID` keeps one agent's subtree, the agent named by its id, a unique prefix
//! of its id or of its short id, or its name. With both, the turn is chosen first and
//! the agent among what it started (or the main agent itself).

use std::fmt;

use roocode_protocol::trace::{AgentTrace, SessionTrace};

use super::{agent_label, agents};

/// What to keep of a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Filter<'a> {
    /// A turn number of the main agent.
    pub turn: Option<u32>,
    /// An agent id or unique prefix, or a sub-agent's name.
    pub agent: Option<&'a str>,
}

/// Why a filter keeps nothing, worded for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterError {
    /// No turn of that number.
    NoTurn { turn: u32, turns: Vec<u32> },
    /// No agent by that id, prefix or name.
    NoAgent { given: String, known: Vec<String> },
    /// Several agents answer to it.
    AmbiguousAgent { given: String, matches: Vec<String> },
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterError::NoTurn { turn, turns } => match (turns.first(), turns.last()) {
                (Some(first), Some(last)) => write!(
                    f,
                    "the main agent has no turn {turn}: its turns are {first} to {last}"
                ),
                _ => write!(f, "the main agent has no turn {turn}: it has no turn yet"),
            },
            FilterError::NoAgent { given, known } => write!(
                f,
                "no agent of this trace is `{given}`: give an agent id (or the start of it, \
                 or of its short id) or a sub-agent's name; its agents are: {}",
                known.join(", ")
            ),
            FilterError::AmbiguousAgent { given, matches } => write!(
                f,
                "`{given}` names several agents ({}): give more characters of the id",
                matches.join(", ")
            ),
        }
    }
}

impl std::error::Error for FilterError {}

/// `trace` cut down to what `filter` asks for (the whole trace without a filter).
pub fn filter(trace: &SessionTrace, filter: &Filter<'_>) -> Result<SessionTrace, FilterError> {
    let mut out = trace.clone();
    if let Some(n) = filter.turn {
        let main = &mut out.agent;
        let Some(turn) = main.turns.iter().find(|t| t.number == n).cloned() else {
            return Err(FilterError::NoTurn {
                turn: n,
                turns: main.turns.iter().map(|t| t.number).collect(),
            });
        };
        main.turns = vec![turn];
        // Agents started outside any turn are not of this turn.
        main.agents.clear();
    }
    if let Some(given) = filter.agent {
        let found = find_agent(&out.agent, given)?.clone();
        out.agent = found;
    }
    Ok(out)
}

/// The agent of `root`'s tree that `given` names: its full id; else its name; else a
/// prefix of its id or of its id's tail (the short id). Several by the same rule is an
/// error, as is none.
fn find_agent<'a>(root: &'a AgentTrace, given: &str) -> Result<&'a AgentTrace, FilterError> {
    let all = agents(root);
    let given = given.trim();
    if let Some(exact) = all.iter().find(|a| a.agent_id == given) {
        return Ok(exact);
    }
    let by_name: Vec<&AgentTrace> = all
        .iter()
        .copied()
        .filter(|a| !a.name.is_empty() && a.name == given)
        .collect();
    let by_prefix: Vec<&AgentTrace> = all
        .iter()
        .copied()
        .filter(|a| {
            !given.is_empty()
                && (a.agent_id.starts_with(given)
                    || roocode_protocol::short_id::tail(&a.agent_id)
                        .is_some_and(|t| t.starts_with(given)))
        })
        .collect();
    for found in [by_name, by_prefix] {
        match found.as_slice() {
            [] => {}
            [one] => return Ok(one),
            many => {
                return Err(FilterError::AmbiguousAgent {
                    given: given.to_owned(),
                    matches: many.iter().map(|a| agent_label(a)).collect(),
                });
            }
        }
    }
    Err(FilterError::NoAgent {
        given: given.to_owned(),
        known: all
            .iter()
            .map(|a| match a.kind.as_str() {
                "main" => format!("main agent {}", crate::agents::short(&a.agent_id)),
                _ => agent_label(a),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::example;

    fn ids(trace: &SessionTrace) -> Vec<String> {
        agents(&trace.agent)
            .iter()
            .map(|a| a.agent_id.clone())
            .collect()
    }

    #[test]
    fn no_filter_keeps_everything() {
        let t = example::session();
        assert_eq!(filter(&t, &Filter::default()).unwrap(), t);
    }

    #[test]
    fn a_turn_keeps_the_agents_it_started() {
        let t = example::session();
        let one = filter(
            &t,
            &Filter {
                turn: Some(1),
                agent: None,
            },
        )
        .unwrap();
        assert_eq!(one.agent.turns.len(), 1);
        assert_eq!(one.agent.turns[0].number, 1);
        assert_eq!(ids(&one), [example::SESSION, example::SCOUT]);
        let two = filter(
            &t,
            &Filter {
                turn: Some(2),
                agent: None,
            },
        )
        .unwrap();
        assert_eq!(ids(&two), [example::SESSION], "the scout began in turn 1");
        let err = filter(
            &t,
            &Filter {
                turn: Some(7),
                agent: None,
            },
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the main agent has no turn 7: its turns are 1 to 2"
        );
    }

    #[test]
    fn an_agent_by_id_prefix_short_id_or_name() {
        let t = example::session();
        for given in [
            example::SCOUT,
            "0199d1c2-0000-7000-8000-5c",
            "5c0a7e",
            "scout",
        ] {
            let f = Filter {
                turn: None,
                agent: Some(given),
            };
            let scout = filter(&t, &f).unwrap();
            assert_eq!(scout.agent.agent_id, example::SCOUT, "{given}");
            assert_eq!(
                scout.session_id,
                example::SESSION,
                "still the session's trace"
            );
        }
        let f = Filter {
            turn: None,
            agent: Some(example::SESSION),
        };
        assert_eq!(
            filter(&t, &f).unwrap(),
            t,
            "the main agent is the whole tree"
        );
    }

    #[test]
    fn unknown_and_ambiguous_agents_say_what_there_is() {
        let t = example::session();
        let f = Filter {
            turn: None,
            agent: Some("nobody"),
        };
        let err = filter(&t, &f).unwrap_err().to_string();
        assert!(err.contains("no agent of this trace is `nobody`"), "{err}");
        assert!(err.contains("sub-agent scout (Explore) 5c0a7e1d"), "{err}");
        // Both ids start with the same minute: a prefix of it names both.
        let f = Filter {
            turn: None,
            agent: Some("0199d1c2"),
        };
        let err = filter(&t, &f).unwrap_err();
        assert!(
            matches!(&err, FilterError::AmbiguousAgent { matches, .. } if matches.len() == 2),
            "{err}"
        );
        // The scout was started in turn 1: with turn 2 it is not there.
        let f = Filter {
            turn: Some(2),
            agent: Some("scout"),
        };
        assert!(matches!(filter(&t, &f), Err(FilterError::NoAgent { .. })));
    }
}
