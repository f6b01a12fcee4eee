//! Tests of reading `collaboration:` blocks: each topology, flow-only graphs, and every
//! error with its full message.

use super::*;
use crate::workflow::graph::matcher::Matcher;
use crate::workflow::graph::termination::Term;

fn yaml(text: &str) -> Value {
    yaml_serde::from_str(text).unwrap()
}

fn edges(graph: &Graph) -> Vec<String> {
    graph.edges.iter().map(ToString::to_string).collect()
}

#[test]
fn reads_each_topology() {
    let cases: [(&str, &[&str]); 3] = [
        (
            "{topology: pipeline, agents: [a, b, c]}",
            &["a -> b", "b -> c", "c exits"],
        ),
        (
            "{topology: review-loop, agents: [coder, reviewer]}",
            &["coder -> reviewer", "reviewer -> coder", "reviewer exits"],
        ),
        (
            "{topology: star, agents: [hub, s1, s2]}",
            &[
                "hub -> s1",
                "s1 -> hub",
                "hub -> s2",
                "s2 -> hub",
                "hub exits",
            ],
        ),
    ];
    for (text, want) in cases {
        let graph = parse(&yaml(text)).unwrap();
        assert_eq!(edges(&graph), want, "{text}");
    }
}

#[test]
fn flow_labels_topology_edges_and_adds_new_ones() {
    let graph = parse(&yaml(
        r#"
topology: review-loop
agents: [coder, reviewer]
flow:
  - "coder -> reviewer: review the change"
  - reviewer -> coder: fix what the review found
  - {from: reviewer, exit: true, label: approved}
  - "reviewer -> reviewer"
max_iterations: 4
termination:
  any_of:
    - result_matches: {agent: reviewer, contains: APPROVED}
"#,
    ))
    .unwrap();
    assert_eq!(
        edges(&graph),
        [
            "coder -> reviewer: review the change",
            "reviewer -> coder: fix what the review found",
            "reviewer exits: approved",
            "reviewer -> reviewer",
        ]
    );
    assert_eq!(graph.topology, Some(Topology::ReviewLoop));
    assert_eq!(graph.max_iterations, Some(4));
    assert_eq!(
        graph.termination.any_of,
        [Term::ResultMatches(Matcher {
            agent: Some("reviewer".to_owned()),
            contains: Some("APPROVED".to_owned()),
            ..Matcher::default()
        })]
    );
}

#[test]
fn flow_alone_defines_the_graph() {
    let graph = parse(&yaml(
        r#"
agents: [planner, coder, tester]
flow:
  - planner -> coder
  - "coder -> tester: test it"
  - {from: tester, to: coder, label: fix failures}
  - {from: tester, exit: true}
"#,
    ))
    .unwrap();
    assert_eq!(graph.topology, None);
    assert_eq!(
        edges(&graph),
        [
            "planner -> coder",
            "coder -> tester: test it",
            "tester -> coder: fix failures",
            "tester exits",
        ]
    );
    assert!(graph.has_cycle());
    assert_eq!(graph.max_iterations, None);
    assert_eq!(graph.effective_max_iterations(), Some(3));
}

#[test]
fn max_iterations_is_kept_only_for_graphs_with_a_loop() {
    let cases = [
        (
            "{topology: pipeline, agents: [a, b], max_iterations: 5}",
            None,
            None,
        ),
        (
            "{topology: review-loop, agents: [a, b], max_iterations: 5}",
            Some(5),
            Some(5),
        ),
        (
            "{topology: review-loop, agents: [a, b], termination: {any_of: [{max_iterations: 2}]}}",
            None,
            Some(2),
        ),
        ("{topology: star, agents: [h, s]}", None, Some(3)),
    ];
    for (text, stored, effective) in cases {
        let graph = parse(&yaml(text)).unwrap();
        assert_eq!(graph.max_iterations, stored, "{text}");
        assert_eq!(graph.effective_max_iterations(), effective, "{text}");
    }
}

#[test]
fn a_graph_without_exits_ends_by_its_termination() {
    let graph = parse(&yaml(
        "{agents: [a, b], flow: [a -> b, b -> a], termination: {all_of: [{stuck: 2}, {timeout_ms: 1000}]}}",
    ))
    .unwrap();
    assert!(!graph.has_exit_edges());
    assert_eq!(
        graph.termination.all_of,
        [Term::Stuck(2), Term::TimeoutMs(1000)]
    );
}

#[test]
fn rejects_bad_blocks_with_a_message_naming_the_key() {
    let cases = [
        (
            "[a, b]",
            "expected a mapping of topology, agents, flow, max_iterations, termination, found a list",
        ),
        (
            "{agents: [a], topology: pipeline, loops: 2}",
            "unknown key `loops` (accepted: topology, agents, flow, max_iterations, termination)",
        ),
        ("{topology: pipeline}", "`agents` is required"),
        (
            "{agents: [], topology: pipeline}",
            "agents: at least one agent is needed",
        ),
        (
            "{agents: coder, topology: pipeline}",
            "agents: expected a list of agent names, found the string \"coder\"",
        ),
        (
            "{agents: [a, a], topology: pipeline}",
            "agents: `a` is listed twice",
        ),
        (
            "{agents: [a, b c], topology: pipeline}",
            "agents[1]: `b c` is not an agent name (letters, digits, `_` and `-`)",
        ),
        (
            "{agents: [a, 7], topology: pipeline}",
            "agents[1]: expected an agent name, found the number 7",
        ),
        (
            "{agents: [a], topology: ring}",
            "topology: unknown topology `ring` (accepted: pipeline, review-loop, star)",
        ),
        (
            "{agents: [a, b, c], topology: review-loop}",
            "topology: a review-loop needs exactly 2 agents, 3 given",
        ),
        (
            "{agents: [hub], topology: star}",
            "topology: a star needs at least 2 agents, 1 given",
        ),
        (
            "{agents: [a, b]}",
            "give a topology, a flow or both: without them the agents have no edges",
        ),
        (
            "{agents: [coder, reviewer], flow: [coder -> reveiwer], termination: {any_of: [{stuck: 2}]}}",
            "flow[0]: `reveiwer` is not in agents (coder, reviewer); did you mean `reviewer`?",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [a -> zed]}",
            "flow[0]: `zed` is not in agents (a, b)",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [\"a => b\"]}",
            "flow[0]: `a => b` is not an edge: write `from -> to` or `from -> to: label`",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [\"a -> \"]}",
            "flow[0]: `a -> ` is not an edge: write `from -> to` or `from -> to: label`",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [\"a -> b -> a\"]}",
            "flow[0]: `b -> a` is not an agent name (letters, digits, `_` and `-`)",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [{from: a, to: b, when: always}]}",
            "flow[0]: unknown key `when` (accepted: from, to, label, exit)",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [{from: b, to: a, exit: true}]}",
            "flow[0]: an exit edge ends the workflow and takes no `to`; give `to` or `exit: true`",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [{from: b}]}",
            "flow[0]: an edge needs `to`, or `exit: true` to end the workflow",
        ),
        (
            "{agents: [a, b], topology: pipeline, flow: [{to: b}]}",
            "flow[0]: `from` is required",
        ),
        (
            "{agents: [a, b], flow: [a -> b, b -> a, \"a -> b: again\"], max_iterations: 2, termination: {any_of: [{stuck: 2}]}}",
            "flow[2]: `a -> b` is already given at flow[0]",
        ),
        (
            "{agents: [a, b], topology: review-loop, max_iterations: 0}",
            "max_iterations: expected a whole number of at least 1, found the number 0",
        ),
        (
            "{agents: [a, b], flow: [a -> b, b -> a]}",
            "no agent has an exit edge and there is no termination, so the workflow could never end: add `{from: <agent>, exit: true}` to flow, or a termination",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {one_of: []}}",
            "termination: unknown key `one_of` (accepted: any_of, all_of)",
        ),
        (
            "{agents: [a], topology: pipeline, termination: [{stuck: 2}]}",
            "termination: expected a mapping with any_of, all_of or both, found a list",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{stuck: 2}, {rounds: 3}]}}",
            "termination.any_of[1]: unknown key `rounds` (accepted: max_iterations, timeout_ms, converged, result_matches, stuck)",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{stuck: 2, timeout_ms: 5}]}}",
            "termination.any_of[0]: a term is a mapping with one key (accepted: max_iterations, timeout_ms, converged, result_matches, stuck)",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {all_of: [{stuck: 9}]}}",
            "termination.all_of[0].stuck: expected a whole number from 2 to 5 (the results kept per agent), found the number 9",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{converged: false}]}}",
            "termination.any_of[0].converged: expected true, found `false`",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{timeout_ms: -5}]}}",
            "termination.any_of[0].timeout_ms: expected a whole number of milliseconds, at least 1, found the number -5",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{result_matches: {agent: a}}]}}",
            "termination.any_of[0].result_matches: result_matches needs a test: contains, regex, score_gte or no_changes: true",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{result_matches: {agent: zed, contains: x}}]}}",
            "termination.any_of[0].result_matches.agent: `zed` is not in agents (a)",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{result_matches: {equals: x}}]}}",
            "termination.any_of[0].result_matches: unknown key `equals` (accepted: agent, contains, regex, score_gte, no_changes)",
        ),
        (
            "{agents: [a], topology: pipeline, termination: {any_of: [{result_matches: {score_gte: high}}]}}",
            "termination.any_of[0].result_matches.score_gte: expected a number, found the string \"high\"",
        ),
    ];
    for (text, want) in cases {
        let err = parse(&yaml(text)).unwrap_err();
        assert_eq!(err.to_string(), want, "{text}");
    }
}

#[test]
fn a_bad_regex_is_a_parse_error() {
    let err = parse(&yaml(
        "{agents: [a], topology: pipeline, termination: {any_of: [{result_matches: {regex: 'score: (\\d+'}}]}}",
    ))
    .unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(
            "termination.any_of[0].result_matches.regex: `score: (\\d+` is not a valid regex: "
        ),
        "{message}"
    );
}

#[test]
fn a_parsed_graph_round_trips_through_json() {
    let graph = parse(&yaml(
        r#"
topology: review-loop
agents: [coder, reviewer]
flow: ["coder -> reviewer: review the change"]
termination:
  any_of:
    - result_matches: {agent: reviewer, regex: "(?i)approved", score_gte: 7.5}
    - converged: true
  all_of: [{stuck: 3}, {timeout_ms: 60000}]
"#,
    ))
    .unwrap();
    let json = serde_json::to_string(&graph).unwrap();
    assert!(json.contains("\"topology\":\"review_loop\""), "{json}");
    let back: Graph = serde_json::from_str(&json).unwrap();
    assert_eq!(back, graph);
}
