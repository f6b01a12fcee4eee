//! The daemon's socket: a 0700 directory, the single-instance lock, removal of a
//! stale socket (only by the lock holder, and only a socket of ours), binding with mode 0600, and removal on drop.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
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
    // We hold the lock, so no other daemon serves this socket: a socket there is stale.
    remove_stale_socket(socket)?;
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

/// Removes a stale socket at `path`, and only a socket of ours: anything else there (a
/// regular file `ROOCODE_SOCKET` points at by mistake, a directory, another user's
/// socket) is left alone and is an error naming it.
fn remove_stale_socket(path: &Path) -> Result<(), DaemonError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(DaemonError::Io {
                what: format!("inspect the socket path {}", path.display()),
                source,
            });
        }
    };
    if !meta.file_type().is_socket() {
        return Err(DaemonError::NotASocket {
            path: path.display().to_string(),
            found: describe(&meta),
        });
    }
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return Err(DaemonError::NotASocket {
            path: path.display().to_string(),
            found: format!("a socket owned by uid {}", meta.uid()),
        });
    }
    fs::remove_file(path).map_err(|source| DaemonError::Io {
        what: format!("remove the stale socket {}", path.display()),
        source,
    })?;
    tracing::info!(path = %path.display(), "removed a stale socket");
    Ok(())
}

fn describe(meta: &fs::Metadata) -> String {
    let t = meta.file_type();
    let what = if t.is_file() {
        "a regular file"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a named pipe"
    } else {
        "a device or other special file"
    };
    what.to_string()
}

#[cfg(test)]
mod tests {
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
        // A stale socket left by a crash (bound, never unlinked) is replaced.
        drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
        assert!(sock.exists());
        let _again = bind(&sock, &lock).unwrap();
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_socket_is_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("d.lock");
        let file = dir.path().join("notes.txt");
        fs::write(&file, b"precious").unwrap();
        let err = bind(&file, &lock).err().unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains("notes.txt") && msg.contains("regular file"),
            "{msg}"
        );
        assert_eq!(fs::read(&file).unwrap(), b"precious");
        let sub = dir.path().join("a-dir");
        fs::create_dir(&sub).unwrap();
        let err = bind(&sub, &lock).err().unwrap();
        assert!(err.to_string().contains("a directory"), "{err}");
        assert!(sub.is_dir());
    }
}
