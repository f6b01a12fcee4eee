//! Auto-start: connect to the daemon, starting it when nothing answers.
//!
//! [`connect_or_start`] probes the socket; when no daemon answers it takes the start-up
//! lock (so concurrent clients start one daemon, not one each), probes again, spawns
//! `roocoded` detached and polls until it answers. The daemon calls `setsid()` itself,
//! so it is spawned *without* a process group of its own; its stdin is null and its
//! stdout/stderr are appended to the log. Descriptors this client inherited without
//! close-on-exec (a pipe its caller waits on for end-of-file) reach the daemon too;
//! the daemon closes every descriptor above 2 first thing in its `main` and moves to
//! `/`, so it keeps nothing of the client that started it. A socket file that refuses connections is
//! left alone: the daemon removes stale sockets under its own single-instance lock.
//! [`connect_existing`] never starts a daemon (`daemon status`, `daemon stop`).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use roocode_protocol::daemon::{ClientInfo, HelloResponse};
use roocode_protocol::paths::Paths;

use crate::connect::{ConnectError, RpcClient, connect};

/// Environment variable naming the daemon binary to start.
pub const DAEMON_BIN_VAR: &str = "ROOCODE_DAEMON_BIN";

/// How long a started daemon may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for another client that holds the start-up lock.
const LOCK_TIMEOUT: Duration = Duration::from_secs(15);
const FIRST_DELAY: Duration = Duration::from_millis(1);
const MAX_DELAY: Duration = Duration::from_millis(50);

/// Connects to the running daemon; never starts one.
pub async fn connect_existing(
    paths: &Paths,
    client: ClientInfo,
) -> Result<(RpcClient, HelloResponse), ConnectError> {
    connect(&paths.socket, client).await
}

/// Connects to the daemon, starting it first when nothing answers at the socket.
pub async fn connect_or_start(
    paths: &Paths,
    client: ClientInfo,
) -> Result<(RpcClient, HelloResponse), ConnectError> {
    connect_or_spawn(paths, client, &daemon_binary()).await
}

/// [`connect_or_start`] with the daemon binary given.
async fn connect_or_spawn(
    paths: &Paths,
    client: ClientInfo,
    bin: &Path,
) -> Result<(RpcClient, HelloResponse), ConnectError> {
    match connect(&paths.socket, client.clone()).await {
        Err(e) if e.is_not_running() => {}
        other => return other,
    }
    let _lock = match take_start_lock(paths, &client).await? {
        Locked::Held(lock) => lock,
        Locked::Answered(conn) => return Ok(conn),
    };
    // Another client may have started it while we waited for the lock.
    match connect(&paths.socket, client.clone()).await {
        Err(e) if e.is_not_running() => {}
        other => return other,
    }
    let log_start = std::fs::metadata(&paths.log).map(|m| m.len()).unwrap_or(0);
    let mut child = spawn_daemon(paths, bin)?;
    wait_until_answering(paths, client, &mut child, log_start).await
}

enum Locked {
    Held(Flock<File>),
    Answered((RpcClient, HelloResponse)),
}

/// Takes the start-up lock without blocking the runtime; while another client holds
/// it, keeps probing the socket in case that client's daemon is already up.
async fn take_start_lock(paths: &Paths, client: &ClientInfo) -> Result<Locked, ConnectError> {
    create_private_dir(&paths.run_dir)?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&paths.start_lock)
        .map_err(|e| io_error("cannot open the start-up lock", &paths.start_lock, &e))?;
    let deadline = Instant::now() + LOCK_TIMEOUT;
    let mut file = file;
    let mut delay = FIRST_DELAY;
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => return Ok(Locked::Held(lock)),
            Err((f, Errno::EWOULDBLOCK)) => file = f,
            Err((_, errno)) => {
                return Err(ConnectError::Other(format!(
                    "cannot lock {}: {errno}",
                    paths.start_lock.display()
                )));
            }
        }
        match connect(&paths.socket, client.clone()).await {
            Ok(conn) => return Ok(Locked::Answered(conn)),
            Err(e) if e.is_not_running() => {}
            Err(e) => return Err(e),
        }
        if Instant::now() >= deadline {
            return Err(ConnectError::Other(format!(
                "another client holds {} but no daemon answered at {}; see the daemon log {}",
                paths.start_lock.display(),
                paths.socket.display(),
                paths.log.display()
            )));
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_DELAY);
    }
}

/// The binary to start: `ROOCODE_DAEMON_BIN`, else `roocoded` beside this executable,
/// else `roocoded` on `PATH`.
pub fn daemon_binary() -> PathBuf {
    resolve_binary(
        std::env::var_os(DAEMON_BIN_VAR),
        std::env::current_exe().ok(),
    )
}

fn resolve_binary(var: Option<std::ffi::OsString>, exe: Option<PathBuf>) -> PathBuf {
    if let Some(bin) = var.filter(|v| !v.is_empty()) {
        return PathBuf::from(bin);
    }
    if let Some(dir) = exe.as_deref().and_then(Path::parent) {
        let beside = dir.join("roocoded");
        if beside.is_file() {
            return beside;
        }
    }
    PathBuf::from("roocoded")
}

fn spawn_daemon(paths: &Paths, bin: &Path) -> Result<Child, ConnectError> {
    std::fs::create_dir_all(&paths.state_dir)
        .map_err(|e| io_error("cannot create the state directory", &paths.state_dir, &e))?;
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&paths.log)
        .map_err(|e| io_error("cannot open the daemon log", &paths.log, &e))?;
    let log_err = log
        .try_clone()
        .map_err(|e| io_error("cannot open the daemon log", &paths.log, &e))?;
    // No process_group(0): the daemon calls setsid() itself, which fails in a group leader.
    Command::new(bin)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log_err))
        .spawn()
        .map_err(|e| {
            let on_path = bin.components().count() == 1;
            let hint = if e.kind() == std::io::ErrorKind::NotFound && on_path {
                format!(
                    " (not found beside this program nor on PATH; set {DAEMON_BIN_VAR} to its path)"
                )
            } else {
                String::new()
            };
            ConnectError::Other(format!(
                "cannot start the daemon {}: {e}{hint}",
                bin.display()
            ))
        })
}

async fn wait_until_answering(
    paths: &Paths,
    client: ClientInfo,
    child: &mut Child,
    log_start: u64,
) -> Result<(RpcClient, HelloResponse), ConnectError> {
    let deadline = Instant::now() + START_TIMEOUT;
    let mut delay = FIRST_DELAY;
    loop {
        let last = match connect(&paths.socket, client.clone()).await {
            Ok(conn) => return Ok(conn),
            Err(e @ (ConnectError::Incompatible { .. } | ConnectError::Other(_))) => {
                return Err(e);
            }
            Err(e) => e,
        };
        // A daemon that exited may have lost a race to another instance: probe once more.
        if let Ok(Some(status)) = child.try_wait() {
            return match connect(&paths.socket, client.clone()).await {
                Ok(conn) => Ok(conn),
                Err(_) => Err(ConnectError::Other(format!(
                    "the daemon exited ({status}) before answering at {}; see its log {}{}",
                    paths.socket.display(),
                    paths.log.display(),
                    log_tail(&paths.log, log_start)
                ))),
            };
        }
        if Instant::now() >= deadline {
            return Err(ConnectError::Other(format!(
                "the daemon (pid {}) did not answer at {} within {} s ({last}); see its log {}{}",
                child.id(),
                paths.socket.display(),
                START_TIMEOUT.as_secs(),
                paths.log.display(),
                log_tail(&paths.log, log_start)
            )));
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_DELAY);
    }
}

/// The last lines the daemon wrote since it was started, indented, to quote in an error.
fn log_tail(log: &Path, from: u64) -> String {
    let mut text = String::new();
    let read = File::open(log).and_then(|mut f| {
        f.seek(SeekFrom::Start(from))?;
        f.take(64 * 1024).read_to_string(&mut text)
    });
    if read.is_err() {
        return String::new();
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(5)..];
    tail.iter().map(|l| format!("\n  {l}")).collect()
}

fn create_private_dir(dir: &Path) -> Result<(), ConnectError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| io_error("cannot create the socket directory", dir, &e))
}

fn io_error(what: &str, path: &Path, e: &std::io::Error) -> ConnectError {
    ConnectError::Other(format!("{what} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths_in(dir: &Path) -> Paths {
        let home = dir.to_string_lossy().to_string();
        Paths::resolve(move |k| (k == "ROOCODE_HOME").then(|| home.clone())).unwrap()
    }

    fn client() -> ClientInfo {
        ClientInfo {
            kind: "cli".into(),
            name: "test".into(),
            pid: std::process::id(),
        }
    }

    #[test]
    fn log_tail_quotes_only_new_lines() {
        let dir = std::env::temp_dir().join(format!("roocode-tail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("x.log");
        std::fs::write(&log, "old\n").unwrap();
        let start = std::fs::metadata(&log).unwrap().len();
        std::fs::write(&log, "old\nnew 1\n\nnew 2\n").unwrap();
        assert_eq!(log_tail(&log, start), "\n  new 1\n  new 2");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_daemon_that_exits_is_reported_with_its_log() {
        let dir = std::env::temp_dir().join(format!("roocode-as-{}", std::process::id()));
        let paths = paths_in(&dir);
        // A "daemon" that writes to its log and exits without listening.
        let script = dir.join("fake-daemon");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            &script,
            "#!/bin/sh\necho 'fake daemon: config broken' >&2\nexit 3\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let err = connect_or_spawn(&paths, client(), &script)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("exited"), "{err}");
        assert!(err.contains(&paths.log.display().to_string()), "{err}");
        assert!(err.contains("fake daemon: config broken"), "{err}");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&paths.run_dir).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o700);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn binary_comes_from_the_variable_then_beside_the_exe_then_path() {
        let dir = std::env::temp_dir().join(format!("roocode-bin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("roocode-cli");
        assert_eq!(
            resolve_binary(Some("/opt/d".into()), Some(exe.clone())),
            PathBuf::from("/opt/d")
        );
        assert_eq!(
            resolve_binary(Some("".into()), Some(exe.clone())),
            PathBuf::from("roocoded")
        );
        std::fs::write(dir.join("roocoded"), "").unwrap();
        assert_eq!(resolve_binary(None, Some(exe)), dir.join("roocoded"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn connect_existing_never_starts() {
        let dir = std::env::temp_dir().join(format!("roocode-ex-{}", std::process::id()));
        let paths = paths_in(&dir);
        let err = connect_existing(&paths, client()).await.unwrap_err();
        assert!(err.is_not_running());
        assert!(!paths.run_dir.exists());
    }
}
