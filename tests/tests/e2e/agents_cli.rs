//! What the clients show and do with sub-agents: `send --wait-agents` waits for a
//! background agent and prints the parent's reaction to its task notification;
//! `agents [--json]` lists it with its state, type and parent; `sessions` hides it and
//! `sessions --all` shows it under its parent; `agents stop` and `background` act on a
//! running child and say clearly when there is nothing to act on; `attach
//! --until-idle` counts a running child as not idle.

use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::{PATIENCE, World};

/// The parent's `Agent` call starting a general-purpose child whose task contains
/// `marker`.
fn start_child(marker: &str, background: bool) -> Reply {
    Reply::tool_calls(vec![ToolCall::new(
        "Agent",
        json!({
            "subagent_type": "general-purpose",
            "run_in_background": background,
            "prompt": format!("{marker}: count the files"),
            "description": "count files",
        }),
    )])
}

/// `agents --json`, parsed.
async fn agents_json(w: &World, args: &[&str]) -> Vec<Value> {
    let out = w.run(&[&["agents", "--json"], args].concat()).await;
    assert_eq!(out.code, 0, "{out:?}");
    out.json().as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_agents_prints_the_reaction_and_lists_show_the_child() {
    let w = World::new(
        Script::new()
            .route(
                RouteMatch::FirstUserContains("BG-TASK".into()),
                [ScriptedReply::new(Reply::text("There are 7 files.")).with_gate("child")],
            )
            .reply(start_child("BG-TASK", true))
            .reply(Reply::text("Started a background count."))
            .reply(Reply::text("The background agent counted 7 files.")),
    )
    .await;
    let mut send = w.start(&["send", "--wait-agents", "count the files in the background"]);
    // Our turn is over and the child still runs (held by its gate).
    let waiting = send.until_stderr(|l| l.starts_with("waiting for ")).await;
    assert!(waiting.contains("1 background agent"), "{waiting}");
    w.mock.open_gate("child");
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout, "Started a background count.\nThe background agent counted 7 files.\n",
        "stderr:\n{}",
        out.stderr
    );
    let spawned = out
        .stderr
        .lines()
        .find(|l| l.starts_with("⟶ agent "))
        .unwrap_or_else(|| panic!("no agent_spawned line:\n{}", out.stderr));
    assert!(
        spawned.contains("\"count files\" started (background)"),
        "{spawned}"
    );
    assert!(
        out.stderr.contains("completed: There are 7 files."),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("⟵ task notification: agent "),
        "{}",
        out.stderr
    );
    let session = out.session_id();

    // `agents --json`: the child, as the protocol defines it.
    let agents = agents_json(&w, &[]).await;
    assert_eq!(agents.len(), 1, "{agents:?}");
    let child = &agents[0];
    assert_eq!(child["state"], "completed");
    assert_eq!(child["type"], "general-purpose");
    assert_eq!(child["parent_id"], session.as_str());
    assert_eq!(child["background"], true);
    for field in ["id", "name", "started_at", "elapsed_ms", "tokens"] {
        assert!(child.get(field).is_some(), "{field} in {child}");
    }
    let child_id = child["id"].as_str().unwrap().to_string();
    assert_eq!(agents_json(&w, &["--session", &session]).await.len(), 1);

    // The table.
    let table = w.run(&["agents"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let mut lines = table.stdout.lines();
    assert!(lines.next().unwrap().starts_with("ID "), "{}", table.stdout);
    let row = lines.next().unwrap();
    for cell in ["general-purpose", "completed", "yes"] {
        assert!(row.contains(cell), "{cell} in {row}");
    }
    assert!(row.contains(&out.short_session_id()), "parent in {row}");

    // `agents show`: its result.
    let show = w.run(&["agents", "show", &child_id]).await;
    assert_eq!(show.code, 0, "{show:?}");
    assert!(
        show.stdout.contains("result:\nThere are 7 files."),
        "{}",
        show.stdout
    );

    // Stopping an agent that has ended is an error that says so.
    let stop = w.run(&["agents", "stop", &child_id]).await;
    assert_eq!(stop.code, 1, "{stop:?}");
    assert!(
        stop.stderr.contains("it had already ended (completed)"),
        "{}",
        stop.stderr
    );
    let unknown = w.run(&["agents", "stop", "no-such-agent"]).await;
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(
        unknown
            .stderr
            .contains("no agent has the id `no-such-agent`: `roocode-cli agents` lists them"),
        "{}",
        unknown.stderr
    );
    // A main session is not an agent.
    let main = w.run(&["agents", "stop", &session]).await;
    assert_eq!(main.code, 1, "{main:?}");
    assert!(main.stderr.contains("not a sub-agent"), "{}", main.stderr);

    // `sessions` hides the child; `--all` shows it under its parent.
    let sessions = w.run(&["sessions", "--json"]).await;
    let ids: Vec<String> = sessions
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, std::slice::from_ref(&session));
    let all = w.run(&["sessions", "--all", "--json"]).await.json();
    let listed = all
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == child_id.as_str())
        .unwrap_or_else(|| panic!("the child in {all}"));
    assert_eq!(listed["kind"], "sub_agent");
    assert_eq!(listed["parent_session_id"], session.as_str());
    let text = w.run(&["sessions", "--all"]).await.stdout;
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with(&out.short_session_id()), "{text}");
    assert!(rows[1].starts_with("  "), "the child is indented: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_child_can_be_backgrounded_stopped_and_keeps_attach_busy() {
    let w = World::new(
        Script::new()
            .route(
                RouteMatch::FirstUserContains("FG-TASK".into()),
                [ScriptedReply::new(Reply::text("partial count")).with_gate("child")],
            )
            .reply(start_child("FG-TASK", false))
            .reply(Reply::text("It is counting in the background now."))
            .fallback(Reply::text("Noted.")),
    )
    .await;
    let mut send = w.start(&["send", "count the files"]);
    send.until_stderr(|l| l.starts_with("⟶ agent ")).await;
    let session = send
        .seen_err
        .iter()
        .find_map(|l| l.strip_prefix("session: "))
        .map(|s| s.split(' ').next().unwrap().to_string())
        .expect("session line");
    // The child's model call is under way (held by the gate).
    tokio::time::timeout(PATIENCE, w.mock.wait_for_gate_reached("child"))
        .await
        .expect("the child calls the model");
    let agents = agents_json(&w, &["-s", &session]).await;
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(agents[0]["background"], false);
    assert_eq!(agents[0]["state"], "running");
    let child = agents[0]["id"].as_str().unwrap().to_string();

    // The foreground child moves to the background: the parent's turn goes on.
    let moved = w.run(&["background", &child]).await;
    assert_eq!(moved.code, 0, "{moved:?}");
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "It is counting in the background now.\n");
    assert!(
        out.stderr.contains("moved to the background"),
        "{}",
        out.stderr
    );
    let again = w.run(&["background", &child]).await;
    assert_eq!(again.code, 1, "{again:?}");
    assert!(
        again.stderr.contains("already in the background"),
        "{}",
        again.stderr
    );

    // The parent's turn is over but its child runs: attach --until-idle is not done.
    let mut attach = w.start(&["attach", &session, "--until-idle"]);
    attach
        .until(|l| l.contains("It is counting in the background now."))
        .await;

    // Stopping it ends it `cancelled`; attach then sees the session idle.
    let stop = w.run(&["agents", "stop", &child]).await;
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(stop.stderr.contains("stopped agent"), "{}", stop.stderr);
    let attached = attach.finish().await;
    assert_eq!(attached.code, 0, "{attached:?}");
    assert!(
        attached.stdout.contains("cancelled"),
        "the child's end shows: {}",
        attached.stdout
    );
    let agents = agents_json(&w, &[]).await;
    assert_eq!(agents[0]["state"], "cancelled");
    let stop_again = w.run(&["agents", "stop", &child]).await;
    assert_eq!(stop_again.code, 1, "{stop_again:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_childs_permission_request_shows_labelled_in_send_and_is_answered_elsewhere() {
    let w = World::new(
        Script::new()
            .route(
                RouteMatch::FirstUserContains("ASK-TASK".into()),
                [
                    Reply::tool_call("Bash", json!({"command": "echo hi > made.txt"})),
                    Reply::text("Made the file."),
                ],
            )
            .reply(start_child("ASK-TASK", false))
            .reply(Reply::text("The child made the file.")),
    )
    .await;
    let mut send = w.start(&["send", "make a file through a helper"]);
    let line = send.until_stderr(|l| l.contains("permission: ")).await;
    let (label, rest) = line.split_once(" permission: ").expect("a labelled line");
    assert_eq!(label, "[general-purpose]", "{line}");
    let request = rest.split(' ').next().unwrap().to_string();
    assert!(rest.contains("Bash echo hi > made.txt"), "{line}");

    // `pending` shows it labelled too; `approve` answers it like any request.
    let pending = w.run(&["pending"]).await;
    assert!(
        pending.stdout.contains("(agent general-purpose, session "),
        "{pending:?}"
    );
    let approved = w.run(&["approve", &request]).await;
    assert_eq!(approved.code, 0, "{approved:?}");

    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "The child made the file.\n");
    assert!(
        out.stderr.contains(&format!(
            "[general-purpose] permission {request}: allow by cli"
        )),
        "{}",
        out.stderr
    );
    assert!(w.project_path().join("made.txt").exists());
}
