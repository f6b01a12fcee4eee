//! Running a hook's action: a command is `/bin/sh -c <command>` in the session's
//! directory, in a process group of its own, with the event's JSON on stdin and a
//! clean environment (the caller's variables plus the hook's: `TOOL`, `FILE_PATH`,
//! `COMMAND`, `SESSION_ID`, `CWD`, `HOOK_EVENT`, `ROOCODE_PROJECT_DIR`,
//! `CLAUDE_PROJECT_DIR`). At its timeout the whole group gets SIGTERM, then SIGKILL
//! [`KILL_GRACE`] later. stdout and stderr are kept up to [`OUTPUT_CAP`] bytes each
//! (the rest is read and dropped, and the cut is noted). A hook that never reads its
//! stdin cannot wedge the run (stdin is written by its own task, a closed pipe is
//! fine), a command that cannot start is a [`HookRun`] with an error, and dropping the
//! future of [`run`] (a cancelled turn) kills the group.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

use super::input::HookInput;
use super::outcome::{HookOutcome, outcome_of_inject};
use super::spec::{HookAction, HookSpec};

/// How much of stdout and of stderr is kept.
pub const OUTPUT_CAP: usize = 64 * 1024;
/// Between SIGTERM and SIGKILL when a hook is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(200);
/// How long output is still read once the group was killed (a process that left the
/// group may hold the pipes open).
const DRAIN_AFTER_KILL: Duration = Duration::from_millis(500);

/// Where and with what a command hook runs.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// Its working directory (the session's).
    pub cwd: PathBuf,
    /// The project root (`ROOCODE_PROJECT_DIR`, `CLAUDE_PROJECT_DIR`).
    pub project_dir: PathBuf,
    /// The base environment, e.g. the client's (`PATH`, `HOME`, ...); nothing of the
    /// daemon's own environment is passed on.
    pub vars: BTreeMap<String, String>,
}

/// How a hook ran.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRun {
    /// `None`: killed by a signal, timed out, or never started (inject: `None`).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub duration: Duration,
    /// Why it did not run to its end (cannot start, timed out).
    pub error: Option<String>,
    pub outcome: HookOutcome,
}

impl HookRun {
    fn not_run(error: String, started: Instant) -> HookRun {
        HookRun {
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
            duration: started.elapsed(),
            outcome: HookOutcome::failed(error.clone()),
            error: Some(error),
        }
    }
}

/// Runs a hook for `input`: a command as described in the module doc; an inject
/// action runs nothing and returns [`outcome_of_inject`].
pub async fn run(spec: &HookSpec, input: &HookInput, env: &HookEnv) -> HookRun {
    match &spec.action {
        HookAction::Inject { text } => HookRun {
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
            duration: Duration::ZERO,
            error: None,
            outcome: outcome_of_inject(text),
        },
        HookAction::Command { command, timeout } => {
            let run = run_command(command, *timeout, input, env).await;
            tracing::debug!(
                hook = %spec.id(),
                event = %input.event(),
                exit_code = ?run.exit_code,
                timed_out = run.timed_out,
                ms = run.duration.as_millis() as u64,
                "hook ran"
            );
            run
        }
    }
}

/// The variables a hook gets on top of [`HookEnv::vars`] (empty when the event has
/// no such value).
pub fn hook_vars(input: &HookInput, env: &HookEnv) -> Vec<(&'static str, String)> {
    let project = env.project_dir.to_string_lossy().into_owned();
    let file_path = input
        .tool_input_str("file_path")
        .or_else(|| input.tool_input_str("notebook_path"));
    vec![
        ("HOOK_EVENT", input.event().as_str().to_string()),
        ("TOOL", input.tool_name().unwrap_or_default().to_string()),
        ("FILE_PATH", file_path.unwrap_or_default().to_string()),
        (
            "COMMAND",
            input
                .tool_input_str("command")
                .unwrap_or_default()
                .to_string(),
        ),
        ("SESSION_ID", input.context().session_id.clone()),
        ("CWD", input.context().cwd.to_string_lossy().into_owned()),
        ("ROOCODE_PROJECT_DIR", project.clone()),
        ("CLAUDE_PROJECT_DIR", project),
    ]
}

async fn run_command(
    command: &str,
    timeout: Duration,
    input: &HookInput,
    env: &HookEnv,
) -> HookRun {
    let started = Instant::now();
    // One line, ended by a newline (shell `read` wants one).
    let payload = format!("{}\n", input.to_json()).into_bytes();
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(&env.cwd)
        .env_clear()
        .envs(&env.vars)
        .envs(hook_vars(input, env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            return HookRun::not_run(
                format!(
                    "cannot start `sh -c {command}` in {}: {e}",
                    env.cwd.display()
                ),
                started,
            );
        }
    };
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw);
    let mut guard = GroupGuard(group);
    let writer = child.stdin.take().map(|mut stdin| {
        tokio::spawn(async move {
            // A hook that exits without reading closes the pipe: EPIPE is fine.
            let _ = stdin.write_all(&payload).await;
            let _ = stdin.shutdown().await;
        })
    });
    let mut stdout = Capture::start(child.stdout.take());
    let mut stderr = Capture::start(child.stderr.take());
    let deadline = tokio::time::Instant::from_std(started + timeout);

    let mut exit_code = None;
    let mut timed_out = false;
    let mut error = None;
    let mut notes = Vec::new();
    match tokio::time::timeout_at(deadline, child.wait()).await {
        Ok(Ok(status)) => {
            exit_code = status.code();
            let drained = tokio::time::timeout_at(deadline, async {
                stdout.finished().await;
                stderr.finished().await;
            })
            .await;
            if drained.is_err() {
                stop_group(group, &mut child).await;
                notes.push(
                    "(a process the hook left running kept its output open until the timeout; it was killed)",
                );
            }
        }
        Ok(Err(e)) => {
            error = Some(format!("waiting for the hook failed: {e}"));
            stop_group(group, &mut child).await;
        }
        Err(_) => {
            timed_out = true;
            error = Some(format!(
                "timed out after {} and was killed",
                format_duration(timeout)
            ));
            stop_group(group, &mut child).await;
        }
    }
    if exit_code.is_none() || !notes.is_empty() {
        let _ = tokio::time::timeout(DRAIN_AFTER_KILL, async {
            stdout.finished().await;
            stderr.finished().await;
        })
        .await;
    }
    // Done: what the hook deliberately left running (not holding its output) stays.
    guard.0 = None;
    if let Some(writer) = writer {
        writer.abort();
    }
    let stdout = stdout.take();
    let mut stderr = stderr.take();
    for note in notes {
        if !stderr.is_empty() && !stderr.ends_with('\n') {
            stderr.push('\n');
        }
        stderr.push_str(note);
    }
    let outcome = match &error {
        Some(e) => HookOutcome::failed(e.clone()),
        None => HookOutcome::from_output(input.event(), exit_code, &stdout, &stderr),
    };
    HookRun {
        exit_code,
        stdout,
        stderr,
        timed_out,
        duration: started.elapsed(),
        error,
        outcome,
    }
}

/// Kills the process group when a run is dropped before its end (the turn was
/// cancelled): `kill_on_drop` alone would reach only the shell, not its children.
struct GroupGuard(Option<Pid>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(group) = self.0 {
            let _ = killpg(group, Signal::SIGKILL);
        }
    }
}

/// SIGTERM to the group, SIGKILL after [`KILL_GRACE`], then reaps the leader.
async fn stop_group(group: Option<Pid>, child: &mut Child) {
    let Some(group) = group else {
        let _ = child.kill().await;
        return;
    };
    // ESRCH (the group is already gone) is fine.
    let _ = killpg(group, Signal::SIGTERM);
    let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
    // Members that ignored SIGTERM (or the leader's children) go now.
    let _ = killpg(group, Signal::SIGKILL);
    let _ = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
}

fn format_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// One output pipe read to its end by its own task, keeping the first [`OUTPUT_CAP`]
/// bytes.
struct Capture {
    state: Arc<Mutex<Captured>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    total: usize,
}

impl Capture {
    fn start<R: AsyncRead + Unpin + Send + 'static>(pipe: Option<R>) -> Capture {
        let state = Arc::new(Mutex::new(Captured::default()));
        let task = pipe.map(|mut pipe| {
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                loop {
                    match pipe.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                            let room = OUTPUT_CAP.saturating_sub(s.bytes.len());
                            s.bytes.extend_from_slice(&buf[..n.min(room)]);
                            s.total += n;
                        }
                    }
                }
            })
        });
        Capture { state, task }
    }

    /// Waits until the pipe reached its end (at once when there was no pipe).
    async fn finished(&mut self) {
        if let Some(task) = &mut self.task {
            let _ = task.await;
            self.task = None;
        }
    }

    /// What was read, as text (lossy UTF-8), with a note when it was cut. Stops the
    /// reader if it is still running.
    fn take(self) -> String {
        if let Some(task) = &self.task {
            task.abort();
        }
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::from_utf8_lossy(&s.bytes).into_owned();
        if s.total > s.bytes.len() {
            text.push_str(&format!(
                "\n[output cut: {} bytes, the first {} kept]",
                s.total,
                s.bytes.len()
            ));
        }
        text
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
