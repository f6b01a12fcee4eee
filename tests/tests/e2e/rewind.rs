//! Rewind end to end (issue 16): a turn's changes made with Write and with Bash are
//! undone from the snapshots the daemon took around it — a new file removed, a changed
//! file restored — the conversation is cut back to before the turn, and the user's
//! real `.git` stays byte for byte as it was. A file the user changed after the turn
//! is kept and reported; a rewind while a turn runs is refused; the snapshots of a
//! deleted session are pruned.

use std::collections::BTreeMap;
use std::path::Path;

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply};
use serde_json::json;

use crate::harness::{World, chain_is_valid};

/// Every file under `dir` with its bytes.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

fn read(w: &World, rel: &str) -> Option<String> {
    std::fs::read_to_string(w.project_path().join(rel)).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_and_a_bash_change_are_undone_and_git_is_left_alone() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Write",
                json!({"file_path": "notes/new.txt", "content": "written by the agent\n"}),
            ))
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo two > a.txt && echo made > made.txt"}),
            ))
            .reply(Reply::text("Changed three files."))
            .reply(Reply::text("Fresh start.")),
    )
    .await;
    let project = w.project_path();
    std::fs::write(project.join("a.txt"), "one\n").unwrap();
    git(&project, &["init", "-q"]);
    git(&project, &["add", "a.txt"]);
    git(&project, &["commit", "-q", "-m", "first"]);
    let git_before = files_under(&project.join(".git"));

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "change things"])
        .await;
    assert!(out.code == 0, "{out:?}");
    let sid = out.session_id();
    assert_eq!(read(&w, "a.txt").as_deref(), Some("two\n"));
    assert!(read(&w, "notes/new.txt").is_some() && read(&w, "made.txt").is_some());

    let out = w.run(&["rewind", &sid, "--yes"]).await;
    assert!(out.code == 0, "{out:?}");
    let text = &out.stdout;
    for path in ["a.txt", "notes/new.txt", "made.txt"] {
        assert!(text.contains(path), "the plan names {path}: {text}");
    }
    assert_eq!(read(&w, "a.txt").as_deref(), Some("one\n"), "restored");
    assert_eq!(read(&w, "notes/new.txt"), None, "removed");
    assert!(
        !project.join("notes").exists(),
        "with the directory it made"
    );
    assert_eq!(read(&w, "made.txt"), None, "removed");
    assert_eq!(
        files_under(&project.join(".git")),
        git_before,
        ".git untouched"
    );

    // The conversation is back to before the turn: empty.
    let out = w.run(&["export", &sid]).await;
    assert!(out.code == 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "", "context cut");
    // Nothing left to undo; the next message starts from the cut context.
    let out = w.run(&["rewind", &sid, "--yes"]).await;
    assert!(out.code != 0, "{out:?}");
    assert!(out.stderr.contains("no turn"), "{out:?}");
    let out = w.run(&["send", "--session", &sid, "again"]).await;
    assert!(out.code == 0, "{out:?}");
    let last = w.mock.requests().pop().unwrap();
    let messages = last.body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 1, "only the new message: {messages:?}");
    chain_is_valid(&last.body).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_the_user_changed_after_the_turn_is_kept_and_reported() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo agent > a.txt"}),
            ))
            .reply(Reply::text("Edited a.txt."))
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo c > c.txt"}),
            ))
            .reply(Reply::text("Made c.txt.")),
    )
    .await;
    std::fs::write(w.project_path().join("a.txt"), "original\n").unwrap();
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "edit a"])
        .await;
    assert!(out.code == 0, "{out:?}");
    let sid = out.session_id();
    // The user edits the file the agent changed.
    std::fs::write(w.project_path().join("a.txt"), "mine\n").unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--session",
            &sid,
            "make c",
        ])
        .await;
    assert!(out.code == 0, "{out:?}");

    let out = w
        .run(&["rewind", &sid, "--to", "1", "--files", "--yes"])
        .await;
    assert!(out.code == 0, "{out:?}");
    assert_eq!(read(&w, "c.txt"), None, "turn 2's file removed");
    assert_eq!(
        read(&w, "a.txt").as_deref(),
        Some("mine\n"),
        "the user's edit kept"
    );
    let text = &out.stdout;
    assert!(
        text.contains("a.txt") && text.contains("someone else"),
        "{text}"
    );
    // Files only: the conversation keeps both turns.
    let out = w.run(&["export", &sid]).await;
    assert!(out.stdout.lines().count() >= 4, "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_is_refused_while_a_turn_runs() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("First."))
            .reply(ScriptedReply::new(Reply::text("Slow answer.")).with_gate("g")),
    )
    .await;
    let out = w.run(&["send", "hello"]).await;
    let sid = out.session_id();
    let mut running = w.start(&["send", "--session", &sid, "--output", "stream-json", "more"]);
    w.mock.wait_for_gate_reached("g").await;
    let out = w.run(&["rewind", &sid, "--yes"]).await;
    assert!(out.code != 0, "{out:?}");
    assert!(out.stderr.contains("while a turn is running"), "{out:?}");
    w.mock.open_gate("g");
    running.until_event("turn_completed").await;
    let out = running.finish().await;
    assert!(out.code == 0, "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_snapshots_of_a_deleted_session_are_pruned() {
    let mut w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo a-unique-canary-content > big.txt"}),
            ))
            .reply(Reply::text("Wrote it."))
            .reply(Reply::tool_call("Bash", json!({"command": "rm big.txt"})))
            .reply(Reply::text("Removed it.")),
    )
    .await;
    w.vars.push(("ROOCODE_SNAPSHOT_GRACE_S".into(), "0".into()));
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "write"])
        .await;
    let sid = out.session_id();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--session",
            &sid,
            "remove",
        ])
        .await;
    assert!(out.code == 0, "{out:?}");
    let objects = w.home.path().join("data/snapshots/objects");
    let holds_canary = |dir: &Path| {
        files_under(dir)
            .values()
            .any(|b| b == b"a-unique-canary-content\n")
    };
    assert!(holds_canary(&objects), "the snapshot after turn 1 holds it");
    let out = w.run(&["rm", &sid]).await;
    assert!(out.code == 0, "{out:?}");
    assert!(!holds_canary(&objects), "pruned with its session");
}
