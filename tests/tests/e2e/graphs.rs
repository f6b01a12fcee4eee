//! Collaboration graphs through the real binaries: a `review-loop` between a coder and
//! a reviewer (two agent definitions) routed by the project's `collaboration:`; the
//! orchestrator is told the graph and where it stands, each worker its role; the graph
//! advances when a dispatched agent completes and ends on `result_matches`, or
//! exhausted at `max_iterations`; dispatches off the route get corrections and three
//! in a row end the workflow; a `kill -9` of the daemon mid-graph and the workflow
//! still ends with no dispatch counted twice.

use roocode_tests::mock_llm::{RecordedRequest, Reply, Route, RouteMatch, Script, ScriptedReply};
use serde_json::{Value, json};

use crate::harness::{World, gone, kill9};
use crate::skills::write;

const CODER: &str = "---\nname: coder\ndescription: Writes the code\n---\nYou write code.\n";
const REVIEWER: &str =
    "---\nname: reviewer\ndescription: Reviews the code\n---\nYou review code.\n";

fn setup(w: &World, config: &str) {
    write(w, ".roocode/agents/coder.md", CODER);
    write(w, ".roocode/agents/reviewer.md", REVIEWER);
    write(w, ".roocode/config.yaml", config);
}

fn role(agent: &str) -> RouteMatch {
    RouteMatch::FirstUserContains(format!("You are `{agent}`"))
}

fn routed(agent: &str, replies: Vec<ScriptedReply>) -> Route {
    Route {
        when: role(agent),
        replies,
        fallback: None,
    }
}

fn dispatch(agent: &str, background: bool) -> Reply {
    Reply::tool_call(
        "Agent",
        json!({
            "description": format!("{agent} step"),
            "prompt": format!("Do the {agent} part."),
            "subagent_type": agent,
            "run_in_background": background,
        }),
    )
}

fn text(body: &Value) -> String {
    body["messages"].to_string()
}

/// The orchestrator's requests (the workers' carry their role).
fn orchestrator(requests: &[RecordedRequest]) -> Vec<RecordedRequest> {
    requests
        .iter()
        .filter(|r| !text(&r.body).contains("<collaboration-role>"))
        .cloned()
        .collect()
}

fn worker(requests: &[RecordedRequest], agent: &str) -> Vec<RecordedRequest> {
    requests
        .iter()
        .filter(|r| role(agent).matches(&r.headers, &r.body))
        .cloned()
        .collect()
}

const REVIEW_LOOP: &str = "collaboration:
  topology: review-loop
  agents: [coder, reviewer]
  termination:
    any_of:
      - result_matches: {agent: reviewer, contains: APPROVED}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_loop_ends_when_the_reviewer_approves() {
    let mut script = Script::new()
        .reply(dispatch("coder", false))
        .reply(dispatch("reviewer", false))
        .reply(dispatch("coder", false))
        .reply(dispatch("reviewer", false))
        .reply(Reply::text("Approved after one fix."));
    script.routes = vec![
        routed(
            "coder",
            vec![
                Reply::text("Wrote v1.").into(),
                Reply::text("Fixed the names.").into(),
            ],
        ),
        routed(
            "reviewer",
            vec![
                Reply::text("Names are unclear.").into(),
                Reply::text("APPROVED").into(),
            ],
        ),
    ];
    let w = World::new(script).await;
    setup(&w, REVIEW_LOOP);
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "build the feature"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(worker(&requests, "coder").len(), 2);
    assert_eq!(worker(&requests, "reviewer").len(), 2);
    let lead = orchestrator(&requests);
    let first = text(&lead[0].body);
    assert!(
        first.contains("Collaboration graph (review-loop): coder, reviewer"),
        "{first}"
    );
    assert!(first.contains("Frontier: coder"), "{first}");
    let second = text(&lead[1].body);
    assert!(
        second.contains("Frontier: reviewer"),
        "the graph moved when coder completed: {second}"
    );
    let role = text(&worker(&requests, "reviewer")[0].body);
    assert!(role.contains("your work comes from coder"), "{role}");
    let last = text(&lead.last().expect("last").body);
    assert!(last.contains("The workflow ended"), "{last}");

    let info = w
        .run(&["workflow", &out.session_id(), "--json"])
        .await
        .json();
    let graph = &info["graph"];
    assert_eq!(graph["status"], "complete", "{info}");
    assert!(
        graph["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("APPROVED"),
        "{graph}"
    );
    assert_eq!(graph["steps"], 4);
    let shown = w.run(&["workflow", &out.session_id()]).await;
    assert!(
        shown.stdout.contains("Collaboration graph (complete)"),
        "{shown:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_loop_that_never_approves_is_exhausted_at_max_iterations() {
    let mut script = Script::new();
    for _ in 0..2 {
        script = script
            .reply(dispatch("coder", false))
            .reply(dispatch("reviewer", false));
    }
    script = script.reply(Reply::text("Gave up after two rounds."));
    let mut coder = routed("coder", Vec::new());
    coder.fallback = Some(Reply::text("Changed it again.").into());
    let mut reviewer = routed("reviewer", Vec::new());
    reviewer.fallback = Some(Reply::text("Still wrong.").into());
    script.routes = vec![coder, reviewer];
    let w = World::new(script).await;
    setup(
        &w,
        "collaboration:\n  topology: review-loop\n  agents: [coder, reviewer]\n  max_iterations: 2\n  termination:\n    any_of:\n      - result_matches: {agent: reviewer, contains: APPROVED}\n",
    );
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "build it"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let info = w
        .run(&["workflow", &out.session_id(), "--json"])
        .await
        .json();
    assert_eq!(info["graph"]["status"], "exhausted", "{info}");
    assert!(
        info["graph"]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("max_iterations (2) reached"),
        "{info}"
    );
    let requests = w.mock.requests();
    assert_eq!(
        worker(&requests, "reviewer").len(),
        2,
        "no round beyond the cap"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatches_off_the_route_are_corrected_and_three_end_the_workflow() {
    let script = Script::new()
        .reply(dispatch("reviewer", false))
        .reply(dispatch("reviewer", false))
        .reply(dispatch("reviewer", false))
        .reply(Reply::text("Synthesized."));
    let mut script = script;
    let mut reviewer = routed("reviewer", Vec::new());
    reviewer.fallback = Some(Reply::text("Nothing to review.").into());
    script.routes = vec![reviewer];
    let w = World::new(script).await;
    setup(&w, REVIEW_LOOP);
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "review first"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = orchestrator(&w.mock.requests());
    let second = text(&lead[1].body);
    assert!(second.contains("expects coder next"), "{second}");
    let last = text(&lead[3].body);
    assert!(last.contains("synthesize"), "{last}");
    let info = w
        .run(&["workflow", &out.session_id(), "--json"])
        .await
        .json();
    assert_eq!(info["graph"]["status"], "exhausted", "{info}");
    assert_eq!(
        info["graph"]["steps"], 0,
        "an off-route completion never advances"
    );
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("workflow: dispatch of reviewer off the route"),
        "{all}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_survives_kill_9_with_no_dispatch_counted_twice() {
    let mut script = Script::new()
        .reply(dispatch("coder", true))
        .reply(Reply::text("The coder works in the background."))
        // after the restart: the user's question, then the coder's notification
        .fallback(Reply::text("Waiting."));
    script.routes = vec![
        routed(
            "coder",
            vec![
                ScriptedReply::new(Reply::text("This answer dies with the daemon."))
                    .with_gate("c1"),
                Reply::text("Wrote it after the restart.").into(),
            ],
        ),
        routed("reviewer", vec![Reply::text("APPROVED").into()]),
    ];
    let w = World::new(script).await;
    setup(&w, REVIEW_LOOP);
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "build it"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let session = out.session_id();
    w.mock.wait_for_gate_reached("c1").await;
    // The coder runs: the graph waits for its completion, not its launch.
    let held = w.run(&["workflow", &session, "--json"]).await.json();
    assert_eq!(held["graph"]["frontier"], json!(["coder"]), "{held}");
    assert_eq!(held["graph"]["steps"], 0, "{held}");
    let pid = w.daemon_info().await["pid"].as_u64().expect("pid");
    kill9(pid);
    gone(pid).await;

    // The coder is resumed; its completion moves the graph; the orchestrator, woken by
    // its notification, dispatches the reviewer (its next scripted reply), whose
    // approval ends the workflow and wakes the orchestrator once more.
    w.mock.push(dispatch("reviewer", true));
    let mut attach = w.start(&["attach", &session]);
    attach
        .until(|l| l.contains("the workflow is complete"))
        .await;
    attach.until(|l| l.contains("end_turn")).await;
    drop(attach);
    let info = w.run(&["workflow", &session, "--json"]).await.json();
    let graph = &info["graph"];
    assert_eq!(
        graph["steps"], 2,
        "coder and reviewer, each counted once: {graph}"
    );
    assert_eq!(graph["status"], "complete", "{graph}");
    let requests = w.mock.requests();
    assert_eq!(
        worker(&requests, "coder").len(),
        2,
        "the coder's resumed turn, not a second coder"
    );
    assert_eq!(worker(&requests, "reviewer").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_agent_that_is_no_agent_type_is_told_to_the_user() {
    let w = World::new(Script::new().reply(Reply::text("Understood."))).await;
    setup(
        &w,
        "collaboration:\n  topology: review-loop\n  agents: [coder, reviewr]\n  max_iterations: 2\n",
    );
    let out = w.run(&["send", "plan the work"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("workflow: collaboration: reviewr is no agent type here"),
        "{all}"
    );
    assert!(!all.contains("coder is no agent type"), "{all}");
}
