//! `roocode-cli mcp list [--json]`: the MCP servers of this directory's project as the
//! daemon has them for this shell's environment — started if they may run, so their
//! states are real. One row per server (name, scope, transport, state, tool count),
//! the reason a server failed or cannot run, or the command that approves it, on the
//! line below; `--json` prints the `mcp.list` answer as it came.

use roocode_protocol::api::McpApiClient;
use roocode_protocol::mcp::McpServerInfo;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};

/// Runs `mcp list`; returns the exit status.
pub async fn run(json: bool) -> anyhow::Result<i32> {
    let cwd = current_dir()?;
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let servers = McpApiClient::list(
        &conn.rpc,
        cwd.display().to_string(),
        roocode_client::client_env(&cwd),
    )
    .await
    .map_err(|e| failed("cannot list the MCP servers", e))?;
    if json {
        out_line(&serde_json::to_string_pretty(&servers)?);
    } else if servers.is_empty() {
        err_line(
            "no MCP servers are configured for this project (add one with `roocode-cli mcp add NAME -- COMMAND`)",
        );
    } else {
        out(&render(&servers));
    }
    Ok(0)
}

/// The directory the command runs in.
pub(super) fn current_dir() -> Result<std::path::PathBuf, Failure> {
    std::env::current_dir()
        .map_err(|e| Failure::new("config", format!("cannot read the current directory: {e}")))
}

/// A daemon's error, saying what could not be done.
pub(super) fn failed(what: &str, e: jsonrpsee::core::client::Error) -> Failure {
    let f = Failure::from(e);
    Failure::new(f.kind, format!("{what}: {}", f.message))
}

/// The table, with each server's note indented under its row.
pub(super) fn render(servers: &[McpServerInfo]) -> String {
    format!("{}\n", roocode_protocol::mcp::table(servers))
}

#[cfg(test)]
mod tests {
    use roocode_protocol::mcp::{McpLaunchInfo, McpScope, McpServerState, McpTransport};

    use super::*;

    fn server(name: &str, state: McpServerState, tools: u64) -> McpServerInfo {
        McpServerInfo {
            name: name.into(),
            scope: McpScope::Project,
            transport: Some(McpTransport::Stdio),
            source: "/p/.mcp.json".into(),
            state,
            tool_count: tools,
            last_error: None,
            runs: McpLaunchInfo::default(),
            tools: Vec::new(),
        }
    }

    #[test]
    fn a_row_per_server_and_what_to_do_below_it() {
        let text = render(&[
            server("fixture", McpServerState::Connected, 6),
            server(
                "gh",
                McpServerState::NeedsApproval {
                    approve_command: "roocode-cli mcp approve gh".into(),
                },
                0,
            ),
            server(
                "broken",
                McpServerState::Failed {
                    reason: "cannot start the server: `nope`: No such file".into(),
                    retrying: false,
                },
                0,
            ),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "NAME     SCOPE    TRANSPORT  STATE           TOOLS"
        );
        assert_eq!(lines[1], "fixture  project  stdio      connected       6");
        assert_eq!(lines[2], "gh       project  stdio      needs approval  -");
        assert!(lines[3].starts_with("  ") && lines[3].contains("roocode-cli mcp approve gh"));
        assert_eq!(lines[4], "broken   project  stdio      failed          0");
        assert_eq!(lines[5], "  cannot start the server: `nope`: No such file");
        assert_eq!(lines.len(), 6);
    }
}
