//! `roocode-cli rewind` as a user meets it: without a terminal it prints the plan and
//! refuses unless `--yes` (exit 2, nothing changed); `--json` alone is a dry run;
//! `--yes` applies the plan and says what it did; on a terminal it asks `Rewind? [y/N]`
//! (no by default) and, when someone else changed a file since, whether to overwrite
//! it (kept by default).

use roocode_tests::mock_llm::{Reply, Script};
use serde_json::json;

use crate::harness::World;
use crate::interactive::{Tmux, line_for};

fn read(w: &World, rel: &str) -> Option<String> {
    std::fs::read_to_string(w.project_path().join(rel)).ok()
}

/// A session of one turn that changed `a.txt` and created `made.txt` with Bash.
async fn one_turn() -> (World, String) {
    let script = Script::new()
        .reply(Reply::tool_call(
            "Bash",
            json!({"command": "echo two > a.txt && echo made > made.txt"}),
        ))
        .reply(Reply::text("Changed two files."));
    let w = World::new(script).await;
    std::fs::write(w.project_path().join("a.txt"), "one\n").unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "change a and make a file",
        ])
        .await;
    assert!(out.code == 0, "{out:?}");
    let sid = out.short_session_id();
    assert_eq!(read(&w, "a.txt").as_deref(), Some("two\n"));
    (w, sid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_it_shows_the_plan_and_refuses_unless_yes() {
    let (w, sid) = one_turn().await;

    let out = w.run(&["rewind", &sid]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--yes"), "says how: {out:?}");
    let plan = &out.stdout;
    assert!(plan.contains("turn 1 of 1"), "{plan}");
    assert!(
        plan.contains("restore  a.txt") && plan.contains("remove   made.txt"),
        "{plan}"
    );
    assert!(
        plan.contains("-two") && plan.contains("+one"),
        "the diff: {plan}"
    );
    assert!(
        plan.contains("> change a and make a file"),
        "the prompt: {plan}"
    );
    assert_eq!(
        read(&w, "a.txt").as_deref(),
        Some("two\n"),
        "nothing changed"
    );

    // --json alone: the plan, nothing applied.
    let out = w.run(&["rewind", &sid, "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let plan = out.json();
    assert_eq!(plan["applied"], false);
    assert_eq!(plan["turn"], 1);
    assert_eq!(plan["files"].as_array().unwrap().len(), 2, "{plan}");
    assert!(read(&w, "made.txt").is_some(), "nothing changed");

    // --yes: applied, and said.
    let out = w.run(&["rewind", &sid, "--yes"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let text = &out.stdout;
    assert!(
        text.contains("restored  a.txt") && text.contains("removed   made.txt"),
        "{text}"
    );
    assert!(
        text.contains("rewound to before turn 1: 1 file restored, 1 removed, conversation cut by"),
        "{text}"
    );
    assert!(text.contains("send it again"), "the dropped prompt: {text}");
    assert_eq!(read(&w, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(read(&w, "made.txt"), None);

    // Every attached client is told.
    let out = w.run(&["attach", &sid, "--until-idle"]).await;
    assert!(out.stdout.contains("(rewound to before turn 1:"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_with_yes_prints_the_applied_plan() {
    let (w, sid) = one_turn().await;
    let out = w.run(&["rewind", &sid, "--files", "--yes", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let plan = out.json();
    assert_eq!(plan["applied"], true);
    assert_eq!(plan["scope"], "files");
    assert_eq!(plan["restored"], json!(["a.txt"]));
    assert_eq!(plan["removed"], json!(["made.txt"]));
    assert_eq!(read(&w, "made.txt"), None);
    // Files only: the conversation keeps the turn.
    let out = w.run(&["export", &sid]).await;
    assert!(out.stdout.lines().count() >= 2, "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_it_asks_and_keeps_conflicts_by_default() {
    let (w, sid) = one_turn().await;
    // Someone else changes the file after the turn: a conflict.
    std::fs::write(w.project_path().join("a.txt"), "mine\n").unwrap();
    let t = Tmux::new("rewind");
    let project = w.project_path();
    let start = |name: &str| {
        t.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "150",
            "-y",
            "50",
            "-c",
            &project.display().to_string(),
            &line_for(&w, "roocode-cli", &format!("rewind {sid}")),
        ]);
    };

    // No (Enter) declines: nothing changes, exit 1.
    start("no");
    let screen = t.wait_for_on("no", "Rewind? [y/N]").await;
    assert!(
        screen.contains("conflict: changed after turn 1"),
        "{screen}"
    );
    t.run(&["send-keys", "-t", "no", "Enter"]);
    let screen = t.wait_for_on("no", "EXIT=").await;
    assert!(
        screen.contains("EXIT=1") && screen.contains("not rewound"),
        "{screen}"
    );
    assert!(read(&w, "made.txt").is_some());

    // Yes, then the conflict kept (Enter).
    start("yes");
    t.wait_for_on("yes", "Rewind? [y/N]").await;
    t.run(&["send-keys", "-t", "yes", "y", "Enter"]);
    t.wait_for_on("yes", "Overwrite 1 file someone else changed since")
        .await;
    t.run(&["send-keys", "-t", "yes", "Enter"]);
    let screen = t.wait_for_on("yes", "EXIT=").await;
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert!(
        screen.contains("kept      a.txt") && screen.contains("removed   made.txt"),
        "{screen}"
    );
    assert_eq!(read(&w, "a.txt").as_deref(), Some("mine\n"), "kept");
    assert_eq!(read(&w, "made.txt"), None);
}
