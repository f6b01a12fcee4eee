//! A session's MCP servers and tools. [`configure`] decides, for every server its
//! project configures, whether it runs: disabled, waiting for the user's approval (a
//! project's server), unusable as written (an SSE server, a `${VAR}` the client's
//! environment lacks), or active — then it is the hub's server for its expanded launch.
//! [`build`] turns the active servers' tools into the session's overlay over the
//! built-in registry, and says in a system reminder what the model should know: each
//! server's `instructions` (capped) and the servers it cannot use, with the reason.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::session::ClientEnv;

use super::config::ServerConfig;
use super::hub::{DEFAULT_RESTART_BASE, McpHub};
use super::names::tool_name;
use super::resources::{ListResourcesTool, NamedServer, ReadResourceTool, Servers};
use super::server::{Server, State};
use super::tool::McpToolAdapter;
use super::tool_search::ToolSearchTool;
use crate::tools::{Discovered, Registry};

/// Longest `instructions` of one server in the reminder.
const MAX_INSTRUCTIONS_CHARS: usize = 2_048;

/// One configured server, as this session has it.
#[derive(Clone)]
pub struct Configured {
    pub config: ServerConfig,
    pub status: Status,
}

#[derive(Clone)]
pub enum Status {
    /// `enabled: false`.
    Disabled,
    /// A project's server the user has not approved (as it is now).
    NeedsApproval,
    /// It cannot run as configured; the reason says what to change.
    Unusable(String),
    Active {
        server: Arc<Server>,
        tool_timeout: Duration,
    },
}

/// The session's servers: those of `configs` (the project at `root`'s), started in
/// the background through `hub` when they may run; `${VAR}`s come from `env`.
pub fn configure(
    hub: &McpHub,
    configs: Vec<ServerConfig>,
    root: &Path,
    env: &ClientEnv,
) -> Vec<Configured> {
    let restart_base = env
        .get("ROOCODE_MCP_RESTART_MS")
        .and_then(|ms| ms.parse().ok())
        .map_or(DEFAULT_RESTART_BASE, Duration::from_millis);
    let lookup = |name: &str| env.get(name).map(str::to_string);
    configs
        .into_iter()
        .map(|config| {
            let status = if !config.enabled() {
                Status::Disabled
            } else if let Err(reason) = config.transport() {
                // Nothing to approve in what cannot run at all.
                Status::Unusable(reason)
            } else if config.needs_approval() && !hub.approvals().is_approved(root, &config) {
                Status::NeedsApproval
            } else {
                match config.launch(root, &lookup) {
                    Err(reason) => Status::Unusable(reason),
                    Ok(launch) => Status::Active {
                        server: hub.server(
                            &config.name,
                            &launch,
                            config.startup_timeout(),
                            restart_base,
                        ),
                        tool_timeout: config.tool_timeout(),
                    },
                }
            };
            Configured { config, status }
        })
        .collect()
}

/// Waits at most `wait`, in all, for the active servers still starting.
pub async fn wait_started(servers: &[Configured], wait: Duration) {
    let deadline = tokio::time::Instant::now() + wait;
    for c in servers {
        if let Status::Active { server, .. } = &c.status {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            server.settled(left).await;
        }
    }
}

/// What the session's tools were built from: each server's state and generation.
/// The overlay is built again only when this changes.
pub fn signature(servers: &[Configured]) -> Vec<(String, &'static str, u64)> {
    servers
        .iter()
        .map(|c| match &c.status {
            Status::Active { server, .. } => {
                let now = server.snapshot();
                (c.config.name.clone(), now.state.label(), now.generation)
            }
            Status::Disabled => (c.config.name.clone(), "disabled", 0),
            Status::NeedsApproval => (c.config.name.clone(), "needs approval", 0),
            Status::Unusable(_) => (c.config.name.clone(), "unusable", 0),
        })
        .collect()
}

/// The session's tools and what the model is told of its servers.
pub struct SessionTools {
    /// The built-ins with the connected servers' tools over them.
    pub registry: Arc<Registry>,
    /// What the model is told: instructions, servers it cannot use.
    pub reminder: Option<String>,
}

/// The overlay over `base` with the tools of the connected servers among `servers`,
/// and `ToolSearch` over them (it loads those of them that are deferred, adding them to
/// `discovered`).
pub fn build(
    base: &Arc<Registry>,
    servers: &[Configured],
    discovered: &Arc<Discovered>,
) -> SessionTools {
    // The host's own tools come first: tools a server adds later join the end.
    let mut registry = Registry::overlay(base);
    let mut catalog = None;
    let named: Vec<NamedServer> = servers
        .iter()
        .filter_map(|c| match &c.status {
            Status::Active {
                server,
                tool_timeout,
            } => Some(NamedServer {
                name: c.config.name.clone(),
                server: Arc::clone(server),
                timeout: *tool_timeout,
            }),
            _ => None,
        })
        .collect();
    if !named.is_empty() {
        let named: Servers = named.into();
        for tool in [
            Arc::new(ListResourcesTool(Arc::clone(&named))) as Arc<dyn crate::tools::Tool>,
            Arc::new(ReadResourceTool(named)),
        ] {
            if let Err(e) = registry.register(tool) {
                tracing::warn!("an MCP resource tool left out: {e}");
            }
        }
        let (search, slot) = ToolSearchTool::pending(Arc::clone(discovered));
        if let Err(e) = registry.register(Arc::new(search)) {
            tracing::warn!("ToolSearch left out: {e}");
        }
        catalog = Some(slot);
    }
    let mut notes = Vec::new();
    for c in servers {
        let name = &c.config.name;
        match &c.status {
            Status::Disabled => {}
            Status::NeedsApproval => notes.push(format!(
                "The MCP server `{name}` ({}) is not started: it needs the user's approval (`roocode-cli mcp approve {name}`).",
                c.config.source.display()
            )),
            Status::Unusable(reason) => {
                notes.push(format!("The MCP server `{name}` cannot be used: {reason}."))
            }
            Status::Active {
                server,
                tool_timeout,
            } => {
                let now = server.snapshot();
                match &now.state {
                    State::Starting if now.tools.is_empty() => notes.push(format!(
                        "The MCP server `{name}` is still starting; its tools are not available yet."
                    )),
                    State::Failed { reason, .. } => notes.push(format!(
                        "The MCP server `{name}` is unavailable: {reason}"
                    )),
                    State::Starting | State::Connected { .. } => {}
                }
                {
                    for tool in now.tools.iter() {
                        let adapter = McpToolAdapter::new(
                            tool_name(name, &tool.name),
                            name,
                            tool.clone(),
                            Arc::clone(server),
                            *tool_timeout,
                        );
                        if let Err(e) = registry.register(Arc::new(adapter)) {
                            tracing::warn!(server = %name, tool = %tool.name, "MCP tool left out: {e}");
                        }
                    }
                    if let Some(text) = now.instructions.filter(|t| !t.trim().is_empty()) {
                        let text = crate::tools::output::truncate_chars(
                            text.trim(),
                            MAX_INSTRUCTIONS_CHARS,
                        );
                        notes.push(format!("Instructions of the MCP server `{name}`:\n{text}"));
                    }
                }
            }
        }
    }
    if let Some(slot) = catalog {
        let tools = registry
            .defs()
            .into_iter()
            .filter(|d| d.name.starts_with("mcp__"))
            .collect();
        let _ = slot.set(tools);
    }
    SessionTools {
        registry: Arc::new(registry),
        reminder: (!notes.is_empty()).then(|| notes.join("\n\n")),
    }
}
