//! The words the graph puts in front of models: the orchestrator's reminder before each
//! model call, a worker's role, and the question for the tool-less judge (with the
//! reading of its answer).

use std::fmt::Write as _;

use super::model::{Edge, Graph};
use super::run::OFF_ROUTE_LIMIT;
use super::state::{GraphState, Status};

impl Graph {
    /// What the orchestrator reads before each model call: the graph, where the run
    /// stands, and what to do next.
    pub fn reminder(&self, state: &GraphState) -> String {
        let kind = self
            .topology
            .map_or_else(String::new, |t| format!(" ({t})"));
        let mut text = format!("Collaboration graph{kind}: {}\n", self.agents.join(", "));
        for edge in &self.edges {
            let _ = writeln!(text, "  {edge}");
        }
        let mut status = Vec::new();
        if let Some(max) = self.effective_max_iterations() {
            status.push(format!("Iteration {}/{max}", state.iteration));
        }
        let done_label = if self.has_cycle() {
            "Completed this round"
        } else {
            "Completed"
        };
        status.push(format!("{done_label}: {}", list_or_none(&state.completed)));
        status.push(format!("Frontier: {}", list_or_none(&state.frontier)));
        if state.off_route > 0 {
            status.push(format!(
                "Off-route dispatches in a row: {} of {OFF_ROUTE_LIMIT}",
                state.off_route
            ));
        }
        let _ = writeln!(text, "{}.", status.join(". "));
        match state.status {
            Status::Active if state.frontier.is_empty() => {
                text.push_str("No agent is due: synthesize the results for the user.");
            }
            Status::Active => {
                let _ = write!(
                    text,
                    "Dispatch {} with the Agent tool; the graph advances when it completes.",
                    and(&state.frontier)
                );
            }
            Status::Complete | Status::Exhausted => {
                let reason = state.reason.as_deref().unwrap_or("no reason recorded");
                let _ = write!(
                    text,
                    "The workflow ended ({reason}): synthesize the results for the user; do \
                     not dispatch more agents."
                );
            }
        }
        text
    }

    /// What a worker is told of its place: where its work comes from and where it goes.
    /// `None` when `agent` is not in the graph.
    pub fn role(&self, agent: &str) -> Option<String> {
        if !self.has_agent(agent) {
            return None;
        }
        let kind = self.topology.map_or_else(String::new, |t| format!("{t} "));
        let from: Vec<String> = self
            .edges
            .iter()
            .filter(|e| e.target() == Some(agent))
            .map(|e| labelled(&e.from, e))
            .collect();
        let to: Vec<String> = self
            .edges
            .iter()
            .filter(|e| e.from == agent && !e.exit)
            .filter_map(|e| e.target().map(|t| labelled(t, e)))
            .collect();
        let exit = self.edges.iter().find(|e| e.exit && e.from == agent);
        let ends = match exit.and_then(|e| e.label.as_deref()) {
            Some(label) => format!("ends the workflow ({label})"),
            None => "ends the workflow".to_owned(),
        };
        let onward = match (to.is_empty(), exit.is_some()) {
            (false, true) => format!("goes to {} or {ends}", and(&to)),
            (false, false) => format!("goes to {}", and(&to)),
            (true, true) => ends,
            (true, false) => "goes back to the orchestrator".to_owned(),
        };
        let flow = if from.is_empty() {
            format!("you start the work, which {onward}")
        } else {
            format!("your work comes from {} and {onward}", and(&from))
        };
        Some(format!(
            "You are `{agent}` in a {kind}collaboration: {flow}."
        ))
    }

    /// The question for the judge: every agent's kept results, oldest first, then the
    /// YES/NO question. Read its answer with [`judge_answer`].
    pub fn judge_prompt(&self, state: &GraphState) -> String {
        let kind = self.topology.map_or_else(String::new, |t| format!("{t} "));
        let mut text = format!(
            "Agents in a {kind}collaboration ({}) have worked for {} iteration{}. Their \
             latest results, oldest first:\n",
            self.agents.join(", "),
            state.iteration,
            if state.iteration == 1 { "" } else { "s" },
        );
        for agent in &self.agents {
            let Some(results) = state.last_results.get(agent) else {
                continue;
            };
            for (i, result) in results.iter().enumerate() {
                let _ = write!(
                    text,
                    "\n--- {agent}, result {} of {} ---\n{}\n",
                    i + 1,
                    results.len(),
                    result.trim_end()
                );
            }
        }
        text.push_str(
            "\nHave the agents converged on a result that needs no further rounds? Answer \
             YES or NO only.",
        );
        text
    }
}

/// The judge's answer: its first word, punctuation ignored, `YES` or `NO` in any case.
pub fn judge_answer(text: &str) -> Option<bool> {
    let word: String = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .find(|w| !w.is_empty())?
        .to_ascii_lowercase();
    match word.as_str() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// `name (label)`, or `name` when the edge has no label.
fn labelled(name: &str, edge: &Edge) -> String {
    match &edge.label {
        Some(label) => format!("{name} ({label})"),
        None => name.to_owned(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `a, b` or `none`.
fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
