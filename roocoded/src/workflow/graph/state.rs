//! The run of a collaboration as the engine stores it (JSON in SQLite), and the values
//! passed in and out of each call: a dispatch's verdict, a completion, a step.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The results kept per agent, newest last.
pub const RESULTS_KEPT: usize = 5;

/// The most characters of one result kept (its head and tail around `…`).
pub const RESULT_CHARS: usize = 4000;

/// The characters of a long result's head that are kept; the tail gets the rest.
const HEAD_CHARS: usize = 2000;

/// What stands for the middle cut out of a long result.
const ELISION: &str = "\n…\n";

/// Where one collaboration run stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphState {
    /// The agents the graph expects next, in the order they became due.
    pub frontier: Vec<String>,
    /// The agents completed in the current round: a loop's agents leave it when the
    /// loop starts its next iteration; agents outside loops stay.
    pub completed: Vec<String>,
    /// Per loop (its sorted agent names joined by `+`): the iterations it made.
    pub loop_counts: BTreeMap<String, u32>,
    /// The largest of `loop_counts`: the `n` of "iteration n/max".
    pub iteration: u32,
    /// Per agent, its last [`RESULTS_KEPT`] results, newest last, each cut to
    /// [`RESULT_CHARS`]; recorded for every completion, on the route or not.
    pub last_results: BTreeMap<String, Vec<String>>,
    /// The last agent whose completion advanced the graph.
    pub last_agent: Option<String>,
    pub status: Status,
    /// Why the workflow ended (`None` while active).
    pub reason: Option<String>,
    /// Dispatches off the route in a row.
    pub off_route: u32,
    pub started_ms: u64,
    /// Completions that advanced the graph.
    pub steps: u32,
    /// Per agent, whether its latest completion changed files (absent: not known);
    /// what `result_matches: {no_changes: true}` reads.
    #[serde(default)]
    pub changed_files: BTreeMap<String, bool>,
}

/// Whether the workflow still runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    #[default]
    Active,
    /// Ended as the graph meant: an exit, a success term, every agent done.
    Complete,
    /// Given up: iterations, time, a stuck agent, or the orchestrator off the route.
    Exhausted,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Active => "active",
            Self::Complete => "complete",
            Self::Exhausted => "exhausted",
        })
    }
}

/// A dispatched agent's completion, as the engine reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    pub agent: String,
    /// The agent's final text.
    pub result: String,
    /// Whether it changed files, when the engine knows.
    #[serde(default)]
    pub changed_files: Option<bool>,
}

/// What one completion did to the workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The completing agent was on the frontier, so the graph moved.
    pub advanced: bool,
    /// The frontier after the step.
    pub frontier: Vec<String>,
    /// Ask the judge, then call [`Graph::judged`](super::Graph::judged) with its answer.
    pub judge_needed: bool,
    /// Set when this step ended the workflow: how, and why.
    pub ended: Option<(Status, String)>,
}

/// The graph's view of a dispatch about to start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dispatch {
    /// The agent is on the frontier.
    OnRoute,
    /// The agent is not on the frontier (or the workflow has ended): show `correction`
    /// to the orchestrator; `end` when this dispatch ended the workflow.
    OffRoute { correction: String, end: bool },
}

impl GraphState {
    /// Keeps a completion's result and whether it changed files.
    pub(crate) fn record(&mut self, completion: &Completion) {
        let results = self
            .last_results
            .entry(completion.agent.clone())
            .or_default();
        results.push(cut(&completion.result));
        if results.len() > RESULTS_KEPT {
            results.drain(..results.len() - RESULTS_KEPT);
        }
        match completion.changed_files {
            Some(changed) => {
                self.changed_files.insert(completion.agent.clone(), changed);
            }
            None => {
                self.changed_files.remove(&completion.agent);
            }
        }
    }

    /// Ends the workflow; returns how, for [`Step::ended`].
    pub(crate) fn end(&mut self, status: Status, reason: String) -> (Status, String) {
        self.status = status;
        self.reason = Some(reason.clone());
        (status, reason)
    }
}

/// `text` cut to [`RESULT_CHARS`]: its head and tail around [`ELISION`] when longer.
fn cut(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= RESULT_CHARS {
        return text.to_owned();
    }
    let tail_chars = RESULT_CHARS - HEAD_CHARS - ELISION.chars().count();
    let head: String = text.chars().take(HEAD_CHARS).collect();
    let tail: String = text.chars().skip(chars - tail_chars).collect();
    format!("{head}{ELISION}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(agent: &str, result: &str, changed_files: Option<bool>) -> Completion {
        Completion {
            agent: agent.to_owned(),
            result: result.to_owned(),
            changed_files,
        }
    }

    #[test]
    fn keeps_the_last_five_results_newest_last() {
        let mut state = GraphState::default();
        for i in 0..7 {
            state.record(&done("coder", &format!("r{i}"), None));
        }
        assert_eq!(state.last_results["coder"], ["r2", "r3", "r4", "r5", "r6"]);
    }

    #[test]
    fn long_results_keep_head_and_tail() {
        let long = format!(
            "{}{}{}",
            "h".repeat(3000),
            "m".repeat(3000),
            "t".repeat(3000)
        );
        let kept = cut(&long);
        assert_eq!(kept.chars().count(), RESULT_CHARS);
        assert!(kept.starts_with(&"h".repeat(2000)));
        assert!(kept.ends_with(&"t".repeat(1997)));
        assert!(kept.contains("h\n…\nt"));
        assert_eq!(cut("short"), "short");
    }

    #[test]
    fn changed_files_follows_the_latest_completion() {
        let mut state = GraphState::default();
        state.record(&done("coder", "a", Some(false)));
        assert_eq!(state.changed_files.get("coder"), Some(&false));
        state.record(&done("coder", "b", None));
        assert_eq!(state.changed_files.get("coder"), None);
    }

    #[test]
    fn round_trips_through_json() {
        let mut state = GraphState {
            frontier: vec!["coder".to_owned()],
            completed: vec!["planner".to_owned()],
            iteration: 2,
            last_agent: Some("reviewer".to_owned()),
            status: Status::Exhausted,
            reason: Some("max_iterations (3) reached".to_owned()),
            off_route: 1,
            started_ms: 1_700_000_000_000,
            steps: 5,
            ..GraphState::default()
        };
        state.loop_counts.insert("coder+reviewer".to_owned(), 2);
        state.record(&done(
            "reviewer",
            "Score: 7/10 — fix the tests",
            Some(false),
        ));
        let json = serde_json::to_string(&state).unwrap();
        assert!(json.contains("\"status\":\"exhausted\""), "{json}");
        let back: GraphState = serde_json::from_str(&json).unwrap();
        assert_eq!(back, state);
    }

    #[test]
    fn json_without_changed_files_reads() {
        let json = r#"{"frontier":["a"],"completed":[],"loop_counts":{},"iteration":0,
            "last_results":{},"last_agent":null,"status":"active","reason":null,
            "off_route":0,"started_ms":5,"steps":0}"#;
        let state: GraphState = serde_json::from_str(json).unwrap();
        assert_eq!(state.frontier, ["a"]);
        assert!(state.changed_files.is_empty());
    }
}
