//! The daemon's life: detach, log, take the single-instance lock, open the store,
//! recover sessions a crash left running, serve the socket, stop cleanly.

pub mod detach;
mod logging;
pub mod socket;

use std::sync::Arc;
use std::time::{Duration, Instant};

use roocode_protocol::paths::{Paths, PathsError};
use tokio_util::sync::CancellationToken;

use crate::agent::Engine;
use crate::rpc;
use crate::store::{StoreError, integrity};

/// Why the daemon could not run.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("cannot {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "another roocoded already serves {0}: use it, or stop it with `roocode-cli daemon stop`"
    )]
    AlreadyRunning(String),
    #[error(
        "the socket path {path} is {found}, not a socket: RooCode never removes it; point ROOCODE_SOCKET elsewhere or move that file away"
    )]
    NotASocket { path: String, found: String },
    #[error(transparent)]
    Paths(#[from] PathsError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot recover the sessions of the previous run: {0}")]
    Recover(#[from] crate::agent::AgentError),
}

/// How the daemon was started.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Stay attached to the terminal and log to stderr.
    pub foreground: bool,
}

/// Runs the daemon until it is told to stop. Call from a synchronous `main` (after
/// [`detach::close_inherited_descriptors`]): it first leaves the caller's session,
/// directory and stdio ([`detach::leave_caller`]), which must happen before any
/// runtime threads exist.
pub fn run_blocking(opts: Options) -> Result<(), DaemonError> {
    // Paths first: they are absolute, worked out from the caller's directory.
    let paths = Paths::from_env()?;
    detach::leave_caller(opts.foreground, &paths.log)?;
    logging::init((!opts.foreground).then_some(paths.log.as_path()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| DaemonError::Io {
            what: "start the async runtime".into(),
            source,
        })?;
    let result = runtime.block_on(run(paths));
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn run(paths: Paths) -> Result<(), DaemonError> {
    let started = Instant::now();
    let bound = socket::bind(&paths.socket, &paths.lock)?;
    let opened = integrity::open_checked(&paths.database, integrity::check_timeout()).await?;
    let store = opened.store;
    for w in &opened.warnings {
        tracing::warn!("{w}");
    }
    let stop = CancellationToken::new();
    let engine = Arc::new(Engine::new(store.clone(), paths.clone()));
    engine.recover().await?;
    engine.resume_agents().await?;
    // After the agents: a loop's running round has been resumed with them.
    engine.resume_loops().await?;
    engine.resume_graphs().await?;
    tracing::info!(
        pid = std::process::id(),
        socket = %paths.socket.display(),
        build = roocode_protocol::BUILD_ID,
        "roocoded started"
    );

    watch_signals(stop.clone());
    if std::env::var_os("ROOCODE_HOME").is_some() {
        watch_home(paths.user_dir.clone(), stop.clone());
    }
    let info = rpc::DaemonContext {
        engine: engine.clone(),
        paths: paths.clone(),
        started,
        started_at_ms: crate::clock::now_ms(),
        stop: stop.clone(),
        warnings: opened.warnings,
    };
    rpc::serve(&bound.listener, info, stop.clone()).await;

    tracing::info!("stopping: interrupting running turns");
    engine.shutdown().await;
    drop(bound);
    store.close().await;
    integrity::mark_clean_shutdown(&paths.database);
    tracing::info!("roocoded stopped");
    Ok(())
}

fn watch_signals(stop: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    tokio::spawn(async move {
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::error!("cannot install signal handlers");
            return;
        };
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM"),
            _ = int.recv() => tracing::info!("SIGINT"),
            _ = stop.cancelled() => return,
        }
        stop.cancel();
    });
}

/// A daemon whose ROOCODE_HOME disappears (a test's temporary directory) exits.
fn watch_home(dir: std::path::PathBuf, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = stop.cancelled() => return,
            }
            if !dir.exists() {
                tracing::warn!(dir = %dir.display(), "ROOCODE_HOME is gone; stopping");
                stop.cancel();
                return;
            }
        }
    });
}
