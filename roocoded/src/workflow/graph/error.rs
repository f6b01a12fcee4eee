//! Why a `collaboration:` block is rejected, and where in it: every message reads well
//! after a prefix such as `.roocode/agents/lead.md:7: collaboration: ` and starts with
//! the key it concerns (`flow[2]: …`, `termination.any_of[0]: …`).

use std::fmt;

use thiserror::Error;
use yaml_serde::Value;

use super::model::{MAX_AGENTS, Topology};

/// A key path inside the block (`flow[2]`, `termination.any_of[0].stuck`); empty at
/// the top. Displays as `path: `, or as nothing at the top.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place(String);

impl Place {
    /// The block itself.
    pub(crate) fn top() -> Self {
        Self::default()
    }

    /// The value under `key` here.
    pub(crate) fn key(&self, key: &str) -> Self {
        if self.0.is_empty() {
            Self(key.to_owned())
        } else {
            Self(format!("{}.{key}", self.0))
        }
    }

    /// The `index`th item of the list here.
    pub(crate) fn index(&self, index: usize) -> Self {
        Self(format!("{}[{index}]", self.0))
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "{}: ", self.0)
        }
    }
}

/// A `collaboration:` block that cannot be used.
#[derive(Debug, Error)]
pub enum GraphError {
    /// A value of the wrong kind or out of range.
    #[error("{at}expected {expected}, found {found}")]
    Value {
        at: Place,
        expected: &'static str,
        found: String,
    },
    /// A key this place does not take.
    #[error("{at}unknown key `{key}` (accepted: {accepted})")]
    UnknownKey {
        at: Place,
        key: String,
        accepted: &'static str,
    },
    /// A required key is absent.
    #[error("{at}`{key}` is required")]
    Missing { at: Place, key: &'static str },
    /// `topology:` names none of the three.
    #[error("topology: unknown topology `{0}` (accepted: pipeline, review-loop, star)")]
    Topology(String),
    /// A topology given the wrong number of agents.
    #[error("topology: a {topology} needs {needs} agents, {got} given")]
    Arity {
        topology: Topology,
        needs: &'static str,
        got: usize,
    },
    /// A name outside `[A-Za-z0-9_-]+`.
    #[error("{at}`{name}` is not an agent name (letters, digits, `_` and `-`)")]
    Name { at: Place, name: String },
    /// The same agent twice in `agents`.
    #[error("agents: `{0}` is listed twice")]
    Duplicate(String),
    /// An empty `agents` list.
    #[error("agents: at least one agent is needed")]
    NoAgents,
    /// More agents than a collaboration may have.
    #[error("agents: at most {MAX_AGENTS} agents, {0} given")]
    TooMany(usize),
    /// A name that is not in `agents`; `hint` is empty or `; did you mean …?`.
    #[error("{at}`{name}` is not in agents ({agents}){hint}")]
    UnknownAgent {
        at: Place,
        name: String,
        agents: String,
        hint: String,
    },
    /// A flow string that is not `from -> to` or `from -> to: label`.
    #[error("{at}`{text}` is not an edge: write `from -> to` or `from -> to: label`")]
    EdgeSyntax { at: Place, text: String },
    /// A flow edge given twice.
    #[error("{at}`{route}` is already given at flow[{first}]")]
    DuplicateEdge {
        at: Place,
        route: String,
        first: usize,
    },
    /// `exit: true` together with `to:`.
    #[error("{at}an exit edge ends the workflow and takes no `to`; give `to` or `exit: true`")]
    ExitWithTo { at: Place },
    /// A mapping edge with neither `to` nor `exit: true`.
    #[error("{at}an edge needs `to`, or `exit: true` to end the workflow")]
    NoTarget { at: Place },
    /// A `regex:` that does not compile.
    #[error("{at}`{regex}` is not a valid regex: {source}")]
    Regex {
        at: Place,
        regex: String,
        source: Box<regex::Error>,
    },
    /// A `result_matches:` with nothing to test.
    #[error("{at}result_matches needs a test: contains, regex, score_gte or no_changes: true")]
    EmptyMatcher { at: Place },
    /// A term that is not a mapping with one key.
    #[error(
        "{at}a term is a mapping with one key (accepted: max_iterations, timeout_ms, converged, result_matches, stuck)"
    )]
    TermShape { at: Place },
    /// Neither `topology` nor `flow`: there are no edges.
    #[error("give a topology, a flow or both: without them the agents have no edges")]
    NoEdges,
    /// No exit edge and no termination.
    #[error(
        "no agent has an exit edge and there is no termination, so the workflow could never end: add `{{from: <agent>, exit: true}}` to flow, or a termination"
    )]
    NeverEnds,
}

/// How a value is named in an error: `a string "x"`, `a number 3`, `a list`.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Sequence(_) => "a list".to_owned(),
        Value::Mapping(_) => "a mapping".to_owned(),
        Value::Tagged(t) => format!("a value tagged {}", t.tag),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_render_as_key_paths() {
        let cases = [
            (Place::top(), ""),
            (Place::top().key("flow").index(2), "flow[2]: "),
            (
                Place::top().key("termination").key("any_of").index(0),
                "termination.any_of[0]: ",
            ),
        ];
        for (place, want) in cases {
            assert_eq!(place.to_string(), want);
        }
    }
}
