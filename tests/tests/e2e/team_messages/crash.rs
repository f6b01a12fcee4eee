//! `kill -9` of the daemon mid-team: every working teammate resumes from its history,
//! every mailbox is intact, and no message is delivered twice.

use serde_json::json;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_kill_9_mid_team_every_teammate_resumes_and_every_message_arrives_once() {
    let script = Script::new()
        .route(
            first_user("K-A-TASK"),
            [
                gated(
                    Reply::tool_calls(vec![
                        send(
                            "call-to-b",
                            json!({"to": "b", "message": "MAIL-1: use the new token type",
                                   "summary": "use the new token type from now"}),
                        ),
                        send(
                            "call-status",
                            json!({"to": "lead", "kind": "status_update",
                                   "message": "STATUS-K: the lexer is half done"}),
                        ),
                    ]),
                    "a-go",
                ),
                // The daemon dies while this answer is held back.
                gated(Reply::text("a finished"), "a-hold"),
                ScriptedReply::from(Reply::text("a finished")),
            ],
        )
        .route(
            first_user("K-B-TASK"),
            [
                gated(Reply::text("b finished"), "b-hold"),
                ScriptedReply::from(Reply::text("b finished")),
            ],
        )
        .reply(team_create())
        .reply(Reply::tool_calls(vec![
            add("call-a", "a", "K-A-TASK: write the lexer", json!({})),
            add("call-b", "b", "K-B-TASK: write the parser", json!({})),
        ]))
        .reply(Reply::text("The team is working."))
        .fallback(Reply::text("Noted."));
    let w = team_world(script).await;
    let out = w
        .run(&[
            "send",
            "--no-wait",
            "--mode",
            "bypassPermissions",
            "build it with a crash-proof team",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    // b is mid-request, then a's mail to b is stored (unread) and a is mid-request.
    w.mock.wait_for_gate_reached("b-hold").await;
    w.mock.open_gate("a-go");
    w.mock.wait_for_gate_reached("a-hold").await;
    let pid = w.daemon_info().await["pid"].as_i64().unwrap() as i32;
    kill9(pid);
    gone(pid).await;
    let status = w.run(&["sessions"]).await;
    assert_eq!(status.code, 0, "{status:?}");

    let events = events_until(&w, &lead, |e| {
        member_in(e, "a", "idle") == 1
            && member_in(e, "b", "idle") == 1
            && delivered(e, "a finished its turn") == 1
            && delivered(e, "b finished its turn") == 1
    })
    .await;
    // Every message was stored once and read once.
    assert_eq!(mail_of(&events, "message").len(), 1);
    assert_eq!(mail_of(&events, "status_update").len(), 1);
    assert_eq!(mail_of(&events, "idle_notification").len(), 2);
    assert_eq!(delivered(&events, "STATUS-K"), 1);
    let b = AgentApiClient::list(&rpc(&w).await, Some(lead.clone()))
        .await
        .unwrap()
        .into_iter()
        .find(|a| a.name == "b")
        .unwrap();
    let b_events = events_until(&w, &b.id, |e| delivered(e, "MAIL-1") >= 1).await;
    assert_eq!(delivered(&b_events, "MAIL-1"), 1);

    // Both teammates resumed from their history, told of the restart; b read a's
    // message once, after the restart.
    for marker in ["K-A-TASK", "K-B-TASK"] {
        let mine = requests_of(&w, marker);
        let last = messages(mine.last().unwrap());
        assert!(last.contains("daemon was restarted"), "{marker}: {last}");
    }
    let b_last = messages(requests_of(&w, "K-B-TASK").last().unwrap());
    assert_eq!(b_last.matches("MAIL-1").count(), 1, "{b_last}");
}
