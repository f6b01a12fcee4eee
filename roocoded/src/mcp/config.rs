//! Which MCP servers a project has, and from where: `mcp_servers:` of the user's
//! `config.yaml` (scope `user`), the project's Claude-compatible `.mcp.json` and
//! `.roocode/config.yaml` (scope `project`: a cloned repository's, so they start only
//! once the user approved them) and `.roocode/config.local.yaml` (scope `local`). A
//! server of the same name in a later file replaces the earlier one, except that an
//! entry holding nothing but `enabled` switches the earlier one on or off.
//!
//! What a server runs is only known once `${VAR}` references are expanded from the
//! environment of the client that started the session ([`ServerConfig::launch`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::expand::{expand, variables};
use crate::config::{ConfigError, McpServerEntry, yaml_servers};

/// Where a server is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// `~/.roocode/config.yaml`.
    User,
    /// `.mcp.json` or `.roocode/config.yaml` of the project: needs approval.
    Project,
    /// `.roocode/config.local.yaml` (not committed).
    Local,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

/// Default of `startup_timeout_s`.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Default of `tool_timeout_s`.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// How a server is reached, as configured (references not expanded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Stdio,
    Http,
}

impl TransportKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub scope: Scope,
    /// The file that defines it.
    pub source: PathBuf,
    pub entry: McpServerEntry,
}

/// What starting a server runs or connects to, every reference expanded: two sessions
/// whose servers launch the same share one (see `mcp::hub`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Launch {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: PathBuf,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

impl ServerConfig {
    /// Its transport, or why it has none that can be used.
    pub fn transport(&self) -> Result<TransportKind, String> {
        let e = &self.entry;
        let kind = match (e.transport.as_deref(), &e.command, &e.url) {
            (Some("sse"), _, _) => {
                return Err("the SSE transport is not supported: the MCP specification replaced it with streamable HTTP in 2025 and the official Rust SDK RooCode uses has no SSE client any more; most servers serve streamable HTTP too (often at the same address ending in /mcp instead of /sse): configure it with `type: http`".into());
            }
            (Some("stdio"), _, _) => TransportKind::Stdio,
            (Some("http" | "streamable-http" | "streamableHttp"), _, _) => TransportKind::Http,
            (Some(other), _, _) => {
                return Err(format!(
                    "unknown type `{other}` (expected stdio, http or sse)"
                ));
            }
            (None, Some(_), Some(_)) => {
                return Err("it has both a `command` and a `url`: keep one".into());
            }
            (None, Some(_), None) => TransportKind::Stdio,
            (None, None, Some(_)) => TransportKind::Http,
            (None, None, None) => {
                return Err("it has neither a `command` (stdio) nor a `url` (http)".into());
            }
        };
        match kind {
            TransportKind::Stdio if e.command.as_deref().is_none_or(str::is_empty) => {
                Err("a stdio server needs a `command`".into())
            }
            TransportKind::Http if e.url.as_deref().is_none_or(str::is_empty) => {
                Err("an http server needs a `url`".into())
            }
            _ => Ok(kind),
        }
    }

    pub fn enabled(&self) -> bool {
        self.entry.enabled != Some(false)
    }

    /// Whether it starts only once the user approved it (a project's server).
    pub fn needs_approval(&self) -> bool {
        self.scope == Scope::Project
    }

    pub fn startup_timeout(&self) -> Duration {
        self.entry
            .startup_timeout_s
            .map_or(DEFAULT_STARTUP_TIMEOUT, Duration::from_secs)
    }

    pub fn tool_timeout(&self) -> Duration {
        self.entry
            .tool_timeout_s
            .map_or(DEFAULT_TOOL_TIMEOUT, Duration::from_secs)
    }

    /// The environment variables its `${…}` references name (what a client forwards).
    pub fn variables(&self) -> BTreeSet<String> {
        let e = &self.entry;
        let mut names = BTreeSet::new();
        let texts = e
            .command
            .iter()
            .chain(&e.args)
            .chain(e.env.values())
            .chain(&e.cwd)
            .chain(&e.url)
            .chain(e.headers.values());
        for text in texts {
            variables(text, &mut names);
        }
        names
    }

    /// What an approval of it is kept under: a hash of its transport, command, args,
    /// env names, cwd and url as written, so that a change to any of them asks again
    /// (a new token value in the environment does not).
    pub fn approval_key(&self) -> String {
        let e = &self.entry;
        let canonical = json!({
            "transport": self.transport().map(TransportKind::as_str).ok(),
            "command": e.command,
            "args": e.args,
            "env": e.env.keys().collect::<Vec<_>>(),
            "cwd": e.cwd,
            "url": e.url,
        });
        let digest = Sha256::digest(canonical.to_string().as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// What starting it runs or connects to, with references expanded by `lookup`
    /// (the session's client environment) and a relative `cwd` taken from `root`.
    pub fn launch(
        &self,
        root: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Launch, String> {
        let kind = self.transport()?;
        let e = &self.entry;
        let one = |text: &str| {
            expand(text, lookup).map_err(|name| {
                format!(
                    "it needs ${{{name}}}, which is not set in the environment of the client that started the session (set it and start a new session, or give a default: ${{{name}:-value}})"
                )
            })
        };
        let map = |m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, String> {
            m.iter().map(|(k, v)| Ok((k.clone(), one(v)?))).collect()
        };
        Ok(match kind {
            TransportKind::Stdio => Launch::Stdio {
                command: one(e.command.as_deref().unwrap_or_default())?,
                args: e.args.iter().map(|a| one(a)).collect::<Result<_, _>>()?,
                env: map(&e.env)?,
                cwd: match &e.cwd {
                    Some(cwd) => root.join(one(cwd)?),
                    None => root.to_path_buf(),
                },
            },
            TransportKind::Http => Launch::Http {
                url: one(e.url.as_deref().unwrap_or_default())?,
                headers: map(&e.headers)?,
            },
        })
    }
}

/// The servers configured for `project_root`, by name, from the files of the
/// module's doc. A file that cannot be read or parsed is an error naming it.
pub fn load(user_dir: &Path, project_root: &Path) -> Result<Vec<ServerConfig>, ConfigError> {
    let dir = project_root.join(".roocode");
    let mut files: Vec<(Scope, PathBuf, BTreeMap<String, McpServerEntry>)> = Vec::new();
    let user = user_dir.join("config.yaml");
    if let Some(text) = read(&user)? {
        files.push((Scope::User, user.clone(), yaml_servers(&user, &text)?));
    }
    let mcp_json = project_root.join(".mcp.json");
    if let Some(text) = read(&mcp_json)? {
        files.push((
            Scope::Project,
            mcp_json.clone(),
            json_servers(&mcp_json, &text)?,
        ));
    }
    for (scope, path) in [
        (Scope::Project, dir.join("config.yaml")),
        (Scope::Local, dir.join("config.local.yaml")),
    ] {
        // The project is the home directory: its user file is not read twice.
        if same_file(&path, &user) {
            continue;
        }
        if let Some(text) = read(&path)? {
            let servers = yaml_servers(&path, &text)?;
            files.push((scope, path, servers));
        }
    }
    let mut merged: BTreeMap<String, ServerConfig> = BTreeMap::new();
    for (scope, source, servers) in files {
        for (name, entry) in servers {
            let only_a_switch = entry.enabled.is_some()
                && McpServerEntry {
                    enabled: None,
                    ..entry.clone()
                } == McpServerEntry::default();
            match merged.get_mut(&name) {
                Some(earlier) if only_a_switch => earlier.entry.enabled = entry.enabled,
                _ => {
                    let server = ServerConfig {
                        name: name.clone(),
                        scope,
                        source: source.clone(),
                        entry,
                    };
                    merged.insert(name, server);
                }
            }
        }
    }
    Ok(merged.into_values().collect())
}

fn read(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The keys of a `.mcp.json` entry that RooCode reads; others (another tool's) are
/// left alone.
const JSON_KEYS: [&str; 10] = [
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "enabled",
    "startup_timeout_s",
    "tool_timeout_s",
];

/// The `mcpServers` of a Claude-compatible `.mcp.json`.
fn json_servers(path: &Path, text: &str) -> Result<BTreeMap<String, McpServerEntry>, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let value: Value = serde_json::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let Some(servers) = value.get("mcpServers") else {
        return Ok(BTreeMap::new());
    };
    let Value::Object(servers) = servers else {
        return Err(invalid(
            "`mcpServers` must be an object of servers by name".into(),
        ));
    };
    let mut out = BTreeMap::new();
    for (name, server) in servers {
        let Value::Object(fields) = server else {
            return Err(invalid(format!("MCP server `{name}` must be an object")));
        };
        let known: serde_json::Map<String, Value> = fields
            .iter()
            .filter(|(k, _)| JSON_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let entry: McpServerEntry = serde_json::from_value(Value::Object(known))
            .map_err(|e| invalid(format!("MCP server `{name}`: {e}")))?;
        out.insert(name.clone(), entry);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn env(name: &str) -> Option<String> {
        (name == "GH_TOKEN").then(|| "gh-secret".to_string())
    }

    #[test]
    fn servers_come_from_every_scope_and_later_files_win() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let p = project.path();
        write(
            &home.path().join("config.yaml"),
            "mcp_servers:\n  notes: {command: notes-server}\n  github: {command: old}\n",
        );
        write(
            &p.join(".mcp.json"),
            r#"{"mcpServers": {
                "github": {"command": "npx", "args": ["-y", "gh"], "env": {"TOKEN": "${GH_TOKEN}"}, "description": "another tool's key"},
                "docs": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "${DOCS_KEY:-none}"}},
                "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}
            }}"#,
        );
        write(
            &p.join(".roocode/config.local.yaml"),
            "mcp_servers:\n  docs: {enabled: false}\n",
        );
        let servers = load(home.path(), p).unwrap();
        let by = |name: &str| servers.iter().find(|s| s.name == name).unwrap();
        assert_eq!(servers.len(), 4);
        assert_eq!(by("notes").scope, Scope::User);
        let github = by("github");
        assert_eq!(
            (github.scope, github.needs_approval()),
            (Scope::Project, true)
        );
        assert_eq!(github.source, p.join(".mcp.json"));
        assert_eq!(github.transport(), Ok(TransportKind::Stdio));
        assert_eq!(
            github.variables().into_iter().collect::<Vec<_>>(),
            ["GH_TOKEN"]
        );
        assert_eq!(
            github.launch(p, &env).unwrap(),
            Launch::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "gh".into()],
                env: [("TOKEN".to_string(), "gh-secret".to_string())].into(),
                cwd: p.to_path_buf(),
            }
        );
        // A local entry of nothing but `enabled` switches the project's server off.
        let docs = by("docs");
        assert_eq!((docs.scope, docs.enabled()), (Scope::Project, false));
        assert_eq!(
            docs.launch(p, &env).unwrap(),
            Launch::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: [("X-Key".to_string(), "none".to_string())].into(),
            }
        );
        let old = by("old").transport().unwrap_err();
        assert!(old.contains("SSE transport is not supported"), "{old}");
        assert_eq!(by("notes").startup_timeout(), DEFAULT_STARTUP_TIMEOUT);
    }

    #[test]
    fn a_missing_variable_says_which_and_what_to_do() {
        let server = ServerConfig {
            name: "s".into(),
            scope: Scope::Local,
            source: PathBuf::from("/p/.roocode/config.local.yaml"),
            entry: McpServerEntry {
                url: Some("https://example.invalid/${REGION}/mcp".into()),
                ..Default::default()
            },
        };
        let err = server.launch(Path::new("/p"), &env).unwrap_err();
        assert!(err.contains("${REGION}"), "{err}");
        assert!(err.contains("${REGION:-value}"), "{err}");
    }

    #[test]
    fn transports_that_cannot_be_used_say_why() {
        let server = |entry: McpServerEntry| ServerConfig {
            name: "s".into(),
            scope: Scope::User,
            source: PathBuf::new(),
            entry,
        };
        let both = McpServerEntry {
            command: Some("x".into()),
            url: Some("http://127.0.0.1:1".into()),
            ..Default::default()
        };
        assert!(server(both).transport().unwrap_err().contains("both"));
        assert!(
            server(McpServerEntry::default())
                .transport()
                .unwrap_err()
                .contains("neither")
        );
        let odd = McpServerEntry {
            transport: Some("websocket".into()),
            ..Default::default()
        };
        assert!(server(odd).transport().unwrap_err().contains("websocket"));
        let no_url = McpServerEntry {
            transport: Some("http".into()),
            ..Default::default()
        };
        assert!(server(no_url).transport().unwrap_err().contains("url"));
    }

    #[test]
    fn an_approval_is_revoked_by_a_change_to_what_runs_not_by_a_new_token() {
        let base = ServerConfig {
            name: "gh".into(),
            scope: Scope::Project,
            source: PathBuf::new(),
            entry: McpServerEntry {
                command: Some("npx".into()),
                args: vec!["gh".into()],
                env: [("TOKEN".to_string(), "${GH_TOKEN}".to_string())].into(),
                ..Default::default()
            },
        };
        let key = base.approval_key();
        assert_eq!(key.len(), 64);
        let mut other = base.clone();
        other.entry.env.insert("TOKEN".into(), "literal".into());
        assert_eq!(other.approval_key(), key);
        for change in [
            |e: &mut McpServerEntry| e.command = Some("sh".into()),
            |e: &mut McpServerEntry| e.args.push("--evil".into()),
            |e: &mut McpServerEntry| {
                e.env.insert("LD_PRELOAD".into(), "/tmp/x.so".into());
            },
            |e: &mut McpServerEntry| e.cwd = Some("tools".into()),
        ] {
            let mut changed = base.clone();
            change(&mut changed.entry);
            assert_ne!(changed.approval_key(), key);
        }
    }

    #[test]
    fn a_broken_mcp_json_names_the_file_and_the_line() {
        let project = tempfile::tempdir().unwrap();
        let path = project.path().join(".mcp.json");
        write(
            &path,
            "{\n  \"mcpServers\": {\n    \"x\": {\"command\": 1}\n  }\n}\n",
        );
        let err = load(Path::new("/nonexistent"), project.path()).unwrap_err();
        assert!(err.to_string().contains("MCP server `x`"), "{err}");
        write(&path, "{\n  \"mcpServers\": {,\n}");
        let err = load(Path::new("/nonexistent"), project.path()).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 2, .. }), "{err}");
    }
}
