//! Processes: spawning a command in its own process group with stdout and stderr on one
//! pipe, pumping that pipe into a [`HeadTail`] (and live progress), and killing whole
//! process groups (SIGTERM, then SIGKILL after a grace period).
//!
//! A group counts as gone when none of its members is alive: zombies (orphaned
//! grandchildren waiting for PID 1 to reap them) do not count. On Linux this is read
//! from `/proc`; elsewhere `killpg(pgid, 0)` is the (zombie-blind) fallback.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt as _;
use tokio::net::unix::pipe;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::launch::Launch;
use super::output::{HeadTail, Utf8Decoder};
use crate::tools::ProgressFn;

/// How long a group gets to exit after SIGTERM before it is sent SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(2);
/// How long to wait for a group to disappear after SIGKILL.
const KILL_WAIT: Duration = Duration::from_secs(2);
/// How long output may keep arriving after the command's group is gone.
const DRAIN_WAIT: Duration = Duration::from_millis(500);
/// Reads (of up to 16 KiB) done after a pump is told to stop.
const STOP_DRAIN_READS: usize = 64;
/// Live output is sent in batches at most this often.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// Live output stops after this many characters (the result still has head and tail).
const PROGRESS_LIMIT: usize = 100_000;

/// Records every process group a tool spawns, so that a daemon restarting after a crash
/// can kill the groups its predecessor left running (with [`kill_group`]).
pub trait ProcessRecorder: Send + Sync {
    /// A group was spawned for `command`; its id is the shell's pid.
    fn started(&self, pgid: i32, command: &str);
    /// The group is gone (or was killed and is being reaped).
    fn finished(&self, pgid: i32);
}

impl std::fmt::Debug for dyn ProcessRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProcessRecorder")
    }
}

/// What the shell runs.
pub(crate) enum Script<'a> {
    /// The command, then the shell's physical working directory written to `cwd_file`;
    /// the command's exit status is kept.
    Tracked {
        command: &'a str,
        cwd_file: &'a Path,
    },
    /// The command alone.
    Plain(&'a str),
    /// A program and its arguments, run as they are (no shell parses them), with
    /// `stdin` on its standard input (a skill's tool, see `crate::tools::skill_command`).
    Exec { argv: &'a [String], stdin: &'a Path },
}

/// The wrapper of [`Script::Tracked`]: `$1` is the command, `$2` the file. The command
/// goes through `eval` so that it is parsed exactly as typed (no quoting needed) and
/// sees no positional parameters.
const TRACKED_WRAPPER: &str = "__roo_cmd=$1 __roo_cwd=$2; set --; eval \"$__roo_cmd\"; \
__roo_status=$?; pwd -P >| \"$__roo_cwd\" 2>/dev/null; exit $__roo_status";

/// The wrapper of [`Script::Exec`]: `$1` is the input file, the rest the argument
/// vector, which `exec` runs without parsing it again.
const EXEC_WRAPPER: &str = "__roo_in=$1; shift; exec \"$@\" <\"$__roo_in\"";

/// A running command.
pub(crate) struct Spawned {
    pub child: tokio::process::Child,
    /// Its process group id (the shell's pid).
    pub pgid: i32,
    /// Read end of the pipe its stdout and stderr share.
    pub output: pipe::Receiver,
}

/// Start `script` in `dir` with exactly `launch.env` as environment, stdin on /dev/null,
/// in a new process group, inside the launch's sandbox wrapper when it has one. The
/// wrapper (bwrap, or the Landlock helper) leads the group and the shell inherits it,
/// so the recorded group is still the command's.
pub(crate) fn spawn(script: Script<'_>, dir: &Path, launch: &Launch) -> io::Result<Spawned> {
    let env = &launch.env;
    let shell = find_shell(env.get("PATH").map(OsStr::new), WELL_KNOWN_DIRS)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "neither bash nor sh found"))?;
    let mut cmd = match launch.wrapper(dir)? {
        Some((program, args)) => {
            let mut cmd = tokio::process::Command::new(program);
            cmd.args(args).arg(&shell);
            cmd
        }
        None => tokio::process::Command::new(&shell),
    };
    cmd.arg("-c");
    match script {
        Script::Tracked { command, cwd_file } => {
            cmd.arg(TRACKED_WRAPPER)
                .arg(shell.file_name().unwrap_or(shell.as_os_str()))
                .arg(command)
                .arg(cwd_file);
        }
        Script::Plain(command) => {
            cmd.arg(command);
        }
        Script::Exec { argv, stdin } => {
            cmd.arg(EXEC_WRAPPER)
                .arg(shell.file_name().unwrap_or(shell.as_os_str()))
                .arg(stdin)
                .args(argv);
        }
    }
    // One pipe for both streams keeps their arrival order.
    let (writer, reader) = pipe::pipe()?;
    let stdout = writer.into_blocking_fd()?;
    let stderr = stdout.try_clone()?;
    cmd.current_dir(dir)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .kill_on_drop(true);
    let child = cmd.spawn()?;
    // The command holds our copies of the write end; without dropping it the pipe
    // would never reach end-of-file.
    drop(cmd);
    let pgid = child
        .id()
        .and_then(|pid| i32::try_from(pid).ok())
        .ok_or_else(|| io::Error::other("the shell exited before its pid was known"))?;
    Ok(Spawned {
        child,
        pgid,
        output: reader,
    })
}

/// Where bash and sh are looked for when `PATH` does not have them.
const WELL_KNOWN_DIRS: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin"];

/// bash from `path` or the well-known directories, else sh from the same places.
pub(crate) fn find_shell(path: Option<&OsStr>, well_known: &[&str]) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = path
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    dirs.extend(well_known.iter().map(PathBuf::from));
    ["bash", "sh"].into_iter().find_map(|name| {
        dirs.iter()
            .filter(|d| d.is_absolute())
            .map(|d| d.join(name))
            .find(|p| is_executable(p))
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Copy the pipe into `capture` (and, throttled, to `progress`) until end-of-file or
/// until `stop` is cancelled and the pipe has nothing more to read right now.
pub(crate) async fn pump(
    mut output: pipe::Receiver,
    capture: Arc<Mutex<HeadTail>>,
    progress: Option<ProgressFn>,
    stop: CancellationToken,
) {
    let mut decoder = Utf8Decoder::default();
    let mut live = Live::new(progress);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let flush_at = live.flush_at();
        tokio::select! {
            biased;
            () = stop.cancelled() => {
                // Keep what is already in the pipe, without waiting for more, and send
                // no more live output: the call is over.
                for _ in 0..STOP_DRAIN_READS {
                    match output.try_read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => lock(&capture).push(&decoder.decode(&buf[..n])),
                    }
                }
                lock(&capture).push(&decoder.finish());
                return;
            }
            read = output.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let text = decoder.decode(&buf[..n]);
                    lock(&capture).push(&text);
                    live.push(&text);
                }
            },
            () = tokio::time::sleep_until(flush_at.unwrap_or_else(Instant::now)), if flush_at.is_some() => {
                live.flush();
            }
        }
    }
    let rest = decoder.finish();
    lock(&capture).push(&rest);
    live.push(&rest);
    live.flush();
}

/// Wait for a [`pump`] to reach end-of-file once the command's group is gone. Only a
/// process that left the group (`setsid`) can still hold the pipe open; after a short
/// wait the pump is stopped instead.
pub(crate) async fn finish_pump(mut pump: tokio::task::JoinHandle<()>, stop: CancellationToken) {
    if tokio::time::timeout(DRAIN_WAIT, &mut pump).await.is_err() {
        stop.cancel();
        let _ = pump.await;
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every critical section is a single push or take: a panic cannot leave the data
    // half-updated, so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Throttled live output.
struct Live {
    progress: Option<ProgressFn>,
    pending: String,
    last_emit: Option<Instant>,
    emitted: usize,
    capped: bool,
}

impl Live {
    fn new(progress: Option<ProgressFn>) -> Self {
        Self {
            progress,
            pending: String::new(),
            last_emit: None,
            emitted: 0,
            capped: false,
        }
    }

    fn push(&mut self, text: &str) {
        if self.progress.is_none() || self.capped || text.is_empty() {
            return;
        }
        self.pending.push_str(text);
        if self.flush_at().is_some_and(|at| at <= Instant::now()) {
            self.flush();
        }
    }

    /// When the pending text is due, if there is any.
    fn flush_at(&self) -> Option<Instant> {
        if self.pending.is_empty() {
            return None;
        }
        Some(match self.last_emit {
            Some(last) => last + PROGRESS_INTERVAL,
            None => Instant::now(),
        })
    }

    fn flush(&mut self) {
        let Some(progress) = &self.progress else {
            return;
        };
        if self.pending.is_empty() {
            return;
        }
        let mut text = std::mem::take(&mut self.pending);
        self.emitted += text.chars().count();
        if self.emitted > PROGRESS_LIMIT {
            self.capped = true;
            text.push_str(
                "\n[live output stops here; the result will show the beginning and the end]\n",
            );
        }
        progress.emit(&text);
        self.last_emit = Some(Instant::now());
    }
}

/// Send `signal` to group `pgid`; false if there is no such group. Refuses group ids
/// that would hit init, every process, or the daemon's own group.
fn signal_group(pgid: i32, signal: Option<Signal>) -> bool {
    if pgid <= 1 || nix::unistd::getpgrp().as_raw() == pgid {
        return false;
    }
    killpg(Pid::from_raw(pgid), signal).is_ok()
}

/// True while some member of group `pgid` is alive (zombies do not count).
pub(crate) fn group_alive(pgid: i32) -> bool {
    match live_members(pgid) {
        Some(n) => n > 0,
        None => signal_group(pgid, None),
    }
}

/// Number of live (non-zombie) processes in group `pgid`, from `/proc`; None where
/// `/proc` cannot be read.
pub(crate) fn live_members(pgid: i32) -> Option<usize> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut count = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        {
            continue;
        }
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, after)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = after.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|f| f.parse::<i32>().ok());
        if pgrp == Some(pgid) && !matches!(state, Some("Z" | "X")) {
            count += 1;
        }
    }
    Some(count)
}

/// Kill process group `pgid` and wait until it is gone: SIGTERM, then SIGKILL if it is
/// still alive after a grace period. Returns at once if the group does not exist.
pub async fn terminate_group(pgid: i32) {
    if !group_alive(pgid) || !signal_group(pgid, Some(Signal::SIGTERM)) {
        return;
    }
    if wait_gone(pgid, TERM_GRACE).await {
        return;
    }
    signal_group(pgid, Some(Signal::SIGKILL));
    wait_gone(pgid, KILL_WAIT).await;
}

async fn wait_gone(pgid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(2);
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Blocking form of [`terminate_group`], for recovery after a crash (the daemon kills
/// the groups its store says were left running) and for clean-up outside async code.
/// Blocks for up to a few seconds; from async code prefer [`terminate_group`] or
/// `spawn_blocking`.
pub fn kill_group(pgid: i32) {
    if !group_alive(pgid) || !signal_group(pgid, Some(Signal::SIGTERM)) {
        return;
    }
    if wait_gone_blocking(pgid, TERM_GRACE) {
        return;
    }
    signal_group(pgid, Some(Signal::SIGKILL));
    wait_gone_blocking(pgid, KILL_WAIT);
}

fn wait_gone_blocking(pgid: i32, limit: Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    let mut pause = Duration::from_millis(2);
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Kill group `pgid` from a detached thread (SIGTERM now, SIGKILL after the grace
/// period), then run `after`. For `Drop` implementations, which cannot wait.
pub(crate) fn kill_group_detached(pgid: i32, after: impl FnOnce() + Send + 'static) {
    signal_group(pgid, Some(Signal::SIGTERM));
    let spawned = std::thread::Builder::new()
        .name(format!("roocode-kill-{pgid}"))
        .spawn(move || {
            kill_group(pgid);
            after();
        });
    if spawned.is_err() {
        // No thread to wait with: no grace period either.
        signal_group(pgid, Some(Signal::SIGKILL));
    }
}

/// Kills a foreground command's group if the future running it is dropped (the agent
/// loop drops a tool call's future when the user cancels), and reports the end of the
/// group to the [`ProcessRecorder`].
pub(crate) struct GroupGuard {
    pgid: i32,
    recorder: Option<Arc<dyn ProcessRecorder>>,
    armed: bool,
}

impl GroupGuard {
    /// Records the start of group `pgid`.
    pub(crate) fn new(
        pgid: i32,
        command: &str,
        recorder: Option<Arc<dyn ProcessRecorder>>,
    ) -> Self {
        if let Some(r) = &recorder {
            r.started(pgid, command);
        }
        Self {
            pgid,
            recorder,
            armed: true,
        }
    }

    /// The group is gone: record that, and do nothing on drop.
    pub(crate) fn finish(mut self) {
        self.armed = false;
        if let Some(r) = self.recorder.take() {
            r.finished(self.pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let pgid = self.pgid;
        let recorder = self.recorder.take();
        kill_group_detached(pgid, move || {
            if let Some(r) = recorder {
                r.finished(pgid);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_lookup_prefers_bash_and_falls_back_to_sh() {
        let dir = tempfile::tempdir().unwrap();
        let only_sh = dir.path().join("only-sh");
        std::fs::create_dir(&only_sh).unwrap();
        let sh = ["/bin/sh", "/usr/bin/sh"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .unwrap();
        std::os::unix::fs::symlink(&sh, only_sh.join("sh")).unwrap();
        let path = only_sh.as_os_str();
        assert_eq!(find_shell(Some(path), &[]), Some(only_sh.join("sh")));
        let with_bash = find_shell(Some(path), &["/bin", "/usr/bin"]).unwrap();
        assert_eq!(with_bash.file_name().unwrap(), "bash");
        assert_eq!(find_shell(Some(OsStr::new("relative:")), &[]), None);
    }

    #[test]
    fn refuses_dangerous_group_ids() {
        assert!(!signal_group(0, None));
        assert!(!signal_group(1, None));
        assert!(!signal_group(-5, None));
        assert!(!signal_group(nix::unistd::getpgrp().as_raw(), None));
        // Does not block or panic on a group that does not exist.
        kill_group(i32::MAX);
    }
}
