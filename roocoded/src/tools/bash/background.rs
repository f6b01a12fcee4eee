//! Background shells (`Bash` with `run_in_background`): a command started in its own
//! process group whose output accumulates in memory until `BashOutput` reads it, with
//! a status that `KillShell`, [`super::ShellState::kill_all`] or its own exit change.

use std::fmt;
use std::os::unix::process::ExitStatusExt as _;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::launch::Launch;
use super::output::HeadTail;
use super::process::{
    GroupGuard, Script, finish_pump, kill_group_detached, lock, pump, spawn, terminate_group,
};
use crate::tools::{ToolContext, ToolError};

/// How long a kill waits for the shell's own task to record the end.
const STATUS_WAIT: Duration = Duration::from_secs(5);

/// What a background shell is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShellStatus {
    Running,
    Exited(i32),
    /// Ended by a signal nobody here sent.
    Signaled(i32),
    /// Stopped by `KillShell` or the end of the session.
    Killed,
}

impl ShellStatus {
    pub(crate) fn is_running(self) -> bool {
        self == Self::Running
    }

    pub(crate) fn of(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => Self::Exited(code),
            (None, Some(signal)) => Self::Signaled(signal),
            (None, None) => Self::Killed,
        }
    }
}

impl fmt::Display for ShellStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Running => f.write_str("running"),
            Self::Exited(code) => write!(f, "exited with code {code}"),
            Self::Signaled(signal) => write!(f, "terminated by {}", signal_name(*signal)),
            Self::Killed => f.write_str("killed"),
        }
    }
}

/// `signal 9 (SIGKILL)`.
pub(crate) fn signal_name(signal: i32) -> String {
    match nix::sys::signal::Signal::try_from(signal) {
        Ok(s) => format!("signal {signal} ({})", s.as_str()),
        Err(_) => format!("signal {signal}"),
    }
}

/// One background shell.
#[derive(Debug)]
pub(crate) struct BackgroundShell {
    pub(crate) id: String,
    pub(crate) command: String,
    pub(crate) pgid: i32,
    /// Output not yet read by `BashOutput`.
    unread: Arc<Mutex<HeadTail>>,
    status: watch::Sender<ShellStatus>,
    kill_requested: AtomicBool,
}

impl BackgroundShell {
    pub(crate) fn status(&self) -> ShellStatus {
        *self.status.borrow()
    }

    /// The status, and the output produced since the previous read (empty if none).
    /// The status is taken first: once it is no longer running, all output is in.
    pub(crate) fn read(&self) -> (ShellStatus, String) {
        let status = self.status();
        let unread = lock(&self.unread).take();
        let text = if unread.is_empty() {
            String::new()
        } else {
            unread.render()
        };
        (status, text)
    }

    /// Kill the whole group and wait for the end to be recorded. False if it had
    /// already ended.
    pub(crate) async fn kill(&self) -> bool {
        if !self.status().is_running() {
            return false;
        }
        self.kill_requested.store(true, Ordering::SeqCst);
        terminate_group(self.pgid).await;
        let mut rx = self.status.subscribe();
        let _ = tokio::time::timeout(STATUS_WAIT, rx.wait_for(|s| !s.is_running())).await;
        true
    }

    /// Kill the group without waiting (for `Drop`).
    pub(crate) fn kill_detached(&self) {
        if self.status().is_running() {
            self.kill_requested.store(true, Ordering::SeqCst);
            kill_group_detached(self.pgid, || {});
        }
    }
}

/// Start `command` in the background in the session's current directory and register
/// it in the session's [`super::ShellState`].
/// `unconfined`: the call's `dangerously_disable_sandbox` (already approved).
pub(crate) fn start(
    ctx: &ToolContext,
    command: &str,
    unconfined: bool,
) -> Result<Arc<BackgroundShell>, ToolError> {
    let launch = Launch::new(ctx, unconfined)?;
    let (dir, _) = ctx.shell.start_dir(ctx);
    let spawned = spawn(Script::Plain(command), &dir, &launch)
        .map_err(|e| ToolError::Failed(format!("Cannot start the command: {e}")))?;
    let guard = GroupGuard::new(spawned.pgid, command, ctx.processes.clone());
    let shell = Arc::new(BackgroundShell {
        id: ctx.shell.next_id(),
        command: command.to_string(),
        pgid: spawned.pgid,
        unread: Arc::new(Mutex::new(HeadTail::default())),
        status: watch::Sender::new(ShellStatus::Running),
        kill_requested: AtomicBool::new(false),
    });
    ctx.shell.insert(shell.clone());
    let stop = CancellationToken::new();
    let pumping = tokio::spawn(pump(
        spawned.output,
        shell.unread.clone(),
        None,
        stop.clone(),
    ));
    let mut child = spawned.child;
    let driven = shell.clone();
    tokio::spawn(async move {
        let exit = child.wait().await;
        // Whatever the shell left running in its group goes with it.
        terminate_group(driven.pgid).await;
        guard.finish();
        finish_pump(pumping, stop).await;
        let status = match exit {
            _ if driven.kill_requested.load(Ordering::SeqCst) => ShellStatus::Killed,
            Ok(status) => ShellStatus::of(status),
            Err(_) => ShellStatus::Killed,
        };
        driven.status.send_replace(status);
    });
    Ok(shell)
}
