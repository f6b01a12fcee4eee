//! Real `sh` hooks: stdin JSON, exit codes, JSON output, the environment, timeouts that
//! kill the whole process group, hooks that ignore their stdin, output caps, and
//! commands that cannot start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::{HookEnv, OUTPUT_CAP, run};
use crate::hooks::{
    Decision, HookAction, HookContext, HookEvent, HookInput, HookScope, HookSource, HookSpec,
};

fn spec(event: HookEvent, command: &str, timeout: Duration) -> HookSpec {
    HookSpec {
        event,
        matcher: None,
        condition: None,
        action: HookAction::Command {
            command: command.into(),
            timeout,
        },
        source: HookSource {
            path: PathBuf::from("/t/config.yaml"),
            line: 1,
            index: 0,
            scope: HookScope::User,
            claude: false,
        },
    }
}

fn env(cwd: &Path, extra: &[(&str, &str)]) -> HookEnv {
    let mut vars = BTreeMap::new();
    vars.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
    );
    for (k, v) in extra {
        vars.insert(k.to_string(), v.to_string());
    }
    HookEnv {
        cwd: cwd.to_path_buf(),
        project_dir: PathBuf::from("/the/project"),
        vars,
    }
}

fn ctx() -> HookContext {
    HookContext {
        session_id: "sess-42".into(),
        cwd: PathBuf::from("/work/dir"),
        transcript_path: String::new(),
        permission_mode: "default".into(),
        agent: None,
    }
}

fn bash_call(command: &str) -> HookInput {
    HookInput::pre_tool_use(ctx(), "Bash", json!({"command": command}))
}

const SECOND: Duration = Duration::from_secs(1);

#[tokio::test]
async fn reads_the_event_json_on_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(
        HookEvent::PreToolUse,
        r#"sed -n 's/.*"tool_name":"\([^"]*\)".*/\1/p'; exit 0"#,
        Duration::from_secs(10),
    );
    let done = run(&hook, &bash_call("ls"), &env(tmp.path(), &[])).await;
    assert_eq!(done.exit_code, Some(0), "{done:?}");
    assert_eq!(done.stdout, "Bash\n");
    assert!(!done.timed_out);
    assert_eq!(done.error, None);
    assert_eq!(done.outcome.decision, None);
}

#[tokio::test]
async fn exit_two_blocks_with_its_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(
        HookEvent::PreToolUse,
        "echo 'rm is not allowed here' >&2; exit 2",
        Duration::from_secs(10),
    );
    let done = run(&hook, &bash_call("rm -rf x"), &env(tmp.path(), &[])).await;
    assert_eq!(done.exit_code, Some(2));
    assert_eq!(done.outcome.decision, Some(Decision::Deny));
    assert_eq!(
        done.outcome.reason.as_deref(),
        Some("rm is not allowed here")
    );
}

#[tokio::test]
async fn json_decision_on_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(
        HookEvent::PostToolUse,
        r#"cat >/dev/null; echo '{"decision": "block", "reason": "clippy: 2 warnings"}'"#,
        Duration::from_secs(10),
    );
    let input = HookInput::post_tool_use(ctx(), "Edit", json!({"file_path": "a.rs"}), json!({}));
    let done = run(&hook, &input, &env(tmp.path(), &[])).await;
    assert_eq!(done.outcome.decision, Some(Decision::Block));
    assert_eq!(done.outcome.reason.as_deref(), Some("clippy: 2 warnings"));

    let hook = spec(
        HookEvent::UserPromptSubmit,
        "echo 'current branch: main'",
        Duration::from_secs(10),
    );
    let input = HookInput::user_prompt_submit(ctx(), "hi");
    let done = run(&hook, &input, &env(tmp.path(), &[])).await;
    assert_eq!(
        done.outcome.additional_context.as_deref(),
        Some("current branch: main")
    );
}

#[tokio::test]
async fn variables_and_a_clean_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(
        HookEvent::PostToolUse,
        r#"printf '%s|' "$TOOL" "$FILE_PATH" "$COMMAND" "$SESSION_ID" "$CWD" "$HOOK_EVENT" \
            "$ROOCODE_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$MINE" "${HOME-unset}" "$(pwd -P)""#,
        Duration::from_secs(10),
    );
    let input = HookInput::post_tool_use(
        ctx(),
        "Write",
        json!({"file_path": "/work/dir/src/a.rs", "content": "x"}),
        json!({"ok": true}),
    );
    let done = run(
        &hook,
        &input,
        &env(tmp.path(), &[("MINE", "from the client")]),
    )
    .await;
    let cwd = tmp.path().canonicalize().unwrap();
    assert_eq!(
        done.stdout,
        format!(
            "Write|/work/dir/src/a.rs||sess-42|/work/dir|post_tool_use|/the/project|/the/project|from the client|unset|{}|",
            cwd.display()
        )
    );
    let done = run(
        &spec(HookEvent::PreToolUse, r#"printf '%s' "$COMMAND""#, SECOND),
        &bash_call("cargo test"),
        &env(tmp.path(), &[]),
    )
    .await;
    assert_eq!(done.stdout, "cargo test");
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group() {
    let tmp = tempfile::tempdir().unwrap();
    let pidfile = tmp.path().join("child.pid");
    // The hook and its child ignore SIGTERM: SIGKILL must follow.
    let hook = spec(
        HookEvent::PreToolUse,
        r#"trap '' TERM; sleep 30 & echo $! > "$PIDFILE"; sleep 30"#,
        SECOND,
    );
    let pidfile_var = pidfile.to_string_lossy().into_owned();
    let done = run(
        &hook,
        &bash_call("x"),
        &env(tmp.path(), &[("PIDFILE", pidfile_var.as_str())]),
    )
    .await;
    assert!(done.timed_out, "{done:?}");
    assert_eq!(done.exit_code, None);
    assert!(done.duration >= SECOND, "{:?}", done.duration);
    assert!(
        done.duration < Duration::from_millis(2500),
        "{:?}",
        done.duration
    );
    assert!(
        done.error
            .as_deref()
            .unwrap()
            .contains("timed out after 1 s")
    );
    assert_eq!(done.outcome.error, done.error);
    assert_eq!(done.outcome.decision, None, "a timeout never blocks");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut waited = Duration::ZERO;
    while !gone(pid) && waited < SECOND {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
    assert!(gone(pid), "the hook's child {pid} survived the timeout");
}

#[tokio::test]
async fn dropping_the_run_kills_the_group() {
    let tmp = tempfile::tempdir().unwrap();
    let pidfile = tmp.path().join("child.pid");
    let pidfile_var = pidfile.to_string_lossy().into_owned();
    let hook = spec(
        HookEvent::PreToolUse,
        r#"sleep 30 & echo $! > "$PIDFILE.tmp"; mv "$PIDFILE.tmp" "$PIDFILE"; wait"#,
        Duration::from_secs(10),
    );
    let input = bash_call("x");
    let env = env(tmp.path(), &[("PIDFILE", pidfile_var.as_str())]);
    let mut running = Box::pin(run(&hook, &input, &env));
    let mut pid = None;
    for _ in 0..100 {
        tokio::select! {
            done = &mut running => panic!("the hook ended: {done:?}"),
            _ = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        pid = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok());
        if pid.is_some() {
            break;
        }
    }
    let pid = pid.expect("the hook wrote its child's pid");
    assert!(!gone(pid));
    drop(running);
    let mut waited = Duration::ZERO;
    while !gone(pid) && waited < SECOND {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
    assert!(
        gone(pid),
        "the hook's child {pid} survived the cancelled run"
    );
}

#[tokio::test]
async fn a_hook_that_never_reads_stdin_does_not_wedge() {
    let tmp = tempfile::tempdir().unwrap();
    let big = "x".repeat(4 * 1024 * 1024);
    let input = HookInput::pre_tool_use(ctx(), "Write", json!({"file_path": "a", "content": big}));
    for command in ["echo done", "sleep 0.2; echo done"] {
        let hook = spec(HookEvent::PreToolUse, command, Duration::from_secs(10));
        let done = run(&hook, &input, &env(tmp.path(), &[])).await;
        assert_eq!(done.exit_code, Some(0), "{command}: {:?}", done.error);
        assert_eq!(done.stdout, "done\n");
        assert!(
            done.duration < Duration::from_secs(3),
            "{:?}",
            done.duration
        );
    }
    // and one that reads it all gets all of it
    let hook = spec(HookEvent::PreToolUse, "wc -c", Duration::from_secs(10));
    let done = run(&hook, &input, &env(tmp.path(), &[])).await;
    let n: usize = done.stdout.trim().parse().unwrap();
    assert_eq!(
        n,
        input.to_json().to_string().len() + 1,
        "the JSON and a newline"
    );
}

#[tokio::test]
async fn output_is_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(
        HookEvent::PreToolUse,
        "head -c 300000 /dev/zero | tr '\\0' a; head -c 100000 /dev/zero | tr '\\0' b >&2",
        Duration::from_secs(10),
    );
    let done = run(&hook, &bash_call("x"), &env(tmp.path(), &[])).await;
    assert_eq!(done.exit_code, Some(0));
    let (kept, note) = done.stdout.split_at(OUTPUT_CAP);
    assert!(kept.bytes().all(|b| b == b'a'));
    assert_eq!(note, "\n[output cut: 300000 bytes, the first 65536 kept]");
    assert!(
        done.stderr
            .ends_with("[output cut: 100000 bytes, the first 65536 kept]")
    );
}

#[tokio::test]
async fn a_background_process_holding_the_output_is_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(HookEvent::PreToolUse, "echo started; sleep 30 &", SECOND);
    let done = run(&hook, &bash_call("x"), &env(tmp.path(), &[])).await;
    assert_eq!(done.exit_code, Some(0));
    assert!(!done.timed_out);
    assert_eq!(done.stdout, "started\n");
    assert!(
        done.stderr.contains("kept its output open"),
        "{:?}",
        done.stderr
    );
    assert!(done.duration < Duration::from_millis(2500));
}

#[tokio::test]
async fn a_command_that_cannot_start_is_an_error() {
    let hook = spec(HookEvent::PreToolUse, "true", SECOND);
    let missing = Path::new("/nonexistent/roocode-hooks-test");
    let done = run(&hook, &bash_call("x"), &env(missing, &[])).await;
    assert_eq!(done.exit_code, None);
    let error = done.error.unwrap();
    assert!(error.starts_with("cannot start `sh -c true`"), "{error}");
    assert_eq!(done.outcome.error.as_deref(), Some(error.as_str()));
    assert!(!done.outcome.is_blocking());
}

#[tokio::test]
async fn a_failing_hook_is_not_blocking() {
    let tmp = tempfile::tempdir().unwrap();
    let hook = spec(HookEvent::PreToolUse, "echo broken >&2; exit 3", SECOND);
    let done = run(&hook, &bash_call("x"), &env(tmp.path(), &[])).await;
    assert_eq!(done.exit_code, Some(3));
    assert_eq!(
        done.outcome.error.as_deref(),
        Some("exited with code 3: broken")
    );
    assert!(!done.outcome.is_blocking());
}

#[tokio::test]
async fn inject_runs_nothing() {
    let mut hook = spec(HookEvent::UserPromptSubmit, "unused", SECOND);
    hook.action = HookAction::Inject {
        text: "Remember the style guide.".into(),
    };
    let done = run(
        &hook,
        &HookInput::user_prompt_submit(ctx(), "hi"),
        &HookEnv::default(),
    )
    .await;
    assert_eq!(done.exit_code, None);
    assert_eq!(done.error, None);
    assert_eq!(
        done.outcome.additional_context.as_deref(),
        Some("Remember the style guide.")
    );
}
