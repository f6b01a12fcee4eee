//! MCP servers over a session's life, through the real daemon: a slow call's progress
//! as `tool_output` and its cancellation, the per-server call timeout, a broken server
//! that never blocks a session, a server whose tools change (`list_changed`: the new
//! tool comes deferred), and MCP tools reaching a sub-agent but not a coordinator.

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{PATIENCE, World, bin, first_user, requests_of, tool_names};

/// A project whose local config runs `server` as `name`, then `extra`.
fn project(w: &World, name: &str, server: &str, extra: &str) {
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        format!("mcp_servers:\n  {name}:\n{server}{extra}"),
    )
    .unwrap();
}

fn fixture() -> String {
    format!(
        "    command: {:?}\n",
        bin("mcp-fixture").display().to_string()
    )
}

/// The text of the first tool result in a recorded Anthropic request's last message.
fn first_result(body: &Value) -> (String, bool) {
    let r = crate::harness::last_results(body);
    let r = r.first().expect("a tool result");
    (r.content.clone(), r.is_error)
}

fn call(name: &str, input: Value) -> Reply {
    Reply::tool_calls(vec![ToolCall::new(name, input)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_call_shows_its_progress_and_is_cancelled_with_the_turn() {
    let w = World::new(
        Script::new()
            .reply(call("mcp__fixture__slow", json!({"ms": 60000})))
            .reply(Reply::text("never")),
    )
    .await;
    project(
        &w,
        "fixture",
        &fixture(),
        "permissions:\n  allow: [\"mcp__fixture__*\"]\n",
    );
    // Followed from the start: progress is live output, never replayed.
    let mut send = w.start(&["send", "--output", "stream-json", "be slow"]);
    let shown = send.until_stderr(|l| l.starts_with("session: ")).await;
    let id = shown
        .split_once(" (")
        .map(|(_, full)| full.trim().trim_end_matches(')').to_string())
        .expect("the session line names the full id");
    let progress = send.until_event("tool_output").await;
    assert!(
        progress.to_string().contains("sleeping 60000 ms"),
        "{progress}"
    );
    assert_eq!(w.run(&["cancel", &id]).await.code, 0);
    let result = send.until_event("tool_result").await;
    assert_eq!(result["is_error"], true, "{result}");
    let out = send.finish().await;
    assert_ne!(out.code, 0, "a cancelled turn: {out:?}");
    assert_eq!(w.mock.requests().len(), 1, "the turn ended with the call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_server_s_timeout_is_given_up() {
    let w = World::new(
        Script::new()
            .reply(call("mcp__fixture__slow", json!({"ms": 30000})))
            .reply(call("mcp__fixture__echo", json!({"text": "next"})))
            .reply(Reply::text("Gave up.")),
    )
    .await;
    project(
        &w,
        "fixture",
        &format!("{}    tool_timeout_s: 1\n", fixture()),
        "permissions:\n  allow: [\"mcp__fixture__*\"]\n",
    );
    let out = w.run(&["send", "be slow, then echo"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let (timed_out, is_error) = first_result(&requests[1].body);
    assert!(is_error, "{timed_out}");
    assert!(timed_out.contains("longer than 1 s"), "{timed_out}");
    assert_eq!(
        first_result(&requests[2].body),
        ("echo: next".to_string(), false),
        "the server goes on after a call it was told to cancel"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_server_never_blocks_a_session() {
    let mut w = World::new(Script::new().reply(Reply::text("Working without it."))).await;
    w.vars.push(("ROOCODE_MCP_RESTART_MS".into(), "50".into()));
    project(&w, "broken", "    command: /nonexistent/mcp-server\n", "");
    let out = w.run(&["send", "hello"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let first = &w.mock.requests()[0].body;
    assert!(!tool_names(first).iter().any(|n| n.starts_with("mcp__")));
    let told = first["messages"].to_string();
    assert!(
        told.contains("The MCP server `broken` is unavailable")
            && told.contains("/nonexistent/mcp-server"),
        "{told}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_a_server_adds_later_comes_deferred() {
    let w = World::new(
        Script::new()
            .reply(call("mcp__many__grow", json!({})))
            .reply(Reply::text("Grown."))
            .reply(call("ToolSearch", json!({"query": "collection 2"})))
            .reply(Reply::text("Loaded.")),
    )
    .await;
    project(
        &w,
        "many",
        &format!("{}    args: [\"--tools\", \"2\"]\n", fixture()),
        "permissions:\n  allow: [\"mcp__many__*\"]\n",
    );
    let out = w.run(&["send", "grow the server"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let first = tool_names(&w.mock.requests()[0].body);
    assert!(
        first.contains(&"mcp__many__collection_000_search".to_string()),
        "{first:?}"
    );
    assert!(
        !first.contains(&"ToolSearch".to_string()),
        "nothing deferred yet: {first:?}"
    );

    // The daemon heard `list_changed` and listed the tools again (the same server the
    // session uses: one per launch).
    let grown = "mcp__many__collection_002_search";
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let get = w.run(&["mcp", "get", "many", "--json"]).await;
        if get.stdout.contains(grown) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never listed: {get:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let id = out.session_id();
    let again = w.run(&["send", "--session", &id, "use the new one"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    let requests = w.mock.requests();
    let third = tool_names(&requests[2].body);
    assert!(
        !third.contains(&grown.to_string()),
        "the late tool is deferred: {third:?}"
    );
    assert!(third.contains(&"ToolSearch".to_string()), "{third:?}");
    assert!(
        requests[2].body["messages"].to_string().contains(grown),
        "the reminder names it"
    );
    let fourth = tool_names(&requests[3].body);
    assert!(fourth.contains(&grown.to_string()), "{fourth:?}");
    // The tools sent from the start keep their order; the new one comes after them
    // (ToolSearch joins the array once something is deferred).
    let kept: Vec<&String> = fourth.iter().filter(|n| *n != "ToolSearch").collect();
    assert_eq!(first.iter().collect::<Vec<_>>(), kept[..first.len()]);
    assert_eq!(kept.last().map(|n| n.as_str()), Some(grown));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_gets_the_mcp_tools_and_a_coordinator_does_not() {
    let script = Script::new()
        .route(
            first_user("MCP-CHILD"),
            [
                call("mcp__fixture__echo", json!({"text": "from the child"})),
                Reply::text("The child echoed."),
            ],
        )
        .reply(call(
            "Agent",
            json!({"subagent_type": "general-purpose", "description": "echo",
                   "prompt": "MCP-CHILD: echo through the fixture"}),
        ))
        .reply(Reply::text("Done."))
        .reply(Reply::text("Coordinating."));
    let w = World::new(script).await;
    project(
        &w,
        "fixture",
        &fixture(),
        "permissions:\n  allow: [\"mcp__fixture__*\"]\n",
    );
    let out = w.run(&["send", "have a child echo"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let child = requests_of(&w, "MCP-CHILD");
    assert!(tool_names(&child[0]).contains(&"mcp__fixture__echo".to_string()));
    assert!(
        child[1].to_string().contains("echo: from the child"),
        "the child's call ran"
    );

    let id = out.session_id();
    assert_eq!(
        w.run(&["send", "--session", &id, "/coordinator on"])
            .await
            .code,
        0
    );
    let again = w.run(&["send", "--session", &id, "coordinate"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    let last = w.mock.requests().last().unwrap().body.clone();
    let names = tool_names(&last);
    assert!(!names.iter().any(|n| n.starts_with("mcp__")), "{names:?}");
    assert!(!names.contains(&"ToolSearch".to_string()), "{names:?}");
}
