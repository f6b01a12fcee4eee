//! Waiting for a daemon process to exit, for `daemon stop|restart`: poll(2) on a pidfd
//! (Linux 5.3+), which becomes readable the moment the process exits, so `stop` returns
//! as soon as the daemon is gone rather than at the next tick of a timer. Where pidfds are
//! unavailable it falls back to checking the process every few milliseconds. The wait
//! is bounded: `ROOCODE_STOP_TIMEOUT_SECS` (default 30).

use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::kill;
use nix::unistd::Pid;
use rustix::process::{PidfdFlags, pidfd_open};

/// Default bound of the wait, and the variable that changes it.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
pub const TIMEOUT_VAR: &str = "ROOCODE_STOP_TIMEOUT_SECS";

/// Check interval of the fallback.
const FALLBACK_TICK: Duration = Duration::from_millis(5);

/// How long `stop` waits for the daemon to exit.
pub fn timeout() -> Duration {
    std::env::var(TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
}

/// Returns `true` once process `pid` has exited (a zombie not yet reaped counts as
/// exited), `false` when `limit` passed first.
pub async fn wait(pid: u32, limit: Duration) -> bool {
    let Some(raw) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return true;
    };
    match pidfd_open(raw, PidfdFlags::empty()) {
        // poll(2) is blocking: give it a thread of the blocking pool.
        Ok(fd) => tokio::task::spawn_blocking(move || readable_within(&fd, limit))
            .await
            .unwrap_or(false),
        // No such process: it is gone already.
        Err(e) if e == rustix::io::Errno::SRCH => true,
        // Old kernel, seccomp, …: look every few milliseconds.
        Err(_) => tokio::time::timeout(limit, poll_exit(pid)).await.is_ok(),
    }
}

/// Whether `fd` (a pidfd: readable once its process exits) becomes readable in `limit`.
fn readable_within(fd: &OwnedFd, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
        let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(0) => return false,
            Ok(_) => return true,
            Err(Errno::EINTR) if !left.is_zero() => continue,
            Err(_) => return false,
        }
    }
}

async fn poll_exit(pid: u32) {
    while alive(pid) {
        tokio::time::sleep(FALLBACK_TICK).await;
    }
}

/// Whether the process exists and is not a zombie waiting to be reaped.
pub fn alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    match kill(Pid::from_raw(raw), None) {
        Err(Errno::ESRCH) => false,
        _ => !is_zombie(pid),
    }
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The state follows the parenthesised command name, which may hold spaces.
            let after = stat.rfind(')').map(|i| &stat[i + 1..])?;
            after
                .split_whitespace()
                .next()
                .map(|s| s == "Z" || s == "X")
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_process_is_alive_and_a_free_pid_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX));
    }

    #[tokio::test]
    async fn the_wait_ends_when_the_process_exits_and_not_before() {
        let mut child = tokio::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        assert!(!wait(pid, Duration::from_millis(50)).await, "still running");
        child.start_kill().unwrap();
        // Not reaped yet: a zombie counts as exited.
        assert!(wait(pid, Duration::from_secs(10)).await);
        child.wait().await.unwrap();
        assert!(wait(pid, Duration::from_millis(1)).await, "gone");
    }
}
