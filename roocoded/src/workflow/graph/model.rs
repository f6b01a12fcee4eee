//! The parsed collaboration graph: its agents, its edges, the topologies that expand
//! into edges, and the questions the run asks of the shape (who follows whom, who may
//! end the workflow, how many rounds a loop gets).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::GraphError;
use super::termination::{Term, Termination};

/// The most agents one collaboration may name.
pub const MAX_AGENTS: usize = 50;

/// The rounds a loop gets when neither `max_iterations` nor a `max_iterations` term says.
pub const DEFAULT_MAX_ITERATIONS: u32 = 3;

/// A collaboration of agents: who hands work to whom, and when it ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// The agent types, in the order given; never empty, no duplicates.
    pub agents: Vec<String>,
    /// The topology's edges, then the flow's (a flow edge equal to a topology edge only
    /// gives it its label).
    pub edges: Vec<Edge>,
    /// As given, and only when the graph has a cycle (`None` otherwise); see
    /// [`Graph::effective_max_iterations`] for the cap in force.
    pub max_iterations: Option<u32>,
    /// When the workflow ends besides its exit edges.
    #[serde(default)]
    pub termination: Termination,
    /// The topology the edges were expanded from, if any.
    pub topology: Option<Topology>,
}

/// One hand-off: `from`'s result goes to `to`, or (with `exit`) may end the workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    /// The next agent; `None` exactly when `exit`.
    #[serde(default)]
    pub to: Option<String>,
    /// What the hand-off is for, shown to the orchestrator and the agents.
    #[serde(default)]
    pub label: Option<String>,
    /// The workflow may end when `from` completes.
    #[serde(default)]
    pub exit: bool,
}

impl Edge {
    /// `from -> to`, without a label.
    pub(crate) fn to(from: &str, to: &str) -> Self {
        Self {
            from: from.to_owned(),
            to: Some(to.to_owned()),
            label: None,
            exit: false,
        }
    }

    /// `from` may end the workflow.
    pub(crate) fn exit(from: &str) -> Self {
        Self {
            from: from.to_owned(),
            to: None,
            label: None,
            exit: true,
        }
    }

    /// The edge without its label: `coder -> reviewer`, `reviewer exits`.
    pub fn route(&self) -> String {
        match (&self.to, self.exit) {
            (Some(to), false) => format!("{} -> {to}", self.from),
            (_, true) | (None, false) => format!("{} exits", self.from),
        }
    }

    /// The target of a hand-off edge (`None` for an exit edge).
    pub(crate) fn target(&self) -> Option<&str> {
        if self.exit { None } else { self.to.as_deref() }
    }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.route())?;
        match &self.label {
            Some(label) => write!(f, ": {label}"),
            None => Ok(()),
        }
    }
}

/// A named shape expanded over `agents` in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topology {
    /// `[a, b, c]`: a -> b, b -> c, c exits.
    Pipeline,
    /// `[a, b]`: a -> b, b -> a, b exits.
    ReviewLoop,
    /// `[hub, s1, s2, …]`: hub -> si and si -> hub for each spoke, hub exits.
    Star,
}

impl Topology {
    /// The YAML spelling (`review_loop` is accepted too).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "pipeline" => Some(Self::Pipeline),
            "review-loop" | "review_loop" => Some(Self::ReviewLoop),
            "star" => Some(Self::Star),
            _ => None,
        }
    }

    /// The name shown to people: `pipeline`, `review-loop`, `star`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pipeline => "pipeline",
            Self::ReviewLoop => "review-loop",
            Self::Star => "star",
        }
    }

    /// The edges this topology gives `agents`.
    pub(crate) fn expand(self, agents: &[String]) -> Result<Vec<Edge>, GraphError> {
        let arity = |needs| GraphError::Arity {
            topology: self,
            needs,
            got: agents.len(),
        };
        match (self, agents) {
            (Self::Pipeline, [.., last]) => {
                let mut edges: Vec<Edge> = agents
                    .windows(2)
                    .map(|pair| Edge::to(&pair[0], &pair[1]))
                    .collect();
                edges.push(Edge::exit(last));
                Ok(edges)
            }
            (Self::Pipeline, []) => Err(arity("one or more")),
            (Self::ReviewLoop, [a, b]) => Ok(vec![Edge::to(a, b), Edge::to(b, a), Edge::exit(b)]),
            (Self::ReviewLoop, _) => Err(arity("exactly 2")),
            (Self::Star, [hub, spokes @ ..]) if !spokes.is_empty() => {
                let mut edges = Vec::with_capacity(spokes.len() * 2 + 1);
                for spoke in spokes {
                    edges.push(Edge::to(hub, spoke));
                    edges.push(Edge::to(spoke, hub));
                }
                edges.push(Edge::exit(hub));
                Ok(edges)
            }
            (Self::Star, _) => Err(arity("at least 2")),
        }
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Graph {
    /// Whether `agent` is one of the graph's agents.
    pub fn has_agent(&self, agent: &str) -> bool {
        self.agents.iter().any(|a| a == agent)
    }

    /// The hand-off targets of `agent`, in edge order, without duplicates.
    pub(crate) fn targets(&self, agent: &str) -> Vec<&str> {
        let mut targets: Vec<&str> = Vec::new();
        for edge in self.edges.iter().filter(|e| e.from == agent) {
            if let Some(to) = edge.target()
                && !targets.contains(&to)
            {
                targets.push(to);
            }
        }
        targets
    }

    /// Whether `agent` has an exit edge.
    pub fn exits(&self, agent: &str) -> bool {
        self.edges.iter().any(|e| e.exit && e.from == agent)
    }

    /// Whether any agent has an exit edge.
    pub fn has_exit_edges(&self) -> bool {
        self.edges.iter().any(|e| e.exit)
    }

    /// The rounds a loop gets: `max_iterations`, else the smallest `max_iterations` term
    /// of `any_of`, else 3; `None` when the graph has no cycle (nothing repeats).
    pub fn effective_max_iterations(&self) -> Option<u32> {
        if !self.has_cycle() {
            return None;
        }
        let from_terms = self
            .termination
            .any_of
            .iter()
            .filter_map(|term| match term {
                Term::MaxIterations(n) => Some(*n),
                Term::TimeoutMs(_) | Term::Converged | Term::ResultMatches(_) | Term::Stuck(_) => {
                    None
                }
            })
            .min();
        Some(
            self.max_iterations
                .or(from_terms)
                .unwrap_or(DEFAULT_MAX_ITERATIONS),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn routes(edges: &[Edge]) -> Vec<String> {
        edges.iter().map(Edge::route).collect()
    }

    #[test]
    fn topologies_expand_in_agent_order() {
        let cases: [(Topology, &[&str], &[&str]); 4] = [
            (Topology::Pipeline, &["a"], &["a exits"]),
            (
                Topology::Pipeline,
                &["a", "b", "c"],
                &["a -> b", "b -> c", "c exits"],
            ),
            (
                Topology::ReviewLoop,
                &["coder", "reviewer"],
                &["coder -> reviewer", "reviewer -> coder", "reviewer exits"],
            ),
            (
                Topology::Star,
                &["hub", "s1", "s2"],
                &[
                    "hub -> s1",
                    "s1 -> hub",
                    "hub -> s2",
                    "s2 -> hub",
                    "hub exits",
                ],
            ),
        ];
        for (topology, agents, want) in cases {
            let edges = topology.expand(&names(agents)).unwrap();
            assert_eq!(routes(&edges), want, "{topology} {agents:?}");
        }
    }

    #[test]
    fn topologies_refuse_the_wrong_number_of_agents() {
        let cases: [(Topology, &[&str], &str); 4] = [
            (
                Topology::ReviewLoop,
                &["a", "b", "c"],
                "topology: a review-loop needs exactly 2 agents, 3 given",
            ),
            (
                Topology::ReviewLoop,
                &["a"],
                "topology: a review-loop needs exactly 2 agents, 1 given",
            ),
            (
                Topology::Star,
                &["hub"],
                "topology: a star needs at least 2 agents, 1 given",
            ),
            (
                Topology::Pipeline,
                &[],
                "topology: a pipeline needs one or more agents, 0 given",
            ),
        ];
        for (topology, agents, want) in cases {
            let err = topology.expand(&names(agents)).unwrap_err();
            assert_eq!(err.to_string(), want);
        }
    }

    #[test]
    fn edges_display_with_their_labels() {
        let mut edge = Edge::to("coder", "reviewer");
        edge.label = Some("review the change".to_owned());
        assert_eq!(edge.to_string(), "coder -> reviewer: review the change");
        assert_eq!(Edge::exit("reviewer").to_string(), "reviewer exits");
    }
}
