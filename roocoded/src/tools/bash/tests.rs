//! Tests of Bash, BashOutput and KillShell on temp projects with real processes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::process::live_members;
use super::*;
use crate::tools::test_support::{Project, prepared};
use crate::tools::{ProgressFn, Registry};

/// A project whose client environment has the test's PATH (and nothing else).
fn project() -> Project {
    let mut p = Project::new();
    if let Ok(path) = std::env::var("PATH") {
        p.ctx.env.insert("PATH".into(), path);
    }
    p
}

async fn bash(p: &Project, input: Value) -> ToolOutput {
    p.run("Bash", input).await.unwrap()
}

/// `(text, is_error)` of a foreground command.
async fn sh(p: &Project, command: &str) -> (String, bool) {
    let out = bash(p, json!({"command": command})).await;
    (out.content, out.is_error)
}

#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<(&'static str, i32, String)>>,
}

impl Recorder {
    fn events(&self) -> Vec<(&'static str, i32, String)> {
        self.events.lock().unwrap().clone()
    }

    fn pgids(&self) -> Vec<i32> {
        self.events()
            .into_iter()
            .filter(|e| e.0 == "started")
            .map(|e| e.1)
            .collect()
    }
}

impl ProcessRecorder for Recorder {
    fn started(&self, pgid: i32, command: &str) {
        self.events
            .lock()
            .unwrap()
            .push(("started", pgid, command.to_string()));
    }
    fn finished(&self, pgid: i32) {
        self.events
            .lock()
            .unwrap()
            .push(("finished", pgid, String::new()));
    }
}

fn recorded(p: &mut Project) -> Arc<Recorder> {
    let recorder = Arc::new(Recorder::default());
    p.ctx.processes = Some(recorder.clone());
    recorder
}

/// Live output as a channel.
fn live(p: &mut Project) -> mpsc::UnboundedReceiver<(Instant, String)> {
    let (tx, rx) = mpsc::unbounded_channel();
    p.ctx.progress = Some(ProgressFn(Arc::new(move |text: &str| {
        let _ = tx.send((Instant::now(), text.to_string()));
    })));
    rx
}

/// True while `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').unwrap().1.split_whitespace().next();
            !matches!(state, Some("Z" | "X"))
        }
        Err(_) => false,
    }
}

async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn pids(text: &str) -> Vec<i32> {
    text.lines().filter_map(|l| l.parse().ok()).collect()
}

#[tokio::test]
async fn echo_and_exit_codes() {
    let p = project();
    assert_eq!(sh(&p, "echo hello").await, ("hello".into(), false));
    assert_eq!(
        sh(&p, "echo out; exit 3").await,
        ("out\n\nExit code: 3".into(), true)
    );
    assert_eq!(sh(&p, "true").await, ("(no output)".into(), false));
    assert_eq!(
        sh(&p, "false").await,
        ("(no output)\n\nExit code: 1".into(), true)
    );
    assert_eq!(
        sh(&p, "kill -9 $$").await,
        ("(no output)\n\nKilled by signal 9 (SIGKILL)".into(), true)
    );
    // Positional parameters of the wrapper are not visible; quoting is kept as typed.
    assert_eq!(
        sh(&p, "echo \"[$1]\" 'a  b' $((2+3))").await,
        ("[] a  b 5".into(), false)
    );
    assert_eq!(
        p.run("Bash", json!({"command": "  "})).await,
        Err(ToolError::InvalidInput("command is empty".into()))
    );
}

#[tokio::test]
async fn stderr_is_interleaved_in_arrival_order() {
    let p = project();
    assert_eq!(
        sh(&p, "echo one; echo two >&2; echo three; echo four >&2").await,
        ("one\ntwo\nthree\nfour".into(), false)
    );
}

#[tokio::test]
async fn working_directory_persists_between_calls() {
    let p = project();
    assert_eq!(
        sh(&p, "mkdir -p \"a b/sub\" && cd \"a b/sub\"").await,
        ("(no output)".into(), false)
    );
    let sub = p.root.join("a b/sub");
    assert_eq!(sh(&p, "pwd").await.0, sub.display().to_string());
    assert_eq!(p.ctx.shell.cwd(), Some(sub.clone()));
    // The command's exit status survives the directory bookkeeping.
    assert_eq!(
        sh(&p, "cd .. && false").await,
        ("(no output)\n\nExit code: 1".into(), true)
    );
    assert_eq!(
        sh(&p, "pwd").await.0,
        p.root.join("a b").display().to_string()
    );
    // A command that exits early leaves the directory as it was.
    assert_eq!(sh(&p, "cd sub; exit 0").await.0, "(no output)");
    assert_eq!(
        sh(&p, "pwd").await.0,
        p.root.join("a b").display().to_string()
    );
}

#[tokio::test]
async fn leaving_the_project_resets_to_the_root() {
    let mut p = project();
    let root = p.root.display().to_string();
    assert_eq!(
        sh(&p, "cd / && echo moved").await,
        (
            format!(
                "moved\n\nShell cwd was reset to {root}: / is outside the project, and the working directory must stay inside it."
            ),
            false
        )
    );
    assert_eq!(sh(&p, "pwd").await.0, root);
    // Through a symlink too: the physical directory counts.
    std::os::unix::fs::symlink("/", p.root.join("up")).unwrap();
    let (text, _) = sh(&p, "cd up").await;
    assert!(
        text.starts_with("(no output)\n\nShell cwd was reset to "),
        "{text}"
    );
    assert_eq!(sh(&p, "pwd").await.0, root);
    // Additional directories are allowed.
    let extra = tempfile::tempdir().unwrap();
    let extra_path = extra.path().canonicalize().unwrap();
    p.ctx.scope.additional_dirs.push(extra_path.clone());
    let cd = format!("cd '{}'", extra_path.display());
    assert_eq!(sh(&p, &cd).await.0, "(no output)");
    assert_eq!(sh(&p, "pwd").await.0, extra_path.display().to_string());
}

#[tokio::test]
async fn vanished_directory_falls_back_to_the_root() {
    let p = project();
    sh(&p, "mkdir gone && cd gone").await;
    std::fs::remove_dir(p.root.join("gone")).unwrap();
    let root = p.root.display();
    assert_eq!(
        sh(&p, "pwd").await,
        (
            format!(
                "{root}\n\nThe working directory {root}/gone no longer exists; the command ran in the project root {root}."
            ),
            false
        )
    );
    assert_eq!(sh(&p, "pwd").await.0, root.to_string());
}

#[tokio::test]
async fn environment_comes_from_the_client_snapshot() {
    let mut p = project();
    p.ctx
        .env
        .insert("ROO_GREETING".into(), "hello there".into());
    // The daemon's own HOME (the test process has one) must not leak in.
    assert!(std::env::var("HOME").is_ok());
    assert_eq!(
        sh(&p, "echo \"$ROO_GREETING/${HOME:-no home}\"").await.0,
        "hello there/no home"
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let mut p = project();
    let recorder = recorded(&mut p);
    let started = Instant::now();
    let out = bash(
        &p,
        json!({
            "command": "sleep 300 & echo $!; sleep 300 & echo $!; wait",
            "timeout": 500
        }),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.is_error);
    let grandchildren = pids(&out.content);
    assert_eq!(grandchildren.len(), 2, "{}", out.content);
    assert_eq!(
        out.content,
        format!(
            "{}\n{}\n\nCommand timed out after 500 ms; it and every process it started were killed.",
            grandchildren[0], grandchildren[1]
        )
    );
    for pid in grandchildren {
        assert!(!alive(pid), "grandchild {pid} survived");
    }
    let pgid = recorder.pgids()[0];
    assert_eq!(live_members(pgid), Some(0));
    assert_eq!(
        recorder.events(),
        [
            (
                "started",
                pgid,
                "sleep 300 & echo $!; sleep 300 & echo $!; wait".to_string()
            ),
            ("finished", pgid, String::new())
        ]
    );

    // A plain sleep goes quickly too.
    let started = Instant::now();
    let out = bash(&p, json!({"command": "sleep 30", "timeout": 200})).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        out.content,
        "(no output)\n\nCommand timed out after 200 ms; it and every process it started were killed."
    );
}

#[tokio::test]
async fn processes_left_running_with_ampersand_are_stopped() {
    let p = project();
    let (text, is_error) = sh(&p, "sleep 300 & echo $!").await;
    assert!(!is_error);
    let pid = pids(&text)[0];
    assert!(!alive(pid));
}

#[tokio::test]
async fn cancel_kills_the_whole_group() {
    let mut p = project();
    let recorder = recorded(&mut p);
    let mut rx = live(&mut p);
    let cancel = p.ctx.cancel.clone();
    let run = p.run("Bash", json!({"command": "sleep 300 & echo $!; sleep 300"}));
    let trigger = async {
        let (_, text) = rx.recv().await.unwrap();
        cancel.cancel();
        pids(&text)[0]
    };
    let (result, grandchild) = tokio::join!(run, trigger);
    assert_eq!(result, Err(ToolError::Cancelled));
    assert!(!alive(grandchild));
    let pgid = recorder.pgids()[0];
    assert_eq!(live_members(pgid), Some(0));
    assert_eq!(recorder.events().len(), 2);
}

#[tokio::test]
async fn dropping_the_call_kills_the_whole_group() {
    // The agent loop races each call against the cancel token and drops the loser.
    let mut p = project();
    let recorder = recorded(&mut p);
    let mut rx = live(&mut p);
    let run = p.run("Bash", json!({"command": "sleep 300 & echo $!; sleep 300"}));
    let grandchild = tokio::select! {
        _ = run => panic!("the command ended on its own"),
        Some((_, text)) = rx.recv() => pids(&text)[0],
    };
    let pgid = recorder.pgids()[0];
    eventually("the group to die", || {
        !alive(grandchild) && live_members(pgid) == Some(0)
    })
    .await;
    eventually("the recorder to hear of it", || {
        recorder.events().len() == 2
    })
    .await;
    assert_eq!(recorder.events()[1], ("finished", pgid, String::new()));
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let p = project();
    let full: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
    let (head, tail) = (
        &full[..output::HEAD_CHARS],
        &full[full.len() - output::TAIL_CHARS..],
    );
    let cut = &full[output::HEAD_CHARS..full.len() - output::TAIL_CHARS];
    let expected = format!(
        "{head}\n[... {} characters ({} lines) omitted from the middle of the output ...]\n{}",
        cut.len(),
        cut.matches('\n').count(),
        tail.trim_end()
    );
    let (text, is_error) = sh(&p, "seq 1 200000").await;
    assert!(!is_error);
    assert_eq!(text, expected);
    // memory stays bounded; the conversation sees a preview of it (layer 1)
    assert!(text.chars().count() < output::HEAD_CHARS + output::TAIL_CHARS + 200);
}

#[tokio::test]
async fn progress_receives_live_chunks() {
    let mut p = project();
    let mut rx = live(&mut p);
    let out = bash(&p, json!({"command": "echo one; sleep 0.3; echo two"})).await;
    let ended = Instant::now();
    assert_eq!(out.content, "one\ntwo");
    let mut chunks = Vec::new();
    while let Ok(chunk) = rx.try_recv() {
        chunks.push(chunk);
    }
    let texts: Vec<&str> = chunks.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(texts, ["one\n", "two\n"]);
    // The first chunk arrived while the command was still running.
    assert!(ended - chunks[0].0 >= Duration::from_millis(250));
}

async fn read_bg(p: &Project, id: &str) -> String {
    let out = p.run("BashOutput", json!({"bash_id": id})).await.unwrap();
    assert!(!out.is_error);
    out.content
}

/// Reads until the accumulated new output contains `want`; returns it and the last
/// status line.
async fn read_until(p: &Project, id: &str, want: &str) -> (String, String) {
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = read_bg(p, id).await;
        let (status, body) = text.split_once("\n\n").unwrap();
        if body != "(no new output)" {
            seen.push_str(body);
            seen.push('\n');
        }
        if seen.contains(want) {
            return (seen, status.to_string());
        }
        assert!(Instant::now() < deadline, "no {want:?} in {seen:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn background_shell_output_is_read_incrementally_then_killed() {
    let mut p = project();
    let recorder = recorded(&mut p);
    let command = "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two >&2; sleep 300";
    let out = bash(&p, json!({"command": command, "run_in_background": true})).await;
    assert_eq!(
        out,
        ToolOutput::text(
            "Command running in the background with bash_id bash_1. Read its output with \
             BashOutput (bash_id \"bash_1\") and stop it with KillShell."
        )
    );
    assert_eq!(
        read_until(&p, "bash_1", "one").await,
        ("one\n".into(), "Status: running".into())
    );
    assert_eq!(
        read_bg(&p, "bash_1").await,
        "Status: running\n\n(no new output)"
    );
    std::fs::write(p.root.join("go"), "").unwrap();
    assert_eq!(
        read_until(&p, "bash_1", "two").await,
        ("two\n".into(), "Status: running".into())
    );
    let pgid = recorder.pgids()[0];
    assert!(live_members(pgid).unwrap() > 0);

    let killed = p
        .run("KillShell", json!({"bash_id": "bash_1"}))
        .await
        .unwrap();
    assert_eq!(
        killed,
        ToolOutput::text(format!("Killed bash_1 ({command})."))
    );
    assert_eq!(live_members(pgid), Some(0));
    assert_eq!(
        read_bg(&p, "bash_1").await,
        "Status: killed\n\n(no new output)"
    );
    assert_eq!(
        recorder.events(),
        [
            ("started", pgid, command.to_string()),
            ("finished", pgid, String::new())
        ]
    );
    let again = p
        .run("KillShell", json!({"bash_id": "bash_1"}))
        .await
        .unwrap();
    assert_eq!(
        again.content,
        "bash_1 was not running: it was already killed."
    );
}

#[tokio::test]
async fn background_shell_reports_its_exit() {
    let p = project();
    sh(&p, "mkdir sub && cd sub").await;
    bash(
        &p,
        json!({"command": "pwd; cd ..; exit 4", "run_in_background": true, "description": "Print the directory"}),
    )
    .await;
    let shell = p.ctx.shell.find("bash_1").unwrap();
    eventually("the shell to exit", || !shell.status().is_running()).await;
    let sub = p.root.join("sub");
    assert_eq!(
        read_bg(&p, "bash_1").await,
        format!("Status: exited with code 4\n\n{}", sub.display())
    );
    assert_eq!(
        read_bg(&p, "bash_1").await,
        "Status: exited with code 4\n\n(no new output)"
    );
    // Background commands start in the shell's directory and do not move it.
    assert_eq!(p.ctx.shell.cwd(), Some(sub));
    let out = p
        .run("KillShell", json!({"bash_id": "bash_1"}))
        .await
        .unwrap();
    assert_eq!(
        out.content,
        "bash_1 was not running: it exited with code 4."
    );
}

#[tokio::test]
async fn unknown_bash_ids_list_the_known_ones() {
    let p = project();
    assert_eq!(
        p.run("BashOutput", json!({"bash_id": "bash_7"})).await,
        Err(ToolError::InvalidInput(
            "No background shell with bash_id \"bash_7\". This session has no background shells."
                .into()
        ))
    );
    bash(
        &p,
        json!({"command": "sleep 300", "run_in_background": true}),
    )
    .await;
    bash(
        &p,
        json!({"command": "sleep 300", "run_in_background": true}),
    )
    .await;
    assert_eq!(
        p.run("KillShell", json!({"bash_id": "nope"})).await,
        Err(ToolError::InvalidInput(
            "No background shell with bash_id \"nope\". Known background shells: bash_1 (running), bash_2 (running)."
                .into()
        ))
    );
    p.ctx.shell.kill_all().await;
}

#[tokio::test]
async fn kill_all_and_drop_stop_background_shells() {
    let mut p = project();
    let recorder = recorded(&mut p);
    for _ in 0..2 {
        bash(
            &p,
            json!({"command": "sleep 300", "run_in_background": true}),
        )
        .await;
    }
    let pgids = recorder.pgids();
    assert_eq!(pgids.len(), 2);
    p.ctx.shell.kill_all().await;
    for pgid in &pgids {
        assert_eq!(live_members(*pgid), Some(0));
    }
    for id in ["bash_1", "bash_2"] {
        assert_eq!(
            p.ctx.shell.find(id).unwrap().status(),
            background::ShellStatus::Killed
        );
    }

    let mut p = project();
    let recorder = recorded(&mut p);
    bash(
        &p,
        json!({"command": "sleep 300 & sleep 300", "run_in_background": true}),
    )
    .await;
    let pgid = recorder.pgids()[0];
    assert!(live_members(pgid).unwrap() > 0);
    drop(p);
    eventually("the group to die", || live_members(pgid) == Some(0)).await;
    eventually("the recorder to hear of it", || {
        recorder.events().len() == 2
    })
    .await;
}

#[test]
fn timeouts_are_clamped() {
    assert_eq!(timeout(None), Duration::from_secs(120));
    assert_eq!(timeout(Some(1500.0)), Duration::from_millis(1500));
    assert_eq!(timeout(Some(1e12)), Duration::from_secs(600));
    assert_eq!(timeout(Some(0.2)), Duration::from_millis(1));
    let registry = Registry::with_builtins();
    assert!(
        registry
            .validate("Bash", &json!({"command": "ls", "timeout": 0}))
            .is_err()
    );
    assert_eq!(
        registry.validate(
            "Bash",
            &json!({"command": "ls", "timeout": 120000.0, "description": "List", "run_in_background": false})
        ),
        Ok(())
    );
}

#[test]
fn tool_properties() {
    let p = Project::new();
    let input = json!({"command": "cargo test"});
    let bash = prepared(&BashTool, &input, &p.ctx);
    assert!(!bash.spec.effect.is_read_only());
    assert!(!bash.concurrency_safe);
    assert_eq!(bash.spec.category, ToolCategory::Command);
    assert_eq!(bash.target, PermissionTarget::Command("cargo test".into()));
    let id = json!({"bash_id": "bash_1"});
    let output = prepared(&BashOutputTool, &id, &p.ctx);
    assert!(output.spec.effect.is_read_only());
    assert!(output.concurrency_safe);
    assert_eq!(output.target, PermissionTarget::None);
    let kill = prepared(&KillShellTool, &id, &p.ctx);
    assert!(!kill.spec.effect.is_read_only());
    assert!(!kill.concurrency_safe);
    assert_eq!(kill.target, PermissionTarget::None);
}
