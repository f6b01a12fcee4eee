//! `roocode-cli mcp get NAME [--json]`: one MCP server of this directory's project —
//! where it is configured, its state (started if it may run), what it runs as written
//! (the names of its env variables and headers, never their values) and its tools by
//! the names the model calls them; `--json` prints the `mcp.get` answer as it came.

use roocode_protocol::api::McpApiClient;
use roocode_protocol::mcp::McpServerInfo;

use super::list::{current_dir, failed};
use crate::connect;
use crate::output::{out, out_line};
use crate::table;

/// Runs `mcp get NAME`; returns the exit status.
pub async fn run(name: &str, json: bool) -> anyhow::Result<i32> {
    let cwd = current_dir()?;
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let server = McpApiClient::get(
        &conn.rpc,
        cwd.display().to_string(),
        roocode_client::client_env(&cwd),
        name.to_string(),
    )
    .await
    .map_err(|e| failed(&format!("cannot show the MCP server `{name}`"), e))?;
    if json {
        out_line(&serde_json::to_string_pretty(&server)?);
    } else {
        out(&render(&server));
    }
    Ok(0)
}

/// The server's page: its details, then its tools.
fn render(s: &McpServerInfo) -> String {
    let mut fields: Vec<(&str, String)> = vec![
        ("scope", s.scope.as_str().to_string()),
        (
            "transport",
            s.transport.map_or("-", |t| t.as_str()).to_string(),
        ),
        ("source", s.source.clone()),
        ("state", s.state.label().to_string()),
    ];
    if let Some(note) = s.note() {
        fields.push(("", note));
    }
    let runs = &s.runs;
    fields.push(("runs", runs.summary()));
    if let Some(cwd) = &runs.cwd {
        fields.push(("cwd", cwd.clone()));
    }
    if !runs.env_names.is_empty() {
        fields.push(("env", runs.env_names.join(", ")));
    }
    if !runs.header_names.is_empty() {
        fields.push(("headers", runs.header_names.join(", ")));
    }
    if let Some(e) = &s.last_error {
        fields.push(("last error", e.clone()));
    }
    let width = fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
    let mut text = format!("{}\n", s.name);
    for (key, value) in fields {
        let key = if key.is_empty() {
            String::new()
        } else {
            format!("{key}:")
        };
        text.push_str(&format!("  {key:width$} {value}\n"));
    }
    if s.tools.is_empty() {
        text.push_str("tools: none listed\n");
        return text;
    }
    text.push_str(&format!("tools ({}):\n", s.tools.len()));
    let mut rows = vec![vec![
        "NAME".to_string(),
        "SERVER'S NAME".to_string(),
        "READ-ONLY".to_string(),
        "DESCRIPTION".to_string(),
    ]];
    rows.extend(s.tools.iter().map(|t| {
        vec![
            t.name.clone(),
            t.tool.clone(),
            match t.read_only_hint {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }
            .to_string(),
            table::clip(&t.description, 80),
        ]
    }));
    for line in table::render(&rows).lines() {
        text.push_str(&format!("  {line}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use roocode_protocol::mcp::{
        McpLaunchInfo, McpScope, McpServerState, McpToolInfo, McpTransport,
    };

    use super::*;

    #[test]
    fn the_page_shows_what_runs_and_the_tools() {
        let server = McpServerInfo {
            name: "fixture".into(),
            scope: McpScope::Local,
            transport: Some(McpTransport::Stdio),
            source: "/p/.roocode/config.local.yaml".into(),
            state: McpServerState::Connected,
            tool_count: 1,
            last_error: Some("crashed".into()),
            runs: McpLaunchInfo {
                command: Some("/bin/fixture".into()),
                args: vec!["--stdio".into()],
                env_names: vec!["TOKEN".into()],
                ..McpLaunchInfo::default()
            },
            tools: vec![McpToolInfo {
                name: "mcp__fixture__notes_search".into(),
                tool: "notes.search".into(),
                description: "Search the notes\nmore".into(),
                read_only_hint: Some(true),
            }],
        };
        let text = render(&server);
        assert!(text.starts_with("fixture\n"), "{text}");
        assert!(
            text.contains("  runs:       /bin/fixture --stdio\n"),
            "{text}"
        );
        assert!(text.contains("  env:        TOKEN\n"), "{text}");
        assert!(text.contains("  last error: crashed\n"), "{text}");
        assert!(text.contains("tools (1):"), "{text}");
        assert!(
            text.contains("mcp__fixture__notes_search  notes.search   yes        Search the notes"),
            "{text}"
        );
    }
}
