//! `/mcp`: the MCP servers of the session's project, as `roocode-cli mcp list` shows
//! them — name, scope, transport, state and tool count, with the reason a server failed
//! or cannot run, or the command that approves it, on the line below. The servers are
//! configured for the environment the session's client sent last, started and waited
//! for like a turn would (`Engine::mcp_session_list`).

use roocode_protocol::mcp::McpServerInfo;

use crate::agent::{AgentError, Engine};
use crate::store::SessionRow;

/// The `/mcp` report of `row`'s session.
pub async fn report(engine: &Engine, row: &SessionRow) -> Result<String, AgentError> {
    let servers = engine.mcp_session_list(row).await?;
    Ok(render(&servers))
}

fn render(servers: &[McpServerInfo]) -> String {
    if servers.is_empty() {
        return "No MCP servers are configured for this project (add one with `roocode-cli mcp add NAME -- COMMAND`).".into();
    }
    roocode_protocol::mcp::table(servers)
}

#[cfg(test)]
mod tests {
    use roocode_protocol::mcp::{McpLaunchInfo, McpScope, McpServerState, McpTransport};

    use super::*;

    fn server(name: &str, state: McpServerState, tools: u64) -> McpServerInfo {
        McpServerInfo {
            name: name.into(),
            scope: McpScope::Local,
            transport: Some(McpTransport::Stdio),
            source: "/p/.roocode/config.local.yaml".into(),
            state,
            tool_count: tools,
            last_error: None,
            runs: McpLaunchInfo::default(),
            tools: Vec::new(),
        }
    }

    #[test]
    fn one_line_per_server_and_the_reason_below() {
        let text = render(&[
            server("fixture", McpServerState::Connected, 6),
            server(
                "gh",
                McpServerState::NeedsApproval {
                    approve_command: "roocode-cli mcp approve gh".into(),
                },
                0,
            ),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "NAME     SCOPE  TRANSPORT  STATE           TOOLS");
        assert_eq!(lines[1], "fixture  local  stdio      connected       6");
        assert_eq!(lines[2], "gh       local  stdio      needs approval  -");
        assert!(lines[3].contains("`roocode-cli mcp approve gh`"), "{text}");
        assert!(render(&[]).contains("roocode-cli mcp add"));
    }
}
