//! The engine's side of the MCP host: each session's servers and tool overlay, kept
//! between iterations. At a turn's start the session's servers are configured again
//! (a changed file, a new approval or a new client environment take effect), the first
//! turn waits up to `mcp.startup_wait_ms` for servers still starting, and the overlay
//! is built again whenever a server's state or tools changed.
//!
//! Deferred loading ([`defer`]): when the MCP tools' schemas would take more than
//! `mcp.defer_threshold` of the model's context window, or when their server came up
//! after the session's first request, they are sent by name only — listed in a system
//! reminder whenever that list gains a tool ([`Engine::mcp_announcement`]) — until the agent
//! loads them with `ToolSearch` or calls one; what it discovered is stored with the
//! session, so it survives a restart.
//!
//! Prompts ([`Engine::mcp_prompts`], [`Engine::mcp_prompt_text`]): the prompts of the
//! session's servers, for the slash commands `/mcp__<server>__<prompt>`. The servers
//! are configured for the asking client's environment, as a turn configures them, and
//! those still starting are waited for up to `mcp.startup_wait_ms` (the bound of a
//! first turn's wait); a server that is not connected by then has no prompts listed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use roocode_protocol::session::ClientEnv;

use super::{AgentError, Engine};
use crate::config::Config;
use crate::mcp::McpPromptInfo;
use crate::mcp::session::{self, Configured, SessionTools};
use crate::mcp::{session_prompts, tool_search};
use crate::store::{SessionRow, Store};
use crate::tools::{Discovered, DiscoverySink, Registry, ToolSet};

/// One session's MCP state.
struct Entry {
    servers: Vec<Configured>,
    built_from: Vec<(String, &'static str, u64)>,
    tools: Arc<SessionTools>,
    discovered: Arc<Discovered>,
    /// The MCP tools there were when the first turn's wait ended: any other is late,
    /// so deferred (its schema never changes a request's tool array once sent).
    initial: HashSet<String>,
    /// The deferred tools the agent was told of.
    announced: HashSet<String>,
}

/// What [`defer`] needs of a session.
pub struct Deferral {
    pub discovered: Arc<Discovered>,
    pub late: HashSet<String>,
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
        // A replay starts no MCP server: its MCP calls' results come from the recording.
        if self.replays.contains(&row.id) {
            return None;
        }
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
        let known = self.mcp_sessions.has(&row.id);
        if configs.is_empty() && !known {
            return None;
        }
        let servers = session::configure(&self.mcp, configs, root, env);
        if !known {
            session::wait_started(&servers, config.mcp.startup_wait()).await;
            let discovered = match self.store.discovered_tools(&row.id).await {
                Ok(names) => names,
                Err(e) => {
                    tracing::warn!(session = %row.id, "cannot read the discovered tools: {e}");
                    Vec::new()
                }
            };
            let sink = persisting(self.store.clone(), row.id.clone());
            let discovered = Arc::new(Discovered::new(discovered, Some(sink)));
            self.mcp_sessions
                .insert(&row.id, &self.tools, servers, discovered)
                .reminder
                .clone()
        } else {
            self.mcp_sessions
                .update(&row.id, &self.tools, Some(servers))
                .and_then(|t| t.reminder.clone())
        }
    }

    /// The session's tools for its next model call: the built-ins, with its servers'
    /// tools over them once it has any.
    pub(super) fn session_tools(&self, session_id: &str) -> Arc<Registry> {
        match self.mcp_sessions.update(session_id, &self.tools, None) {
            Some(tools) => Arc::clone(&tools.registry),
            None => Arc::clone(&self.tools),
        }
    }

    /// What deferring the session's MCP tools needs (None: it has none).
    pub(super) fn mcp_deferral(&self, session_id: &str) -> Option<Deferral> {
        self.mcp_sessions.deferral(session_id)
    }

    /// The reminder telling the agent of its deferred tools, when one of them is new
    /// to it (`hidden`: name and first description line of each); it lists them all.
    pub(super) fn mcp_announcement(
        &self,
        session_id: &str,
        hidden: &[(String, String)],
    ) -> Option<String> {
        let names: Vec<String> = hidden.iter().map(|(n, _)| n.clone()).collect();
        if !self.mcp_sessions.announce(session_id, names) || hidden.is_empty() {
            return None;
        }
        let mut text = format!(
            "These tools are deferred: they are listed here by name only and cannot be called until loaded with {} (`select:<name>[,<name>…]` or keywords), which returns their parameters:\n",
            tool_search::NAME
        );
        for (name, line) in hidden {
            text.push_str(&format!("- {name}: {line}\n"));
        }
        Some(text.trim_end().to_string())
    }

    /// Forgets a deleted session's MCP state (its servers go on for others).
    pub(super) fn mcp_forget(&self, session_id: &str) {
        self.mcp_sessions.forget(session_id);
    }
}

impl Engine {
    /// The prompts of the connected servers of `row`'s project, configured for a client
    /// with `env`, each with the name its server is configured under (see the module
    /// doc for the wait). Servers that cannot be read or run have none; why is logged.
    pub async fn mcp_prompts(&self, row: &SessionRow, env: &ClientEnv) -> Vec<McpPromptInfo> {
        match self.mcp_started(Path::new(&row.root), env).await {
            Ok(servers) => session_prompts::listed(&servers),
            Err(e) => {
                tracing::warn!(session = %row.id, "MCP prompts not listed: {e}");
                Vec::new()
            }
        }
    }

    /// Prompt `prompt` (the server's own name for it) of the server configured as
    /// `server` in `row`'s project, filled in with `args`, as one text (see
    /// `mcp::prompt_text` for the format). Errors name the configured servers when
    /// `server` is none of them, say the server's state when it does not run, name the
    /// server's prompts when `prompt` is none of them, and give the server's message
    /// when it refused.
    pub async fn mcp_prompt_text(
        &self,
        row: &SessionRow,
        env: &ClientEnv,
        server: &str,
        prompt: &str,
        args: BTreeMap<String, String>,
    ) -> Result<String, AgentError> {
        let root = Path::new(&row.root);
        let config = super::mcp_status::find(self.mcp_configs(root)?, server, root)?;
        let wait = self.config(root)?.mcp.startup_wait();
        let servers = session::configure(&self.mcp, vec![config], root, env);
        session::wait_started(&servers, wait).await;
        let Some(configured) = servers.first() else {
            return Err(AgentError::Invalid(format!("no MCP server `{server}`")));
        };
        session_prompts::text(configured, prompt, &args)
            .await
            .map_err(|e| AgentError::Invalid(e.to_string()))
    }
}

/// A sink storing an agent's discoveries (in the background: a failed write is
/// logged, and the tool is discovered again after a restart).
fn persisting(store: Store, session_id: String) -> DiscoverySink {
    Arc::new(move |names: Vec<String>| {
        let (store, session_id) = (store.clone(), session_id.clone());
        tokio::spawn(async move {
            if let Err(e) = store.add_discovered_tools(&session_id, &names).await {
                tracing::warn!(session = %session_id, "discovered tools not stored: {e}");
            }
        });
    })
}

/// `tools` with its MCP tools deferred where they must be (see the module doc), and
/// without `ToolSearch` when nothing is deferred. `window` is the model's context
/// window in tokens; `threshold` the share of it MCP schemas may take.
pub(super) fn defer(
    tools: ToolSet,
    window: u64,
    threshold: f64,
    deferral: Option<&Deferral>,
) -> ToolSet {
    let Some(deferral) = deferral else {
        return tools.without(tool_search::NAME);
    };
    let mcp: Vec<_> = tools
        .defs()
        .into_iter()
        .filter(|d| d.name.starts_with("mcp__"))
        .collect();
    // About four characters a token, as the context budget estimates.
    let chars: usize = mcp
        .iter()
        .map(|d| d.name.len() + d.description.len() + d.input_schema.to_string().len())
        .sum();
    #[allow(clippy::cast_precision_loss)]
    let all = (chars / 4) as f64 > threshold * window as f64;
    let deferred: Vec<Arc<str>> = mcp
        .into_iter()
        .filter(|d| all || deferral.late.contains(&*d.name))
        .map(|d| d.name)
        .collect();
    if deferred.is_empty() {
        return tools.without(tool_search::NAME);
    }
    tools.deferring(deferred, Arc::clone(&deferral.discovered))
}

impl McpSessions {
    fn has(&self, id: &str) -> bool {
        self.entries.lock().is_ok_and(|e| e.contains_key(id))
    }

    fn forget(&self, id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(id);
        }
    }

    /// A session's first state: `servers` as they are after the first wait.
    fn insert(
        &self,
        id: &str,
        base: &Arc<Registry>,
        servers: Vec<Configured>,
        discovered: Arc<Discovered>,
    ) -> Arc<SessionTools> {
        let tools = Arc::new(session::build(base, &servers, &discovered));
        let initial = tools
            .registry
            .names()
            .into_iter()
            .filter(|n| n.starts_with("mcp__"))
            .map(str::to_string)
            .collect();
        let entry = Entry {
            built_from: session::signature(&servers),
            servers,
            tools: Arc::clone(&tools),
            discovered,
            initial,
            announced: HashSet::new(),
        };
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(id.to_string(), entry);
        }
        tools
    }

    /// The session's tools (None: it has no MCP state), built again if `servers`
    /// (newly configured) or the state of its servers changed since last built.
    fn update(
        &self,
        id: &str,
        base: &Arc<Registry>,
        servers: Option<Vec<Configured>>,
    ) -> Option<Arc<SessionTools>> {
        let mut entries = self.entries.lock().ok()?;
        let entry = entries.get_mut(id)?;
        if let Some(servers) = servers {
            entry.servers = servers;
        }
        let now = session::signature(&entry.servers);
        if now != entry.built_from {
            entry.tools = Arc::new(session::build(base, &entry.servers, &entry.discovered));
            entry.built_from = now;
        }
        Some(Arc::clone(&entry.tools))
    }

    fn deferral(&self, id: &str) -> Option<Deferral> {
        let entries = self.entries.lock().ok()?;
        let entry = entries.get(id)?;
        let late = entry
            .tools
            .registry
            .names()
            .into_iter()
            .filter(|n| n.starts_with("mcp__") && !entry.initial.contains(*n))
            .map(str::to_string)
            .collect();
        Some(Deferral {
            discovered: Arc::clone(&entry.discovered),
            late,
        })
    }

    /// Whether the agent must be told of its deferred tools `names`: true when one of
    /// them is new to it (one it discovered since needs no word).
    fn announce(&self, id: &str, names: Vec<String>) -> bool {
        let Ok(mut entries) = self.entries.lock() else {
            return false;
        };
        let Some(entry) = entries.get_mut(id) else {
            return false;
        };
        let before = entry.announced.len();
        entry.announced.extend(names);
        entry.announced.len() > before
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::tool_search::ToolSearchTool;
    use crate::tools::test_support::FakeTool;
    use serde_json::json;

    fn names(set: &ToolSet) -> Vec<String> {
        set.defs().into_iter().map(|d| d.name.to_string()).collect()
    }

    /// The built-ins, two MCP tools and ToolSearch; `discovered` is the agent's set.
    fn set(discovered: &Arc<Discovered>) -> ToolSet {
        let base = Arc::new(Registry::with_builtins());
        let mut overlay = Registry::overlay(&base);
        for name in ["mcp__s__alpha", "mcp__s__beta"] {
            let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
            overlay
                .register(Arc::new(FakeTool::new(name, schema)))
                .unwrap();
        }
        let search = ToolSearchTool::new(Vec::new(), Arc::clone(discovered));
        overlay.register(Arc::new(search)).unwrap();
        ToolSet::all(&Arc::new(overlay))
    }

    fn deferral(discovered: &Arc<Discovered>, late: &[&str]) -> Deferral {
        Deferral {
            discovered: Arc::clone(discovered),
            late: late.iter().map(|n| (*n).to_string()).collect(),
        }
    }

    #[test]
    fn small_schemas_are_sent_whole_and_need_no_tool_search() {
        let discovered = Arc::new(Discovered::new([], None));
        let d = deferral(&discovered, &[]);
        let tools = defer(set(&discovered), 200_000, 0.1, Some(&d));
        let sent = names(&tools);
        assert!(sent.contains(&"mcp__s__alpha".into()) && sent.contains(&"mcp__s__beta".into()));
        assert!(!sent.contains(&"ToolSearch".into()));
        assert!(tools.hidden().is_empty());
        let no_mcp = defer(set(&discovered), 200_000, 0.1, None);
        assert!(!names(&no_mcp).contains(&"ToolSearch".into()));
    }

    #[test]
    fn too_large_or_late_tools_are_deferred_until_discovered() {
        let discovered = Arc::new(Discovered::new([], None));
        let all = defer(
            set(&discovered),
            200_000,
            0.0,
            Some(&deferral(&discovered, &[])),
        );
        let sent = names(&all);
        assert!(sent.contains(&"ToolSearch".into()));
        assert!(!sent.iter().any(|n| n.starts_with("mcp__")), "{sent:?}");
        let hidden: Vec<String> = all.hidden().into_iter().map(|(n, _)| n).collect();
        assert_eq!(hidden, ["mcp__s__alpha", "mcp__s__beta"]);

        let late = defer(
            set(&discovered),
            200_000,
            0.1,
            Some(&deferral(&discovered, &["mcp__s__beta"])),
        );
        let sent = names(&late);
        assert!(sent.contains(&"mcp__s__alpha".into()) && !sent.contains(&"mcp__s__beta".into()));

        discovered.add(["mcp__s__beta"]);
        assert!(
            names(&late).contains(&"mcp__s__beta".into()),
            "discovered: sent"
        );
    }
}

#[cfg(test)]
#[path = "mcp_prompts_tests.rs"]
mod prompts_tests;
