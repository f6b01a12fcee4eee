//! A foreground `Bash` call: run the command to its end (or its timeout, or the user's
//! cancel), with live output, then shape the result and remember the directory the
//! shell ended in.

use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::background::signal_name;
use super::launch::Launch;
use super::output::HeadTail;
use super::process::{
    GroupGuard, Script, Spawned, finish_pump, lock, pump, spawn, terminate_group,
};
use crate::tools::{ToolContext, ToolError, ToolOutput};

/// How long to wait for the killed shell to be reaped.
const REAP_WAIT: Duration = Duration::from_secs(2);

pub(super) enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    WaitFailed(std::io::Error),
}

/// Run `command` in the session's shell directory and wait for it.
/// `unconfined`: the call's `dangerously_disable_sandbox` (already approved).
pub(crate) async fn run(
    ctx: &ToolContext,
    command: &str,
    timeout: Duration,
    unconfined: bool,
) -> Result<ToolOutput, ToolError> {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let launch = Launch::new(ctx, unconfined)?;
    let (dir, start_note) = ctx.shell.start_dir(ctx);
    let cwd_file = ctx.shell.cwd_file().map_err(|e| {
        ToolError::Failed(format!("Cannot create a temporary file for the shell: {e}"))
    })?;
    let _remove = RemoveOnDrop(cwd_file.clone());
    let script = Script::Tracked {
        command,
        cwd_file: &cwd_file,
    };
    let spawned = spawn(script, &dir, &launch)
        .map_err(|e| ToolError::Failed(format!("Cannot start the shell: {e}")))?;
    let (ending, rendered) = supervise(ctx, spawned, command, timeout).await;
    let mut notes: Vec<String> = start_note.into_iter().collect();
    if let Ending::Exited(_) = ending
        && let Some(dir) = reported_dir(&cwd_file)
    {
        notes.extend(ctx.shell.settle_dir(dir, ctx));
    }
    shape(ending, rendered, notes, timeout, &launch, &dir)
}

/// Waits for a spawned command (recorded as `label`) to end, time out or be cancelled,
/// with live output; stops what it left running in its group. The ending and the
/// command's output, head and tail.
pub(super) async fn supervise(
    ctx: &ToolContext,
    spawned: Spawned,
    label: &str,
    timeout: Duration,
) -> (Ending, String) {
    let Spawned {
        mut child,
        pgid,
        output,
    } = spawned;
    let guard = GroupGuard::new(pgid, label, ctx.processes.clone());
    let capture = Arc::new(Mutex::new(HeadTail::default()));
    let stop = CancellationToken::new();
    // If this future is dropped, the pump stops too (the guard kills the group).
    let _stop_pump = stop.clone().drop_guard();
    let pumping = tokio::spawn(pump(
        output,
        capture.clone(),
        ctx.progress.clone(),
        stop.clone(),
    ));

    let ending = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => Ending::Exited(status),
            Err(e) => Ending::WaitFailed(e),
        },
        () = tokio::time::sleep(timeout) => Ending::TimedOut,
        () = ctx.cancel.cancelled() => Ending::Cancelled,
    };
    // After a normal exit this stops what the command left running in its group.
    terminate_group(pgid).await;
    if !matches!(ending, Ending::Exited(_)) {
        let _ = tokio::time::timeout(REAP_WAIT, child.wait()).await;
    }
    guard.finish();
    finish_pump(pumping, stop).await;
    let rendered = lock(&capture).render();
    (ending, rendered)
}

/// The result of a command that ended so, its output `rendered`, with `notes` after
/// it: an error for a non-zero exit, a signal or a timeout (with the sandbox's likely
/// part in a failure, when it has one).
pub(super) fn shape(
    ending: Ending,
    rendered: String,
    mut notes: Vec<String>,
    timeout: Duration,
    launch: &Launch,
    dir: &Path,
) -> Result<ToolOutput, ToolError> {
    let is_error = match ending {
        Ending::Cancelled => return Err(ToolError::Cancelled),
        Ending::WaitFailed(e) => {
            return Err(ToolError::Failed(format!("Lost track of the command: {e}")));
        }
        Ending::TimedOut => {
            notes.push(format!(
                "Command timed out after {}; it and every process it started were killed.",
                human(timeout)
            ));
            true
        }
        Ending::Exited(status) => match (status.code(), status.signal()) {
            (Some(0), _) => false,
            (Some(code), _) => {
                notes.insert(0, format!("Exit code: {code}"));
                true
            }
            (None, Some(signal)) => {
                notes.insert(0, format!("Killed by {}", signal_name(signal)));
                true
            }
            (None, None) => false,
        },
    };
    if is_error {
        notes.extend(launch.failure_note(&rendered, dir));
    }
    let mut content = rendered.trim_end_matches(['\n', '\r']).to_string();
    if content.trim().is_empty() {
        content = "(no output)".to_string();
    }
    for note in notes {
        content.push_str("\n\n");
        content.push_str(&note);
    }
    Ok(if is_error {
        ToolOutput::error(content)
    } else {
        ToolOutput::text(content)
    })
}

/// Longest directory report read back (a path, far below this).
const CWD_REPORT_LIMIT: u64 = 64 * 1024;

/// The directory the wrapper wrote after the command, if it got that far.
///
/// The command can see and replace this file (it lives in the session's writable
/// scratch directory), so it is read as an untrusted regular file: never through a
/// symlink (the daemon would read, and the result show, a file the sandbox hides),
/// never a FIFO or device (the read would block the daemon), and only its first
/// 64 KiB.
fn reported_dir(cwd_file: &Path) -> Option<PathBuf> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let flags = nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits())
        .open(cwd_file)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(CWD_REPORT_LIMIT).read_to_string(&mut text).ok()?;
    let dir = text.trim_end_matches('\n');
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

/// `500 ms`, `90 s`, `2 min`.
fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if !ms.is_multiple_of(1000) {
        format!("{ms} ms")
    } else if !ms.is_multiple_of(60_000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{} min", ms / 60_000)
    }
}

pub(super) struct RemoveOnDrop(pub(super) PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_report_is_never_read_through_a_link_or_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "/a/secret/line\n").unwrap();
        let report = dir.path().join("cwd-0");
        std::os::unix::fs::symlink(&secret, &report).unwrap();
        assert_eq!(reported_dir(&report), None);
        std::fs::remove_file(&report).unwrap();
        nix::unistd::mkfifo(&report, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(reported_dir(&report), None, "and it did not block");
        std::fs::remove_file(&report).unwrap();
        std::fs::write(&report, "/some/dir\n").unwrap();
        assert_eq!(reported_dir(&report), Some(PathBuf::from("/some/dir")));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(Duration::from_millis(500)), "500 ms");
        assert_eq!(human(Duration::from_millis(1500)), "1500 ms");
        assert_eq!(human(Duration::from_secs(90)), "90 s");
        assert_eq!(human(Duration::from_secs(120)), "2 min");
    }
}
