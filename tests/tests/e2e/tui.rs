//! Two real `roocode-tui` processes in tmux, attached to the same session against the
//! scripted mock: both show the same streamed answer, and a permission request raised
//! by a message typed in the first is approved from the second.

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::World;
use crate::interactive::{Tmux, line_for};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_terminals_share_one_live_session_and_either_can_approve() {
    let w = World::new(
        Script::new()
            .reply(Reply::ToolCalls {
                text: Some("Let me write it.".into()),
                calls: vec![ToolCall::new(
                    "Write",
                    json!({"file_path": "tui.txt", "content": "from the tui\n"}),
                )],
            })
            .reply(
                ScriptedReply::new(Reply::text(
                    "The file is written, and both terminals see this line.",
                ))
                .with_chunk_chars(4),
            ),
    )
    .await;
    let project = w.project_path().display().to_string();
    let t = Tmux::new("tui");
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "one",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &project,
        &line_for(&w, "roocode-tui", ""),
    ]);
    // The first TUI created the session; the second attaches to it by its short id.
    let short = loop {
        let list = w.run(&["sessions", "--json"]).await.json();
        if let Some(s) = list.as_array().and_then(|a| a.first()) {
            break s["short_id"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "two",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &project,
        &line_for(&w, "roocode-tui", &format!("--session {short}")),
    ]);
    t.wait_for_on("one", "connected").await;
    t.wait_for_on("two", "connected").await;
    // The status bar shows the short id.
    t.wait_for_on("two", &format!("│ {short} │")).await;

    t.run(&["send-keys", "-t", "one", "-l", "write the file please"]);
    t.run(&["send-keys", "-t", "one", "Enter"]);
    // Both terminals show the request; the second one approves it.
    t.wait_for_on("one", "tui.txt").await;
    t.wait_for_on("two", "allow").await;
    t.run(&["send-keys", "-t", "two", "y"]);
    let one = t.wait_for_on("one", "both terminals see this line").await;
    let two = t.wait_for_on("two", "both terminals see this line").await;
    assert!(
        one.contains("write the file please") && two.contains("write the file please"),
        "{one}\n{two}"
    );
    assert_eq!(
        std::fs::read_to_string(w.project_path().join("tui.txt")).unwrap(),
        "from the tui\n"
    );

    // Ctrl+C when idle leaves the client; the daemon and the session stay. (The last
    // line can be on screen before the turn's end is: wait for the status bar to say
    // idle, or Ctrl+C only clears the input, as it does during a turn.)
    t.wait_for_on("one", " idle │").await;
    t.run(&["send-keys", "-t", "one", "C-c"]);
    let screen = t.wait_for_on("one", "EXIT=0").await;
    // After the terminal is restored: which session, and how to come back.
    assert!(
        screen.contains(&format!("Left session {short}"))
            && screen.contains(&format!("roocode-tui --session {short}"))
            && screen.contains(&format!("roocode-cli attach {short}")),
        "{screen}"
    );
    let info = w.daemon_info().await;
    assert_eq!(info["sessions"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_reconnects_after_a_daemon_restart_without_duplicating_lines() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("First answer before the restart."))
            .reply(Reply::text("Second answer after the restart.")),
    )
    .await;
    let first = w.run(&["send", "first question"]).await;
    let id = first.session_id();
    let project = w.project_path().display().to_string();
    let t = Tmux::new("restart");
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "one",
        "-x",
        "100",
        "-y",
        "30",
        "-c",
        &project,
        &line_for(&w, "roocode-tui", &format!("--session {id}")),
    ]);
    t.wait_for_on("one", "First answer before the restart.")
        .await;
    let restart = w.run(&["daemon", "restart"]).await;
    assert_eq!(restart.code, 0, "{restart:?}");
    let second = w.run(&["send", "--session", &id, "second question"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let screen = t
        .wait_for_on("one", "Second answer after the restart.")
        .await;
    assert_eq!(
        screen.matches("First answer before the restart.").count(),
        1,
        "{screen}"
    );
    assert_eq!(
        screen.matches("Second answer after the restart.").count(),
        1,
        "{screen}"
    );
    assert_eq!(screen.matches("> first question").count(), 1, "{screen}");
    t.wait_for_on("one", "connected").await;
}
