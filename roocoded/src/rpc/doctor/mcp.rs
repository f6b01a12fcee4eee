//! The doctor's MCP check: one line per MCP server of the project, in the state
//! `roocode-cli mcp list` shows (the servers that may run are started and waited for
//! up to `mcp.startup_wait_ms`, as a session would): connected with its tools, failed
//! and why, waiting for the user's approval and the command that gives it, switched off
//! or unusable as configured.

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};
use roocode_protocol::mcp::{McpServerInfo, McpServerState};
use roocode_protocol::session::ClientEnv;

use crate::agent::Engine;

/// The checks of `cwd`'s project's MCP servers for a client with `env`.
pub(super) async fn checks(engine: &Engine, cwd: &str, env: &ClientEnv) -> Vec<DoctorCheck> {
    match engine.mcp_list(cwd, env).await {
        Err(e) => vec![DoctorCheck::new(
            "mcp",
            CheckStatus::Fail,
            format!("the MCP servers cannot be listed: {e}"),
        )],
        Ok(servers) if servers.is_empty() => vec![DoctorCheck::new(
            "mcp",
            CheckStatus::Ok,
            "no MCP server is configured for this project",
        )],
        Ok(servers) => servers.iter().map(server_check).collect(),
    }
}

fn server_check(server: &McpServerInfo) -> DoctorCheck {
    let name = &server.name;
    let whence = format!("{} scope, {}", server.scope.as_str(), server.source);
    let (status, detail) = match &server.state {
        McpServerState::Connected => (
            CheckStatus::Ok,
            format!("connected, {} tools ({whence})", server.tool_count),
        ),
        McpServerState::Starting => (
            CheckStatus::Warn,
            format!(
                "still starting after the start-up wait{} ({whence})",
                server
                    .last_error
                    .as_ref()
                    .map(|e| format!("; it last failed with: {e}"))
                    .unwrap_or_default()
            ),
        ),
        McpServerState::Failed { reason, retrying } => (
            CheckStatus::Fail,
            format!(
                "failed: {reason}{} ({whence}); `roocode-cli mcp get {name}` shows what it runs",
                if *retrying {
                    "; it is being started again"
                } else {
                    ""
                }
            ),
        ),
        McpServerState::NeedsApproval { approve_command } => (
            CheckStatus::Warn,
            format!(
                "waits for approval and does not run ({whence}): read what it runs with `roocode-cli mcp get {name}`, then approve it with `{approve_command}`"
            ),
        ),
        McpServerState::Disabled => (
            CheckStatus::Ok,
            format!("switched off ({whence}): `roocode-cli mcp enable {name}` switches it on"),
        ),
        McpServerState::Unusable { reason } => (
            CheckStatus::Fail,
            format!("cannot run as configured ({whence}): {reason}"),
        ),
        McpServerState::Unknown => (
            CheckStatus::Warn,
            format!("in a state this build does not know ({whence})"),
        ),
    };
    DoctorCheck::new(format!("mcp: {name}"), status, detail)
}

#[cfg(test)]
mod tests {
    use roocode_protocol::mcp::{McpLaunchInfo, McpScope, McpTransport};

    use super::*;

    fn server(state: McpServerState) -> McpServerInfo {
        McpServerInfo {
            name: "github".into(),
            scope: McpScope::Project,
            transport: Some(McpTransport::Stdio),
            source: "/p/.mcp.json".into(),
            state,
            tool_count: 3,
            last_error: None,
            runs: McpLaunchInfo::default(),
            tools: Vec::new(),
        }
    }

    #[test]
    fn each_state_has_its_status_and_says_what_to_do() {
        let connected = server_check(&server(McpServerState::Connected));
        assert_eq!(connected.name, "mcp: github");
        assert_eq!(connected.status, CheckStatus::Ok);
        assert_eq!(
            connected.detail,
            "connected, 3 tools (project scope, /p/.mcp.json)"
        );

        let failed = server_check(&server(McpServerState::Failed {
            reason: "exited with status 1".into(),
            retrying: true,
        }));
        assert_eq!(failed.status, CheckStatus::Fail);
        assert!(
            failed
                .detail
                .starts_with("failed: exited with status 1; it is being started again"),
            "{}",
            failed.detail
        );

        let waiting = server_check(&server(McpServerState::NeedsApproval {
            approve_command: "roocode-cli mcp approve github".into(),
        }));
        assert_eq!(waiting.status, CheckStatus::Warn);
        assert!(
            waiting
                .detail
                .ends_with("approve it with `roocode-cli mcp approve github`"),
            "{}",
            waiting.detail
        );

        let mut starting = server(McpServerState::Starting);
        starting.last_error = Some("connection refused".into());
        let starting = server_check(&starting);
        assert_eq!(starting.status, CheckStatus::Warn);
        assert!(
            starting.detail.contains("connection refused"),
            "{}",
            starting.detail
        );

        assert_eq!(
            server_check(&server(McpServerState::Disabled)).status,
            CheckStatus::Ok
        );
        let unusable = server_check(&server(McpServerState::Unusable {
            reason: "sse is not supported".into(),
        }));
        assert_eq!(unusable.status, CheckStatus::Fail);
        assert!(unusable.detail.ends_with("sse is not supported"));
    }
}
