//! Connecting to the daemon: every connection goes through roocode-client's
//! `connect_or_start` (or `connect_existing` for `daemon status|stop`), which performs
//! the `daemon.hello` handshake; a daemon of another build is reported once.

use std::sync::atomic::{AtomicBool, Ordering};

use roocode_client::autostart::{connect_existing, connect_or_start};
use roocode_client::{RpcClient, build_mismatch_warning};
use roocode_protocol::daemon::{ClientInfo, HelloResponse};
use roocode_protocol::paths::Paths;

use crate::failure::Failure;
use crate::output::err_line;

/// An open, handshaken connection.
pub struct Conn {
    pub rpc: RpcClient,
    pub hello: HelloResponse,
}

/// Who we are, for `daemon.hello`.
pub fn client_info() -> ClientInfo {
    ClientInfo {
        kind: "cli".into(),
        name: "roocode-cli".into(),
        pid: std::process::id(),
    }
}

/// The daemon's paths from this process's environment.
pub fn paths() -> Result<Paths, Failure> {
    Paths::from_env().map_err(|e| Failure::new("config", e.to_string()))
}

/// Connects, starting the daemon when nothing answers.
pub async fn connect(paths: &Paths) -> Result<Conn, Failure> {
    let (rpc, hello) = connect_or_start(paths, client_info()).await?;
    warn_once(&hello);
    Ok(Conn { rpc, hello })
}

/// Connects to a running daemon; `None` when none answers. Never starts one.
/// `warn`: report a daemon of another build (not while replacing it).
pub async fn existing(paths: &Paths, warn: bool) -> Result<Option<Conn>, Failure> {
    match connect_existing(paths, client_info()).await {
        Ok((rpc, hello)) => {
            if warn {
                warn_once(&hello);
            }
            Ok(Some(Conn { rpc, hello }))
        }
        Err(e) if e.is_not_running() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn warn_once(hello: &HelloResponse) {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if let Some(warning) = build_mismatch_warning(hello)
        && !WARNED.swap(true, Ordering::Relaxed)
    {
        err_line(&warning);
    }
    // The daemon's own warnings (a corrupt database moved aside, …), once per command.
    static DAEMON_WARNED: AtomicBool = AtomicBool::new(false);
    if !hello.warnings.is_empty() && !DAEMON_WARNED.swap(true, Ordering::Relaxed) {
        for w in &hello.warnings {
            err_line(&format!("warning: {w}"));
        }
    }
}
