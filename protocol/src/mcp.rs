//! MCP servers on the wire: the answers of `mcp.list`, `mcp.get` and `mcp.approve`
//! ([`McpServerInfo`], [`McpToolInfo`], [`McpApproval`]). A server is shown as it is
//! written (command, args, url) with the *names* of its env variables and headers only:
//! their values may hold secrets and never leave the daemon.
//!
//! `{"name":"github","scope":"project","transport":"stdio","source":"/p/.mcp.json",
//! "state":"needs_approval","approve_command":"roocode-cli mcp approve github",
//! "tool_count":0,"runs":{"command":"npx","args":["-y","gh"],"env_names":["TOKEN"]}}`

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a server is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpScope {
    /// `config.yaml` of the user directory.
    User,
    /// The project's `.mcp.json` or `.roocode/config.yaml`: starts once approved.
    Project,
    /// The project's `.roocode/config.local.yaml`.
    Local,
    /// A scope this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl McpScope {
    pub fn as_str(self) -> &'static str {
        match self {
            McpScope::User => "user",
            McpScope::Project => "project",
            McpScope::Local => "local",
            McpScope::Unknown => "unknown",
        }
    }
}

/// How a server is reached, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Server-sent events: configured, but not supported (its state says why).
    Sse,
    /// A transport this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl McpTransport {
    pub fn as_str(self) -> &'static str {
        match self {
            McpTransport::Stdio => "stdio",
            McpTransport::Http => "http",
            McpTransport::Sse => "sse",
            McpTransport::Unknown => "unknown",
        }
    }
}

/// Where a server is, flattened into [`McpServerInfo`] under `state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerState {
    /// Up, its tools listed.
    Connected,
    /// Starting (or starting again after a failure: see `last_error`).
    Starting,
    /// Down. `retrying`: it will be started again by itself; otherwise it gave up
    /// until a session (or `mcp list`) asks for it again.
    Failed { reason: String, retrying: bool },
    /// A project's server the user has not approved as it is now.
    NeedsApproval {
        /// What approves it: `roocode-cli mcp approve NAME`.
        approve_command: String,
    },
    /// `enabled: false` (`roocode-cli mcp enable NAME` switches it back on).
    Disabled,
    /// It cannot run as configured; the reason says what to change.
    Unusable { reason: String },
    /// A state this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl McpServerState {
    /// The state in a table: `connected`, `needs approval`, …
    pub fn label(&self) -> &'static str {
        match self {
            McpServerState::Connected => "connected",
            McpServerState::Starting => "starting",
            McpServerState::Failed { .. } => "failed",
            McpServerState::NeedsApproval { .. } => "needs approval",
            McpServerState::Disabled => "disabled",
            McpServerState::Unusable { .. } => "unusable",
            McpServerState::Unknown => "unknown",
        }
    }
}

/// What a server runs or connects to, as written (`${VAR}` references unexpanded).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpLaunchInfo {
    /// A stdio server's command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The names of the variables it sets (never their values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_names: Vec<String>,
    /// Its working directory (relative: to the project root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// An http server's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The names of the headers it sends (never their values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub header_names: Vec<String>,
}

impl McpLaunchInfo {
    /// `command arg…` or the url, on one line (args with spaces quoted).
    pub fn summary(&self) -> String {
        match (&self.command, &self.url) {
            (Some(command), _) => std::iter::once(command)
                .chain(&self.args)
                .map(|word| {
                    if word.is_empty() || word.contains(char::is_whitespace) {
                        format!("{word:?}")
                    } else {
                        word.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            (None, Some(url)) => url.clone(),
            (None, None) => String::new(),
        }
    }
}

/// One configured server (`mcp.list`, `mcp.get`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerInfo {
    pub name: String,
    pub scope: McpScope,
    /// Absent when the entry names no transport that can be told (both a command and
    /// a url, neither, an unknown `type`).
    #[serde(default)]
    pub transport: Option<McpTransport>,
    /// The file that defines it.
    pub source: String,
    #[serde(flatten)]
    pub state: McpServerState,
    /// The tools the model gets from it (the last listed, while it restarts).
    #[serde(default)]
    pub tool_count: u64,
    /// Why it last failed, if it ever did since the daemon started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub runs: McpLaunchInfo,
    /// Its tools (`mcp.get` only; lists leave them out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<McpToolInfo>,
}

impl McpServerInfo {
    /// Its tool count as a table shows it: `-` for a server that does not run.
    pub fn tools_cell(&self) -> String {
        match self.state {
            McpServerState::Connected
            | McpServerState::Starting
            | McpServerState::Failed { .. } => self.tool_count.to_string(),
            McpServerState::NeedsApproval { .. }
            | McpServerState::Disabled
            | McpServerState::Unusable { .. }
            | McpServerState::Unknown => "-".into(),
        }
    }

    /// What to tell beside its state, if anything: the reason it failed or cannot run,
    /// the command that approves it, how to switch it on.
    pub fn note(&self) -> Option<String> {
        match &self.state {
            McpServerState::Failed { reason, retrying } => Some(if *retrying {
                format!("{reason} (retrying)")
            } else {
                reason.clone()
            }),
            McpServerState::Unusable { reason } => Some(reason.clone()),
            McpServerState::NeedsApproval { approve_command } => Some(format!(
                "a project server: approve what it runs with `{approve_command}`"
            )),
            McpServerState::Disabled => Some(format!(
                "switched off: `roocode-cli mcp enable {}` switches it on",
                self.name
            )),
            McpServerState::Starting => self
                .last_error
                .as_ref()
                .map(|e| format!("starting again after: {e}")),
            McpServerState::Connected | McpServerState::Unknown => None,
        }
    }
}

/// One tool of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpToolInfo {
    /// What the model calls it: `mcp__server__tool`.
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    #[serde(default)]
    pub description: String,
    /// The server's claim that it only reads (a hint: never a permission).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
}

/// What `mcp.approve` approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpApproval {
    pub name: String,
    /// The project root the approval holds for.
    pub project: String,
    /// The file that defines the server.
    pub source: String,
    /// What was approved: a change to any of it asks again.
    pub runs: McpLaunchInfo,
}

/// The servers as `roocode-cli mcp list` and `/mcp` show them: a row each (name,
/// scope, transport, state, tool count) under a header, and under a row its note (why
/// it failed or cannot run, the command that approves it), indented. No final newline.
pub fn table(servers: &[McpServerInfo]) -> String {
    let header = ["NAME", "SCOPE", "TRANSPORT", "STATE", "TOOLS"].map(String::from);
    let rows: Vec<[String; 5]> = servers
        .iter()
        .map(|s| {
            [
                s.name.clone(),
                s.scope.as_str().to_string(),
                s.transport.map_or("-", |t| t.as_str()).to_string(),
                s.state.label().to_string(),
                s.tools_cell(),
            ]
        })
        .collect();
    let mut widths = [0usize; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |row: &[String; 5]| {
        let mut text = String::new();
        for (cell, w) in row.iter().zip(widths) {
            text.push_str(&format!("{cell:w$}  "));
        }
        text.trim_end().to_string()
    };
    let mut out = vec![line(&header)];
    for (server, row) in servers.iter().zip(&rows) {
        out.push(line(row));
        if let Some(note) = server.note() {
            out.push(format!("  {note}"));
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(state: McpServerState) -> McpServerInfo {
        McpServerInfo {
            name: "gh".into(),
            scope: McpScope::Project,
            transport: Some(McpTransport::Stdio),
            source: "/p/.mcp.json".into(),
            state,
            tool_count: 0,
            last_error: None,
            runs: McpLaunchInfo {
                command: Some("npx".into()),
                args: vec!["-y".into(), "a b".into()],
                env_names: vec!["TOKEN".into()],
                ..McpLaunchInfo::default()
            },
            tools: Vec::new(),
        }
    }

    #[test]
    fn the_state_is_flattened_beside_the_server() {
        let server = info(McpServerState::NeedsApproval {
            approve_command: "roocode-cli mcp approve gh".into(),
        });
        let json = serde_json::to_value(&server).unwrap();
        assert_eq!(json["state"], "needs_approval");
        assert_eq!(json["approve_command"], "roocode-cli mcp approve gh");
        assert_eq!(json["runs"]["env_names"][0], "TOKEN");
        assert!(json.get("tools").is_none());
        let back: McpServerInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back, server);
        assert_eq!(server.runs.summary(), r#"npx -y "a b""#);
        assert!(
            server
                .note()
                .unwrap()
                .contains("roocode-cli mcp approve gh")
        );
    }

    #[test]
    fn a_newer_daemon_s_values_decode_into_the_fallbacks() {
        let json = serde_json::json!({
            "name": "x", "scope": "team", "transport": "websocket", "source": "f",
            "state": "hibernating", "tool_count": 2, "runs": {"url": "u"}
        });
        let server: McpServerInfo = serde_json::from_value(json).unwrap();
        assert_eq!(server.scope, McpScope::Unknown);
        assert_eq!(server.transport, Some(McpTransport::Unknown));
        assert_eq!(server.state, McpServerState::Unknown);
        assert_eq!(server.runs.summary(), "u");
        assert_eq!(server.note(), None);
    }

    #[test]
    fn notes_say_why_and_what_to_do() {
        let failed = info(McpServerState::Failed {
            reason: "cannot start".into(),
            retrying: true,
        });
        assert_eq!(failed.note().unwrap(), "cannot start (retrying)");
        let off = info(McpServerState::Disabled);
        assert!(off.note().unwrap().contains("mcp enable gh"));
        let mut again = info(McpServerState::Starting);
        assert_eq!(again.note(), None);
        again.last_error = Some("crashed".into());
        assert!(again.note().unwrap().contains("crashed"));
    }
}
