//! The daemon's socket: a 0700 directory, the single-instance lock, removal of a
//! stale socket (only by the lock holder), binding with mode 0600, and removal on drop.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use tokio::net::UnixListener;

use super::DaemonError;

/// The bound socket and the lock that makes this daemon the only one.
pub struct BoundSocket {
    pub listener: UnixListener,
    path: PathBuf,
    _lock: Flock<File>,
}

impl Drop for BoundSocket {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Creates `dir` with mode 0700 (tightening it if it exists and is ours).
pub fn private_dir(dir: &Path) -> Result<(), DaemonError> {
    let io = |source| DaemonError::Io {
        what: format!("create the socket directory {}", dir.display()),
        source,
    };
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io)?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io)?;
    Ok(())
}

/// Takes the lock, clears a stale socket and binds a fresh one.
pub fn bind(socket: &Path, lock: &Path) -> Result<BoundSocket, DaemonError> {
    if let Some(dir) = socket.parent() {
        private_dir(dir)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock)
        .map_err(|source| DaemonError::Io {
            what: format!("open the lock file {}", lock.display()),
            source,
        })?;
    let lock_guard = Flock::lock(file, FlockArg::LockExclusiveNonblock)
        .map_err(|_| DaemonError::AlreadyRunning(socket.display().to_string()))?;
    // We hold the lock, so no other daemon serves this socket: whatever file is there
    // is stale.
    match fs::remove_file(socket) {
        Ok(()) => tracing::info!(path = %socket.display(), "removed a stale socket"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(DaemonError::Io {
                what: format!("remove the stale socket {}", socket.display()),
                source,
            });
        }
    }
    let listener = UnixListener::bind(socket).map_err(|source| DaemonError::Io {
        what: format!("bind the socket {}", socket.display()),
        source,
    })?;
    fs::set_permissions(socket, fs::Permissions::from_mode(0o600)).map_err(|source| {
        DaemonError::Io {
            what: format!("restrict the socket {}", socket.display()),
            source,
        }
    })?;
    Ok(BoundSocket {
        listener,
        path: socket.to_path_buf(),
        _lock: lock_guard,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn second_instance_is_refused_and_modes_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let sock = run.join("d.sock");
        let lock = run.join("d.lock");
        let first = bind(&sock, &lock).unwrap();
        assert_eq!(
            fs::metadata(&run).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(
            fs::metadata(&sock).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(matches!(
            bind(&sock, &lock),
            Err(DaemonError::AlreadyRunning(_))
        ));
        drop(first);
        assert!(!sock.exists());
        // A stale socket file left by a crash is replaced.
        std::fs::write(&sock, b"").unwrap();
        let _again = bind(&sock, &lock).unwrap();
    }
}
