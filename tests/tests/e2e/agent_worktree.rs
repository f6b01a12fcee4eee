//! `isolation: worktree`: a child started with it works in its own git worktree under
//! RooCode's data directory — its relative writes and its Bash land there, not in the
//! project — and when it ends its work is committed on its branch (as RooCode, the
//! test home having no git identity), the worktree removed, and the parent told the
//! branch and the diff stat. Outside a git repository the `Agent` call fails before a
//! child exists.

use std::path::{Path, PathBuf};
use std::process::Command;

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{World, last_results};

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

fn agent_call() -> Reply {
    Reply::tool_calls(vec![ToolCall::new(
        "Agent",
        json!({
            "subagent_type": "general-purpose",
            "isolation": "worktree",
            "prompt": "WT-TASK write hello.txt",
            "description": "write a file",
        }),
    )])
}

fn wt_task() -> RouteMatch {
    RouteMatch::FirstUserContains("WT-TASK".into())
}

/// The child: a relative Write and one into the project by its absolute path (the
/// path sandbox is the worktree), a look at where its Bash starts, then its answer.
fn push_child(w: &World) {
    let escape = w.project_path().join("escape.txt");
    w.mock.push_route(
        wt_task(),
        Reply::tool_calls(vec![
            ToolCall::new(
                "Write",
                json!({"file_path": "hello.txt", "content": "hello from the worktree\n"}),
            ),
            ToolCall::new(
                "Write",
                json!({"file_path": escape.display().to_string(), "content": "escaped\n"}),
            ),
        ]),
    );
    w.mock.push_route(
        wt_task(),
        Reply::tool_calls(vec![ToolCall::new("Bash", json!({"command": "pwd; ls"}))]),
    );
    w.mock
        .push_route(wt_task(), Reply::text("Wrote hello.txt."));
}

/// The project as a git repository with one commit and no identity configured.
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

/// The branches RooCode made.
fn roocode_branches(w: &World) -> Vec<String> {
    let out = git(
        w.home.path(),
        &w.project_path(),
        &["branch", "--list", "roocode/*", "--format=%(refname:short)"],
    );
    out.lines().map(str::to_string).collect()
}

/// No worktree remains, in git or on disk.
fn assert_no_worktree(w: &World) {
    let worktrees = git(
        w.home.path(),
        &w.project_path(),
        &["worktree", "list", "--porcelain"],
    );
    assert_eq!(
        worktrees
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        1,
        "{worktrees}"
    );
    let data_worktrees = w.home.path().join("data/worktrees");
    let left: Vec<_> = std::fs::read_dir(&data_worktrees)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.is_empty(),
        "left in {}: {left:?}",
        data_worktrees.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_child_commits_on_its_branch_and_leaves_no_worktree() {
    let w = World::new(
        Script::new()
            .reply(agent_call())
            .reply(Reply::text("Delegated.")),
    )
    .await;
    let home = w.home.path().to_path_buf();
    let repo = init_repo(&w);
    push_child(&w);

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "delegate the file"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Delegated."), "{out:?}");

    // The file is on the branch, not in the main tree.
    assert!(
        !repo.join("hello.txt").exists(),
        "the child wrote into the project"
    );
    assert!(
        !repo.join("escape.txt").exists(),
        "the child wrote outside its worktree"
    );
    let branches = roocode_branches(&w);
    assert_eq!(branches.len(), 1, "{branches:?}");
    let branch = branches[0].as_str();
    assert!(branch.starts_with("roocode/general-purpose-"), "{branch}");
    let shown = git(
        &home,
        &repo,
        &["show", "--name-only", "--format=%an <%ae>%n%s", branch],
    );
    let lines: Vec<&str> = shown.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines,
        [
            "RooCode <roocode@localhost>",
            "RooCode agent general-purpose: write a file",
            "hello.txt",
        ],
        "{shown}"
    );
    let content = git(&home, &repo, &["show", &format!("{branch}:hello.txt")]);
    assert_eq!(content, "hello from the worktree\n");

    assert_no_worktree(&w);

    let requests = w.mock.requests();
    let escape = requests
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.content.contains("escape.txt"))
        .unwrap_or_else(|| panic!("no result for the write into the project"));
    assert!(escape.is_error, "{}", escape.content);
    assert!(
        escape.content.contains("outside the project root"),
        "{}",
        escape.content
    );
    assert!(
        escape.content.contains("/data/worktrees/"),
        "{}",
        escape.content
    );
    // The child's Bash started in its worktree, which held its file.
    let bash = requests
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.content.contains("/data/worktrees/") && !r.is_error)
        .unwrap_or_else(|| panic!("no Bash result in a worktree"));
    assert!(bash.content.contains("hello.txt"), "{}", bash.content);
    // The parent's tool result names the branch and the diff stat.
    let result = requests
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.content.contains("Wrote hello.txt."))
        .unwrap_or_else(|| panic!("the parent never got the child's result"));
    assert!(
        result.content.contains(&format!("`{branch}`")),
        "{}",
        result.content
    );
    assert!(
        result.content.contains("hello.txt | 1 +"),
        "{}",
        result.content
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_a_git_repository_the_agent_call_fails_before_a_child_starts() {
    let w = World::new(
        Script::new()
            .reply(agent_call())
            .reply(Reply::text("No worktree then.")),
    )
    .await;
    push_child(&w);

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "delegate the file"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 2, "only the parent talked to the model");
    let results = last_results(&requests[1].body);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0].content.contains("needs a git repository"),
        "{}",
        results[0].content
    );
    assert!(!w.project_path().join("hello.txt").exists());
    assert!(!w.home.path().join("data/worktrees").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_child_s_work_is_committed_and_its_worktree_removed_at_the_next_start() {
    let w = World::new(Script::new().reply(agent_call())).await;
    init_repo(&w);
    w.mock.push_route(
        wt_task(),
        Reply::tool_calls(vec![ToolCall::new(
            "Write",
            json!({"file_path": "half.txt", "content": "half done\n"}),
        )]),
    );
    w.mock.push_route(
        wt_task(),
        ScriptedReply::new(Reply::text("This answer dies with the daemon.")).with_gate("g"),
    );
    let out = w
        .run(&[
            "send",
            "--no-wait",
            "--mode",
            "bypassPermissions",
            "delegate",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    w.mock.wait_for_gate_reached("g").await;
    let pid = w.daemon_info().await["pid"].as_u64().unwrap();
    let pid = nix::unistd::Pid::from_raw(pid as i32);
    nix::sys::signal::kill(pid, Signal::SIGKILL).unwrap();
    let gone = async {
        // Not our child: ESRCH is the event.
        while nix::sys::signal::kill(pid, None).is_ok() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(crate::harness::PATIENCE, gone)
        .await
        .expect("daemon exits");
    let data_worktrees = w.home.path().join("data/worktrees");
    assert_eq!(
        std::fs::read_dir(&data_worktrees).unwrap().count(),
        2,
        "the crash left the worktree and its record"
    );

    // The next daemon (started by this command) cleans up before anything else.
    let list = w.run(&["sessions", "--json"]).await;
    assert_eq!(list.code, 0, "{list:?}");
    assert_no_worktree(&w);
    let branches = roocode_branches(&w);
    assert_eq!(branches.len(), 1, "{branches:?}");
    let shown = git(
        w.home.path(),
        &w.project_path(),
        &["show", "--name-only", "--format=%s", &branches[0]],
    );
    let lines: Vec<&str> = shown.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines,
        [
            "RooCode agent general-purpose: write a file (work in progress)",
            "half.txt"
        ],
        "{shown}"
    );
    assert!(!w.project_path().join("half.txt").exists());
}
