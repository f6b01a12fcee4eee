//! A configured server as clients see it (`mcp.list|get`, `/mcp`): its scope, transport
//! and file, its state now, its tools, and what it runs as written — the names of its
//! env variables and headers, never their values (they may hold secrets).

use roocode_protocol::mcp::{
    McpLaunchInfo, McpScope, McpServerInfo, McpServerState, McpToolInfo, McpTransport,
};

use super::config::{Scope, ServerConfig, TransportKind};
use super::names::tool_name;
use super::server::State;
use super::session::{Configured, Status};

/// The command that approves the project server `name`.
pub fn approve_command(name: &str) -> String {
    format!("roocode-cli mcp approve {name}")
}

/// `c` as clients see it; with its tools when `with_tools`.
pub fn info(c: &Configured, with_tools: bool) -> McpServerInfo {
    let config = &c.config;
    let mut info = McpServerInfo {
        name: config.name.clone(),
        scope: scope(config.scope),
        transport: transport(config),
        source: config.source.display().to_string(),
        state: McpServerState::Disabled,
        tool_count: 0,
        last_error: None,
        runs: launch_info(config),
        tools: Vec::new(),
    };
    info.state = match &c.status {
        Status::Disabled => McpServerState::Disabled,
        Status::NeedsApproval => McpServerState::NeedsApproval {
            approve_command: approve_command(&config.name),
        },
        Status::Unusable(reason) => McpServerState::Unusable {
            reason: reason.clone(),
        },
        Status::Active { server, .. } => {
            let now = server.snapshot();
            info.tool_count = now.tools.len() as u64;
            info.last_error = now.last_error.clone();
            if with_tools {
                info.tools = now
                    .tools
                    .iter()
                    .map(|t| McpToolInfo {
                        name: tool_name(&config.name, &t.name),
                        tool: t.name.clone(),
                        description: t.description.clone(),
                        read_only_hint: t.read_only_hint,
                    })
                    .collect();
            }
            match now.state {
                State::Starting => McpServerState::Starting,
                State::Connected { .. } => McpServerState::Connected,
                State::Failed { reason, retrying } => McpServerState::Failed { reason, retrying },
            }
        }
    };
    info
}

/// What `config` runs, as written: names only for env and headers.
pub fn launch_info(config: &ServerConfig) -> McpLaunchInfo {
    let e = &config.entry;
    McpLaunchInfo {
        command: e.command.clone(),
        args: e.args.clone(),
        env_names: e.env.keys().cloned().collect(),
        cwd: e.cwd.clone(),
        url: e.url.clone(),
        header_names: e.headers.keys().cloned().collect(),
    }
}

fn scope(scope: Scope) -> McpScope {
    match scope {
        Scope::User => McpScope::User,
        Scope::Project => McpScope::Project,
        Scope::Local => McpScope::Local,
    }
}

/// Its transport as configured: `sse` too (which cannot be used), none when the entry
/// says nothing that can be told.
fn transport(config: &ServerConfig) -> Option<McpTransport> {
    if config.entry.transport.as_deref() == Some("sse") {
        return Some(McpTransport::Sse);
    }
    match config.transport() {
        Ok(TransportKind::Stdio) => Some(McpTransport::Stdio),
        Ok(TransportKind::Http) => Some(McpTransport::Http),
        // A stdio or http server missing its command or url is still of that kind.
        Err(_) => match config.entry.transport.as_deref() {
            Some("stdio") => Some(McpTransport::Stdio),
            Some("http" | "streamable-http" | "streamableHttp") => Some(McpTransport::Http),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::McpServerEntry;

    fn configured(entry: McpServerEntry, scope: Scope, status: Status) -> Configured {
        Configured {
            config: ServerConfig {
                name: "gh".into(),
                scope,
                source: PathBuf::from("/p/.mcp.json"),
                entry,
            },
            status,
        }
    }

    #[test]
    fn secrets_never_leave_only_names_do() {
        let entry = McpServerEntry {
            command: Some("npx".into()),
            args: vec!["-y".into(), "${PKG}".into()],
            env: [("TOKEN".to_string(), "s3cret-value".to_string())].into(),
            url: None,
            headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into(),
            ..McpServerEntry::default()
        };
        let c = configured(entry, Scope::Project, Status::NeedsApproval);
        let shown = info(&c, /*with_tools*/ true);
        let text = serde_json::to_string(&shown).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        assert_eq!(shown.runs.env_names, ["TOKEN"]);
        assert_eq!(shown.runs.header_names, ["Authorization"]);
        assert_eq!(shown.runs.args, ["-y", "${PKG}"], "as written, unexpanded");
        assert_eq!(shown.scope, McpScope::Project);
        assert_eq!(shown.transport, Some(McpTransport::Stdio));
        assert_eq!(
            shown.state,
            McpServerState::NeedsApproval {
                approve_command: "roocode-cli mcp approve gh".into()
            }
        );
        assert_eq!(shown.tool_count, 0);
    }

    #[test]
    fn servers_that_do_not_run_say_why() {
        let sse = McpServerEntry {
            transport: Some("sse".into()),
            url: Some("http://127.0.0.1:9/sse".into()),
            ..McpServerEntry::default()
        };
        let reason = "the SSE transport is not supported".to_string();
        let shown = info(
            &configured(sse, Scope::Local, Status::Unusable(reason.clone())),
            false,
        );
        assert_eq!(shown.transport, Some(McpTransport::Sse));
        assert_eq!(shown.state, McpServerState::Unusable { reason });
        assert_eq!(shown.runs.url.as_deref(), Some("http://127.0.0.1:9/sse"));
        assert_eq!(shown.scope, McpScope::Local);

        let neither = configured(McpServerEntry::default(), Scope::User, Status::Disabled);
        let shown = info(&neither, false);
        assert_eq!(shown.transport, None);
        assert_eq!(shown.state, McpServerState::Disabled);
        let no_url = McpServerEntry {
            transport: Some("http".into()),
            ..McpServerEntry::default()
        };
        let shown = info(&configured(no_url, Scope::User, Status::Disabled), false);
        assert_eq!(shown.transport, Some(McpTransport::Http));
    }

    #[test]
    fn an_active_server_shows_its_state_now() {
        let launch = crate::mcp::config::Launch::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Default::default(),
        };
        // Never spawned: it stays starting.
        let server = crate::mcp::server::Server::new(
            "gh",
            launch,
            std::time::Duration::from_secs(1),
            std::time::Duration::from_secs(1),
            tokio_util::sync::CancellationToken::new(),
        );
        let entry = McpServerEntry {
            url: Some("http://127.0.0.1:9/mcp".into()),
            ..McpServerEntry::default()
        };
        let status = Status::Active {
            server,
            tool_timeout: std::time::Duration::from_secs(1),
        };
        let shown = info(&configured(entry, Scope::User, status), true);
        assert_eq!(shown.state, McpServerState::Starting);
        assert_eq!((shown.tool_count, shown.last_error), (0, None));
        assert!(shown.tools.is_empty());
    }
}
