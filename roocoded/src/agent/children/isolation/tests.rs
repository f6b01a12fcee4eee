//! Worktrees against real git repositories in temporary directories: made, committed
//! (the user's identity or RooCode's), removed, cleaned at start; the errors before a
//! child starts; a `.git` file the child rewrote.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use roocode_protocol::Mode;
use roocode_protocol::agents::AgentState;
use roocode_protocol::paths::Paths;
use roocode_protocol::session::SessionKind;

use super::git::Git;
use super::tree;
use crate::agent::Engine;
use crate::agent::children::ChildSpec;
use crate::store::{AgentRow, NewAgent, NewSession, Store};

/// A temporary place with a `home` that has no git configuration, a `data` directory
/// and a project `repo`.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "data", "repo"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Place { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().canonicalize().unwrap().join(rel)
    }

    fn repo(&self) -> PathBuf {
        self.path("repo")
    }

    /// git isolated from the machine's configuration.
    fn git(&self) -> Git {
        let home = self.path("home");
        Git::with_env(&[
            ("HOME", home.as_os_str()),
            ("XDG_CONFIG_HOME", home.as_os_str()),
            ("GIT_CONFIG_NOSYSTEM", OsStr::new("1")),
        ])
    }

    /// `git -C dir args…` for the test's own checks; its stdout.
    fn sh(&self, dir: &Path, args: &[&str]) -> String {
        let home = self.path("home");
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
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

    /// A repository with one commit (README), its identity in its own config unless
    /// `identity` is false.
    fn init(&self, identity: bool) -> PathBuf {
        let repo = self.repo();
        self.sh(&repo, &["init", "-q", "-b", "main"]);
        if identity {
            self.sh(&repo, &["config", "user.name", "Ada Lovelace"]);
            self.sh(&repo, &["config", "user.email", "ada@example.com"]);
        }
        std::fs::write(repo.join("README"), "first\n").unwrap();
        self.sh(&repo, &["add", "README"]);
        self.sh(
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

    fn worktree_count(&self) -> usize {
        self.sh(&self.repo(), &["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count()
    }
}

const ID: &str = "0192f3a4-5b6c-7d8e-9f01-23456789abcd";

#[test]
fn branch_names_are_slugs_ending_with_the_random_end_of_the_id() {
    assert_eq!(
        tree::branch_name("Write Docs!", ID),
        "roocode/write-docs-6789abcd"
    );
    assert_eq!(
        tree::branch_name("general-purpose", ID),
        "roocode/general-purpose-6789abcd"
    );
    assert_eq!(tree::branch_name("…", ID), "roocode/agent-6789abcd");
    assert_eq!(tree::branch_name("Ünïcode", "ab"), "roocode/n-code-ab");
    let long = tree::branch_name(&"x".repeat(200), ID);
    assert!(long.len() < 60, "{long}");
}

#[test]
fn a_worktree_is_made_committed_with_the_user_s_identity_and_removed() {
    let p = Place::new();
    let repo = p.init(true);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "writer").unwrap();
    assert_eq!(made.branch, "roocode/writer-6789abcd");
    assert_eq!(made.path, p.path("data/worktrees").join(ID));
    assert_eq!(made.note, None, "a clean tree has nothing to say");
    assert_eq!(
        std::fs::read_to_string(made.path.join("README")).unwrap(),
        "first\n"
    );
    assert_eq!(p.worktree_count(), 2);

    std::fs::write(made.path.join("hello.txt"), "hello\n").unwrap();
    std::fs::write(made.path.join("README"), "second\n").unwrap();
    let report = tree::close(
        &git,
        &made.path,
        &made.branch,
        "RooCode agent writer: a task",
    )
    .unwrap();
    assert_eq!(report.branch, made.branch);
    assert_eq!(report.commits, 1);
    assert!(report.stat.contains("hello.txt"), "{}", report.stat);
    assert!(report.stat.contains("2 files changed"), "{}", report.stat);
    let text = report.text();
    assert!(text.contains("`roocode/writer-6789abcd`"), "{text}");
    assert!(text.contains("git merge roocode/writer-6789abcd"), "{text}");

    assert!(!made.path.exists(), "the worktree is removed");
    assert!(!p.path(&format!("data/worktrees/{ID}.json")).exists());
    assert_eq!(p.worktree_count(), 1);
    assert!(
        !repo.join("hello.txt").exists(),
        "the main tree is untouched"
    );
    let log = p.sh(
        &repo,
        &["log", "-1", "--format=%an <%ae>%n%s", &made.branch],
    );
    assert_eq!(
        log,
        "Ada Lovelace <ada@example.com>\nRooCode agent writer: a task\n"
    );
    let files = p.sh(&repo, &["show", "--name-only", "--format=", &made.branch]);
    assert!(files.lines().any(|f| f == "hello.txt"), "{files}");
}

#[test]
fn without_an_identity_the_commit_is_roocode_s() {
    let p = Place::new();
    let repo = p.init(false);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "w").unwrap();
    std::fs::write(made.path.join("new.txt"), "x\n").unwrap();
    tree::close(&git, &made.path, &made.branch, "msg").unwrap();
    let author = p.sh(
        &repo,
        &["log", "-1", "--format=%an <%ae>|%cn <%ce>", &made.branch],
    );
    assert_eq!(
        author.trim(),
        "RooCode <roocode@localhost>|RooCode <roocode@localhost>"
    );
}

#[test]
fn a_dirty_main_tree_is_not_carried_over_and_the_note_says_how_much() {
    let p = Place::new();
    let repo = p.init(true);
    std::fs::write(repo.join("README"), "edited in main\n").unwrap();
    std::fs::write(repo.join("untracked.txt"), "u\n").unwrap();
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "w").unwrap();
    let note = made.note.clone().unwrap();
    assert!(note.contains("2 uncommitted paths"), "{note}");
    assert!(note.contains("not carried over"), "{note}");
    assert_eq!(
        std::fs::read_to_string(made.path.join("README")).unwrap(),
        "first\n"
    );
    assert!(!made.path.join("untracked.txt").exists());
    // The parent reads it with the report, and no change means no commit.
    let report = tree::close(&git, &made.path, &made.branch, "msg").unwrap();
    assert_eq!(report.commits, 0);
    let text = report.text();
    assert!(text.contains("changed no files"), "{text}");
    assert!(text.contains("2 uncommitted paths"), "{text}");
    assert_eq!(
        p.sh(&repo, &["rev-parse", &made.branch]),
        p.sh(&repo, &["rev-parse", "main"])
    );
    // The main tree keeps its own changes.
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "edited in main\n"
    );
}

#[test]
fn commits_the_child_made_itself_count_and_nothing_is_lost() {
    let p = Place::new();
    let repo = p.init(true);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "w").unwrap();
    std::fs::write(made.path.join("a.txt"), "a\n").unwrap();
    p.sh(&made.path, &["add", "a.txt"]);
    p.sh(&made.path, &["commit", "-q", "-m", "the child's own"]);
    std::fs::write(made.path.join("b.txt"), "b\n").unwrap();
    let report = tree::close(&git, &made.path, &made.branch, "wip").unwrap();
    assert_eq!(report.commits, 2);
    assert!(
        report.stat.contains("a.txt") && report.stat.contains("b.txt"),
        "{}",
        report.stat
    );
}

#[test]
fn outside_a_repository_without_commits_or_without_git_it_is_a_clear_error() {
    let p = Place::new();
    let git = p.git();
    let plain = p.path("repo");
    let err = tree::create(&git, &p.path("data"), &plain, ID, "w").unwrap_err();
    assert!(err.contains("needs a git repository"), "{err}");
    assert!(err.contains("without isolation"), "{err}");

    p.sh(&plain, &["init", "-q"]);
    let err = tree::create(&git, &p.path("data"), &plain, ID, "w").unwrap_err();
    assert!(err.contains("needs a commit"), "{err}");

    let no_git = Git::with_env(&[("PATH", OsStr::new("/nonexistent"))]);
    let err = tree::create(&no_git, &p.path("data"), &plain, ID, "w").unwrap_err();
    assert!(err.contains("git is not installed"), "{err}");
    assert!(!p.path("data/worktrees").join(ID).exists());
}

#[test]
fn a_rewritten_git_file_stops_the_daemon_from_running_git_there() {
    let p = Place::new();
    let repo = p.init(true);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "w").unwrap();
    std::fs::write(made.path.join("work.txt"), "w\n").unwrap();
    std::fs::write(made.path.join(".git"), "gitdir: /tmp\n").unwrap();
    let err = tree::close(&git, &made.path, &made.branch, "msg").unwrap_err();
    assert!(err.contains("left there"), "{err}");
    assert!(made.path.join("work.txt").exists(), "its files are kept");
}

/// An engine whose data directory is under `p`, with a main session `parent`.
async fn engine(p: &Place) -> Engine {
    let home = p.path("rh");
    let paths = Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
        .unwrap();
    std::fs::create_dir_all(&paths.data_dir).unwrap();
    let store = Store::open(&paths.database).await.unwrap();
    store
        .insert_session(&session("parent", None, &p.repo(), &p.repo()))
        .await
        .unwrap();
    Engine::new(store, paths)
}

fn session(id: &str, parent: Option<&str>, cwd: &Path, root: &Path) -> NewSession {
    NewSession {
        id: id.into(),
        parent_session_id: parent.map(str::to_string),
        kind: if parent.is_some() {
            SessionKind::SubAgent
        } else {
            SessionKind::Main
        },
        title: "t".into(),
        cwd: cwd.display().to_string(),
        root: root.display().to_string(),
        model: "anthropic/sonnet".into(),
        mode: Mode::Default,
    }
}

/// A child of `parent` in its own worktree, recorded as the spawner does.
async fn child(engine: &Engine, p: &Place, id: &str, background: bool) -> AgentRow {
    let made = engine
        .prepare_worktree(&p.repo(), id, "helper")
        .await
        .unwrap();
    engine
        .store
        .insert_agent(&NewAgent {
            // As the spawner records it: the worktree is its directory, the project its root.
            session: session(id, Some("parent"), &made.path, &p.repo()),
            name: "helper".into(),
            agent_type: "general-purpose".into(),
            description: "write a file".into(),
            background,
            spec: ChildSpec {
                system_prompt: "You help.".into(),
                custom: false,
                background,
                tools: None,
                disallowed_tools: Vec::new(),
                max_turns: None,
                read_only_commands: false,
                timeout_s: 60,
                advertised_tools: None,
                workspace: Some(made.path.clone()),
                team: None,
            }
            .to_json()
            .unwrap(),
            state: AgentState::Running,
        })
        .await
        .unwrap();
    let path = made.path.display().to_string();
    engine
        .store
        .set_agent_worktree(id, Some(&path), Some(&made.branch))
        .await
        .unwrap();
    engine.store.agent(id).await.unwrap().unwrap()
}

#[tokio::test]
async fn a_cancelled_child_s_work_is_committed_as_work_in_progress() {
    let p = Place::new();
    let repo = p.init(true);
    let engine = engine(&p).await;
    let row = child(&engine, &p, ID, false).await;
    let worktree = PathBuf::from(row.worktree.clone().unwrap());
    std::fs::write(worktree.join("half.txt"), "half done\n").unwrap();

    let report = engine
        .finish_worktree(&row, AgentState::Cancelled)
        .await
        .unwrap();
    let branch = row.branch.clone().unwrap();
    assert!(report.contains(&format!("`{branch}`")), "{report}");
    assert!(report.contains("half.txt"), "{report}");
    assert!(!worktree.exists());
    let subject = p.sh(&repo, &["log", "-1", "--format=%s", &branch]);
    assert_eq!(
        subject.trim(),
        "RooCode agent helper: write a file (work in progress)"
    );
    let after = engine.store.agent(ID).await.unwrap().unwrap();
    assert_eq!(after.worktree, None);
    assert_eq!(
        after.branch.as_deref(),
        Some(branch.as_str()),
        "the branch is kept"
    );
    // A second finish (nothing left) reports nothing.
    assert_eq!(
        engine.finish_worktree(&after, AgentState::Cancelled).await,
        None
    );
}

#[tokio::test]
async fn at_start_stray_worktrees_are_committed_and_removed_but_resumed_ones_stay() {
    let p = Place::new();
    let repo = p.init(true);
    let engine = engine(&p).await;
    let resumed = "0192f3a4-0000-7000-8000-00000000aaaa";
    let crashed = "0192f3a4-0000-7000-8000-00000000bbbb";
    let orphan = "0192f3a4-0000-7000-8000-00000000cccc";
    let kept = child(&engine, &p, resumed, true).await;
    let lost = child(&engine, &p, crashed, false).await;
    let orphan_tree = engine
        .prepare_worktree(&repo, orphan, "gone")
        .await
        .unwrap();
    let lost_tree = PathBuf::from(lost.worktree.clone().unwrap());
    std::fs::write(lost_tree.join("wip.txt"), "wip\n").unwrap();
    std::fs::write(orphan_tree.path.join("orphan.txt"), "o\n").unwrap();
    // A record left without its worktree goes too.
    let worktrees = engine.paths.data_dir.join("worktrees");
    std::fs::write(worktrees.join("stale.json"), "{}").unwrap();

    engine.clean_worktrees().await;

    assert!(PathBuf::from(kept.worktree.clone().unwrap()).is_dir());
    assert!(!lost_tree.exists());
    assert!(!orphan_tree.path.exists());
    assert!(!worktrees.join("stale.json").exists());
    assert_eq!(
        p.worktree_count(),
        2,
        "the main tree and the resumed child's"
    );
    let lost_branch = lost.branch.clone().unwrap();
    let files = p.sh(&repo, &["show", "--name-only", "--format=%s", &lost_branch]);
    assert!(files.contains("(work in progress)"), "{files}");
    assert!(files.lines().any(|l| l == "wip.txt"), "{files}");
    let files = p.sh(
        &repo,
        &["show", "--name-only", "--format=", &orphan_tree.branch],
    );
    assert!(files.lines().any(|l| l == "orphan.txt"), "{files}");
    let row = engine.store.agent(crashed).await.unwrap().unwrap();
    assert_eq!(row.worktree, None);
    let row = engine.store.agent(resumed).await.unwrap().unwrap();
    assert!(row.worktree.is_some());
}

#[tokio::test]
async fn not_a_repository_is_refused_before_the_child_starts() {
    let p = Place::new();
    let engine = engine(&p).await;
    let err = engine
        .prepare_worktree(&p.repo(), ID, "helper")
        .await
        .unwrap_err();
    assert!(err.contains("needs a git repository"), "{err}");
}

#[tokio::test]
async fn a_resumed_child_gets_its_branch_back_and_reports_the_new_run() {
    let p = Place::new();
    let repo = p.init(true);
    let engine = engine(&p).await;
    let row = child(&engine, &p, ID, false).await;
    let worktree = PathBuf::from(row.worktree.clone().unwrap());
    std::fs::write(worktree.join("first.txt"), "1\n").unwrap();
    engine
        .finish_worktree(&row, AgentState::Completed)
        .await
        .unwrap();
    assert!(!worktree.exists());

    let row = engine.store.agent(ID).await.unwrap().unwrap();
    engine.reopen_worktree(&row).await.unwrap();
    assert!(
        worktree.join("first.txt").is_file(),
        "its earlier work is there"
    );
    let row = engine.store.agent(ID).await.unwrap().unwrap();
    assert_eq!(
        row.worktree.as_deref(),
        Some(worktree.display().to_string().as_str())
    );
    // Reopening what is open changes nothing.
    engine.reopen_worktree(&row).await.unwrap();

    std::fs::write(worktree.join("second.txt"), "2\n").unwrap();
    let report = engine
        .finish_worktree(&row, AgentState::Completed)
        .await
        .unwrap();
    assert!(report.contains("second.txt"), "{report}");
    assert!(!report.contains("first.txt"), "the new run only: {report}");
    let branch = row.branch.clone().unwrap();
    let count = p.sh(&repo, &["rev-list", "--count", &format!("main..{branch}")]);
    assert_eq!(count.trim(), "2");
    assert_eq!(p.worktree_count(), 1);
}

#[test]
fn a_git_config_changed_while_the_agent_ran_stops_the_commit() {
    let p = Place::new();
    let repo = p.init(true);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "writer").unwrap();
    std::fs::write(made.path.join("a.txt"), "a\n").unwrap();
    // What an agent whose sandbox could not make it read-only might write: a filter
    // the daemon's `git add` would run.
    let config = repo.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[filter \"x\"]\n\tclean = touch pwned\n");
    std::fs::write(&config, text).unwrap();
    std::fs::write(made.path.join(".gitattributes"), "* filter=x\n").unwrap();
    let err = tree::close(&git, &made.path, &made.branch, "m").unwrap_err();
    assert!(err.contains("changed while the agent ran"), "{err}");
    assert!(made.path.join("a.txt").is_file(), "its files are left");
    assert!(!made.path.join("pwned").exists() && !repo.join("pwned").exists());
    // The hooks directory exists, so the sandbox can keep it read-only.
    assert!(repo.join(".git/hooks").is_dir());
}

#[test]
fn a_head_moved_to_another_branch_is_not_committed_on() {
    let p = Place::new();
    let repo = p.init(true);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "writer").unwrap();
    let main = p.sh(&repo, &["symbolic-ref", "--short", "HEAD"]);
    let before = p.sh(&repo, &["rev-list", "--all", "--count"]);
    std::fs::write(made.path.join("b.txt"), "b\n").unwrap();
    p.sh(&made.path, &["checkout", "-q", "-b", "elsewhere"]);
    let err = tree::close(&git, &made.path, &made.branch, "m").unwrap_err();
    assert!(err.contains("moved to branch `elsewhere`"), "{err}");
    let after = p.sh(&repo, &["rev-list", "--all", "--count"]);
    assert_eq!(before, after, "nothing was committed anywhere ({main})");
}

#[test]
fn a_branch_is_deleted_only_once_head_has_all_of_it() {
    let p = Place::new();
    let repo = p.init(true);
    let git = p.git();
    let made = tree::create(&git, &p.path("data"), &repo, ID, "alice").unwrap();
    std::fs::write(made.path.join("alice.txt"), "alice\n").unwrap();
    tree::close(&git, &made.path, &made.branch, "RooCode agent alice").unwrap();

    // Not merged: kept, and git itself refuses to delete it.
    assert_eq!(git.unmerged_count(&repo, &made.branch).unwrap(), 1);
    assert!(git.delete_merged_branch(&repo, &made.branch).is_err());
    assert!(
        p.sh(&repo, &["branch", "--list", &made.branch])
            .contains("alice")
    );

    // Merged into HEAD: nothing left to lose, so it goes.
    p.sh(&repo, &["merge", "-q", "--ff-only", &made.branch]);
    assert_eq!(git.unmerged_count(&repo, &made.branch).unwrap(), 0);
    git.delete_merged_branch(&repo, &made.branch).unwrap();
    assert_eq!(p.sh(&repo, &["branch", "--list", &made.branch]), "");
}
