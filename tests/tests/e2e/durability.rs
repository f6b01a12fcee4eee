//! Turns that outlive their terminal, cancels, queued messages and `kill -9` of the
//! daemon in the middle of a turn.

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::chain_is_valid;
use crate::harness::{World, gone, kill9};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_turn_loses_nothing_and_the_session_continues() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "g1",
                "Glob",
                json!({"pattern": "*.md"}),
            )]))
            .reply(
                ScriptedReply::new(Reply::text("This answer dies with the daemon.")).with_gate("g"),
            )
            .reply(Reply::text("Continued after the crash.")),
    )
    .await;
    std::fs::write(w.project_path().join("README.md"), "# hi\n").unwrap();
    let out = w.run(&["send", "--no-wait", "look around"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = out.session_id();
    w.mock.wait_for_gate_reached("g").await;
    let pid = w.daemon_info().await["pid"].as_u64().unwrap();
    kill9(pid);
    gone(pid).await;

    // The next command starts a new daemon, which has repaired the session.
    let list = w.run(&["sessions", "--json"]).await;
    assert_eq!(list.code, 0, "{list:?}");
    let sessions = list.json();
    assert_eq!(sessions[0]["id"], id.as_str());
    assert_eq!(sessions[0]["status"], "interrupted");

    let export = w.run(&["export", &id]).await;
    let lines: Vec<Value> = export.json_lines();
    let roles: Vec<&str> = lines.iter().map(|l| l["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user"], "{lines:?}");
    assert_eq!(lines[2]["content"][0]["type"], "tool_result");
    assert_eq!(lines[2]["content"][0]["tool_use_id"], "g1");

    // The partial answer streamed before the crash is in the log; the turn is closed.
    let replay = w
        .run(&["attach", &id, "--output", "stream-json", "--until-idle"])
        .await;
    assert_eq!(replay.code, 0, "{replay:?}");
    let events = replay.json_lines();
    let last = events
        .iter()
        .rev()
        .find(|e| e["type"] == "turn_completed")
        .unwrap();
    assert_eq!(last["stop_reason"], "interrupted");

    let again = w.run(&["send", "--session", &id, "please continue"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.stdout, "Continued after the crash.\n");
    let body = w.mock.requests().last().unwrap().body.clone();
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(
        msgs.len(),
        3,
        "user, assistant(tool_use), user(tool_result + new text): {msgs:?}"
    );
    assert!(msgs[2].to_string().contains("please continue"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_the_turn_and_the_session_stays_usable() {
    let w = World::new(
        Script::new()
            .reply(
                ScriptedReply::new(Reply::text("A long answer that never finishes")).with_gate("g"),
            )
            .reply(Reply::text("Fresh answer.")),
    )
    .await;
    let mut send = w.start(&["send", "--output", "stream-json", "write an essay"]);
    let first = send.until(|l| l.contains("\"turn_started\"")).await;
    let id = serde_json::from_str::<Value>(&first).unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    w.mock.wait_for_gate_reached("g").await;
    let cancel = w.run(&["cancel", &id]).await;
    assert_eq!(cancel.code, 0, "{cancel:?}");
    let out = send.finish().await;
    assert_eq!(out.code, 130, "{out:?}");
    let last: Value = serde_json::from_str(out.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "turn_completed");
    assert_eq!(last["stop_reason"], "cancelled");

    let again = w.run(&["send", "--session", &id, "short please"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.stdout, "Fresh answer.\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_send_cancels_the_turn_not_the_daemon() {
    let w = World::new(
        Script::new()
            .reply(ScriptedReply::new(Reply::text("Interrupted answer")).with_gate("g"))
            .reply(Reply::text("Still here.")),
    )
    .await;
    let mut send = w.start(&["send", "--output", "stream-json", "go"]);
    let first = send.until(|l| l.contains("\"turn_started\"")).await;
    let id = serde_json::from_str::<Value>(&first).unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    w.mock.wait_for_gate_reached("g").await;
    let pid = w.daemon_info().await["pid"].as_u64().unwrap();
    send.signal(Signal::SIGINT);
    let out = send.finish().await;
    assert_eq!(out.code, 130, "{out:?}");
    let again = w.run(&["send", "--session", &id, "again"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(
        w.daemon_info().await["pid"].as_u64().unwrap(),
        pid,
        "same daemon"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_during_a_turn_joins_it_at_the_next_model_call() {
    let w = World::new(
        Script::new()
            .reply(
                ScriptedReply::new(Reply::tool_calls(vec![ToolCall::new(
                    "Glob",
                    json!({"pattern": "*"}),
                )]))
                .with_gate("g"),
            )
            .reply(Reply::text("Handled both.")),
    )
    .await;
    let first = w.run(&["send", "--no-wait", "first task"]).await;
    let id = first.session_id();
    w.mock.wait_for_gate_reached("g").await;
    let second = w.start(&[
        "send",
        "--session",
        &id,
        "--output",
        "json",
        "and also this",
    ]);
    // The second message is accepted (queued) before the gate opens: wait for its event.
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    watch.until(|l| l.contains("\"message_queued\"")).await;
    w.mock.open_gate("g");
    let out = second.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    let v = out.json();
    assert_eq!(v["text"], "Handled both.");
    let body = w.mock.requests()[1].body["messages"].to_string();
    assert!(body.contains("and also this"), "{body}");
    assert_eq!(w.mock.request_count(), 2, "one turn, two model calls");
    watch.signal(Signal::SIGINT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_queued_behind_a_finishing_turn_starts_the_next_turn() {
    let w = World::new(
        Script::new()
            .reply(ScriptedReply::new(Reply::text("First answer.")).with_gate("g"))
            .reply(Reply::text("Second answer.")),
    )
    .await;
    let first = w.run(&["send", "--no-wait", "one"]).await;
    let id = first.session_id();
    w.mock.wait_for_gate_reached("g").await;
    let second = w.start(&["send", "--session", &id, "two"]);
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    watch.until(|l| l.contains("\"message_queued\"")).await;
    w.mock.open_gate("g");
    let out = second.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Second answer.\n");
    watch.signal(Signal::SIGINT);
}

/// Pids of live processes whose command line contains `needle`.
fn processes_running(needle: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if !zombie
            && String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(needle)
        {
            pids.push(pid);
        }
    }
    pids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_left_running_by_a_crashed_daemon_are_killed_at_restart() {
    // A duration no other test uses, so the process can be found by its command line.
    let needle = "sleep 301.7";
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": needle}),
            )]))
            .reply(Reply::text("done")),
    )
    .await;
    // A sandboxed command dies with its daemon (bubblewrap's --die-with-parent:
    // e2e/sandbox.rs checks that); unconfined ones are what recovery must clean up.
    std::fs::write(w.home.path().join("config.yaml"), "sandbox: {mode: off}\n").unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--no-wait",
            "wait a while",
        ])
        .await;
    let id = out.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    watch.until(|l| l.contains("\"tool_call\"")).await;
    let started = async {
        while processes_running(needle).is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(crate::harness::PATIENCE, started)
        .await
        .expect("the command starts");
    let pid = w.daemon_info().await["pid"].as_u64().unwrap();
    kill9(pid);
    gone(pid).await;
    watch.finish().await;
    assert!(
        !processes_running(needle).is_empty(),
        "the orphan outlives the daemon"
    );

    // The next daemon kills it before anything else.
    assert_eq!(w.run(&["daemon", "start"]).await.code, 0);
    let killed = async {
        while !processes_running(needle).is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(crate::harness::PATIENCE, killed)
        .await
        .expect("the orphan is killed");
    let sessions = w.run(&["sessions", "--json"]).await.json();
    assert_eq!(sessions[0]["status"], "interrupted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_points_of_tool_heavy_turns_twenty_times() {
    let w = World::new(Script::new()).await;
    std::fs::write(w.project_path().join("a.txt"), "alpha\n").unwrap();
    let tools = || {
        Reply::tool_calls(vec![
            ToolCall::new("Read", json!({"file_path": "a.txt"})),
            ToolCall::new("Glob", json!({"pattern": "*.txt"})),
        ])
    };
    let mut rng_state: u64 = 0x5eed;
    let mut session: Option<String> = None;
    for round in 0..20 {
        // The model keeps calling tools until the daemon is killed.
        w.mock.set_fallback(Some(tools().into()));
        let mut args = vec!["send", "--no-wait"];
        let sid;
        if let Some(id) = &session {
            sid = id.clone();
            args.extend(["--session", sid.as_str()]);
        }
        args.push("work with the files");
        let sent = w.run(&args).await;
        assert_eq!(sent.code, 0, "round {round}: {sent:?}");
        let id = sent.session_id();
        session = Some(id.clone());
        // Kill after a pseudo-random number of events of this turn.
        rng_state = rng_state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let wait_for = 1 + (rng_state >> 33) % 12;
        let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
        let last_seq = w.run(&["sessions", "--json"]).await.json()[0]["last_seq"]
            .as_u64()
            .unwrap();
        watch
            .until(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .and_then(|e| e["seq"].as_u64())
                    .is_some_and(|s| s >= last_seq + wait_for)
            })
            .await;
        let pid = w.daemon_info().await["pid"].as_u64().unwrap();
        kill9(pid);
        gone(pid).await;
        watch.finish().await;

        // The next client restarts the daemon; the session continues.
        w.mock.set_fallback(Some(Reply::text("ok").into()));
        let cont = w.run(&["send", "--session", &id, "continue"]).await;
        assert_eq!(cont.code, 0, "round {round}: {cont:?}");
        let body = w.mock.requests().last().unwrap().body.clone();
        chain_is_valid(&body).unwrap_or_else(|e| panic!("round {round}: {e}"));
    }
}
