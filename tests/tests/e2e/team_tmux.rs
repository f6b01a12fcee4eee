//! The tmux backend end to end, on a private tmux server (never the user's): a lead
//! started inside tmux adds a teammate with backend `tmux`, and the daemon opens a pane
//! in that server running `roocode-tui --session <teammate>`; killing the pane leaves
//! the teammate working. The lead's commands never see `TMUX` or `TMUX_PANE`. Outside
//! tmux, asking for the backend is reported and the teammate runs in-process. Whatever
//! the backend, a teammate holds a turn slot of `agents.max_concurrent` only while it
//! runs: an idle one leaves it to the next.

use std::time::Duration;

use roocode_protocol::api::AgentApiClient;
use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{World, count, events_until, last_results, rpc};
use crate::interactive::{Tmux, line_for};

/// How long the pane may take to appear (the daemon opens it while it handles the
/// lead's `Agent` call).
const PATIENCE: Duration = Duration::from_secs(30);

/// The lead's first command looks for `TMUX`, `TMUX_PANE` and the tmux server
/// `server` (the private one of the test, by name).
fn builder_script(gate: Option<&str>, server: &str) -> Script {
    let work = ScriptedReply::from(Reply::text("Built the parser; its tests pass."));
    let work = match gate {
        Some(g) => work.with_gate(g),
        None => work,
    };
    Script::new()
        .route(RouteMatch::FirstUserContains("BUILDER-TASK".into()), [work])
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-env",
            "Bash",
            json!({"command": format!(
                "echo \"tmux=[${{TMUX:-}}] pane=[${{TMUX_PANE:-}}]\"; \
                 tmux -L {server} list-panes >/dev/null 2>&1 && echo server=reached || echo server=unreachable"
            )}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-team",
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-builder",
            "Agent",
            json!({"team_name": "alpha", "name": "builder", "backend": "tmux",
                   "description": "build the parser", "prompt": "BUILDER-TASK: build the parser"}),
        )]))
        .reply(Reply::text("The team is working."))
        .reply(Reply::text("The builder is done."))
}

/// The panes of the private server: `(pane id, start command)`.
fn panes(t: &Tmux) -> Vec<(String, String)> {
    t.run(&[
        "list-panes",
        "-a",
        "-F",
        "#{pane_id}\t#{pane_start_command}",
    ])
    .lines()
    .filter_map(|l| l.split_once('\t'))
    .map(|(id, cmd)| (id.to_string(), cmd.to_string()))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tmux_teammate_gets_a_pane_whose_closing_never_stops_it() {
    let t = Tmux::new("team");
    let w = World::new(builder_script(Some("builder"), &t.socket_name())).await;
    // The world's daemon, started by the world (not from inside the tmux server).
    assert_eq!(w.run(&["sessions"]).await.code, 0);
    let project = w.project_path().display().to_string();
    let line = line_for(
        &w,
        "roocode-cli",
        "send --mode bypassPermissions 'build the parser with a team'",
    )
    .replacen(
        "env -i ",
        "env -i TMUX=\"$TMUX\" TMUX_PANE=\"$TMUX_PANE\" ROOCODE_TEAM_DEBOUNCE_MS=0 ",
        1,
    );
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "lead",
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        &project,
        &line,
    ]);

    // The daemon opened a second pane running the TUI on the teammate's session.
    let (pane, command) = tokio::time::timeout(PATIENCE, async {
        loop {
            if let Some(found) = panes(&t)
                .into_iter()
                .find(|(_, cmd)| cmd.contains("roocode-tui"))
            {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no teammate pane: {:?}", panes(&t)));
    w.mock.wait_for_gate_reached("builder").await;
    let lead_id = w.run(&["sessions", "--json"]).await.json()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let rpc = rpc(&w).await;
    let agents = AgentApiClient::list(&rpc, Some(lead_id.clone()))
        .await
        .unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert!(
        command.contains(&format!("--session {}", agents[0].id)),
        "{command}"
    );
    t.wait_for_on(&pane, "connected").await;

    // Closing the pane closes a client, never the teammate: it finishes its work, goes
    // idle, and its idle notice wakes the lead.
    t.run(&["kill-pane", "-t", &pane]);
    assert!(
        !panes(&t).iter().any(|(id, _)| *id == pane),
        "{:?}",
        panes(&t)
    );
    w.mock.open_gate("builder");
    let events = events_until(&w, &lead_id, |e| count(e, "turn_completed") == 2).await;
    let idle = events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .any(|p| p["type"] == "team_member" && p["name"] == "builder" && p["state"] == "idle");
    assert!(idle, "the teammate went idle after its pane was closed");
    let complaint = events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .find(|p| p["type"] == "error" && p["message"].to_string().contains("tmux"));
    assert_eq!(complaint, None, "the pane opened without a complaint");

    // The lead ran inside tmux, but its command saw neither TMUX nor TMUX_PANE, and
    // could not reach the tmux server.
    let seen = w
        .mock
        .requests()
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.tool_use_id == "call-env")
        .unwrap();
    assert!(
        seen.content.contains("tmux=[] pane=[]") && seen.content.contains("server=unreachable"),
        "a command saw tmux: {seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_tmux_a_tmux_teammate_runs_in_process_and_the_lead_is_told_why() {
    let mut w = World::new(builder_script(None, "none")).await;
    w.vars.push(("ROOCODE_TEAM_DEBOUNCE_MS".into(), "0".into()));
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "build the parser with a team",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    let events = events_until(&w, &lead, |e| count(e, "turn_completed") == 2).await;
    let payloads: Vec<serde_json::Value> = events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .collect();
    let told = payloads
        .iter()
        .find(|p| p["type"] == "error")
        .expect("the pane failure is reported");
    let message = told["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("runs in-process only")
            && message.contains("not inside tmux")
            && message.contains("roocode-tui --session"),
        "{told}"
    );
    assert!(
        payloads
            .iter()
            .any(|p| p["type"] == "team_member" && p["state"] == "idle"),
        "the teammate still worked: {payloads:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_teammate_leaves_its_turn_slot_to_the_next() {
    let teammate = |id: &str, name: &str, marker: &str| {
        Reply::tool_calls(vec![ToolCall::with_id(
            id,
            "Agent",
            json!({"team_name": "alpha", "name": name, "description": name,
                   "prompt": format!("{marker}: your part")}),
        )])
    };
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("ONE-TASK".into()),
            [Reply::text("One done.")],
        )
        .route(
            RouteMatch::FirstUserContains("TWO-TASK".into()),
            [Reply::text("Two done.")],
        )
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(teammate("call-one", "one", "ONE-TASK"))
        .reply(Reply::text("One is working."))
        // Woken by one's idle notice: one is idle and holds no slot, so two can run.
        .reply(teammate("call-two", "two", "TWO-TASK"))
        .reply(Reply::text("Two is working."))
        .reply(Reply::text("Both are done."));
    let mut w = World::new(script).await;
    w.vars.push(("ROOCODE_TEAM_DEBOUNCE_MS".into(), "0".into()));
    let dir = w.project_path().join(".roocode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), "agents:\n  max_concurrent: 1\n").unwrap();

    let out = w.run(&["send", "split it in two"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    let events = events_until(&w, &lead, |e| count(e, "turn_completed") == 3).await;
    let idle: Vec<String> = events
        .iter()
        .filter_map(|e| serde_json::to_value(&e.payload).ok())
        .filter(|p| p["type"] == "team_member" && p["state"] == "idle")
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect();
    assert_eq!(idle, ["one", "two"], "each ran in the one slot, in turn");
}
