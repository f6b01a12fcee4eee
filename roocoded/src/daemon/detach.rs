//! Leaving the caller behind: the daemon outlives whoever started it, so it must not
//! keep anything of theirs. [`close_inherited_descriptors`] closes every descriptor
//! above stderr (a caller waiting for end-of-file on a pipe it passed down would
//! otherwise wait forever); [`leave_caller`] starts a new session, moves to `/` (so
//! the caller's directory can be unmounted or deleted) and, when detached, points
//! stdin at `/dev/null` and stdout/stderr at the daemon's log.
//!
//! All of it runs in the synchronous `main`, before the tokio runtime exists: no other
//! thread can own a descriptor yet, and `setsid` must precede any thread.

use std::fs::OpenOptions;
use std::path::Path;

use super::DaemonError;

/// Closes every file descriptor above 2. Call first thing in `main`.
#[allow(unsafe_code)]
pub fn close_inherited_descriptors() {
    // SAFETY: called before anything in this process has opened a descriptor of its
    // own (first statement of `main`, one thread): every descriptor above 2 was
    // inherited and is owned by nothing in this process, so closing it cannot break
    // the I/O safety of any owner. close_range(2) takes plain integers (called as a raw
    // syscall: not every libc wraps it).
    let r = unsafe { nix::libc::syscall(nix::libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    if r == 0 {
        return;
    }
    // Kernels before 5.9 lack close_range: close what /proc lists instead.
    let fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
                .filter(|fd| *fd > 2)
                .collect()
        })
        .unwrap_or_default();
    for fd in fds {
        // SAFETY: as above; the directory's own descriptor is closed already, so at
        // worst this returns EBADF.
        unsafe {
            nix::libc::close(fd);
        }
    }
}

/// Detaches from the caller: a new session (background only), `/` as the working
/// directory, and in the background stdin from `/dev/null` and stdout/stderr to `log`
/// (appended), so a panic message still reaches the log.
pub fn leave_caller(foreground: bool, log: &Path) -> Result<(), DaemonError> {
    if !foreground {
        // Fails only when we already lead a process group: then we are detached enough.
        let _ = nix::unistd::setsid();
    }
    nix::unistd::chdir("/").map_err(|e| DaemonError::Io {
        what: "change to the root directory".into(),
        source: e.into(),
    })?;
    if foreground {
        return Ok(());
    }
    let null = OpenOptions::new()
        .read(true)
        .open("/dev/null")
        .map_err(|source| DaemonError::Io {
            what: "open /dev/null".into(),
            source,
        })?;
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(|source| DaemonError::Io {
            what: format!("create the log directory {}", dir.display()),
            source,
        })?;
    }
    let out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|source| DaemonError::Io {
            what: format!("open the log file {}", log.display()),
            source,
        })?;
    let redirect = |r: nix::Result<()>, what: &str| {
        r.map_err(|e| DaemonError::Io {
            what: format!("redirect {what}"),
            source: e.into(),
        })
    };
    redirect(nix::unistd::dup2_stdin(&null), "stdin to /dev/null")?;
    redirect(nix::unistd::dup2_stdout(&out), "stdout to the log")?;
    redirect(nix::unistd::dup2_stderr(&out), "stderr to the log")?;
    Ok(())
}
