//! Tests of the texts shown to models, compared in full.

use super::*;
use crate::workflow::graph::{Completion, parse};

fn graph(text: &str) -> Graph {
    parse(&yaml_serde::from_str(text).unwrap()).unwrap()
}

const LABELLED_LOOP: &str = r#"
topology: review-loop
agents: [coder, reviewer]
flow:
  - "coder -> reviewer: review the change"
  - "reviewer -> coder: fix what the review found"
"#;

fn complete(graph: &Graph, state: &mut GraphState, agent: &str, result: &str) {
    let completion = Completion {
        agent: agent.to_owned(),
        result: result.to_owned(),
        changed_files: None,
    };
    assert!(graph.complete(state, &completion, 0).advanced);
}

#[test]
fn the_reminder_shows_graph_state_and_next_action() {
    let g = graph(LABELLED_LOOP);
    let mut state = g.start(0);
    complete(&g, &mut state, "coder", "v1");
    complete(&g, &mut state, "reviewer", "fix the tests");
    state.off_route = 1;
    assert_eq!(
        g.reminder(&state),
        "Collaboration graph (review-loop): coder, reviewer
  coder -> reviewer: review the change
  reviewer -> coder: fix what the review found
  reviewer exits
Iteration 1/3. Completed this round: none. Frontier: coder. Off-route dispatches in a row: 1 of 3.
Dispatch coder with the Agent tool; the graph advances when it completes."
    );
    state.off_route = 0;
    complete(&g, &mut state, "coder", "v2");
    complete(&g, &mut state, "reviewer", "fix more");
    complete(&g, &mut state, "coder", "v3");
    complete(&g, &mut state, "reviewer", "still wrong");
    assert_eq!(
        g.reminder(&state),
        "Collaboration graph (review-loop): coder, reviewer
  coder -> reviewer: review the change
  reviewer -> coder: fix what the review found
  reviewer exits
Iteration 3/3. Completed this round: none. Frontier: coder.
The workflow ended (max_iterations (3) reached): synthesize the results for the user; do not \
dispatch more agents."
    );
}

#[test]
fn the_reminder_of_an_acyclic_graph_has_no_iterations() {
    let g = graph(
        "{agents: [plan, fe, be], flow: [plan -> fe, plan -> be, {from: fe, exit: true}, {from: be, exit: true}]}",
    );
    let mut state = g.start(0);
    complete(&g, &mut state, "plan", "split");
    assert_eq!(
        g.reminder(&state),
        "Collaboration graph: plan, fe, be
  plan -> fe
  plan -> be
  fe exits
  be exits
Completed: plan. Frontier: fe, be.
Dispatch fe and be with the Agent tool; the graph advances when it completes."
    );
}

#[test]
fn roles_say_where_work_comes_from_and_goes() {
    let looped = graph(LABELLED_LOOP);
    let pipeline = graph("{topology: pipeline, agents: [a, b, c]}");
    let star = graph(
        "{topology: star, agents: [hub, s1, s2], flow: [{from: hub, exit: true, label: when both agree}]}",
    );
    let open = graph("{agents: [a, b], flow: [a -> b], termination: {any_of: [{timeout_ms: 5}]}}");
    let cases = [
        (
            &looped,
            "reviewer",
            Some(
                "You are `reviewer` in a review-loop collaboration: your work comes from coder \
                 (review the change) and goes to coder (fix what the review found) or ends the \
                 workflow.",
            ),
        ),
        (
            &looped,
            "coder",
            Some(
                "You are `coder` in a review-loop collaboration: your work comes from reviewer \
                 (fix what the review found) and goes to reviewer (review the change).",
            ),
        ),
        (
            &pipeline,
            "a",
            Some("You are `a` in a pipeline collaboration: you start the work, which goes to b."),
        ),
        (
            &pipeline,
            "c",
            Some(
                "You are `c` in a pipeline collaboration: your work comes from b and ends the workflow.",
            ),
        ),
        (
            &star,
            "hub",
            Some(
                "You are `hub` in a star collaboration: your work comes from s1 and s2 and goes \
                 to s1 and s2 or ends the workflow (when both agree).",
            ),
        ),
        (
            &open,
            "b",
            Some(
                "You are `b` in a collaboration: your work comes from a and goes back to the orchestrator.",
            ),
        ),
        (&looped, "tester", None),
    ];
    for (g, agent, want) in cases {
        assert_eq!(g.role(agent).as_deref(), want, "{agent}");
    }
}

#[test]
fn the_judge_sees_every_agents_results() {
    let g = graph(LABELLED_LOOP);
    let mut state = g.start(0);
    complete(&g, &mut state, "coder", "v1\n");
    complete(&g, &mut state, "reviewer", "fix the tests");
    complete(&g, &mut state, "coder", "v2");
    assert_eq!(
        g.judge_prompt(&state),
        "Agents in a review-loop collaboration (coder, reviewer) have worked for 1 iteration. \
         Their latest results, oldest first:

--- coder, result 1 of 2 ---
v1

--- coder, result 2 of 2 ---
v2

--- reviewer, result 1 of 1 ---
fix the tests

Have the agents converged on a result that needs no further rounds? Answer YES or NO only."
    );
}

#[test]
fn judge_answers_are_read_from_the_first_word() {
    let cases = [
        ("YES", Some(true)),
        ("no", Some(false)),
        ("  Yes, they agree.", Some(true)),
        ("**NO**", Some(false)),
        ("No.", Some(false)),
        ("Nope", None),
        ("I think yes", None),
        ("", None),
    ];
    for (text, want) in cases {
        assert_eq!(judge_answer(text), want, "{text:?}");
    }
}
