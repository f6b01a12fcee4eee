//! [`McpHub`]: the daemon's MCP servers. One server runs per distinct launch (command,
//! args, env values, cwd — or url and headers — with every `${VAR}` expanded, and its
//! startup timeout): sessions whose configuration expands to the same launch share it,
//! and two sessions with different tokens never do. Servers live until the daemon
//! stops; their supervisors restart them when they crash ([`super::server`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::approvals::Approvals;
use super::config::Launch;
use super::server::{Server, State};

/// Default of `ROOCODE_MCP_RESTART_MS`: the first wait before a crashed server starts again.
pub const DEFAULT_RESTART_BASE: Duration = Duration::from_millis(1_000);

/// The servers and the approvals of project servers.
pub struct McpHub {
    servers: Mutex<HashMap<(Launch, Duration), Arc<Server>>>,
    approvals: Approvals,
    stop: CancellationToken,
}

impl McpHub {
    /// A hub keeping its approvals in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        McpHub {
            servers: Mutex::new(HashMap::new()),
            approvals: Approvals::new(data_dir),
            stop: CancellationToken::new(),
        }
    }

    pub fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// The server that `launch` starts, started now if no session had it yet (`name`
    /// names it in the log); one that gave up after repeated failures tries again.
    pub fn server(
        &self,
        name: &str,
        launch: &Launch,
        startup_timeout: Duration,
        restart_base: Duration,
    ) -> Arc<Server> {
        let key = (launch.clone(), startup_timeout);
        let Ok(mut servers) = self.servers.lock() else {
            // A poisoned map (a panic while held): a server of its own, unshared.
            return self.start(name, launch, startup_timeout, restart_base);
        };
        if let Some(server) = servers.get(&key) {
            if let State::Failed {
                retrying: false, ..
            } = server.snapshot().state
            {
                server.wake();
            }
            return Arc::clone(server);
        }
        let server = self.start(name, launch, startup_timeout, restart_base);
        servers.insert(key, Arc::clone(&server));
        server
    }

    fn start(
        &self,
        name: &str,
        launch: &Launch,
        startup_timeout: Duration,
        restart_base: Duration,
    ) -> Arc<Server> {
        let server = Server::new(
            name,
            launch.clone(),
            startup_timeout,
            restart_base,
            self.stop.child_token(),
        );
        server.spawn();
        server
    }

    /// How many servers run (or try to).
    pub fn len(&self) -> usize {
        self.servers.lock().map_or(0, |s| s.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops every server (the daemon is shutting down).
    pub fn shutdown(&self) {
        self.stop.cancel();
    }
}

impl Drop for McpHub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
