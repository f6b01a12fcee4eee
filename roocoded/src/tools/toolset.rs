//! [`ToolSet`]: the tools one agent may call — a view over the shared [`Registry`]
//! (tool implementations exist once per daemon; every agent has its own set). The model
//! is sent exactly the set, and a call of a tool outside it is an unknown tool listing
//! the set's names.
//!
//! [`select`] computes a set in layers (DESIGN.md §9), each only ever removing:
//! 0. the permission mode: `ExitPlanMode` only while the agent plans;
//! 1. the configuration: `tools.disabled` for every agent; `tools.bash: false` removes
//!    Bash with its helpers BashOutput and KillShell;
//! 2. no child gets `Agent`, `AskUserQuestion`, `TaskStop` or `ExitPlanMode` (a child
//!    never talks to the user, and never stops what its parent started), nor a team
//!    tool; a teammate keeps everything but the lead's tools ([`NEVER_FOR_TEAMMATES`]);
//! 3. custom agents (from definition files) lose `agents.custom_disallowed`;
//! 4. background agents keep only the working set ([`BACKGROUND_TOOLS`], plus skill,
//!    tool-search and MCP tools), so they can still edit and run tests unattended;
//! 5. the definition's `tools` (when it names any), then its `disallowed_tools`;
//! 6. a coordinator (a main agent in coordinator mode: `/coordinator on`, or
//!    `coordinator: true`) keeps only [`COORDINATOR_TOOLS`] — no code tool, no MCP
//!    tool — so code never fills its context: its teammates read and write the code;
//! 7. a main agent that leads no team has `TeamCreate` but not the tools that work on
//!    a team ([`TEAM_TOOLS`]): they cost every solo session's requests nothing.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use super::{CallError, Discovered, Prepared, Registry, ToolContext};
use crate::llm::ToolSpec;

/// What a child never gets, whatever its definition says.
pub const NEVER_FOR_CHILDREN: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "TaskStop",
    "ExitPlanMode",
    "TeamCreate",
    "TeamDelete",
    "SendMessage",
    "TaskCreate",
    "TaskUpdate",
];

/// What a teammate never gets: it talks to its lead, not the user, starts no
/// background agents and adds no teammates.
pub const NEVER_FOR_TEAMMATES: &[&str] =
    &["AskUserQuestion", "TaskStop", "TeamCreate", "TeamDelete"];

/// What a background agent keeps (with `Skill`, `ToolSearch`, MCP tools and resources).
pub const BACKGROUND_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "Bash",
    "BashOutput",
    "KillShell",
    "WebFetch",
    "TodoWrite",
    "Memory",
    "Skill",
    "ToolSearch",
    "ListMcpResources",
    "ReadMcpResource",
];

/// What a coordinator keeps: its team, task, message and agent tools, its notes
/// (`TodoWrite`, `Memory`), `AskUserQuestion` to report what it cannot resolve, and
/// `ExitPlanMode` while it plans. An allow-list, so a tool added later (or an MCP
/// tool) is a code tool until it is named here.
pub const COORDINATOR_TOOLS: &[&str] = &[
    "TeamCreate",
    "TeamDelete",
    "SendMessage",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
    "TaskStop",
    "Agent",
    "TodoWrite",
    "Memory",
    "AskUserQuestion",
    "ExitPlanMode",
];

/// The tools that work on a team: a main agent gets them once it leads one.
pub const TEAM_TOOLS: &[&str] = &["TeamDelete", "SendMessage", "TaskCreate", "TaskUpdate"];

/// The tools that go with Bash: `tools.bash: false` removes them all.
const BASH_TOOLS: &[&str] = &["Bash", "BashOutput", "KillShell"];

/// Which agent a set is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// A session's main agent (talks to the user).
    Main,
    /// A session's main agent in coordinator mode: it decomposes, dispatches and
    /// monitors, and does no code work itself (`COORDINATOR_TOOLS`).
    Coordinator,
    /// An agent another agent started.
    Child {
        /// Defined in a file (`.roocode/agents`, `.claude/agents`), not built in.
        custom: bool,
        /// Runs in the background (unattended).
        background: bool,
    },
    /// A member of a team (long-lived, works beside its lead).
    Teammate {
        /// Defined in a file, not built in.
        custom: bool,
    },
}

/// Everything [`select`] decides on besides the registry.
#[derive(Debug, Clone, Copy)]
pub struct Selection<'a> {
    pub kind: AgentKind,
    /// `tools.disabled` of the configuration.
    pub disabled: &'a [String],
    /// `tools.bash` of the configuration (`Some(false)`: no Bash).
    pub bash: Option<bool>,
    /// `agents.custom_disallowed` of the configuration.
    pub custom_disallowed: &'a [String],
    /// The definition's `tools`; `None` (or empty) means every tool left.
    pub allowed: Option<&'a [String]>,
    /// The definition's `disallowed_tools`.
    pub disallowed: &'a [String],
    /// The agent is in plan mode (only then has it `ExitPlanMode`).
    pub planning: bool,
    /// A main agent leads a team (only then has it `TEAM_TOOLS`).
    pub leading: bool,
}

impl<'a> Selection<'a> {
    /// A main agent's selection under the configuration's `disabled` and `bash`.
    pub fn main(disabled: &'a [String], bash: Option<bool>) -> Self {
        Self {
            kind: AgentKind::Main,
            disabled,
            bash,
            custom_disallowed: &[],
            allowed: None,
            disallowed: &[],
            planning: false,
            leading: false,
        }
    }

    /// The same selection for a main agent that leads a team (`leading`), or not.
    pub fn leading(self, leading: bool) -> Self {
        Self { leading, ..self }
    }

    /// The same selection for a main agent in coordinator mode (`coordinator`), or not.
    pub fn coordinating(self, coordinator: bool) -> Self {
        Self {
            kind: if coordinator {
                AgentKind::Coordinator
            } else {
                AgentKind::Main
            },
            ..self
        }
    }

    /// The same selection for an agent in `mode`.
    pub fn in_mode(self, mode: roocode_protocol::Mode) -> Self {
        Self {
            planning: mode == roocode_protocol::Mode::Plan,
            ..self
        }
    }
}

/// The tools of one agent.
#[derive(Clone)]
pub struct ToolSet {
    registry: Arc<Registry>,
    /// The set's names, in the registry's order (stable, for prompt caching).
    names: Vec<Arc<str>>,
    /// What the model is sent instead of `names` (a fork keeps its parent's array, so
    /// the provider's prompt cache hits); calls are still checked against `names`.
    advertised: Option<Vec<Arc<str>>>,
    /// Tools of the set sent by name only until discovered (see [`ToolSet::deferring`]).
    deferred: HashSet<Arc<str>>,
    discovered: Option<Arc<Discovered>>,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ToolSet").field(&self.names).finish()
    }
}

/// The tool set `selection` leaves of `registry`'s enabled tools.
pub fn select(registry: &Arc<Registry>, selection: &Selection<'_>) -> ToolSet {
    let names = registry
        .names()
        .into_iter()
        .filter(|name| keeps(selection, name))
        .map(Arc::from)
        .collect();
    ToolSet {
        registry: Arc::clone(registry),
        names,
        advertised: None,
        deferred: HashSet::new(),
        discovered: None,
    }
}

/// True if every layer keeps `name`.
fn keeps(s: &Selection<'_>, name: &str) -> bool {
    let listed = |list: &[String]| list.iter().any(|n| n == name);
    if name == "ExitPlanMode" && !s.planning {
        return false;
    }
    if listed(s.disabled) || (s.bash == Some(false) && BASH_TOOLS.contains(&name)) {
        return false;
    }
    match s.kind {
        AgentKind::Main | AgentKind::Coordinator if !s.leading && TEAM_TOOLS.contains(&name) => {
            return false;
        }
        AgentKind::Main => {}
        AgentKind::Coordinator => {
            if !COORDINATOR_TOOLS.contains(&name) {
                return false;
            }
        }
        AgentKind::Child { custom, background } => {
            if NEVER_FOR_CHILDREN.contains(&name) || (custom && listed(s.custom_disallowed)) {
                return false;
            }
            if background && !BACKGROUND_TOOLS.contains(&name) && !name.starts_with("mcp__") {
                return false;
            }
        }
        AgentKind::Teammate { custom } => {
            if NEVER_FOR_TEAMMATES.contains(&name) || (custom && listed(s.custom_disallowed)) {
                return false;
            }
        }
    }
    let allowed = s.allowed.filter(|a| !a.is_empty()).is_none_or(listed);
    allowed && !listed(s.disallowed)
}

impl ToolSet {
    /// Every enabled tool of `registry` (what the main agent gets with nothing
    /// disabled).
    pub fn all(registry: &Arc<Registry>) -> Self {
        select(
            registry,
            &Selection::main(&[], None).in_mode(roocode_protocol::Mode::Plan),
        )
    }

    /// The set's names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|n| &**n)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names().any(|n| n == name)
    }

    /// The same set, sent to the model as the tools `advertised` of the registry (a
    /// fork's parent's array); a call of an advertised tool outside the set is refused
    /// when it is made.
    pub fn advertising(mut self, advertised: &[String]) -> Self {
        let wanted: HashSet<&str> = advertised.iter().map(String::as_str).collect();
        self.advertised = Some(
            self.registry
                .names()
                .into_iter()
                .filter(|n| wanted.contains(n))
                .map(Arc::from)
                .collect(),
        );
        self
    }

    /// The same set keeping only the tools named in `allowed` (and `Skill`, so a skill
    /// can still be finished or another one loaded): a skill's or command's
    /// `allowed_tools`. When that leaves nothing, the model is still sent the whole
    /// array (a history holding tool calls needs one) and every call is refused.
    pub fn narrowed(mut self, allowed: &[String]) -> Self {
        let before = self.names.clone();
        self.names
            .retain(|n| &**n == "Skill" || allowed.iter().any(|a| a == &**n));
        if self.names.is_empty() && self.advertised.is_none() {
            self.advertised = Some(before);
        }
        self
    }

    /// The same set with `tools` added after its own (a running skill's tools): a
    /// tool whose name the set's registry already has is left out.
    pub fn with_tools(mut self, tools: Vec<Arc<dyn super::Tool>>) -> Self {
        if tools.is_empty() {
            return self;
        }
        let mut overlay = Registry::overlay(&self.registry);
        for tool in tools {
            let name = tool.spec().name;
            match overlay.register(tool) {
                Ok(()) => {
                    if let Some(advertised) = &mut self.advertised {
                        advertised.push(Arc::clone(&name));
                    }
                    self.names.push(name);
                }
                Err(e) => tracing::warn!("a skill tool is not offered: {e}"),
            }
        }
        self.registry = Arc::new(overlay);
        self
    }

    /// The same set without `name`.
    pub fn without(mut self, name: &str) -> Self {
        self.names.retain(|n| &**n != name);
        self
    }

    /// The same set with `deferred` (those of its tools it has) sent by name only,
    /// until `discovered` holds them: a call of one discovers it.
    pub fn deferring(
        mut self,
        deferred: impl IntoIterator<Item = Arc<str>>,
        discovered: Arc<Discovered>,
    ) -> Self {
        self.deferred = deferred.into_iter().filter(|n| self.contains(n)).collect();
        self.discovered = Some(discovered);
        self
    }

    fn is_hidden(&self, name: &str) -> bool {
        self.deferred.contains(name) && !self.discovered.as_ref().is_some_and(|d| d.contains(name))
    }

    /// The deferred tools not discovered yet, with the first line of each one's
    /// description, in the set's order.
    pub fn hidden(&self) -> Vec<(String, String)> {
        self.registry
            .defs()
            .into_iter()
            .filter(|d| self.is_hidden(&d.name))
            .map(|d| {
                let line = d.description.lines().next().unwrap_or_default();
                (d.name.to_string(), line.to_string())
            })
            .collect()
    }

    /// The set as the model sees it, in order (deferred tools only once discovered).
    pub fn defs(&self) -> Vec<ToolSpec> {
        let sent = self.advertised.as_ref().unwrap_or(&self.names);
        let wanted: HashSet<&str> = sent.iter().map(|n| &**n).collect();
        self.registry
            .defs()
            .into_iter()
            .filter(|d| wanted.contains(&*d.name) && !self.is_hidden(&d.name))
            .collect()
    }

    /// [`Registry::prepare`] for a tool of this set; any other name is an unknown tool
    /// listing the set's names.
    pub fn prepare(
        &self,
        name: &str,
        input: &Value,
        ctx: &ToolContext,
    ) -> Result<Prepared, CallError> {
        if !self.contains(name) {
            if self
                .advertised
                .as_ref()
                .is_some_and(|a| a.iter().any(|n| &**n == name))
            {
                return Err(CallError::NotForThisAgent {
                    name: name.to_string(),
                    known: self.names().collect::<Vec<_>>().join(", "),
                });
            }
            return Err(CallError::UnknownTool {
                name: name.to_string(),
                known: self.names().collect::<Vec<_>>().join(", "),
            });
        }
        let prepared = self.registry.prepare(name, input, ctx)?;
        // A deferred tool called directly with valid arguments is discovered by it.
        if self.is_hidden(name)
            && let Some(discovered) = &self.discovered
        {
            discovered.add([name]);
        }
        Ok(prepared)
    }
}

#[cfg(test)]
mod tests;
