//! The engine's side of the MCP host: each session's servers and tool overlay, kept
//! between iterations. At a turn's start the session's servers are configured again
//! (a changed file, a new approval or a new client environment take effect), the first
//! turn waits up to `mcp.startup_wait_ms` for servers still starting, and the overlay
//! is built again whenever a server's state or tools changed.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use roocode_protocol::session::ClientEnv;

use super::Engine;
use crate::config::Config;
use crate::mcp::session::{self, Configured, SessionTools};
use crate::store::SessionRow;
use crate::tools::Registry;

/// One session's MCP state.
struct Entry {
    servers: Vec<Configured>,
    built_from: Vec<(String, &'static str, u64)>,
    tools: Arc<SessionTools>,
    /// The first wait for starting servers is done.
    waited: bool,
}

/// The sessions' MCP state, by session id.
#[derive(Default)]
pub(super) struct McpSessions {
    entries: std::sync::Mutex<HashMap<String, Entry>>,
}

impl Engine {
    /// Configures the session's servers for a turn of `row` started by a client with
    /// `env`, waiting for them to start on the session's first turn. The reminder the
    /// model gets about them comes back (see [`session::build`]).
    pub(super) async fn mcp_turn_start(
        &self,
        row: &SessionRow,
        env: &ClientEnv,
        config: &Config,
    ) -> Option<String> {
        let root = Path::new(&row.root);
        let configs = match crate::mcp::config::load(&self.paths.user_dir, root) {
            Ok(configs) => configs,
            Err(e) => {
                tracing::warn!(session = %row.id, "MCP servers not read: {e}");
                return Some(format!(
                    "The MCP servers of this project could not be read: {e}"
                ));
            }
        };
        if configs.is_empty() && !self.mcp_sessions.has(&row.id) {
            return None;
        }
        let servers = session::configure(&self.mcp, configs, root, env);
        let waited = self.mcp_sessions.waited(&row.id);
        if !waited {
            session::wait_started(&servers, config.mcp.startup_wait()).await;
        }
        let tools = self
            .mcp_sessions
            .update(&row.id, &self.tools, Some(servers));
        tools.reminder.clone()
    }

    /// The session's tools for its next model call: the built-ins, with its servers'
    /// tools over them once it has any.
    pub(super) fn session_tools(&self, session_id: &str) -> Arc<Registry> {
        if !self.mcp_sessions.has(session_id) {
            return Arc::clone(&self.tools);
        }
        Arc::clone(
            &self
                .mcp_sessions
                .update(session_id, &self.tools, None)
                .registry,
        )
    }

    /// Forgets a deleted session's MCP state (its servers go on for others).
    pub(super) fn mcp_forget(&self, session_id: &str) {
        self.mcp_sessions.forget(session_id);
    }
}

impl McpSessions {
    fn has(&self, id: &str) -> bool {
        self.entries.lock().is_ok_and(|e| e.contains_key(id))
    }

    fn waited(&self, id: &str) -> bool {
        self.entries
            .lock()
            .is_ok_and(|e| e.get(id).is_some_and(|s| s.waited))
    }

    fn forget(&self, id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(id);
        }
    }

    /// The session's tools, built again if `servers` (newly configured) or the state of
    /// its servers changed since they were last built.
    fn update(
        &self,
        id: &str,
        base: &Arc<Registry>,
        servers: Option<Vec<Configured>>,
    ) -> Arc<SessionTools> {
        let Ok(mut entries) = self.entries.lock() else {
            // Poisoned by a panic elsewhere: built afresh, not kept.
            let servers = servers.unwrap_or_default();
            return Arc::new(session::build(base, &servers));
        };
        let entry = match (entries.remove(id), servers) {
            (Some(mut entry), Some(servers)) => {
                entry.servers = servers;
                entry
            }
            (Some(entry), None) => entry,
            (None, servers) => {
                let servers = servers.unwrap_or_default();
                let tools = Arc::new(session::build(base, &servers));
                Entry {
                    built_from: session::signature(&servers),
                    servers,
                    tools,
                    waited: false,
                }
            }
        };
        let mut entry = entry;
        entry.waited = true;
        let now = session::signature(&entry.servers);
        if now != entry.built_from {
            entry.tools = Arc::new(session::build(base, &entry.servers));
            entry.built_from = now;
        }
        let tools = Arc::clone(&entry.tools);
        entries.insert(id.to_string(), entry);
        tools
    }
}
