//! Deleting a team end to end: `TeamDelete` refused while a member works, then done
//! (members stopped, the team's state gone); and a worktree team whose teammates each
//! work on their own branch, where the cleanup keeps the branch with unmerged commits
//! and deletes the other, never merging or forcing anything.
//!
//! The mock routes replies as in `team_tasks.rs`, whose helpers these tests share.

use std::path::{Path, PathBuf};
use std::process::Command;

use roocode_protocol::api::AgentApiClient;
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply};
use serde_json::json;

use crate::harness::{World, count, events_until, first_user, rpc, team_world};
use crate::team_tasks::{call, calls, idle_count, latest_user, payloads, result, teammate};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_delete_is_refused_while_a_member_works_then_stops_everyone_and_removes_the_team() {
    let script = Script::new()
        .route(
            first_user("WORKER-TASK"),
            [ScriptedReply::from(Reply::text("Done with my part.")).with_gate("worker")],
        )
        .reply(calls(vec![call(
            "l-team",
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(calls(vec![
            call(
                "l-task",
                "TaskCreate",
                json!({"subject": "a task", "description": ""}),
            ),
            teammate("l-worker", "worker", "WORKER-TASK"),
        ]))
        .reply(calls(vec![call(
            "l-early",
            "TeamDelete",
            json!({"team_name": "alpha"}),
        )]))
        .reply(Reply::text("The worker is still busy; I will wait."))
        // Woken by the worker's idle notice.
        .reply(calls(vec![
            call("l-wrong", "TeamDelete", json!({"team_name": "beta"})),
            call("l-delete", "TeamDelete", json!({"team_name": "alpha"})),
            call("l-after", "TaskList", json!({})),
        ]))
        .reply(Reply::text("The team is gone."));
    let w = team_world(script).await;
    let out = w.run(&["send", "work with a team, then clean up"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();

    let early = result(&w, "l-early");
    assert!(early.is_error, "{early:?}");
    assert!(
        early
            .content
            .contains("team \"alpha\" still has active members (worker)"),
        "{early:?}"
    );

    w.mock.open_gate("worker");
    let events = events_until(&w, &lead, |e| count(e, "turn_completed") == 2).await;
    let wrong = result(&w, "l-wrong");
    assert!(
        wrong.is_error && wrong.content.contains("not \"beta\""),
        "{wrong:?}"
    );
    let deleted = result(&w, "l-delete");
    assert!(!deleted.is_error, "{deleted:?}");
    assert!(
        deleted.content.starts_with(
            "Team \"alpha\" deleted: its 1 member(s) stopped, its tasks and mail removed."
        ),
        "{deleted:?}"
    );
    // The team's list is gone: TaskList is back to the lead's background agents.
    let after = result(&w, "l-after").content;
    assert!(!after.contains("Team \"alpha\""), "{after}");
    assert!(after.contains("[cancelled] worker"), "{after}");
    let stopped = payloads(&events)
        .into_iter()
        .any(|p| p["type"] == "team_member" && p["name"] == "worker" && p["state"] == "stopped");
    assert!(stopped, "the worker was stopped");
    let rpc = rpc(&w).await;
    let agents = AgentApiClient::list(&rpc, Some(lead.clone()))
        .await
        .unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(agents[0].state.as_str(), "cancelled");
}

/// `git -C dir args…` with no configuration but the repository's own; its stdout.
fn git(home: &Path, dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The project as a git repository with one commit.
fn init_repo(w: &World) -> PathBuf {
    let home = w.home.path();
    let repo = w.project_path();
    git(home, &repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README"), "project\n").unwrap();
    git(home, &repo, &["add", "README"]);
    git(
        home,
        &repo,
        &[
            "-c",
            "user.name=Setup",
            "-c",
            "user.email=setup@example.com",
            "commit",
            "-q",
            "-m",
            "init",
        ],
    );
    repo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_team_works_on_a_branch_each_and_cleanup_keeps_the_unmerged_one() {
    let script = Script::new()
        .route(
            first_user("ALICE-WT"),
            [
                calls(vec![
                    call(
                        "a-write",
                        "Write",
                        json!({"file_path": "alice.txt", "content": "alice's part\n"}),
                    ),
                    call("a-pwd", "Bash", json!({"command": "pwd; ls"})),
                ]),
                Reply::text("Wrote alice.txt."),
            ],
        )
        .route(
            first_user("BOB-WT"),
            [
                calls(vec![call("b-pwd", "Bash", json!({"command": "pwd; ls"}))]),
                Reply::text("Read only."),
            ],
        )
        .route(
            latest_user("CLEANUP-NOW"),
            [calls(vec![call(
                "l-delete",
                "TeamDelete",
                json!({"team_name": "alpha"}),
            )])],
        )
        .reply(calls(vec![call(
            "l-team",
            "TeamCreate",
            json!({"team_name": "alpha", "isolation": "worktree"}),
        )]))
        .reply(calls(vec![
            teammate("l-alice", "alice", "ALICE-WT"),
            teammate("l-bob", "bob", "BOB-WT"),
        ]))
        .reply(Reply::text("Both are at work."))
        .fallback(Reply::text("Noted."));
    let w = team_world(script).await;
    let home = w.home.path().to_path_buf();
    let repo = init_repo(&w);

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "split the work"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    let created = result(&w, "l-team").content;
    assert!(created.contains("never forced"), "{created}");
    events_until(&w, &lead, |e| {
        idle_count(e, "alice") == 1 && idle_count(e, "bob") == 1
    })
    .await;

    // Each works in its own worktree under the data directory, not in the project.
    let alice_dir = result(&w, "a-pwd").content;
    let bob_dir = result(&w, "b-pwd").content;
    let dir_of = |out: &str| out.lines().next().unwrap_or_default().trim().to_string();
    let (alice_dir, alice_ls) = (dir_of(&alice_dir), alice_dir);
    let bob_dir = dir_of(&bob_dir);
    assert!(alice_dir.contains("/data/worktrees/"), "{alice_dir}");
    assert!(bob_dir.contains("/data/worktrees/"), "{bob_dir}");
    assert_ne!(alice_dir, bob_dir);
    assert!(alice_ls.contains("alice.txt"), "{alice_ls}");
    assert!(
        !repo.join("alice.txt").exists(),
        "alice wrote into the project"
    );
    let branches = |w: &World| -> Vec<String> {
        git(
            &home,
            &w.project_path(),
            &["branch", "--list", "roocode/*", "--format=%(refname:short)"],
        )
        .lines()
        .map(str::to_string)
        .collect()
    };
    assert_eq!(branches(&w).len(), 2, "{:?}", branches(&w));

    let out = w.run(&["send", "--session", &lead, "CLEANUP-NOW"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let deleted = result(&w, "l-delete");
    assert!(!deleted.is_error, "{deleted:?}");
    let text = &deleted.content;
    // The member rows recorded each worktree; alice's branch holds a commit main lacks.
    let kept = branches(&w);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let alice_branch = &kept[0];
    assert!(alice_branch.starts_with("roocode/alice-"), "{alice_branch}");
    assert!(
        text.contains(&format!(
            "alice: worktree ({alice_dir}) removed; branch `{alice_branch}` kept: 1 commit not merged into your branch."
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "bob: worktree ({bob_dir}) removed; branch `roocode/bob-"
        )),
        "{text}"
    );
    assert!(
        text.contains("deleted (your branch has all of it)"),
        "{text}"
    );
    assert!(text.contains("never merged or deleted for you"), "{text}");
    let content = git(
        &home,
        &repo,
        &["show", &format!("{alice_branch}:alice.txt")],
    );
    assert_eq!(content, "alice's part\n");
    // No worktree is left, in git or on disk.
    let worktrees = git(&home, &repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(
        worktrees
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        1,
        "{worktrees}"
    );
    assert!(!Path::new(&alice_dir).exists() && !Path::new(&bob_dir).exists());
}
