//! The daemon's life: auto-start, status, stop, restart, the handshake, single
//! instance, file modes, sessions listing, export and removal.

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use roocode_tests::mock_llm::{Reply, Script};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::harness::{PATIENCE, World, bin};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_and_stop_never_start_a_daemon() {
    let w = World::new(Script::new()).await;
    let status = w.run(&["daemon", "status"]).await;
    assert_eq!(status.code, 1, "{status:?}");
    assert!(
        status.stdout.contains("not running") || status.stderr.contains("not running"),
        "{status:?}"
    );
    let stop = w.run(&["daemon", "stop"]).await;
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(!w.home.path().join("run/roocoded.sock").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_starts_the_daemon_which_reports_its_status_and_stops() {
    let w = World::new(Script::always(Reply::text("ok"))).await;
    let out = w.run(&["send", "hi"]).await;
    assert_eq!(out.code, 0, "{out:?}");

    let info = w.daemon_info().await;
    for key in [
        "pid",
        "version",
        "build_id",
        "socket_path",
        "uptime_secs",
        "sessions",
        "running_turns",
    ] {
        assert!(info.get(key).is_some(), "status lacks {key}: {info}");
    }
    assert_eq!(info["sessions"], 1);
    assert_eq!(info["running_turns"], 0);
    let home = w.home.path();
    let sock = home.join("run/roocoded.sock");
    assert_eq!(info["socket_path"], sock.display().to_string());
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&sock), 0o600);
    assert_eq!(mode(&home.join("run")), 0o700);
    assert!(home.join("data/roocode.db").exists());
    assert!(home.join("state/roocoded.log").exists());

    let text = w.run(&["daemon", "status"]).await;
    assert_eq!(text.code, 0);
    assert!(
        text.stdout.contains(&info["pid"].to_string()),
        "{}",
        text.stdout
    );

    let pid = info["pid"].as_u64().unwrap();
    let restart = w.run(&["daemon", "restart"]).await;
    assert_eq!(restart.code, 0, "{restart:?}");
    let new_pid = w.daemon_info().await["pid"].as_u64().unwrap();
    assert_ne!(new_pid, pid);

    let stop = w.run(&["daemon", "stop"]).await;
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(!sock.exists(), "socket removed on stop");
    assert_eq!(w.run(&["daemon", "status"]).await.code, 1);
}

/// Starts `roocoded --foreground` with the world's home; returns once it serves.
async fn foreground_daemon(w: &World, extra: &[(&str, &str)]) -> tokio::process::Child {
    let mut cmd = tokio::process::Command::new(bin("roocoded"));
    cmd.arg("--foreground")
        .env("ROOCODE_HOME", w.home.path())
        .env("HOME", w.home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let ready = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("roocoded started") {
                return;
            }
        }
        panic!("roocoded exited before serving");
    };
    tokio::time::timeout(PATIENCE, ready).await.unwrap();
    // Keep draining its log so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    child
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_daemon_per_home_and_sigterm_stops_it_cleanly() {
    let w = World::new(Script::new()).await;
    let mut first = foreground_daemon(&w, &[]).await;
    let second = tokio::process::Command::new(bin("roocoded"))
        .arg("--foreground")
        .env("ROOCODE_HOME", w.home.path())
        .env("HOME", w.home.path())
        .output()
        .await
        .unwrap();
    assert_eq!(second.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("already"),
        "{second:?}"
    );

    let pid = first.id().unwrap() as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = tokio::time::timeout(PATIENCE, first.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(!w.home.path().join("run/roocoded.sock").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_of_another_build_is_named_with_the_way_to_restart_it() {
    let w = World::new(Script::always(Reply::text("ok"))).await;
    let _daemon = foreground_daemon(&w, &[("ROOCODE_DAEMON_BUILD_ID", "0.0.0+elsewhere")]).await;
    let out = w.run(&["sessions"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("0.0.0+elsewhere"), "{}", out.stderr);
    assert!(
        out.stderr.contains("roocode-cli daemon restart"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_export_and_rm() {
    let w = World::new(Script::always(Reply::text("Answer."))).await;
    let a = w.run(&["send", "first question"]).await;
    let id = a.session_id();
    let list = w.run(&["sessions", "--json"]).await;
    let sessions = list.json();
    assert_eq!(sessions.as_array().unwrap().len(), 1);
    let s = &sessions[0];
    assert_eq!(s["id"], id.as_str());
    assert_eq!(s["title"], "first question");
    assert_eq!(s["status"], "idle");
    assert_eq!(s["root"], w.project_path().display().to_string());
    assert_eq!(s["model"], "anthropic/claude-sonnet-4-5");

    let table = w.run(&["sessions"]).await;
    assert!(
        table.stdout.contains(&a.short_session_id()) && table.stdout.contains("first question"),
        "{}",
        table.stdout
    );

    let export = w.run(&["export", &id]).await;
    assert_eq!(export.code, 0, "{export:?}");
    let lines = export.json_lines();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["role"], "user");
    assert_eq!(lines[1]["content"][0]["text"], "Answer.");

    let rm = w.run(&["rm", &id]).await;
    assert_eq!(rm.code, 0, "{rm:?}");
    assert_eq!(
        w.run(&["sessions", "--json"])
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let gone = w.run(&["export", &id]).await;
    assert_eq!(gone.code, 1);
    assert!(gone.stderr.contains("no session"), "{}", gone.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_starts_with_the_handshake() {
    use roocode_protocol::api::{DaemonApiClient, SessionApiClient};
    use roocode_protocol::daemon::ClientInfo;

    let w = World::new(Script::new()).await;
    assert_eq!(w.run(&["daemon", "start"]).await.code, 0);
    let socket = w.home.path().join("run/roocoded.sock");
    let me = ClientInfo {
        kind: "test".into(),
        name: "e2e".into(),
        pid: std::process::id(),
    };

    let rpc = roocode_client::connect_raw(&socket).await.unwrap();
    let err = rpc.list(None, None, None).await.unwrap_err().to_string();
    assert!(err.contains("daemon.hello"), "{err}");
    let hello = rpc
        .hello(
            roocode_protocol::PROTOCOL_VERSION,
            "test".into(),
            me.clone(),
        )
        .await
        .unwrap();
    assert!(hello.compatible);
    assert!(rpc.list(None, None, None).await.unwrap().is_empty());

    // A client of another protocol learns it at once and may only ask for status.
    let old = roocode_client::connect_raw(&socket).await.unwrap();
    let hello = old
        .hello(roocode_protocol::PROTOCOL_VERSION + 1, "future".into(), me)
        .await
        .unwrap();
    assert!(!hello.compatible);
    let err = old.list(None, None, None).await.unwrap_err().to_string();
    assert!(err.contains("roocode-cli daemon restart"), "{err}");
    assert!(old.info().await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_message_uses_its_clients_environment_not_the_daemons() {
    let mut w = World::new(Script::always(Reply::text("ok"))).await;
    w.vars.push((
        "ANTHROPIC_API_KEY".into(),
        "key-of-the-first-terminal".into(),
    ));
    let first = w.run(&["send", "one"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    // Another terminal with another key talks to the same, still running, daemon.
    w.vars.push((
        "ANTHROPIC_API_KEY".into(),
        "key-of-the-second-terminal".into(),
    ));
    let second = w.run(&["send", "--session", &id, "two"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let keys: Vec<String> = w
        .mock
        .requests()
        .iter()
        .map(|r| r.header("x-api-key").unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        keys,
        ["key-of-the-first-terminal", "key-of-the-second-terminal"]
    );
    // Keys are held in memory only.
    let db = std::fs::read(w.home.path().join("data/roocode.db")).unwrap();
    let log = std::fs::read_to_string(w.home.path().join("state/roocoded.log")).unwrap();
    for key in ["key-of-the-first-terminal", "key-of-the-second-terminal"] {
        assert!(!String::from_utf8_lossy(&db).contains(key));
        assert!(!log.contains(key));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_is_paged() {
    use roocode_protocol::api::SessionApiClient;
    use roocode_protocol::daemon::ClientInfo;

    let w = World::new(Script::always(Reply::text("An answer."))).await;
    let out = w.run(&["send", "hello"]).await;
    let id = out.session_id();
    let socket = w.home.path().join("run/roocoded.sock");
    let me = ClientInfo {
        kind: "test".into(),
        name: "e2e".into(),
        pid: std::process::id(),
    };
    let (rpc, _) = roocode_client::connect(&socket, me).await.unwrap();
    let all = rpc
        .history(id.clone(), None, None, Some(1000))
        .await
        .unwrap();
    assert!(!all.has_more);
    let n = all.events.len() as u64;
    assert!(n >= 5, "{all:?}");
    let newest = rpc.history(id.clone(), None, None, Some(2)).await.unwrap();
    assert!(newest.has_more);
    assert_eq!(
        newest.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [n - 1, n]
    );
    let older = rpc
        .history(id.clone(), Some(n - 1), None, Some(2))
        .await
        .unwrap();
    assert_eq!(
        older.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [n - 3, n - 2]
    );
    let after = rpc
        .history(id.clone(), None, Some(1), Some(2))
        .await
        .unwrap();
    assert_eq!(
        after.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [2, 3]
    );
    assert!(after.has_more);
    assert_eq!(all.events, {
        let mut joined = Vec::new();
        let mut after = 0;
        loop {
            let page = rpc
                .history(id.clone(), None, Some(after), Some(3))
                .await
                .unwrap();
            after = page.events.last().map_or(after, |e| e.seq);
            joined.extend(page.events);
            if !page.has_more {
                break joined;
            }
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_whose_home_disappears_exits() {
    let w = World::new(Script::new()).await;
    let pid = {
        assert_eq!(w.run(&["daemon", "start"]).await.code, 0);
        w.daemon_info().await["pid"].as_u64().unwrap() as i32
    };
    std::fs::remove_dir_all(w.home.path()).unwrap();
    let pid = nix::unistd::Pid::from_raw(pid);
    let exited = async {
        while nix::sys::signal::kill(pid, None).is_ok() {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(PATIENCE, exited)
        .await
        .expect("the daemon exits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_subscribe_reports_turns_and_requests_of_every_session() {
    use roocode_protocol::api::DaemonApiClient;
    use roocode_protocol::daemon::ClientInfo;
    use roocode_protocol::event::EventPayload;

    let w = World::new(Script::always(Reply::text("ok"))).await;
    assert_eq!(w.run(&["daemon", "start"]).await.code, 0);
    let socket = w.home.path().join("run/roocoded.sock");
    let me = ClientInfo {
        kind: "test".into(),
        name: "e2e".into(),
        pid: std::process::id(),
    };
    let (rpc, _) = roocode_client::connect(&socket, me).await.unwrap();
    let mut sub = rpc.subscribe_daemon().await.unwrap();
    let out = w.run(&["send", "hello"]).await;
    let id = out.session_id();
    let mut kinds = Vec::new();
    while kinds.last() != Some(&"turn_completed") {
        let ev = tokio::time::timeout(PATIENCE, sub.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(ev.session_id, id);
        kinds.push(match ev.payload {
            EventPayload::TurnStarted { .. } => "turn_started",
            EventPayload::TurnCompleted { .. } => "turn_completed",
            other => panic!("not an overview event: {other:?}"),
        });
    }
    assert_eq!(kinds, ["turn_started", "turn_completed"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_and_import_round_trip_a_session() {
    use roocode_tests::mock_llm::ToolCall;
    use serde_json::json;

    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "r1",
                "Read",
                json!({"file_path": "a.txt"}),
            )]))
            .reply(Reply::text("It says alpha."))
            .reply(Reply::text("Continuing the imported session.")),
    )
    .await;
    std::fs::write(w.project_path().join("a.txt"), "alpha\n").unwrap();
    let first = w.run(&["send", "what is in a.txt?"]).await;
    let id = first.session_id();
    let export = w.run(&["export", &id]).await;
    assert_eq!(export.code, 0);
    assert_eq!(export.stdout.lines().count(), 4, "{}", export.stdout);
    let file = w.project_path().join("session.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();

    let import = w
        .run(&["import", file.to_str().unwrap(), "--title", "imported"])
        .await;
    assert_eq!(import.code, 0, "{import:?}");
    let new_id = import.stdout.trim().to_string();
    assert_ne!(new_id, id);
    let again = w.run(&["export", &new_id]).await;
    assert_eq!(
        again.stdout, export.stdout,
        "export → import → export is identical"
    );

    let shown = w.run(&["attach", &new_id, "--until-idle"]).await;
    assert!(
        shown.stdout.contains("what is in a.txt?") && shown.stdout.contains("It says alpha."),
        "{}",
        shown.stdout
    );

    let cont = w.run(&["send", "--session", &new_id, "go on"]).await;
    assert_eq!(cont.code, 0, "{cont:?}");
    let body = w.mock.requests().last().unwrap().body["messages"].to_string();
    assert!(
        body.contains("what is in a.txt?") && body.contains("alpha") && body.contains("go on"),
        "{body}"
    );

    let bad = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(bad.path(), "{\"role\": \"user\"}\nnot json\n").unwrap();
    let refused = w.run(&["import", bad.path().to_str().unwrap()]).await;
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(refused.stderr.contains("line 1"), "{}", refused.stderr);
}

/// `roocode-cli import` sends 500 lines a call: a tool call on line 500 has its result
/// on the next page, and must keep it (not get a "not in the file" result instead).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_in_several_pages_keeps_results_across_page_boundaries() {
    use serde_json::json;

    let w = World::new(Script::always(Reply::text("ok"))).await;
    let mut lines = vec![json!({"role": "user", "content": [{"type": "text", "text": "go"}]})];
    for k in 0..600 {
        let id = format!("toolu_{k}");
        lines.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": format!("step {k}")},
            {"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": "a.txt"}},
        ]}));
        lines.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": format!("line {k}"), "is_error": false},
        ]}));
    }
    lines.push(json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}));
    assert_eq!(
        lines[499]["role"], "assistant",
        "a call ends the first page"
    );
    let file = w.project_path().join("long.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, &text).unwrap();

    let import = w.run(&["import", file.to_str().unwrap()]).await;
    assert_eq!(import.code, 0, "{import:?}");
    let id = import.stdout.trim().to_string();
    let export = w.run(&["export", &id]).await;
    assert_eq!(export.code, 0, "{export:?}");
    assert!(
        !export.stdout.contains("not in the imported file"),
        "a result was lost at a page boundary"
    );
    let exported: Vec<serde_json::Value> = export
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exported, lines, "import → export gives the file back");
}
