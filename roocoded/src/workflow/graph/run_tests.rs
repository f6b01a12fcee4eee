//! Tests of running collaborations: whole workflows from start to their end, driven the
//! way the engine drives them (dispatch, complete, judge).

use super::*;
use crate::workflow::graph::parse;

fn graph(text: &str) -> Graph {
    parse(&yaml_serde::from_str(text).unwrap()).unwrap()
}

fn done(agent: &str, result: &str) -> Completion {
    Completion {
        agent: agent.to_owned(),
        result: result.to_owned(),
        changed_files: None,
    }
}

/// Dispatches and completes `agent` with `result` at `now_ms`.
fn turn(graph: &Graph, state: &mut GraphState, agent: &str, result: &str, now_ms: u64) -> Step {
    assert_eq!(graph.dispatch(state, agent), Dispatch::OnRoute, "{agent}");
    graph.complete(state, &done(agent, result), now_ms)
}

/// Runs the frontier's first agent with the next result (the last one repeating) until
/// the workflow ends; returns the agents whose completions were accepted.
fn run_to_end(graph: &Graph, state: &mut GraphState, results: &[&str]) -> Vec<String> {
    let mut accepted = Vec::new();
    for i in 0..50 {
        if state.status != Status::Active {
            return accepted;
        }
        let agent = state.frontier[0].clone();
        let result = results[i.min(results.len() - 1)];
        let step = turn(graph, state, &agent, result, 0);
        assert!(step.advanced);
        accepted.push(agent);
    }
    panic!("no end after 50 completions: {state:?}");
}

#[test]
fn a_pipeline_runs_to_complete() {
    let g = graph("{topology: pipeline, agents: [a, b, c]}");
    let mut state = g.start(100);
    assert_eq!(state.frontier, ["a"]);
    assert_eq!(state.started_ms, 100);
    let frontiers: Vec<Vec<String>> = ["a", "b"]
        .iter()
        .map(|agent| {
            let step = turn(&g, &mut state, agent, "ok", 200);
            assert_eq!(step.ended, None);
            step.frontier
        })
        .collect();
    assert_eq!(frontiers, [vec!["b".to_owned()], vec!["c".to_owned()]]);
    let last = turn(&g, &mut state, "c", "ok", 300);
    assert_eq!(
        last,
        Step {
            advanced: true,
            frontier: vec![],
            judge_needed: false,
            ended: Some((Status::Complete, ALL_DONE_REASON.to_owned())),
        }
    );
    assert_eq!(state.completed, ["a", "b", "c"]);
    assert_eq!((state.steps, state.iteration), (3, 0));
    assert_eq!(state.reason.as_deref(), Some(ALL_DONE_REASON));
}

const REVIEW_LOOP: &str = r#"
topology: review-loop
agents: [coder, reviewer]
termination:
  any_of:
    - result_matches: {contains: APPROVED}
"#;

#[test]
fn a_review_loop_completes_when_the_second_review_approves() {
    let g = graph(REVIEW_LOOP);
    let mut state = g.start(0);
    assert_eq!(state.frontier, ["coder"]);
    // The coder's "APPROVED" does not end it: only the exit agent's completion can.
    let script = [
        ("coder", "patch 1"),
        ("reviewer", "fix the tests"),
        ("coder", "patch 2, hoping for APPROVED"),
    ];
    for (agent, result) in script {
        let step = turn(&g, &mut state, agent, result, 0);
        assert_eq!(step.ended, None, "{agent}");
    }
    assert_eq!(
        (state.iteration, state.loop_counts["coder+reviewer"]),
        (1, 1)
    );
    let step = turn(&g, &mut state, "reviewer", "APPROVED", 0);
    assert_eq!(
        step.ended,
        Some((
            Status::Complete,
            "result_matches: reviewer's result contains \"APPROVED\"".to_owned()
        ))
    );
    assert_eq!((state.steps, state.iteration), (4, 2));
}

#[test]
fn a_review_loop_that_never_approves_is_exhausted_after_three_rounds() {
    let g = graph(REVIEW_LOOP);
    let mut state = g.start(0);
    let accepted = run_to_end(&g, &mut state, &["not yet"]);
    assert_eq!(
        accepted,
        [
            "coder", "reviewer", "coder", "reviewer", "coder", "reviewer"
        ]
    );
    assert_eq!(state.status, Status::Exhausted);
    assert_eq!(state.reason.as_deref(), Some("max_iterations (3) reached"));
    assert_eq!((state.steps, state.iteration), (6, 3));
    // No round beyond: the coder is refused and its completion does not advance.
    assert!(matches!(
        g.dispatch(&mut state, "coder"),
        Dispatch::OffRoute { end: false, .. }
    ));
    let step = g.complete(&mut state, &done("coder", "patch 4"), 0);
    assert!(!step.advanced);
    assert_eq!(state.steps, 6);
}

#[test]
fn without_terms_a_review_loop_runs_to_its_cap() {
    let g = graph("{topology: review-loop, agents: [w, r], max_iterations: 2}");
    let mut state = g.start(0);
    let accepted = run_to_end(&g, &mut state, &["done"]);
    assert_eq!(accepted, ["w", "r", "w", "r"]);
    assert_eq!(state.reason.as_deref(), Some("max_iterations (2) reached"));
}

#[test]
fn a_completion_off_the_frontier_is_recorded_but_does_not_advance() {
    let g = graph(REVIEW_LOOP);
    let mut state = g.start(0);
    let step = g.complete(&mut state, &done("reviewer", "APPROVED early"), 0);
    assert_eq!(
        step,
        Step {
            advanced: false,
            frontier: vec!["coder".to_owned()],
            judge_needed: false,
            ended: None,
        }
    );
    assert_eq!(state.last_results["reviewer"], ["APPROVED early"]);
    assert_eq!((state.steps, state.last_agent.as_deref()), (0, None));
    assert!(state.completed.is_empty());
    assert_eq!(state.status, Status::Active);
}

#[test]
fn three_dispatches_off_the_route_in_a_row_end_the_workflow() {
    let g = graph(REVIEW_LOOP);
    let mut state = g.start(0);
    let first = g.dispatch(&mut state, "reviewer");
    assert_eq!(
        first,
        Dispatch::OffRoute {
            correction: "The collaboration graph expects coder next (frontier: coder); reviewer \
                         is not on it. Dispatch coder, or stop and synthesize the results if the \
                         work is done. Off-route dispatches in a row: 1 of 3 (the last ends the \
                         workflow)."
                .to_owned(),
            end: false,
        }
    );
    let Dispatch::OffRoute { correction, .. } = g.dispatch(&mut state, "tester") else {
        panic!("tester is off route");
    };
    assert!(
        correction.contains("tester is not part of the collaboration"),
        "{correction}"
    );
    // An on-route dispatch resets the count.
    assert_eq!(g.dispatch(&mut state, "coder"), Dispatch::OnRoute);
    assert_eq!(state.off_route, 0);
    for _ in 0..2 {
        assert!(matches!(
            g.dispatch(&mut state, "reviewer"),
            Dispatch::OffRoute { end: false, .. }
        ));
    }
    assert_eq!(
        g.dispatch(&mut state, "reviewer"),
        Dispatch::OffRoute {
            correction: "Dispatching reviewer is the third dispatch off the collaboration \
                         graph's route in a row (frontier: coder), so the workflow has ended. \
                         Stop dispatching agents and synthesize the results you have for the \
                         user."
                .to_owned(),
            end: true,
        }
    );
    assert_eq!(state.status, Status::Exhausted);
    assert_eq!(state.reason.as_deref(), Some(OFF_ROUTE_REASON));
    assert_eq!(
        g.dispatch(&mut state, "coder"),
        Dispatch::OffRoute {
            correction: "The collaboration workflow has ended (three dispatches off the graph's \
                         route in a row): do not dispatch coder or any other agent; synthesize \
                         the results for the user."
                .to_owned(),
            end: false,
        }
    );
}

/// One completion of a script: agent, result, clock, changed files.
type Turn = (&'static str, &'static str, u64, Option<bool>);

#[test]
fn termination_terms_end_the_loop() {
    let loop_with = |term: &str| {
        graph(&format!(
            "{{topology: review-loop, agents: [coder, reviewer], max_iterations: 9, \
             termination: {{any_of: [{term}]}}}}"
        ))
    };
    let cases: [(&str, &[Turn], Status, &str); 4] = [
        (
            "{stuck: 2}",
            &[
                ("coder", "same patch", 0, None),
                ("reviewer", "no", 0, None),
                ("coder", "same patch", 0, None),
            ],
            Status::Exhausted,
            "stuck: coder returned the same result 2 times",
        ),
        (
            "{result_matches: {agent: reviewer, score_gte: 8}}",
            &[
                ("coder", "v1", 0, None),
                ("reviewer", "Score: 6/10", 0, None),
                ("coder", "v2", 0, None),
                ("reviewer", "Overall score = 8.5 / 10", 0, None),
            ],
            Status::Complete,
            "result_matches: reviewer's result scores 8.5 (at least 8)",
        ),
        (
            "{timeout_ms: 1000}",
            &[("coder", "v1", 500, None), ("reviewer", "no", 1_500, None)],
            Status::Exhausted,
            "timeout_ms (1000) passed",
        ),
        (
            "{result_matches: {agent: coder, no_changes: true}}",
            &[
                ("coder", "v1", 0, Some(true)),
                ("reviewer", "no", 0, None),
                ("coder", "nothing to change", 0, Some(false)),
                ("reviewer", "fine", 0, None),
            ],
            Status::Complete,
            "result_matches: coder changed no files",
        ),
    ];
    for (term, script, status, reason) in cases {
        let g = loop_with(term);
        let mut state = g.start(0);
        let (last, before) = script.split_last().unwrap();
        for (agent, result, now, changed) in before {
            let completion = Completion {
                changed_files: *changed,
                ..done(agent, result)
            };
            let step = g.complete(&mut state, &completion, *now);
            assert_eq!((step.advanced, step.ended), (true, None), "{term} {agent}");
        }
        let (agent, result, now, changed) = last;
        let completion = Completion {
            changed_files: *changed,
            ..done(agent, result)
        };
        let step = g.complete(&mut state, &completion, *now);
        assert_eq!(step.ended, Some((status, reason.to_owned())), "{term}");
    }
}

#[test]
fn converged_is_asked_of_the_judge_at_the_exit_agent() {
    let g = graph(
        "{topology: review-loop, agents: [coder, reviewer], termination: {any_of: [{converged: true}]}}",
    );
    let mut state = g.start(0);
    let step = turn(&g, &mut state, "coder", "v1", 0);
    assert!(
        !step.judge_needed,
        "only the exit agent's completion can end it"
    );
    let step = turn(&g, &mut state, "reviewer", "fix it", 0);
    assert_eq!((step.judge_needed, step.ended), (true, None));
    assert_eq!(g.judged(&mut state, false, 0), None);
    turn(&g, &mut state, "coder", "v2", 0);
    let step = turn(&g, &mut state, "reviewer", "good", 0);
    assert!(step.judge_needed);
    assert_eq!(
        g.judged(&mut state, true, 0),
        Some((
            Status::Complete,
            "the judge found the agents converged".to_owned()
        ))
    );
    assert_eq!(g.judged(&mut state, true, 0), None, "already ended");
}

#[test]
fn the_cap_waits_for_the_judge_and_applies_after_a_no() {
    let g = graph(
        "{topology: review-loop, agents: [coder, reviewer], max_iterations: 1, \
         termination: {any_of: [{converged: true}]}}",
    );
    let mut state = g.start(0);
    turn(&g, &mut state, "coder", "v1", 0);
    let step = turn(&g, &mut state, "reviewer", "meh", 0);
    assert_eq!((step.judge_needed, step.ended), (true, None));
    assert_eq!(
        g.judged(&mut state, false, 0),
        Some((Status::Exhausted, "max_iterations (1) reached".to_owned()))
    );
}

#[test]
fn without_exit_edges_any_completion_may_succeed() {
    let g = graph(
        "{agents: [a, b], flow: [a -> b, b -> a], termination: {any_of: [{result_matches: {contains: DONE}}]}}",
    );
    let mut state = g.start(0);
    assert_eq!(state.frontier, ["a"]);
    turn(&g, &mut state, "a", "start", 0);
    let step = turn(&g, &mut state, "b", "DONE", 0);
    assert_eq!(
        step.ended,
        Some((
            Status::Complete,
            "result_matches: b's result contains \"DONE\"".to_owned()
        ))
    );
}

#[test]
fn a_star_counts_one_iteration_per_round_of_spokes() {
    let g = graph("{topology: star, agents: [hub, s1, s2]}");
    let mut state = g.start(0);
    assert_eq!(state.frontier, ["hub"]);
    let mut iterations = Vec::new();
    let accepted = {
        let mut accepted = Vec::new();
        while state.status == Status::Active {
            let agent = state.frontier[0].clone();
            assert!(turn(&g, &mut state, &agent, "report", 0).advanced);
            iterations.push(state.iteration);
            accepted.push(agent);
        }
        accepted
    };
    assert_eq!(
        accepted,
        ["hub", "s1", "s2", "hub", "s1", "s2", "hub", "s1"]
    );
    assert_eq!(iterations, [0, 1, 1, 1, 2, 2, 2, 3]);
    assert_eq!(state.reason.as_deref(), Some("max_iterations (3) reached"));
}

#[test]
fn a_loop_after_a_pipeline_keeps_the_pipeline_done() {
    let g = graph(
        "{agents: [plan, code, test], flow: [plan -> code, code -> test, test -> code, {from: test, exit: true}], max_iterations: 2}",
    );
    let mut state = g.start(0);
    assert_eq!(state.frontier, ["plan"]);
    let accepted = run_to_end(&g, &mut state, &["ok"]);
    assert_eq!(accepted, ["plan", "code", "test", "code", "test"]);
    assert_eq!(state.completed, ["plan"]);
    assert_eq!(state.loop_counts["code+test"], 2);
}
