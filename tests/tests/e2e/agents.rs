//! Sub-agents end to end: the `Agent` tool starting children that are sessions of their
//! own, run by the daemon — a foreground child's answer in its parent's tool result,
//! background children notifying their parent once each through its inbox, the move to
//! the background after `agents.auto_background_s`, a fork whose first request repeats
//! its parent's, a definition written for Claude Code, a background child's permission
//! request answered from another terminal, and children that survive `kill -9`.
//!
//! The mock routes replies by agent: a child by the marker in its task (its first user
//! message), a fork by its directive (its latest one); the parent takes the shared queue.

use std::time::Duration;

use roocode_protocol::api::{AgentApiClient, SessionApiClient};
use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::{
    PATIENCE, World, count, events_until, first_user, last_results, notifications, notified,
    requests_of, rpc, tool_names,
};

fn agent_call(id: &str, input: Value) -> ToolCall {
    ToolCall::with_id(id, "Agent", input)
}

/// The newest request of the agent whose first message contains `marker`.
fn last_request_of(w: &World, marker: &str) -> String {
    requests_of(w, marker)
        .last()
        .map(Value::to_string)
        .unwrap_or_default()
}

fn system_of(body: &Value) -> String {
    roocode_tests::mock_llm::script::system_text(body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreground_child_s_answer_is_its_parent_s_tool_result() {
    let script = Script::new()
        .route(
            first_user("FG-TASK"),
            [
                Reply::tool_calls(vec![ToolCall::new("Glob", json!({"pattern": "*.txt"}))]),
                Reply::text("Found notes.txt: it lists three bugs."),
            ],
        )
        .reply(Reply::tool_calls(vec![agent_call(
            "call-agent",
            json!({"subagent_type": "general-purpose", "description": "survey notes",
                   "prompt": "FG-TASK: find the notes file and summarise it"}),
        )]))
        .reply(Reply::text("The child says there are three bugs."));
    let w = World::new(script).await;
    std::fs::write(w.project_path().join("notes.txt"), "bugs: 1 2 3\n").unwrap();

    let out = w.run(&["send", "survey the notes"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("three bugs"), "{out:?}");

    let requests = w.mock.requests();
    let parent_after = requests
        .iter()
        .map(|r| &r.body)
        .find(|b| {
            last_results(b)
                .iter()
                .any(|r| r.tool_use_id == "call-agent")
        })
        .expect("the parent's request with the Agent result");
    let result = &last_results(parent_after)[0];
    assert!(!result.is_error, "{result:?}");
    assert!(
        result
            .content
            .starts_with("Found notes.txt: it lists three bugs."),
        "{}",
        result.content
    );

    let child = requests_of(&w, "FG-TASK");
    assert_eq!(child.len(), 2, "the child's two model calls");
    let names = tool_names(&child[0]);
    for never in ["Agent", "AskUserQuestion", "TaskStop", "ExitPlanMode"] {
        assert!(!names.iter().any(|n| n == never), "{never} in {names:?}");
    }
    assert!(names.iter().any(|n| n == "Edit"), "{names:?}");
    assert!(
        system_of(&child[0]).contains("general-purpose"),
        "{}",
        system_of(&child[0])
    );

    // The child is a session of its own, listed with --all only, and an agent.
    let rpc = rpc(&w).await;
    let parent = out.session_id();
    let mains = SessionApiClient::list(&rpc, None, None, None)
        .await
        .unwrap();
    assert_eq!(mains.len(), 1, "{mains:?}");
    let all = SessionApiClient::list(&rpc, None, None, Some(true))
        .await
        .unwrap();
    assert_eq!(all.len(), 2, "{all:?}");
    let agents = AgentApiClient::list(&rpc, Some(parent.clone()))
        .await
        .unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let a = &agents[0];
    assert_eq!(a.agent_type, "general-purpose");
    assert_eq!(a.parent_id, parent);
    assert_eq!(a.state.as_str(), "completed");
    assert!(!a.background);
    assert!(a.tokens > 0, "{a:?}");
    let got = AgentApiClient::get(&rpc, a.id.clone()).await.unwrap();
    assert!(
        got.result
            .as_deref()
            .unwrap_or_default()
            .contains("three bugs"),
        "{got:?}"
    );
    // The parent's stream told the story.
    let events = events_until(&w, &parent, |e| count(e, "agent_completed") == 1).await;
    let spawned = events
        .iter()
        .find(|e| e.payload.kind() == "agent_spawned")
        .unwrap();
    assert_eq!(spawned.agent_id, a.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_background_children_run_together_and_each_notifies_once() {
    // Each child waits at a gate until all three have reached theirs: they can only
    // finish if they run concurrently.
    let mut script = Script::new();
    for n in 1..=3 {
        script = script.route(
            first_user(&format!("BG-{n}")),
            [
                ScriptedReply::from(Reply::text(format!("result of child {n}")))
                    .with_gate(format!("child-{n}")),
            ],
        );
    }
    let calls = (1..=3)
        .map(|n| {
            agent_call(
                &format!("bg{n}"),
                json!({"subagent_type": "general-purpose", "run_in_background": true,
                       "description": format!("task {n}"), "prompt": format!("BG-{n}: do part {n}")}),
            )
        })
        .collect();
    let script = script
        .reply(Reply::tool_calls(calls))
        .reply(Reply::text("Started three helpers."))
        .fallback(Reply::text("Noted the result."));
    let w = World::new(script).await;

    let out = w.run(&["send", "split the work"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let parent = out.session_id();
    let started = last_results(
        &w.mock
            .requests()
            .iter()
            .find(|r| !last_results(&r.body).is_empty())
            .unwrap()
            .body,
    );
    assert_eq!(started.len(), 3, "{started:?}");
    for r in &started {
        assert!(r.content.contains("in the background"), "{}", r.content);
    }
    for n in 1..=3 {
        w.mock.wait_for_gate_reached(&format!("child-{n}")).await;
    }
    for n in 1..=3 {
        w.mock.open_gate(&format!("child-{n}"));
    }
    let events = events_until(&w, &parent, notified(3)).await;
    assert_eq!(count(&events, "agent_spawned"), 3);
    assert_eq!(count(&events, "agent_completed"), 3);
    assert_eq!(notifications(&events), 3, "one notification per child");

    // Every notification reached the parent's model exactly once.
    let last = last_request_of(&w, "split the work");
    for n in 1..=3 {
        assert_eq!(
            last.matches(&format!("result of child {n}")).count(),
            1,
            "child {n} in {last}"
        );
    }
    let messages = serde_json::from_str::<Value>(&last).unwrap()["messages"].to_string();
    assert_eq!(messages.matches("<task-id>").count(), 3, "{messages}");
    let rpc = rpc(&w).await;
    let agents = AgentApiClient::list(&rpc, Some(parent)).await.unwrap();
    assert!(
        agents
            .iter()
            .all(|a| a.background && a.state.as_str() == "completed"),
        "{agents:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_foreground_child_moves_to_the_background_on_its_own() {
    let script = Script::new()
        .route(
            first_user("SLOW-TASK"),
            [ScriptedReply::from(Reply::text("slow result")).with_gate("slow")],
        )
        .reply(Reply::tool_calls(vec![agent_call(
            "call-slow",
            json!({"subagent_type": "general-purpose", "description": "slow work",
                   "prompt": "SLOW-TASK: take your time"}),
        )]))
        .reply(Reply::text("It went to the background."))
        .fallback(Reply::text("Got the slow result."));
    let w = World::new(script).await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        "agents:\n  auto_background_s: 1\n",
    )
    .unwrap();

    let out = w.run(&["send", "do the slow thing"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let parent = out.session_id();
    let moved = w
        .mock
        .requests()
        .into_iter()
        .find_map(|r| {
            last_results(&r.body)
                .into_iter()
                .find(|x| x.tool_use_id == "call-slow")
        })
        .unwrap();
    assert!(
        moved.content.contains("moved to the background"),
        "{moved:?}"
    );
    w.mock.open_gate("slow");
    let events = events_until(&w, &parent, notified(1)).await;
    assert_eq!(count(&events, "agent_backgrounded"), 1);
    assert_eq!(notifications(&events), 1);
    let last = last_request_of(&w, "do the slow thing");
    assert!(last.contains("slow result"), "{last}");
}

/// A request's body with every `cache_control` marker removed.
fn without_cache_markers(mut v: Value) -> Value {
    match &mut v {
        Value::Object(map) => {
            map.remove("cache_control");
            for value in map.values_mut() {
                *value = without_cache_markers(value.take());
            }
        }
        Value::Array(items) => {
            for item in items {
                *item = without_cache_markers(item.take());
            }
        }
        _ => {}
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_s_first_request_repeats_its_parent_s() {
    let script = Script::new()
        .route(
            RouteMatch::LatestUserContains("fork-directive".into()),
            [Reply::text("fork result: the answer is 42")],
        )
        .reply(Reply::tool_calls(vec![agent_call(
            "call-fork",
            json!({"description": "side quest", "prompt": "work out the answer"}),
        )]))
        .reply(Reply::text("Forked."))
        .fallback(Reply::text("The fork found 42."));
    let w = World::new(script).await;
    let out = w.run(&["send", "think about the answer"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let parent = out.session_id();
    events_until(&w, &parent, notified(1)).await;

    let requests = w.mock.requests();
    let parent_call = requests
        .iter()
        .find(|r| {
            r.body["messages"].as_array().map(Vec::len) == Some(1)
                && !RouteMatch::LatestUserContains("fork-directive".into())
                    .matches(&r.headers, &r.body)
        })
        .unwrap();
    let fork = requests
        .iter()
        .find(|r| {
            RouteMatch::LatestUserContains("fork-directive".into()).matches(&r.headers, &r.body)
        })
        .unwrap();
    let (a, b) = (
        without_cache_markers(parent_call.body.clone()),
        without_cache_markers(fork.body.clone()),
    );
    assert_eq!(a["system"], b["system"], "same system prompt");
    assert_eq!(a["tools"], b["tools"], "same tool array");
    assert_eq!(a["model"], b["model"]);
    let (pm, fm) = (
        a["messages"].as_array().unwrap(),
        b["messages"].as_array().unwrap(),
    );
    assert_eq!(fm[0], pm[0], "same leading messages");
    assert_eq!(
        fm.len(),
        3,
        "the parent's message, its Agent call, the fork's start"
    );
    // Byte for byte: everything after the messages (model, system prompt, tool array,
    // in the wire's fixed order) is what the provider caches.
    let tail = |raw: &[u8]| {
        let text = String::from_utf8_lossy(raw).into_owned();
        let at = text.rfind(",\"model\":\"").expect("a model key");
        text[at..].to_string()
    };
    assert_eq!(
        tail(&parent_call.raw),
        tail(&fork.raw),
        "the cached prefix's bytes"
    );
    let results = last_results(&b);
    assert_eq!(results.len(), 1, "a placeholder for the Agent call");
    assert_eq!(results[0].tool_use_id, "call-fork");
    let last = last_request_of(&w, "think about the answer");
    assert!(last.contains("the answer is 42"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_definition_written_for_claude_code_runs_as_written() {
    let script = Script::new()
        .route(
            first_user("REVIEW-TASK"),
            [Reply::text("LGTM: nothing to change.")],
        )
        .reply(Reply::tool_calls(vec![agent_call(
            "call-review",
            json!({"subagent_type": "reviewer", "description": "review",
                   "prompt": "REVIEW-TASK: review the change"}),
        )]))
        .reply(Reply::text("The reviewer approves."));
    let w = World::new(script).await;
    let agents = w.home.path().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Revisa el código con cuidado\ntools: Read, Grep, NotebookEdit\nmodel: haiku\ncolor: blue\n---\nYou are REVIEWER-PROMPT, a careful code reviewer.\n",
    )
    .unwrap();

    let out = w.run(&["send", "get a review"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let child = requests_of(&w, "REVIEW-TASK");
    assert_eq!(child.len(), 1);
    assert!(
        system_of(&child[0]).contains("You are REVIEWER-PROMPT"),
        "{}",
        system_of(&child[0])
    );
    assert_eq!(tool_names(&child[0]), ["Read", "Grep"]);
    assert_eq!(
        child[0]["model"], "claude-haiku-4-5",
        "haiku on the parent's provider"
    );

    // An unknown type is an error listing the types.
    let w2 = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![agent_call(
                "call-x",
                json!({"subagent_type": "nope", "description": "x", "prompt": "x"}),
            )]))
            .reply(Reply::text("ok")),
    )
    .await;
    let out = w2.run(&["send", "try"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w2.mock.requests();
    let err = &last_results(&requests[1].body)[0];
    assert!(err.is_error);
    for part in [
        "unknown subagent_type `nope`",
        "Explore",
        "Plan",
        "general-purpose",
    ] {
        assert!(err.content.contains(part), "{part}: {}", err.content);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_child_waits_for_approval_from_any_terminal() {
    let script = Script::new()
        .route(
            first_user("ASK-TASK"),
            [
                Reply::tool_calls(vec![ToolCall::new(
                    "Bash",
                    json!({"command": "touch approved.txt"}),
                )]),
                Reply::text("touched it"),
            ],
        )
        .reply(Reply::tool_calls(vec![agent_call(
            "call-ask",
            json!({"subagent_type": "general-purpose", "run_in_background": true,
                   "description": "touch a file", "name": "toucher",
                   "prompt": "ASK-TASK: create approved.txt"}),
        )]))
        .reply(Reply::text("Started."))
        .fallback(Reply::text("The file exists now."));
    let w = World::new(script).await;
    let out = w.run(&["send", "make the file"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let parent = out.session_id();

    // The request waits, listed with the child's name, until another terminal answers.
    let events = events_until(&w, &parent, |e| count(e, "permission_request") == 1).await;
    let request = events
        .iter()
        .find(|e| e.payload.kind() == "permission_request")
        .unwrap();
    assert_ne!(request.agent_id, parent, "labelled with the child's id");
    let pending = w.run(&["pending", "--json"]).await;
    assert_eq!(pending.code, 0, "{pending:?}");
    let listed = pending.json();
    let first = &listed.as_array().unwrap()[0];
    assert_eq!(first["agent_name"], "toucher", "{listed}");
    assert!(!w.project_path().join("approved.txt").exists());
    let id = first["request_id"].as_str().unwrap();
    let ok = w.run(&["approve", id]).await;
    assert_eq!(ok.code, 0, "{ok:?}");

    events_until(&w, &parent, notified(1)).await;
    assert!(w.project_path().join("approved.txt").exists());
    let last = last_request_of(&w, "make the file");
    assert!(last.contains("touched it"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_children_survive_kill_9_and_finish_once() {
    let mut script = Script::new();
    for n in 1..=2 {
        script = script.route(
            first_user(&format!("SURVIVE-{n}")),
            [
                ScriptedReply::from(Reply::tool_calls(vec![ToolCall::new(
                    "Bash",
                    json!({"command": format!("echo child{n} >> side-effects.txt")}),
                )])),
                // The daemon dies while this answer is held back.
                ScriptedReply::from(Reply::text(format!("child {n} finished")))
                    .with_gate(format!("hold-{n}")),
                ScriptedReply::from(Reply::text(format!("child {n} finished"))),
            ],
        );
    }
    let calls = (1..=2)
        .map(|n| {
            agent_call(
                &format!("s{n}"),
                json!({"subagent_type": "general-purpose", "run_in_background": true,
                       "description": format!("survivor {n}"),
                       "prompt": format!("SURVIVE-{n}: record yourself")}),
            )
        })
        .collect();
    let script = script
        .reply(Reply::tool_calls(calls))
        .reply(Reply::text("Started two."))
        .fallback(Reply::text("Both are done."));
    let w = World::new(script).await;
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "start two survivors"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let parent = out.session_id();
    for n in 1..=2 {
        w.mock.wait_for_gate_reached(&format!("hold-{n}")).await;
    }
    let pid = w.daemon_info().await["pid"].as_i64().unwrap() as i32;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL).unwrap();
    // Wait until it is gone (bounded), then let any command start a new daemon.
    let gone = async {
        while nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(PATIENCE, gone).await.unwrap();
    let status = w.run(&["sessions"]).await;
    assert_eq!(status.code, 0, "{status:?}");

    events_until(&w, &parent, notified(2)).await;
    let side = std::fs::read_to_string(w.project_path().join("side-effects.txt")).unwrap();
    let mut lines: Vec<&str> = side.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["child1", "child2"], "each command ran once");
    let last = last_request_of(&w, "start two survivors");
    for n in 1..=2 {
        assert_eq!(
            last.matches(&format!("child {n} finished")).count(),
            1,
            "child {n}'s notification, once: {last}"
        );
    }
    // The resumed children read that they were interrupted.
    let resumed = requests_of(&w, "SURVIVE-1");
    assert!(
        resumed
            .last()
            .unwrap()
            .to_string()
            .contains("daemon was restarted"),
        "{:?}",
        resumed.last()
    );
}
