//! `roocode-cli mcp approve NAME`: approves a server of this directory's project's
//! `.mcp.json` or `.roocode/config.yaml` as it is written now, and prints what was
//! approved. A project's servers come with a cloned repository, so they start only
//! once the user approved them; a change to what one runs asks again. Refused to the
//! model's commands (the daemon checks the caller).

use roocode_protocol::api::McpApiClient;
use roocode_protocol::mcp::McpApproval;

use super::list::{current_dir, failed};
use crate::connect;
use crate::output::out;

/// Runs `mcp approve NAME`; returns the exit status.
pub async fn run(name: &str) -> anyhow::Result<i32> {
    let cwd = current_dir()?;
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let approval = McpApiClient::approve(
        &conn.rpc,
        cwd.display().to_string(),
        roocode_client::client_env(&cwd),
        name.to_string(),
    )
    .await
    .map_err(|e| failed(&format!("cannot approve the MCP server `{name}`"), e))?;
    out(&render(&approval));
    Ok(0)
}

fn render(a: &McpApproval) -> String {
    let runs = &a.runs;
    let mut text = format!(
        "Approved the MCP server `{}` of {} ({}):\n  runs: {}\n",
        a.name,
        a.project,
        a.source,
        runs.summary()
    );
    if let Some(cwd) = &runs.cwd {
        text.push_str(&format!("  cwd: {cwd}\n"));
    }
    if !runs.env_names.is_empty() {
        text.push_str(&format!("  env: {}\n", runs.env_names.join(", ")));
    }
    if !runs.header_names.is_empty() {
        text.push_str(&format!("  headers: {}\n", runs.header_names.join(", ")));
    }
    text.push_str(
        "It starts at the next turn of a session in this project; a change to what it runs asks for approval again.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use roocode_protocol::mcp::McpLaunchInfo;

    use super::*;

    #[test]
    fn it_says_what_was_approved() {
        let text = render(&McpApproval {
            name: "gh".into(),
            project: "/p".into(),
            source: "/p/.mcp.json".into(),
            runs: McpLaunchInfo {
                command: Some("npx".into()),
                args: vec!["-y".into(), "gh".into()],
                env_names: vec!["TOKEN".into()],
                ..McpLaunchInfo::default()
            },
        });
        assert!(text.starts_with("Approved the MCP server `gh` of /p (/p/.mcp.json):\n  runs: npx -y gh\n  env: TOKEN\n"), "{text}");
    }
}
