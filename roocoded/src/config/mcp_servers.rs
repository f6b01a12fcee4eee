//! The shape of one MCP server's entry, shared by `mcp_servers:` in RooCode's YAML files
//! and `mcpServers` in a Claude-compatible `.mcp.json`: a stdio server (`command`,
//! `args`, `env`, `cwd`) or a remote one (`type: http` with `url` and `headers`; `url`
//! alone means http). Values may hold `${VAR}` and `${VAR:-default}`, expanded only
//! when the server starts (see `mcp::config`); nothing here reads the environment.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::error::Problem;
use super::{ConfigError, validate};

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

/// The `mcp_servers:` entries of one YAML config file's `text`, by name; an invalid
/// file is a [`ConfigError::Problems`] listing every problem of its entries, each with
/// `path`, line and column.
pub fn yaml_servers(
    path: &Path,
    text: &str,
) -> Result<BTreeMap<String, McpServerEntry>, ConfigError> {
    if text.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    match yaml_serde::from_str::<Option<Section>>(text) {
        Ok(section) => Ok(section.and_then(|s| s.mcp_servers).unwrap_or_default()),
        Err(e) => Err(ConfigError::Problems(section_problems(path, text, &e))),
    }
}

/// Every problem of the `mcp_servers:` entries of `text`, whose strict reading failed
/// with `first` (kept if the search finds nothing, as with broken YAML).
pub(super) fn section_problems(path: &Path, text: &str, first: &yaml_serde::Error) -> Vec<Problem> {
    let is_yaml = yaml_serde::from_str::<yaml_serde::Value>(text).is_ok();
    let found = if is_yaml {
        validate::problems::<Option<Section>>(path, text)
    } else {
        Vec::new()
    };
    if found.is_empty() {
        vec![Problem::from_yaml(path, first)]
    } else {
        found
    }
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
        assert!(text.starts_with("/p/.roocode/config.yaml:3:5: "), "{text}");
        assert!(
            text.contains("unknown key `comand` in `mcp_servers.files` (did you mean `command`?)"),
            "{text}"
        );
    }

    #[test]
    fn every_bad_entry_is_reported_at_once() {
        let path = Path::new("c.yaml");
        let text = "model: x\nmcp_servers:\n  a:\n    comand: npx\n  b:\n    args: 3\n    startup_timeout_s: soon\n";
        let problems = match yaml_servers(path, text) {
            Err(ConfigError::Problems(problems)) => problems,
            other => panic!("{other:?}"),
        };
        let lines: Vec<_> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [Some(4), Some(6), Some(7)], "{problems:?}");
        assert!(
            problems[1]
                .message
                .starts_with("mcp_servers.b.args: invalid type"),
            "{problems:?}"
        );
    }
}
