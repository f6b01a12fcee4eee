//! Where RooCode keeps its files, for the daemon and its clients alike.
//!
//! Without `ROOCODE_HOME`: user files in `~/.roocode/`, the database under the XDG data
//! directory, logs under the XDG state directory, the socket in
//! `$XDG_RUNTIME_DIR/roocode/` (or `<state dir>/run/` when that is unset).
//! With `ROOCODE_HOME=DIR`: user files in `DIR/`, then `DIR/data/`, `DIR/state/` and
//! `DIR/run/`, so tests and several installations never collide.
//! `ROOCODE_SOCKET` overrides the socket path (the lock file sits beside it).

use std::path::{Path, PathBuf};

/// Longest socket path the kernel accepts (`sun_path` is 108 bytes with its NUL).
pub const MAX_SOCKET_PATH: usize = 107;

/// Why the paths could not be worked out.
#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    #[error("cannot find the home directory: set HOME or ROOCODE_HOME")]
    NoHome,
    #[error(
        "ROOCODE_HOME is `{0}`, a relative path: set it to an absolute directory (for example \"$PWD/{0}\")"
    )]
    HomeRelative(String),
    #[error(
        "ROOCODE_HOME is `{0}`, which exists but is not a directory: point it at a directory (a missing one is created)"
    )]
    HomeNotDirectory(String),
    #[error(
        "socket path {0} is {1} bytes, longer than the {MAX_SOCKET_PATH}-byte limit of Unix sockets: set ROOCODE_SOCKET (or ROOCODE_HOME) to a shorter path"
    )]
    SocketPathTooLong(String, usize),
}

/// Every path RooCode reads or writes for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// `~/.roocode` or `ROOCODE_HOME`: config.yaml, ROOCODE.md, memory/, skills/, agents/.
    pub user_dir: PathBuf,
    /// Database, tool results, checkpoints, plans.
    pub data_dir: PathBuf,
    /// Logs.
    pub state_dir: PathBuf,
    /// 0700 directory of the socket and lock files.
    pub run_dir: PathBuf,
    pub socket: PathBuf,
    /// Single-instance lock of the daemon.
    pub lock: PathBuf,
    /// Taken by clients while they start a daemon, so two never start one each.
    pub start_lock: PathBuf,
    pub log: PathBuf,
    pub database: PathBuf,
}

impl Paths {
    /// Resolves the paths from the process environment.
    pub fn from_env() -> Result<Paths, PathsError> {
        Self::resolve(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Resolves the paths from the variables `var` returns.
    pub fn resolve(var: impl Fn(&str) -> Option<String>) -> Result<Paths, PathsError> {
        let (user_dir, data_dir, state_dir, run_dir) = match var("ROOCODE_HOME") {
            Some(home) => {
                let home = checked_home(&home)?;
                (
                    home.clone(),
                    home.join("data"),
                    home.join("state"),
                    home.join("run"),
                )
            }
            None => {
                let home = var("HOME")
                    .map(PathBuf::from)
                    .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
                    .ok_or(PathsError::NoHome)?;
                let dirs = directories::ProjectDirs::from("dev", "roocode", "roocode")
                    .ok_or(PathsError::NoHome)?;
                let data = dirs.data_dir().to_path_buf();
                let state = dirs
                    .state_dir()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| data.join("state"));
                let run = match var("XDG_RUNTIME_DIR") {
                    Some(rt) => PathBuf::from(rt).join("roocode"),
                    None => state.join("run"),
                };
                (home.join(".roocode"), data, state, run)
            }
        };
        let socket = match var("ROOCODE_SOCKET") {
            Some(s) => absolute(Path::new(&s)),
            None => run_dir.join("roocoded.sock"),
        };
        let len = socket.as_os_str().len();
        if len > MAX_SOCKET_PATH {
            return Err(PathsError::SocketPathTooLong(
                socket.display().to_string(),
                len,
            ));
        }
        let sock_dir = socket.parent().map(Path::to_path_buf).unwrap_or(run_dir);
        Ok(Paths {
            lock: sock_dir.join("roocoded.lock"),
            start_lock: sock_dir.join("roocoded.start.lock"),
            run_dir: sock_dir,
            log: state_dir.join("roocoded.log"),
            database: data_dir.join("roocode.db"),
            user_dir,
            data_dir,
            state_dir,
            socket,
        })
    }
}

/// `ROOCODE_HOME` as given, if it can be the home: absolute (relative to what? the
/// daemon runs from `/`), and a directory when it exists.
fn checked_home(home: &str) -> Result<PathBuf, PathsError> {
    let path = Path::new(home);
    if !path.is_absolute() {
        return Err(PathsError::HomeRelative(home.to_owned()));
    }
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_dir() => Err(PathsError::HomeNotDirectory(home.to_owned())),
        _ => Ok(path.to_path_buf()),
    }
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn roocode_home_holds_everything() {
        let p = Paths::resolve(env(&[("ROOCODE_HOME", "/tmp/rh"), ("HOME", "/home/u")])).unwrap();
        assert_eq!(p.user_dir, PathBuf::from("/tmp/rh"));
        assert_eq!(p.database, PathBuf::from("/tmp/rh/data/roocode.db"));
        assert_eq!(p.log, PathBuf::from("/tmp/rh/state/roocoded.log"));
        assert_eq!(p.socket, PathBuf::from("/tmp/rh/run/roocoded.sock"));
        assert_eq!(p.lock, PathBuf::from("/tmp/rh/run/roocoded.lock"));
    }

    #[test]
    fn roocode_socket_wins() {
        let p = Paths::resolve(env(&[
            ("ROOCODE_HOME", "/tmp/rh"),
            ("ROOCODE_SOCKET", "/tmp/s/d.sock"),
        ]))
        .unwrap();
        assert_eq!(p.socket, PathBuf::from("/tmp/s/d.sock"));
        assert_eq!(p.lock, PathBuf::from("/tmp/s/roocoded.lock"));
    }

    #[test]
    fn a_relative_or_file_roocode_home_is_an_error_naming_it() {
        let err = Paths::resolve(env(&[("ROOCODE_HOME", "rh")])).unwrap_err();
        assert!(matches!(err, PathsError::HomeRelative(_)), "{err}");
        assert!(err.to_string().contains("`rh`"), "{err}");
        let file = std::env::temp_dir().join(format!("roocode-home-file-{}", std::process::id()));
        std::fs::write(&file, "not a directory").unwrap();
        let given = file.display().to_string();
        let err = Paths::resolve(env(&[("ROOCODE_HOME", &given)])).unwrap_err();
        std::fs::remove_file(&file).unwrap();
        assert!(matches!(err, PathsError::HomeNotDirectory(_)), "{err}");
        assert!(err.to_string().contains(&given), "{err}");
        // Missing is fine: the daemon creates it.
        let missing = format!("{given}-missing/x");
        assert!(Paths::resolve(env(&[("ROOCODE_HOME", &missing)])).is_ok());
    }

    #[test]
    fn too_long_socket_path_is_an_error() {
        let long = format!("/tmp/{}", "x".repeat(120));
        let err = Paths::resolve(env(&[("ROOCODE_HOME", &long)])).unwrap_err();
        assert!(err.to_string().contains("ROOCODE_SOCKET"));
    }
}
