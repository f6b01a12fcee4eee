//! `roocode-cli daemon start|stop|restart|status|logs`.
//!
//! `status` and `stop` never start a daemon. `stop` asks for `daemon.shutdown` and
//! returns as soon as the process has exited ([`daemon_exit`]). `restart` refuses while
//! turns are running unless `--force`. A daemon of another protocol cannot be asked
//! anything: `stop` (and `restart --force`) send it SIGTERM, its pid taken from the
//! socket's peer credentials.

use std::path::Path;

use clap::Subcommand;
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use roocode_protocol::api::DaemonApiClient;
use roocode_protocol::daemon::DaemonInfo;
use roocode_protocol::paths::Paths;

use crate::connect::{self, Conn};
use crate::daemon_exit;
use crate::failure::Failure;
use crate::logs;
use crate::output::{err_line, out, out_line};
use crate::timefmt::duration;

/// Subcommands of `daemon`.
#[derive(Debug, Subcommand)]
pub enum DaemonCmd {
    /// Start the daemon if it is not running; print its pid.
    Start,
    /// Stop the daemon (running turns are checkpointed and marked interrupted).
    Stop,
    /// Stop the daemon and start it again (e.g. after an upgrade).
    Restart {
        /// Restart even though turns are running (they are interrupted).
        #[arg(long)]
        force: bool,
    },
    /// Show whether the daemon runs, and its details.
    Status {
        /// Print the daemon.info object.
        #[arg(long)]
        json: bool,
    },
    /// Print the log file's path, or its last lines.
    Logs {
        /// Print the last N lines.
        #[arg(long = "lines", short = 'n', value_name = "N")]
        lines: Option<usize>,
        /// Keep printing lines as they are written.
        #[arg(long, short = 'f')]
        follow: bool,
    },
}

/// Runs a `daemon` subcommand; returns the exit status.
pub async fn run(cmd: DaemonCmd) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    match cmd {
        DaemonCmd::Start => start(&paths).await,
        DaemonCmd::Stop => {
            match probe(&paths).await? {
                Probe::Ours(conn) => stop(&paths, conn).await?,
                Probe::Foreign(pid) => terminate(&paths, pid).await?,
                Probe::NotRunning => out_line(&not_running(&paths)),
            }
            Ok(0)
        }
        DaemonCmd::Restart { force } => restart(&paths, force).await,
        DaemonCmd::Status { json } => status(&paths, json).await,
        DaemonCmd::Logs { lines, follow } => logs::run(&paths.log, lines, follow).await,
    }
}

fn not_running(paths: &Paths) -> String {
    format!(
        "roocoded is not running (socket {})",
        paths.socket.display()
    )
}

async fn start(paths: &Paths) -> anyhow::Result<i32> {
    if let Some(conn) = connect::existing(paths, true).await? {
        err_line(&format!(
            "roocoded is already running (pid {})",
            conn.hello.pid
        ));
        out_line(&conn.hello.pid.to_string());
        return Ok(0);
    }
    let conn = connect::connect(paths).await?;
    err_line(&format!("started roocoded (pid {})", conn.hello.pid));
    out_line(&conn.hello.pid.to_string());
    Ok(0)
}

async fn restart(paths: &Paths, force: bool) -> anyhow::Result<i32> {
    match probe(paths).await? {
        Probe::Ours(conn) => {
            let info = conn.rpc.info().await.map_err(Failure::from)?;
            if info.running_turns > 0 && !force {
                err_line(&format!(
                    "error: roocoded has {} running turn(s); a restart would interrupt them. \
                     Wait for them to finish, or run `roocode-cli daemon restart --force`",
                    info.running_turns
                ));
                return Ok(1);
            }
            stop(paths, conn).await?;
        }
        Probe::Foreign(pid) if !force => {
            err_line(&format!(
                "error: the running roocoded (pid {pid}) speaks another protocol, so it cannot \
                 say whether turns are running; run `roocode-cli daemon restart --force` to \
                 restart it anyway (running turns are checkpointed and marked interrupted)"
            ));
            return Ok(1);
        }
        Probe::Foreign(pid) => terminate(paths, pid).await?,
        Probe::NotRunning => {}
    }
    start(paths).await
}

/// What answers at the socket.
enum Probe {
    /// A daemon this client can talk to.
    Ours(Conn),
    /// A daemon of another protocol: only its pid (from the socket's peer credentials).
    Foreign(u32),
    NotRunning,
}

async fn probe(paths: &Paths) -> Result<Probe, Failure> {
    match connect::existing(paths, false).await {
        Ok(Some(conn)) => Ok(Probe::Ours(conn)),
        Ok(None) => Ok(Probe::NotRunning),
        Err(f) if f.kind == "incompatible" => match peer_pid(&paths.socket).await {
            Some(pid) => Ok(Probe::Foreign(pid)),
            None => Err(f),
        },
        Err(f) => Err(f),
    }
}

/// The pid of the process serving `socket` (SO_PEERCRED).
async fn peer_pid(socket: &Path) -> Option<u32> {
    let stream = tokio::net::UnixStream::connect(socket).await.ok()?;
    let pid = stream.peer_cred().ok()?.pid()?;
    u32::try_from(pid).ok()
}

/// Stops a daemon we cannot talk to with SIGTERM (it stops cleanly on it) and waits.
async fn terminate(paths: &Paths, pid: u32) -> Result<(), Failure> {
    let raw = i32::try_from(pid).map_err(|_| Failure::new("internal", format!("bad pid {pid}")))?;
    match kill(Pid::from_raw(raw), Signal::SIGTERM) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(e) => {
            return Err(Failure::new(
                "io",
                format!("cannot signal roocoded (pid {pid}): {e}"),
            ));
        }
    }
    wait_gone(paths, pid).await
}

/// Asks the daemon to shut down and waits until it is gone.
async fn stop(paths: &Paths, conn: Conn) -> Result<(), Failure> {
    let pid = conn.hello.pid;
    if let Err(e) = conn.rpc.shutdown().await {
        // The daemon may close the connection before it answers.
        let failure = Failure::from(e);
        if failure.kind != "disconnected" {
            return Err(failure);
        }
    }
    drop(conn);
    wait_gone(paths, pid).await
}

/// Waits until the daemon process has exited (which closes its socket), bounded by
/// `ROOCODE_STOP_TIMEOUT_SECS`.
async fn wait_gone(paths: &Paths, pid: u32) -> Result<(), Failure> {
    let limit = daemon_exit::timeout();
    if !daemon_exit::wait(pid, limit).await {
        return Err(Failure::new(
            "timeout",
            format!(
                "roocoded (pid {pid}) is still running {} s after the shutdown request; see its log {} (`{}` changes the wait)",
                limit.as_secs(),
                paths.log.display(),
                daemon_exit::TIMEOUT_VAR,
            ),
        ));
    }
    out_line(&format!("stopped roocoded (pid {pid})"));
    Ok(())
}

async fn status(paths: &Paths, json: bool) -> anyhow::Result<i32> {
    let Some(conn) = connect::existing(paths, true).await? else {
        if json {
            err_line(&not_running(paths));
        } else {
            out_line(&not_running(paths));
        }
        return Ok(1);
    };
    let info = conn.rpc.info().await.map_err(Failure::from)?;
    if json {
        out_line(&serde_json::to_string_pretty(&info)?);
    } else {
        out(&status_text(&info));
    }
    Ok(0)
}

/// The human form of `daemon status`.
pub fn status_text(info: &DaemonInfo) -> String {
    let rows = [
        ("pid", info.pid.to_string()),
        ("version", info.version.clone()),
        ("build", info.build_id.clone()),
        ("protocol", info.protocol.to_string()),
        ("socket", info.socket_path.clone()),
        ("database", info.database_path.clone()),
        ("log", info.log_path.clone()),
        ("started", info.started_at.clone()),
        ("uptime", duration(info.uptime_secs)),
        ("sessions", info.sessions.to_string()),
        ("running turns", info.running_turns.to_string()),
    ];
    let mut out = String::from("roocoded is running\n");
    for (label, value) in rows {
        out.push_str(&format!("{:<15}{value}\n", format!("{label}:")));
    }
    for w in &info.warnings {
        out.push_str(&format!("{:<15}{w}\n", "warning:"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lists_the_details() {
        let info = DaemonInfo {
            pid: 42,
            version: "0.1.0".into(),
            build_id: "0.1.0+abc".into(),
            protocol: 1,
            socket_path: "/r/roocoded.sock".into(),
            database_path: "/d/roocode.db".into(),
            log_path: "/s/roocoded.log".into(),
            started_at: "2026-11-30T10:00:00Z".into(),
            uptime_secs: 3723,
            sessions: 3,
            running_turns: 1,
            warnings: Vec::new(),
        };
        let text = status_text(&info);
        assert!(text.starts_with("roocoded is running\npid:           42\n"));
        assert!(text.contains("uptime:        1h 2m 3s\n"));
        assert!(text.contains("running turns: 1\n"));
        assert!(text.contains("socket:        /r/roocoded.sock\n"));
    }
}
