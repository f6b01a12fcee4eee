//! The shape of one MCP server's entry, shared by `mcp_servers:` in RooCode's YAML files
//! and `mcpServers` in a Claude-compatible `.mcp.json`: a stdio server (`command`,
//! `args`, `env`, `cwd`) or a remote one (`type: http` with `url` and `headers`; `url`
//! alone means http). Values may hold `${VAR}` and `${VAR:-default}`, expanded only
//! when the server starts (see `mcp::config`); nothing here reads the environment.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::ConfigError;

/// One server as a file writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    /// `stdio`, `http` (also spelled `streamable-http`) or `sse`; left out, `command`
    /// means stdio and `url` means http.
    #[serde(default, rename = "type")]
    pub transport: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The working directory of a stdio server (relative: to the project root).
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// `false` keeps the entry without starting the server (`roocode-cli mcp disable`).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Seconds the server may take to initialise (default 30).
    #[serde(default)]
    pub startup_timeout_s: Option<u64>,
    /// Seconds one tool call may take (default 120).
    #[serde(default)]
    pub tool_timeout_s: Option<u64>,
}

/// The `mcp_servers:` section of a YAML config file, every other key ignored (the
/// whole file is checked by `Config::parse`).
#[derive(Deserialize)]
struct Section {
    #[serde(default)]
    mcp_servers: Option<BTreeMap<String, McpServerEntry>>,
}

/// The `mcp_servers:` entries of one YAML config file's `text`, by name; errors name
/// `path` and the line and column.
pub fn yaml_servers(
    path: &Path,
    text: &str,
) -> Result<BTreeMap<String, McpServerEntry>, ConfigError> {
    if text.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    let section: Option<Section> =
        yaml_serde::from_str(text).map_err(|e| ConfigError::from_yaml(path, &e))?;
    Ok(section.and_then(|s| s.mcp_servers).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_with_their_defaults_and_bad_ones_name_the_line() {
        let path = Path::new("/p/.roocode/config.yaml");
        let text = "model: x\nmcp_servers:\n  files:\n    command: npx\n    args: [-y, server]\n    env: {TOKEN: '${TOKEN}'}\n  docs:\n    url: http://127.0.0.1:9/mcp\n    headers: {Authorization: 'Bearer ${KEY:-none}'}\n    enabled: false\n";
        let servers = yaml_servers(path, text).unwrap();
        assert_eq!(servers["files"].command.as_deref(), Some("npx"));
        assert_eq!(servers["files"].args, ["-y", "server"]);
        assert_eq!(servers["files"].env["TOKEN"], "${TOKEN}");
        assert_eq!(servers["docs"].enabled, Some(false));
        assert!(yaml_servers(path, "model: x\n").unwrap().is_empty());
        assert!(yaml_servers(path, "").unwrap().is_empty());

        let err = yaml_servers(path, "mcp_servers:\n  files:\n    comand: npx\n").unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("/p/.roocode/config.yaml: line 3"),
            "{text}"
        );
        assert!(text.contains("comand"), "{text}");
    }
}
