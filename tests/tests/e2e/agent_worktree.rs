//! `isolation: worktree`: a child started with it works in its own git worktree under
//! RooCode's data directory — its relative writes and its Bash land there, not in the
//! project — and when it ends its work is committed on its branch (as RooCode, the
//! test home having no git identity), the worktree removed, and the parent told the
//! branch and the diff stat. Outside a git repository the `Agent` call fails before a
//! child exists.

use std::path::Path;
use std::process::Command;

use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ToolCall};
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

/// The child: a relative Write, a look at where its Bash starts, then its answer.
fn child_route(script: Script) -> Script {
    script.route(
        RouteMatch::FirstUserContains("WT-TASK".into()),
        [
            Reply::tool_calls(vec![ToolCall::new(
                "Write",
                json!({"file_path": "hello.txt", "content": "hello from the worktree\n"}),
            )]),
            Reply::tool_calls(vec![ToolCall::new("Bash", json!({"command": "pwd; ls"}))]),
            Reply::text("Wrote hello.txt."),
        ],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_child_commits_on_its_branch_and_leaves_no_worktree() {
    let w = World::new(child_route(
        Script::new()
            .reply(agent_call())
            .reply(Reply::text("Delegated.")),
    ))
    .await;
    let home = w.home.path().to_path_buf();
    let repo = w.project_path();
    git(&home, &repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README"), "project\n").unwrap();
    git(&home, &repo, &["add", "README"]);
    git(
        &home,
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
    let branches = git(
        &home,
        &repo,
        &["branch", "--list", "roocode/*", "--format=%(refname:short)"],
    );
    let branches: Vec<&str> = branches.lines().collect();
    assert_eq!(branches.len(), 1, "{branches:?}");
    let branch = branches[0];
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

    // No worktree remains, in git or on disk.
    let worktrees = git(&home, &repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(
        worktrees
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        1,
        "{worktrees}"
    );
    let data_worktrees = home.join("data/worktrees");
    let left: Vec<_> = std::fs::read_dir(&data_worktrees)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.is_empty(),
        "left in {}: {left:?}",
        data_worktrees.display()
    );

    let requests = w.mock.requests();
    // The child's Bash started in its worktree, which held its file.
    let bash = requests
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.content.contains("/data/worktrees/"))
        .unwrap_or_else(|| panic!("no Bash result in a worktree"));
    assert!(bash.content.contains("hello.txt"), "{}", bash.content);
    assert!(!bash.is_error, "{}", bash.content);
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
    let w = World::new(child_route(
        Script::new()
            .reply(agent_call())
            .reply(Reply::text("No worktree then.")),
    ))
    .await;

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
