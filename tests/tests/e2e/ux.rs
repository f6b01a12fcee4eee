//! What a user meets (issue 9, item 10): short session ids shown and accepted, the hint
//! of a `send` waiting on a permission, an unusable `ROOCODE_HOME`, `daemon stop`
//! returning once the daemon is gone, and tool durations without the human's time.

use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{World, bin};

fn write_call(path: &str, content: &str) -> Reply {
    Reply::tool_calls(vec![ToolCall::new(
        "Write",
        json!({"file_path": path, "content": content}),
    )])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_show_short_ids_and_every_command_accepts_them() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("One."))
            .reply(Reply::text("Two."))
            .reply(Reply::text("Three.")),
    )
    .await;
    let first = w.run(&["send", "first"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let (id, short) = (first.session_id(), first.short_session_id());
    assert_eq!(short.len(), 8, "one session: the minimum length, {short}");
    assert!(
        id[24..].starts_with(&short),
        "{short} starts the tail of {id}"
    );

    let table = w.run(&["sessions"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let row = table.stdout.lines().nth(1).unwrap();
    assert!(row.starts_with(&format!("{short}  ")), "{}", table.stdout);
    assert!(
        !table.stdout.contains(&id),
        "the table shows the short id only"
    );
    let json = w.run(&["sessions", "--json"]).await.json();
    assert_eq!(json[0]["id"], id.as_str(), "JSON keeps the full id");
    assert_eq!(json[0]["short_id"], short.as_str());

    let second = w.run(&["send", "--session", &short, "second"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert_eq!(second.session_id(), id, "the short id named the session");
    // The old forms still work: the full id and a prefix of it.
    let third = w.run(&["send", "--session", &id[..13], "third"]).await;
    assert_eq!(third.code, 0, "{third:?}");
    assert_eq!(third.session_id(), id);
    let attach = w.run(&["attach", &short, "--until-idle"]).await;
    assert_eq!(attach.code, 0, "{attach:?}");
    assert!(attach.stdout.contains("Three."), "{attach:?}");
    let unknown = w.run(&["attach", "ffffffff", "--until-idle"]).await;
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(unknown.stderr.contains("no session matches"), "{unknown:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_that_cannot_ask_says_how_to_answer_once_per_request() {
    let w = World::new(
        Script::new()
            .reply(write_call("a.txt", "a"))
            .reply(write_call("b.txt", "b"))
            .reply(Reply::text("Done.")),
    )
    .await;
    // stdin is not a terminal: nobody can be asked here.
    let mut send = w.start(&["send", "write two files"]);
    for _ in 0..2 {
        let line = send.until_stderr(|l| l.starts_with("permission: ")).await;
        let req = line.split(' ').nth(1).unwrap().to_string();
        let hint = send.until_stderr(|_| true).await;
        assert!(
            hint.contains(&format!("roocode-cli approve {req}"))
                && hint.contains(&format!("roocode-cli deny {req}"))
                && hint.contains("--mode dontAsk"),
            "{hint}"
        );
        assert_eq!(w.run(&["approve", &req]).await.code, 0);
    }
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stderr.matches("waiting for an answer").count(),
        2,
        "one hint per request:\n{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_roocode_home_is_named_and_refused() {
    let w = World::new(Script::new()).await;
    let file = w.home.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let file = file.display().to_string();
    for (home, says) in [
        ("relative/home", "a relative path"),
        (file.as_str(), "is not a directory"),
    ] {
        let mut cli = w.cli(&["sessions"]);
        cli.env("ROOCODE_HOME", home);
        let out = cli.output().await.unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("ROOCODE_HOME is `{home}`")) && stderr.contains(says),
            "{stderr}"
        );
        for program in ["roocoded", "roocode-tui"] {
            let mut cmd = tokio::process::Command::new(bin(program));
            if program == "roocoded" {
                cmd.arg("--foreground");
            }
            let out = cmd
                .env_clear()
                .env("HOME", w.home.path())
                .env("ROOCODE_HOME", home)
                .current_dir(w.project.path())
                .stdin(Stdio::null())
                .output()
                .await
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_ne!(out.status.code(), Some(0), "{program}: {stderr}");
            assert!(
                stderr.contains(&format!("ROOCODE_HOME is `{home}`")),
                "{program}: {stderr}"
            );
        }
    }
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not).
fn running(pid: i32) -> bool {
    if nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err() {
        return false;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .next();
    !matches!(state, Some("Z" | "X") | None)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_stop_returns_once_the_daemon_is_gone() {
    let w = World::new(Script::new().reply(Reply::text("Hi."))).await;
    assert_eq!(w.run(&["send", "hello"]).await.code, 0);
    for _ in 0..3 {
        let pid = w.daemon_info().await["pid"].as_i64().unwrap() as i32;
        assert!(running(pid));
        let stop = w.run(&["daemon", "stop"]).await;
        assert_eq!(stop.code, 0, "{stop:?}");
        assert_eq!(stop.stdout, format!("stopped roocoded (pid {pid})\n"));
        // Returned only once the process was gone, and its socket with it.
        assert!(
            !running(pid),
            "roocoded {pid} still runs after `daemon stop` returned"
        );
        let status = w.run(&["daemon", "status"]).await;
        assert_eq!(status.code, 1, "{status:?}");
        assert_eq!(w.run(&["daemon", "start"]).await.code, 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_duration_leaves_out_the_time_the_human_took() {
    let w = World::new(
        Script::new()
            .reply(write_call("slow.txt", "x"))
            .reply(Reply::text("Done.")),
    )
    .await;
    let first = w.run(&["send", "--no-wait", "write it"]).await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let req: Value = watch.until_event("permission_request").await;
    // The human thinks for a while (this wait is the point of the test, not a race:
    // writing one byte takes far less).
    let think = Duration::from_millis(1500);
    tokio::time::sleep(think).await;
    let req = req["request_id"].as_str().unwrap();
    assert_eq!(w.run(&["approve", req]).await.code, 0);
    let result: Value = watch.until_event("tool_result").await;
    let ms = result["duration_ms"].as_u64().unwrap();
    assert!(
        ms < think.as_millis() as u64,
        "{ms} ms includes the {think:?} the human took"
    );
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
}
