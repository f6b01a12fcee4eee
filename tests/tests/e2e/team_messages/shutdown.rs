//! The shutdown handshake end to end: refused with a reason (the teammate goes on), then
//! approved (it stops once its turn ends, with no idle notice), also when the daemon is
//! killed between the agreement and the end of the turn.

use serde_json::json;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shutdown_handshake_refused_then_approved_stops_the_teammate() {
    let worker = first_user("S-TASK");
    let script = Script::new()
        .route(
            worker.clone(),
            [ScriptedReply::from(Reply::text("Task done.")), pause("w-1")],
        )
        .reply(team_create())
        .reply(Reply::tool_calls(vec![add(
            "call-w",
            "worker",
            "S-TASK: tidy the docs",
            json!({}),
        )]))
        .reply(Reply::text("Started."))
        .fallback(Reply::text("Noted."));
    let ask = |id: &str| {
        vec![ScriptedReply::from(Reply::tool_calls(vec![send(
            id,
            json!({"to": "worker", "kind": "shutdown_request", "message": "wrap up, please"}),
        )]))]
    };
    let script = with_route(
        script,
        RouteMatch::LatestUserContains("STOP-ROUND-1".into()),
        ask("call-ask-1"),
        Reply::text("Noted."),
    );
    let script = with_route(
        script,
        RouteMatch::LatestUserContains("STOP-ROUND-2".into()),
        ask("call-ask-2"),
        Reply::text("Noted."),
    );
    let w = team_world(script).await;
    let out = w
        .run(&[
            "send",
            "--no-wait",
            "--mode",
            "bypassPermissions",
            "tidy the docs with a team",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    events_until(&w, &lead, |e| member_in(e, "worker", "idle") == 1).await;
    let answer = |request_id: &str, approve: bool, message: &str| {
        Reply::tool_calls(vec![send(
            "call-answer",
            json!({"recipient": "team-lead", "type": "shutdown_response", "request_id": request_id,
                   "approve": approve, "content": message}),
        )])
    };

    // Round 1: refused with a reason; the worker goes on (idle, not stopped).
    let round = w
        .run(&[
            "send",
            "--no-wait",
            "--session",
            &lead,
            "STOP-ROUND-1: stop the worker",
        ])
        .await;
    assert_eq!(round.code, 0, "{round:?}");
    let held = held_request(&w, "S-TASK", "w-1").await;
    let first = newest_id(&messages(&held), "shutdown").expect("a shutdown request id");
    w.mock.push_route(
        worker.clone(),
        answer(&first, false, "REASON-1: the link check still runs"),
    );
    w.mock
        .push_route(worker.clone(), Reply::text("Still checking links."));
    w.mock.push_route(worker.clone(), pause("w-2"));
    w.mock.open_gate("w-1");
    let events = events_until(&w, &lead, |e| member_in(e, "worker", "idle") == 2).await;
    assert_eq!(member_in(&events, "worker", "stopped"), 0);
    let refused = mail_of(&events, "shutdown_response");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["to"], "lead");
    let asked = lead_result(&w, "tidy the docs", "call-ask-1");
    assert!(
        asked.content.contains(&format!("request_id \"{first}\"")),
        "{asked:?}"
    );

    // Round 2: approved; the worker stops once its turn ends, with no idle notice.
    let round = w
        .run(&[
            "send",
            "--no-wait",
            "--session",
            &lead,
            "STOP-ROUND-2: stop it now",
        ])
        .await;
    assert_eq!(round.code, 0, "{round:?}");
    let held = held_request(&w, "S-TASK", "w-2").await;
    let second = newest_id(&messages(&held), "shutdown").expect("a second request id");
    assert_ne!(first, second);
    w.mock.push_route(worker.clone(), answer(&second, true, ""));
    w.mock.push_route(worker.clone(), Reply::text("Bye."));
    w.mock.open_gate("w-2");
    let events = events_until(&w, &lead, |e| {
        member_in(e, "worker", "stopped") == 1 && delivered(e, "approve=\"true\"") == 1
    })
    .await;
    assert_eq!(
        mail_of(&events, "idle_notification").len(),
        2,
        "none when it stops"
    );
    let responses = mail_of(&events, "shutdown_response");
    assert_eq!(responses.len(), 2, "{responses:?}");
    assert_eq!(delivered(&events, "REASON-1: the link check still runs"), 1);
    let mine = requests_of(&w, "S-TASK");
    let agreed = mine
        .iter()
        .flat_map(last_results)
        .find(|r| r.content.contains("You agreed to shut down"))
        .expect("the worker read that it stops");
    assert!(!agreed.is_error, "{agreed:?}");
    assert!(
        messages(mine.last().unwrap()).contains("You agreed to shut down"),
        "its turn ran to its end"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agreed_shutdown_survives_kill_9_before_the_teammate_s_turn_ends() {
    let worker = first_user("Q-TASK");
    let script = Script::new()
        .route(
            worker.clone(),
            [ScriptedReply::from(Reply::text("Task done.")), pause("q-1")],
        )
        .reply(team_create())
        .reply(Reply::tool_calls(vec![add(
            "call-q",
            "quitter",
            "Q-TASK: tidy the docs",
            json!({}),
        )]))
        .reply(Reply::text("Started."))
        .fallback(Reply::text("Noted."));
    let script = with_route(
        script,
        RouteMatch::LatestUserContains("STOP-NOW".into()),
        vec![ScriptedReply::from(Reply::tool_calls(vec![send(
            "call-ask",
            json!({"to": "quitter", "kind": "shutdown_request"}),
        )]))],
        Reply::text("Noted."),
    );
    let w = team_world(script).await;
    let out = w
        .run(&[
            "send",
            "--no-wait",
            "--mode",
            "bypassPermissions",
            "tidy up with a team",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    events_until(&w, &lead, |e| member_in(e, "quitter", "idle") == 1).await;
    let round = w
        .run(&[
            "send",
            "--no-wait",
            "--session",
            &lead,
            "STOP-NOW: stop the quitter",
        ])
        .await;
    assert_eq!(round.code, 0, "{round:?}");
    let held = held_request(&w, "Q-TASK", "q-1").await;
    let id = newest_id(&messages(&held), "shutdown").expect("a shutdown request id");
    w.mock.push_route(
        worker.clone(),
        Reply::tool_calls(vec![send(
            "call-agree",
            json!({"to": "lead", "kind": "shutdown_response", "request_id": id, "approve": true}),
        )]),
    );
    // The daemon dies while the turn's last answer is held back.
    w.mock
        .push_route(worker.clone(), gated(Reply::text("Bye."), "q-bye"));
    w.mock.push_route(worker.clone(), Reply::text("Bye."));
    w.mock.open_gate("q-1");
    w.mock.wait_for_gate_reached("q-bye").await;
    let pid = w.daemon_info().await["pid"].as_i64().unwrap() as i32;
    kill9(pid);
    gone(pid).await;
    let status = w.run(&["sessions"]).await;
    assert_eq!(status.code, 0, "{status:?}");

    let events = events_until(&w, &lead, |e| member_in(e, "quitter", "stopped") == 1).await;
    assert_eq!(
        member_in(&events, "quitter", "idle"),
        1,
        "stopped, not idle"
    );
    assert_eq!(mail_of(&events, "idle_notification").len(), 1);
    assert_eq!(mail_of(&events, "shutdown_response").len(), 1);
    let last = messages(requests_of(&w, "Q-TASK").last().unwrap());
    assert!(last.contains("daemon was restarted"), "{last}");
}
