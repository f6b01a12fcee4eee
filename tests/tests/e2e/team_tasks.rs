//! The team's shared task list end to end: a lead creating tasks with dependencies and
//! teammates that reserve, claim and complete them (a completion unblocks the
//! dependent task and its owner is told by mail, which wakes it); two teammates racing
//! for one task (exactly one wins, the other is told who); a blocked task and a cycle
//! refused, named. The helpers here serve `team_cleanup.rs` too.
//!
//! The mock routes replies by agent: a teammate by the marker in its assignment (its
//! first user message), the lead by a marker in its latest message, else the shared
//! queue and its fallback (how many times idle notices wake a lead is not fixed).

use roocode_protocol::event::Event;
use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::{World, count, events_until, first_user, last_results, team_world};

/// A tool result as the model got it.
#[derive(Debug)]
pub(crate) struct Got {
    pub content: String,
    pub is_error: bool,
}

pub(crate) fn latest_user(marker: &str) -> RouteMatch {
    RouteMatch::LatestUserContains(marker.into())
}

pub(crate) fn call(id: &str, tool: &str, input: Value) -> ToolCall {
    ToolCall::with_id(id, tool, input)
}

pub(crate) fn calls(list: Vec<ToolCall>) -> Reply {
    Reply::tool_calls(list)
}

pub(crate) fn teammate(id: &str, name: &str, marker: &str) -> ToolCall {
    call(
        id,
        "Agent",
        json!({"team_name": "alpha", "name": name, "description": format!("{name}'s part"),
               "prompt": format!("{marker}: do your part")}),
    )
}

/// The result the model got for the call `id` (any agent's).
pub(crate) fn result(w: &World, id: &str) -> Got {
    w.mock
        .requests()
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.tool_use_id == id)
        .map(|r| Got {
            content: r.content,
            is_error: r.is_error,
        })
        .unwrap_or_else(|| panic!("no result for call {id}"))
}

/// The messages of every request whose first user message contains `marker`.
fn requests_text(w: &World, marker: &str) -> Vec<String> {
    w.mock
        .requests()
        .into_iter()
        .map(|r| r.body)
        .filter(|b| first_user(marker).matches(&Default::default(), b))
        .map(|b| b["messages"].to_string())
        .collect()
}

pub(crate) fn payloads(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .collect()
}

/// How many times member `name` went idle, as the lead's stream says.
pub(crate) fn idle_count(events: &[Event], name: &str) -> usize {
    payloads(events)
        .iter()
        .filter(|p| p["type"] == "team_member" && p["name"] == name && p["state"] == "idle")
        .count()
}

/// The last `task_updated` of task `id` on the lead's stream.
fn last_task_event(events: &[Event], id: i64) -> Value {
    payloads(events)
        .into_iter()
        .rev()
        .find(|p| p["type"] == "task_updated" && p["task_id"] == id)
        .unwrap_or_else(|| panic!("no task_updated for #{id}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teammates_claim_and_complete_dependent_tasks_and_a_completion_tells_the_next_owner() {
    let script = Script::new()
        // alice claims #1 and, once bob has found #2 blocked, completes it.
        .route(
            first_user("ALICE-TASK"),
            [
                ScriptedReply::from(calls(vec![call(
                    "a-claim",
                    "TaskUpdate",
                    json!({"task_id": 1, "status": "in_progress"}),
                )])),
                ScriptedReply::from(calls(vec![
                    call(
                        "a-done",
                        "TaskUpdate",
                        json!({"taskId": "1", "status": "completed"}),
                    ),
                    call(
                        "a-tell",
                        "SendMessage",
                        json!({"to": "bob", "message": "GRAMMAR-NOTE: the grammar is LL(1), see docs/grammar.md",
                               "summary": "the grammar is ready for your parser"}),
                    ),
                ]))
                .with_gate("alice-completes"),
                ScriptedReply::from(Reply::text("Designed the parser.")),
            ],
        )
        // bob reserves #2, finds it blocked, waits; told it can start, does it.
        .route(
            first_user("BOB-TASK"),
            [
                calls(vec![
                    call("b-reserve", "TaskUpdate", json!({"task_id": "2", "owner": "bob"})),
                    call("b-early", "TaskUpdate", json!({"task_id": "2", "status": "in_progress"})),
                ]),
                Reply::text("Task 2 is blocked by #1: waiting to be told."),
                calls(vec![call(
                    "b-claim",
                    "TaskUpdate",
                    json!({"task_id": "#2", "status": "in_progress"}),
                )]),
                calls(vec![
                    call(
                        "b-done",
                        "TaskUpdate",
                        json!({"task_id": 2, "status": "completed"}),
                    ),
                    call(
                        "b-thank",
                        "SendMessage",
                        json!({"recipient": "alice", "content": "PARSER-NOTE: the parser follows your grammar",
                               "summary": "the parser is built on your grammar"}),
                    ),
                ]),
                Reply::text("Built the parser."),
            ],
        )
        .route(
            latest_user("FINAL-CHECK"),
            [calls(vec![call("l-list", "TaskList", json!({}))])],
        )
        .reply(calls(vec![call(
            "l-team",
            "TeamCreate",
            json!({"team_name": "alpha", "description": "the parser"}),
        )]))
        .reply(calls(vec![
            call(
                "l-t1",
                "TaskCreate",
                json!({"subject": "design the parser", "description": "the grammar"}),
            ),
            call(
                "l-t2",
                "TaskCreate",
                json!({"subject": "build the parser", "description": "src/parser.rs", "add_blocked_by": [1]}),
            ),
            call(
                "l-t3",
                "TaskCreate",
                json!({"subject": "verify", "description": "run the tests", "addBlockedBy": ["#2"], "activeForm": "Verifying"}),
            ),
        ]))
        .reply(calls(vec![
            call("l-own", "TaskUpdate", json!({"task_id": 3, "owner": "lead"})),
            call("l-nobody", "TaskUpdate", json!({"task_id": 1, "owner": "carol"})),
        ]))
        .reply(calls(vec![
            teammate("l-alice", "alice", "ALICE-TASK"),
            teammate("l-bob", "bob", "BOB-TASK"),
        ]))
        .reply(Reply::text("The team is at work."))
        .fallback(Reply::text("Noted."));
    let w = team_world(script).await;

    let out = w.run(&["send", "build the parser with a team"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();

    // bob found #2 blocked and went idle: now alice may complete #1.
    events_until(&w, &lead, |e| idle_count(e, "bob") == 1).await;
    w.mock.wait_for_gate_reached("alice-completes").await;
    w.mock.open_gate("alice-completes");
    let events = events_until(&w, &lead, |e| {
        idle_count(e, "bob") == 2 && idle_count(e, "alice") == 2 && count(e, "mailbox_message") >= 7
    })
    .await;

    // The lead made three tasks, each waiting for the one before.
    assert!(result(&w, "l-t1").content.starts_with("Task #1 created"));
    let t2 = result(&w, "l-t2");
    assert!(
        t2.content.contains("Task #2 created") && t2.content.contains("waits for #1"),
        "{t2:?}"
    );
    assert!(result(&w, "l-t3").content.contains("waits for #2"));
    assert!(result(&w, "l-own").content.contains("owned by lead"));
    let nobody = result(&w, "l-nobody");
    assert!(
        nobody.is_error && nobody.content.contains("no member \"carol\""),
        "{nobody:?}"
    );

    // alice claimed #1; bob reserved #2 but could not start it while #1 was open.
    assert!(
        result(&w, "a-claim")
            .content
            .contains("in_progress, owned by alice")
    );
    assert!(!result(&w, "b-reserve").is_error);
    let early = result(&w, "b-early");
    assert!(early.is_error, "{early:?}");
    assert!(
        early.content.contains("task #2 is blocked by #1"),
        "{early:?}"
    );

    // alice's completion unblocked #2 and told bob, whose inbox woke him.
    let done = result(&w, "a-done");
    assert!(
        done.content
            .contains("#2 \"build the parser\" is unblocked (bob was told)"),
        "{done:?}"
    );
    let bob = requests_text(&w, "BOB-TASK");
    assert_eq!(bob.len(), 5, "two runs of bob: {bob:?}");
    let notice = r#"<teammate-message from=\"(task list)\" kind=\"task_assignment\" summary=\"task #2 can start now\">"#;
    assert!(bob[2].contains(notice), "{}", bob[2]);
    // alice's message reached bob too (with the notice, or at his next call), once,
    // from her; bob's answer woke alice once more.
    let bob_last = bob.last().map(String::as_str).unwrap_or_default();
    assert_eq!(bob_last.matches("GRAMMAR-NOTE").count(), 1, "{bob_last}");
    assert!(
        bob_last.contains(r#"<teammate-message from=\"alice\" kind=\"message\" summary=\"the grammar is ready for your parser\">"#),
        "{bob_last}"
    );
    assert!(!result(&w, "a-tell").is_error && !result(&w, "b-thank").is_error);
    let alice = requests_text(&w, "ALICE-TASK");
    let last = alice.last().map(String::as_str).unwrap_or_default();
    assert_eq!(last.matches("PARSER-NOTE").count(), 1, "{last}");
    assert!(last.contains(r#"from=\"bob\" kind=\"message\""#), "{last}");
    assert_eq!(bob[4].matches(notice).count(), 1, "told once");
    assert!(
        result(&w, "b-claim")
            .content
            .contains("in_progress, owned by bob")
    );
    // bob's completion unblocked #3, the lead's, and the lead was told.
    let b_done = result(&w, "b-done");
    assert!(
        b_done
            .content
            .contains("#3 \"verify\" is unblocked (lead was told)"),
        "{b_done:?}"
    );

    // Every change was on the lead's stream.
    let t2 = last_task_event(&events, 2);
    assert_eq!(
        (t2["status"].as_str(), t2["owner"].as_str()),
        (Some("completed"), Some("bob"))
    );
    let t3 = last_task_event(&events, 3);
    assert_eq!(t3["status"], "pending");
    assert!(
        t3.get("blocked_by").is_none(),
        "nothing blocks #3 now: {t3}"
    );
    assert!(
        count(&events, "task_updated") >= 8,
        "{}",
        count(&events, "task_updated")
    );

    // The lead's TaskList shows the list as it is now.
    let out = w.run(&["send", "--session", &lead, "FINAL-CHECK"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let list = result(&w, "l-list").content;
    assert!(
        list.starts_with("Team \"alpha\" tasks (2 completed, 0 in progress, 1 pending):"),
        "{list}"
    );
    for line in [
        "- #1 [completed] design the parser (alice)",
        "- #2 [completed] build the parser (bob)",
        "- #3 [pending] verify (lead)",
    ] {
        assert!(list.contains(line), "{line} not in {list}");
    }
    // Beside the team's list, the lead's background agents (its teammates among them).
    assert!(list.contains("Tasks of kind agent:"), "{list}");
    assert!(
        list.contains("[idle] alice") && list.contains("[idle] bob"),
        "{list}"
    );
    let lead_text = requests_text(&w, "build the parser with a team").join("\n");
    assert!(
        lead_text.contains(r#"kind=\"task_assignment\" summary=\"task #3 can start now\""#),
        "the lead was told #3 can start"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_teammates_racing_for_one_task_exactly_one_wins_and_the_other_is_told_who() {
    let claim = |id: &str, gate: &str| {
        ScriptedReply::from(calls(vec![call(
            id,
            "TaskUpdate",
            json!({"task_id": 1, "status": "in_progress"}),
        )]))
        .with_gate(gate)
    };
    let script = Script::new()
        .route(
            first_user("ALICE-TASK"),
            [
                claim("a-claim", "alice"),
                ScriptedReply::from(Reply::text("Tried.")),
            ],
        )
        .route(
            first_user("BOB-TASK"),
            [
                claim("b-claim", "bob"),
                ScriptedReply::from(Reply::text("Tried.")),
            ],
        )
        .reply(calls(vec![call(
            "l-team",
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(calls(vec![call(
            "l-t1",
            "TaskCreate",
            json!({"subject": "the one task", "description": "only one may have it"}),
        )]))
        .reply(calls(vec![
            teammate("l-alice", "alice", "ALICE-TASK"),
            teammate("l-bob", "bob", "BOB-TASK"),
        ]))
        .reply(Reply::text("Both are trying."))
        .fallback(Reply::text("Noted."));
    let w = team_world(script).await;
    let out = w.run(&["send", "race for it"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();

    // Both have asked for the task; both claims go at once.
    w.mock.wait_for_gate_reached("alice").await;
    w.mock.wait_for_gate_reached("bob").await;
    w.mock.open_gate("alice");
    w.mock.open_gate("bob");
    let events = events_until(&w, &lead, |e| {
        idle_count(e, "alice") == 1 && idle_count(e, "bob") == 1
    })
    .await;

    let results = [
        ("alice", result(&w, "a-claim")),
        ("bob", result(&w, "b-claim")),
    ];
    let winners: Vec<&str> = results
        .iter()
        .filter(|(_, r)| !r.is_error)
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    let winner = winners[0];
    let (_, lost) = results.iter().find(|(n, _)| *n != winner).unwrap();
    assert!(
        lost.content
            .contains(&format!("task #1 is {winner}'s already")),
        "{lost:?}"
    );
    let t1 = last_task_event(&events, 1);
    assert_eq!(
        (t1["status"].as_str(), t1["owner"].as_str()),
        (Some("in_progress"), Some(winner))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_task_cannot_start_and_a_cycle_is_refused_with_the_cycle_named() {
    let script = Script::new()
        .reply(calls(vec![call(
            "l-team",
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(calls(vec![
            call(
                "t1",
                "TaskCreate",
                json!({"subject": "design", "description": ""}),
            ),
            call(
                "t2",
                "TaskCreate",
                json!({"subject": "build", "description": "", "add_blocked_by": [1]}),
            ),
            call(
                "t3",
                "TaskCreate",
                json!({"subject": "verify", "description": "", "add_blocked_by": [2]}),
            ),
        ]))
        .reply(calls(vec![
            call(
                "cycle",
                "TaskUpdate",
                json!({"task_id": 1, "add_blocked_by": [3]}),
            ),
            call(
                "self",
                "TaskUpdate",
                json!({"task_id": 2, "addBlocks": [2]}),
            ),
            call(
                "start",
                "TaskUpdate",
                json!({"task_id": 3, "status": "in_progress"}),
            ),
            call(
                "finish",
                "TaskUpdate",
                json!({"task_id": 2, "status": "completed"}),
            ),
            call("get", "TaskGet", json!({"task_id": "3"})),
        ]))
        .reply(Reply::text("The plan holds."));
    let w = team_world(script).await;
    let out = w.run(&["send", "plan the work"]).await;
    assert_eq!(out.code, 0, "{out:?}");

    let cycle = result(&w, "cycle");
    assert!(cycle.is_error, "{cycle:?}");
    assert!(
        cycle
            .content
            .contains("that dependency would make a cycle: #1 → #3 → #2 → #1"),
        "{cycle:?}"
    );
    let own = result(&w, "self");
    assert!(own.is_error && own.content.contains("#2 → #2"), "{own:?}");
    let start = result(&w, "start");
    assert!(start.is_error, "{start:?}");
    assert!(
        start.content.contains("task #3 is blocked by #2"),
        "{start:?}"
    );
    let finish = result(&w, "finish");
    assert!(
        finish.is_error && finish.content.contains("task #2 is blocked by #1"),
        "{finish:?}"
    );
    let get = result(&w, "get").content;
    assert!(
        get.starts_with("Task #3: verify\nStatus: pending\n"),
        "{get}"
    );
    assert!(get.contains("Waits for: #2 (pending)"), "{get}");
    assert!(get.contains("cannot start before #2 is completed"), "{get}");
}
