//! Agent teams end to end: a lead creating a team and adding teammates with `Agent`,
//! teammates that run as daemon-owned agents of their own kind, go idle when their loop
//! ends and tell their lead so by mail.
//!
//! The mock routes replies by agent: a teammate by the marker in its assignment (its
//! first user message); the lead takes the shared queue.

use roocode_protocol::api::{AgentApiClient, SessionApiClient};
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{
    World, count, events_until, first_user, last_results, requests_of, rpc, team_world, tool_names,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teammate_works_beside_its_lead_and_its_idle_notice_wakes_the_lead() {
    let script = Script::new()
        .route(
            first_user("BUILDER-TASK"),
            [Reply::text("Built the parser; its tests pass.")],
        )
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-team",
            "TeamCreate",
            json!({"team_name": "alpha", "description": "the parser"}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-builder",
            "Agent",
            json!({"team_name": "alpha", "name": "builder", "description": "build the parser",
                   "prompt": "BUILDER-TASK: build the parser"}),
        )]))
        .reply(Reply::text("The team is working."))
        .reply(Reply::text("The builder is done."));
    let w = team_world(script).await;

    let out = w.run(&["send", "build the parser with a team"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    let events = events_until(&w, &lead, |e| count(e, "turn_completed") == 2).await;
    assert!(count(&events, "team_member") >= 2, "joined, then idle");
    let idle = events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .find(|p| p["type"] == "team_member" && p["state"] == "idle")
        .expect("the teammate went idle");
    assert_eq!(idle["name"], "builder");
    assert_eq!(count(&events, "mailbox_message"), 1, "the idle notice");

    // The lead's tool results say what happened.
    let requests = w.mock.requests();
    let results: Vec<_> = requests
        .iter()
        .flat_map(|r| last_results(&r.body))
        .collect();
    let created = results
        .iter()
        .find(|r| r.tool_use_id == "call-team")
        .unwrap();
    assert!(
        !created.is_error && created.content.contains("Team \"alpha\" created"),
        "{created:?}"
    );
    let joined = results
        .iter()
        .find(|r| r.tool_use_id == "call-builder")
        .unwrap();
    assert!(
        !joined.is_error && joined.content.contains("joined team \"alpha\""),
        "{joined:?}"
    );

    // The teammate: its own prompt and tools (never the lead's or the user's).
    let mine = requests_of(&w, "BUILDER-TASK");
    assert_eq!(mine.len(), 1, "one model call of the teammate");
    let system = roocode_tests::mock_llm::script::system_text(&mine[0]);
    assert!(system.contains("You are **builder**"), "{system}");
    let names = tool_names(&mine[0]);
    for never in ["TeamCreate", "AskUserQuestion", "TaskStop"] {
        assert!(!names.iter().any(|n| n == never), "{never} in {names:?}");
    }
    for kept in ["Agent", "Edit", "Bash"] {
        assert!(names.iter().any(|n| n == kept), "{kept} not in {names:?}");
    }

    // The woken lead read the idle notice, once.
    let last = requests_of(&w, "build the parser with a team")
        .last()
        .map(|b| b["messages"].to_string())
        .unwrap_or_default();
    assert_eq!(
        last.matches(r#"<teammate-message from=\"builder\" kind=\"idle_notification\""#)
            .count(),
        1,
        "{last}"
    );
    assert!(last.contains("Built the parser; its tests pass."), "{last}");

    // The teammate is an idle agent and a session of kind teammate.
    let rpc = rpc(&w).await;
    let agents = AgentApiClient::list(&rpc, Some(lead.clone()))
        .await
        .unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(agents[0].name, "builder");
    assert_eq!(agents[0].state.as_str(), "idle");
    let all = SessionApiClient::list(&rpc, None, None, Some(true))
        .await
        .unwrap();
    let teammate = all.iter().find(|s| s.id == agents[0].id).unwrap();
    assert_eq!(
        serde_json::to_value(teammate.kind).unwrap(),
        json!("teammate")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teammates_going_idle_together_cost_their_lead_one_model_call() {
    const MATES: usize = 4;
    let mut script = Script::new();
    for n in 0..MATES {
        script = script.route(
            first_user(&format!("MATE-{n}-TASK")),
            [
                ScriptedReply::from(Reply::text(format!("Part {n} is done.")))
                    .with_gate(format!("mate-{n}")),
            ],
        );
    }
    let calls = (0..MATES)
        .map(|n| {
            ToolCall::new(
                "Agent",
                json!({"team_name": "alpha", "name": format!("mate{n}"),
                       "description": format!("part {n}"),
                       "prompt": format!("MATE-{n}-TASK: do part {n}")}),
            )
        })
        .collect();
    let script = script
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(Reply::tool_calls(calls))
        .reply(Reply::text("Four teammates are on it."))
        .reply(Reply::text("Every part is done."));
    let mut w = World::new(script).await;
    // Long enough that four notices released together always fall in one window.
    w.vars
        .push(("ROOCODE_TEAM_DEBOUNCE_MS".into(), "2000".into()));

    let out = w.run(&["send", "split it in four"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    for n in 0..MATES {
        w.mock.wait_for_gate_reached(&format!("mate-{n}")).await;
    }
    for n in 0..MATES {
        w.mock.open_gate(&format!("mate-{n}"));
    }
    let events = events_until(&w, &lead, |e| count(e, "turn_completed") == 2).await;
    let idle = events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .filter(|p| p["type"] == "team_member" && p["state"] == "idle")
        .count();
    assert_eq!(idle, MATES);
    let lead_requests = requests_of(&w, "split it in four");
    assert_eq!(
        lead_requests.len(),
        4,
        "TeamCreate, Agent, answer, one woken call"
    );
    let woken = lead_requests[3]["messages"].to_string();
    assert_eq!(
        woken.matches(r#"kind=\"idle_notification\""#).count(),
        MATES,
        "{woken}"
    );
}
