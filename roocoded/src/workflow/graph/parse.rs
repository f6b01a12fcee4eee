//! Reading a `collaboration:` block (a `yaml_serde::Value`) into a [`Graph`]: the keys,
//! the agent names, the topology's expansion, the flow's edges (strings or mappings),
//! and the checks that make a graph usable.

use roocode_protocol::command::closest;
use yaml_serde::Value;

use super::error::{GraphError, Place, describe};
use super::model::{Edge, Graph, MAX_AGENTS, Topology};
use super::termination::Termination;

/// The keys of `collaboration:`.
const KEYS: &str = "topology, agents, flow, max_iterations, termination";

/// The keys of a flow edge written as a mapping.
const EDGE_KEYS: &str = "from, to, label, exit";

/// Reads the mapping under `collaboration:`.
pub fn parse(value: &Value) -> Result<Graph, GraphError> {
    let top = Place::top();
    let Some(map) = value.as_mapping() else {
        return Err(GraphError::Value {
            at: top,
            expected: "a mapping of topology, agents, flow, max_iterations, termination",
            found: describe(value),
        });
    };
    for (key, _) in map {
        if !key
            .as_str()
            .is_some_and(|k| KEYS.split(", ").any(|known| known == k))
        {
            return Err(GraphError::UnknownKey {
                at: top,
                key: key.as_str().map_or_else(|| describe(key), str::to_owned),
                accepted: KEYS,
            });
        }
    }
    let given = |key: &str| map.get(key).filter(|v| !v.is_null());
    let agents = match given("agents") {
        Some(value) => parse_agents(value)?,
        None => {
            return Err(GraphError::Missing {
                at: top,
                key: "agents",
            });
        }
    };
    let topology = match given("topology") {
        Some(value) => {
            let name = string(value, &top.key("topology"), "pipeline, review-loop or star")?;
            Some(Topology::parse(&name).ok_or(GraphError::Topology(name))?)
        }
        None => None,
    };
    let mut edges = match topology {
        Some(topology) => topology.expand(&agents)?,
        None => Vec::new(),
    };
    let flow = match given("flow") {
        Some(value) => parse_flow(value, &agents, &mut edges)?,
        None => 0,
    };
    if topology.is_none() && flow == 0 {
        return Err(GraphError::NoEdges);
    }
    let termination = match given("termination") {
        Some(value) => Termination::parse(value, &top.key("termination"), &agents)?,
        None => Termination::default(),
    };
    let max_iterations = match given("max_iterations") {
        Some(value) => Some(
            value
                .as_u64()
                .filter(|n| *n >= 1)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| GraphError::Value {
                    at: top.key("max_iterations"),
                    expected: "a whole number of at least 1",
                    found: describe(value),
                })?,
        ),
        None => None,
    };
    let mut graph = Graph {
        agents,
        edges,
        max_iterations: None,
        termination,
        topology,
    };
    if graph.has_cycle() {
        graph.max_iterations = max_iterations;
    }
    if !graph.has_exit_edges() && graph.termination.is_empty() {
        return Err(GraphError::NeverEnds);
    }
    Ok(graph)
}

/// A string value at `at`; `expected` describes it in the error.
pub(crate) fn string(
    value: &Value,
    at: &Place,
    expected: &'static str,
) -> Result<String, GraphError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| GraphError::Value {
            at: at.clone(),
            expected,
            found: describe(value),
        })
}

/// An agent name at `at` that is one of `agents`.
pub(crate) fn agent_name(
    value: &Value,
    at: &Place,
    agents: &[String],
) -> Result<String, GraphError> {
    let name = string(value, at, "an agent name")?;
    member(&name, at, agents)
}

/// `name` when it is a well-formed name in `agents`.
fn member(name: &str, at: &Place, agents: &[String]) -> Result<String, GraphError> {
    if !valid_name(name) {
        return Err(GraphError::Name {
            at: at.clone(),
            name: name.to_owned(),
        });
    }
    if agents.iter().any(|a| a == name) {
        return Ok(name.to_owned());
    }
    let known: Vec<&str> = agents.iter().map(String::as_str).collect();
    let hint = closest(name, &known)
        .first()
        .map(|near| format!("; did you mean `{near}`?"))
        .unwrap_or_default();
    Err(GraphError::UnknownAgent {
        at: at.clone(),
        name: name.to_owned(),
        agents: known.join(", "),
        hint,
    })
}

/// `[A-Za-z0-9_-]+`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Reads `agents:`: at least one, at most [`MAX_AGENTS`], well-formed, no duplicates.
fn parse_agents(value: &Value) -> Result<Vec<String>, GraphError> {
    let at = Place::top().key("agents");
    let Some(items) = value.as_sequence() else {
        return Err(GraphError::Value {
            at,
            expected: "a list of agent names",
            found: describe(value),
        });
    };
    if items.is_empty() {
        return Err(GraphError::NoAgents);
    }
    if items.len() > MAX_AGENTS {
        return Err(GraphError::TooMany(items.len()));
    }
    let mut agents: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let here = at.index(i);
        let name = string(item, &here, "an agent name")?;
        if !valid_name(&name) {
            return Err(GraphError::Name { at: here, name });
        }
        if agents.contains(&name) {
            return Err(GraphError::Duplicate(name));
        }
        agents.push(name);
    }
    Ok(agents)
}

/// Adds `flow:`'s edges to `edges` (the topology's); returns how many were given. A
/// flow edge equal to a topology edge gives it its label; one equal to an earlier flow
/// edge is an error.
fn parse_flow(
    value: &Value,
    agents: &[String],
    edges: &mut Vec<Edge>,
) -> Result<usize, GraphError> {
    let at = Place::top().key("flow");
    let Some(items) = value.as_sequence() else {
        return Err(GraphError::Value {
            at,
            expected: "a list of edges",
            found: describe(value),
        });
    };
    // Per edge: the flow item that gave it (`None`: the topology's).
    let mut origin: Vec<Option<usize>> = vec![None; edges.len()];
    for (i, item) in items.iter().enumerate() {
        let here = at.index(i);
        let edge = parse_edge(item, &here, agents)?;
        let same = edges.iter().position(|e| {
            e.from == edge.from && e.target() == edge.target() && e.exit == edge.exit
        });
        match same.map(|j| (j, origin[j])) {
            Some((_, Some(first))) => {
                return Err(GraphError::DuplicateEdge {
                    at: here,
                    route: edge.route(),
                    first,
                });
            }
            Some((j, None)) => {
                origin[j] = Some(i);
                if edge.label.is_some() {
                    edges[j].label = edge.label;
                }
            }
            None => {
                edges.push(edge);
                origin.push(Some(i));
            }
        }
    }
    Ok(items.len())
}

/// One flow item: `"from -> to"`, `"from -> to: label"` (also written unquoted, which
/// YAML reads as a one-key mapping), or `{from, to, label, exit}`.
fn parse_edge(value: &Value, at: &Place, agents: &[String]) -> Result<Edge, GraphError> {
    if let Some(text) = value.as_str() {
        return edge_string(text, at, agents);
    }
    let Some(map) = value.as_mapping() else {
        return Err(GraphError::Value {
            at: at.clone(),
            expected: "an edge: `from -> to: label` or a mapping of from, to, label, exit",
            found: describe(value),
        });
    };
    if let [(key, label)] = map.iter().collect::<Vec<_>>().as_slice()
        && let Some(route) = key.as_str().filter(|k| k.contains("->"))
    {
        let text = match label {
            Value::Null => route.to_owned(),
            other => format!("{route}: {}", string(other, at, "a label")?),
        };
        return edge_string(&text, at, agents);
    }
    let mut from = None;
    let mut to = None;
    let mut label = None;
    let mut exit = false;
    for (key, value) in map {
        let name = key.as_str().unwrap_or_default();
        let here = at.key(name);
        match name {
            "from" => from = Some(agent_name(value, &here, agents)?),
            "to" => to = Some(agent_name(value, &here, agents)?),
            "label" => label = Some(string(value, &here, "a label")?).filter(|l| !l.is_empty()),
            "exit" => {
                exit = value.as_bool().ok_or_else(|| GraphError::Value {
                    at: here,
                    expected: "true or false",
                    found: describe(value),
                })?;
            }
            _ => {
                return Err(GraphError::UnknownKey {
                    at: at.clone(),
                    key: key.as_str().map_or_else(|| describe(key), str::to_owned),
                    accepted: EDGE_KEYS,
                });
            }
        }
    }
    let Some(from) = from else {
        return Err(GraphError::Missing {
            at: at.clone(),
            key: "from",
        });
    };
    match (to, exit) {
        (Some(_), true) => Err(GraphError::ExitWithTo { at: at.clone() }),
        (None, false) => Err(GraphError::NoTarget { at: at.clone() }),
        (to, exit) => Ok(Edge {
            from,
            to,
            label,
            exit,
        }),
    }
}

/// `from -> to` or `from -> to: label`.
fn edge_string(text: &str, at: &Place, agents: &[String]) -> Result<Edge, GraphError> {
    let syntax = || GraphError::EdgeSyntax {
        at: at.clone(),
        text: text.to_owned(),
    };
    let (from, rest) = text.split_once("->").ok_or_else(syntax)?;
    let (to, label) = match rest.split_once(':') {
        Some((to, label)) => (to, Some(label.trim()).filter(|l| !l.is_empty())),
        None => (rest, None),
    };
    let (from, to) = (from.trim(), to.trim());
    if from.is_empty() || to.is_empty() {
        return Err(syntax());
    }
    Ok(Edge {
        from: member(from, at, agents)?,
        to: Some(member(to, at, agents)?),
        label: label.map(str::to_owned),
        exit: false,
    })
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
