//! `|loop|` through the real binaries: rounds run as background workers of the agent
//! that received the message, each seeded with the previous round's summary in
//! `inherit` mode and with nothing in `fresh` mode; the origin reads a line per round
//! and a final report; the stall guard ends a loop whose rounds change nothing; a
//! loop survives `kill -9` of the daemon with no round run twice; `/stop-loop` and
//! `roocode-cli loop stop` stop one.

use roocode_tests::mock_llm::{RecordedRequest, Reply, Route, RouteMatch, Script, ScriptedReply};
use serde_json::Value;

use crate::harness::{World, gone, kill9};

/// Who asks for round `n` of `of` (its worker's task says so).
fn round(n: u32, of: u32) -> RouteMatch {
    RouteMatch::AnyUserContains(format!("This is round {n} of {of} of a loop"))
}

fn routed(when: RouteMatch, replies: Vec<ScriptedReply>) -> Route {
    Route {
        when,
        replies,
        fallback: None,
    }
}

/// The requests of round `n` of `of`.
fn round_requests(requests: &[RecordedRequest], n: u32, of: u32) -> Vec<RecordedRequest> {
    requests
        .iter()
        .filter(|r| round(n, of).matches(&r.headers, &r.body))
        .cloned()
        .collect()
}

fn text(body: &Value) -> String {
    body["messages"].to_string()
}

/// A script whose origin always answers `ok`, and whose rounds answer as given.
fn script(rounds: Vec<Route>) -> Script {
    let mut script = Script::new().fallback(Reply::text("Noted."));
    script.routes = rounds;
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_rounds_in_inherit_mode_each_seeded_with_the_last() {
    let w = World::new(script(vec![
        routed(
            round(1, 3),
            vec![Reply::text("Round one wrote the outline.\nLeft: chapters").into()],
        ),
        routed(
            round(2, 3),
            vec![Reply::text("Round two wrote chapter 1.").into()],
        ),
        routed(
            round(3, 3),
            vec![Reply::text("Round three wrote chapter 2.").into()],
        ),
    ]))
    .await;
    let out = w
        .run(&["send", "--wait-agents", "|loop:3| write the book"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(all.contains("workflow: loop"), "{all}");
    let requests = w.mock.requests();
    for n in 1..=3 {
        assert_eq!(
            round_requests(&requests, n, 3).len(),
            1,
            "round {n} ran once"
        );
    }
    let second = text(&round_requests(&requests, 2, 3)[0].body);
    assert!(
        second.contains(
            "<previous-round>\\nRound one wrote the outline.\\nLeft: chapters\\n</previous-round>"
        ),
        "{second}"
    );
    let third = text(&round_requests(&requests, 3, 3)[0].body);
    assert!(third.contains("Round two wrote chapter 1."), "{third}");
    assert!(
        !third.contains("Round one wrote"),
        "only the last round's summary"
    );
    // The origin was told the loop started, then read a line per round and the report.
    let origin: Vec<_> = requests
        .iter()
        .filter(|r| !text(&r.body).contains("of a loop working on this task"))
        .collect();
    assert!(text(&origin[0].body).contains("Do not work on the task yourself"));
    let last = text(&origin.last().expect("the origin's report turn").body);
    assert!(
        last.contains("[loop round 1/3] Round one wrote the outline."),
        "{last}"
    );
    assert!(
        last.contains("[loop round 3/3] Round three wrote chapter 2."),
        "{last}"
    );
    assert!(last.contains("all 3 rounds ran"), "{last}");
    // Each round's line reached the origin's inbox on its own, besides the report.
    assert!(
        last.matches("[loop round 1/3] Round one wrote the outline.")
            .count()
            >= 2,
        "{last}"
    );

    let loops = w.run(&["loops", "--json"]).await;
    assert_eq!(loops.code, 0, "{loops:?}");
    let loops = loops.json();
    assert_eq!(loops[0]["phase"], "complete");
    assert_eq!(loops[0]["mode"], "inherit");
    let rounds = loops[0]["rounds_run"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 3);
    assert!(
        rounds.iter().all(|r| r["state"] == "completed"),
        "{rounds:?}"
    );
    let listed = w.run(&["loops"]).await;
    assert!(
        listed.stdout.contains("complete 3/3 rounds (inherit)"),
        "{listed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_rounds_get_no_seed() {
    let w = World::new(script(vec![
        routed(round(1, 2), vec![Reply::text("Fresh one.").into()]),
        routed(round(2, 2), vec![Reply::text("Fresh two.").into()]),
    ]))
    .await;
    let out = w
        .run(&["send", "--wait-agents", "|loop:2,fresh| tidy the notes"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let second = text(&round_requests(&requests, 2, 2)[0].body);
    assert!(!second.contains("<previous-round>"), "{second}");
    assert!(!second.contains("Fresh one."), "{second}");
    assert!(second.contains("look there first"), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stall_guard_ends_a_loop_that_changes_nothing() {
    let mut stuck = routed(
        RouteMatch::AnyUserContains("of 5 of a loop working on this task".into()),
        Vec::new(),
    );
    stuck.fallback = Some(Reply::text("Nothing left to change.").into());
    let w = World::new(script(vec![stuck])).await;
    let out = w
        .run(&["send", "--wait-agents", "|loop:5| polish the docs"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let loops = w.run(&["loops", "--json"]).await.json();
    assert_eq!(loops[0]["phase"], "stalled", "{loops}");
    assert_eq!(loops[0]["rounds_run"].as_array().expect("rounds").len(), 3);
    assert!(
        loops[0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("rounds 2 and 3 changed nothing"),
        "{loops}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loops_are_refused_beyond_one_per_session_and_stop_on_request() {
    let w = World::new(script(vec![routed(
        round(1, 4),
        vec![ScriptedReply::new(Reply::text("Held round.")).with_gate("held")],
    )]))
    .await;
    let out = w.run(&["send", "|loop:4| long job"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let session = out.session_id();
    w.mock.wait_for_gate_reached("held").await;
    let again = w
        .run(&["send", "--session", &session, "|loop| another job"])
        .await;
    assert_ne!(again.code, 0, "{again:?}");
    assert!(
        again.stderr.contains("a loop is already running"),
        "{again:?}"
    );
    let bad = w
        .run(&["send", "--session", &session, "|loop:x| job"])
        .await;
    assert_ne!(bad.code, 0, "{bad:?}");
    assert!(bad.stderr.contains("does not understand `x`"), "{bad:?}");

    let stopped = w
        .run(&["send", "--session", &session, "--wait-agents", "/stop-loop"])
        .await;
    assert_eq!(stopped.code, 0, "{stopped:?}");
    assert!(stopped.stdout.contains("stopped"), "{stopped:?}");
    let loops = w
        .run(&["loops", "--session", &session, "--json"])
        .await
        .json();
    assert_eq!(loops[0]["phase"], "stopped", "{loops}");
    assert_eq!(loops[0]["rounds_run"][0]["state"], "stopped", "{loops}");
    assert_eq!(loops[0]["rounds_run"].as_array().expect("rounds").len(), 1);
    // Stopping a stopped loop by its id answers what it is.
    let id = loops[0]["id"].as_str().expect("id").to_string();
    let again = w.run(&["loop", "stop", &id[..13], "--json"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.json()["phase"], "stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_survives_kill_9_and_runs_no_round_twice() {
    let w = World::new(script(vec![
        routed(round(1, 3), vec![Reply::text("One done.").into()]),
        routed(
            round(2, 3),
            vec![
                ScriptedReply::new(Reply::text("This answer dies with the daemon."))
                    .with_gate("r2"),
                Reply::text("Two done after the restart.").into(),
            ],
        ),
        routed(round(3, 3), vec![Reply::text("Three done.").into()]),
    ]))
    .await;
    let out = w.run(&["send", "|loop:3| migrate the configs"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let session = out.session_id();
    w.mock.wait_for_gate_reached("r2").await;
    let pid = w.daemon_info().await["pid"].as_u64().expect("pid");
    kill9(pid);
    gone(pid).await;

    let after = w
        .run(&[
            "send",
            "--session",
            &session,
            "--wait-agents",
            "how is it going?",
        ])
        .await;
    assert_eq!(after.code, 0, "{after:?}");
    let loops = w.run(&["loops", "--json"]).await.json();
    assert_eq!(loops[0]["phase"], "complete", "{loops}");
    let rounds = loops[0]["rounds_run"].as_array().expect("rounds").clone();
    assert_eq!(rounds.len(), 3, "{rounds:?}");
    assert!(
        rounds.iter().all(|r| r["state"] == "completed"),
        "{rounds:?}"
    );
    let agents: std::collections::BTreeSet<_> =
        rounds.iter().map(|r| r["agent_id"].to_string()).collect();
    assert_eq!(agents.len(), 3, "one worker per round");
    let requests = w.mock.requests();
    assert_eq!(round_requests(&requests, 1, 3).len(), 1, "round 1 ran once");
    assert_eq!(round_requests(&requests, 3, 3).len(), 1, "round 3 ran once");
    // Round 2's worker was re-attached: its second request is its resumed turn.
    let second = round_requests(&requests, 2, 3);
    assert_eq!(second.len(), 2);
    assert!(
        text(&second[1].body).contains("The daemon was restarted"),
        "{}",
        text(&second[1].body)
    );
}
