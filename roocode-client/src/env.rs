//! The environment a client sends with its requests: [`ClientEnv::capture`]'s fixed
//! set, plus every variable that a `${VAR}` or `${VAR:-default}` in the MCP server
//! configurations the client can see names (`config.yaml` of the user, and the
//! project's `.mcp.json`, `.roocode/config.yaml` and `.roocode/config.local.yaml`), so
//! a server's token reaches the daemon that starts it. The daemon keeps them in memory
//! only; commands never get them unless `env.forward` says so.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use roocode_protocol::paths::Paths;
use roocode_protocol::session::ClientEnv;

/// The environment of this process for a session working in `cwd`.
pub fn client_env(cwd: &Path) -> ClientEnv {
    let mut env = ClientEnv::capture();
    for name in referenced(&config_files(cwd)) {
        if let Ok(value) = std::env::var(&name) {
            env.vars.insert(name, value);
        }
    }
    env
}

/// The files whose `${…}` references are forwarded.
fn config_files(cwd: &Path) -> Vec<PathBuf> {
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd);
    let mut files = vec![
        root.join(".mcp.json"),
        root.join(".roocode/config.yaml"),
        root.join(".roocode/config.local.yaml"),
    ];
    if let Ok(paths) = Paths::from_env() {
        files.push(paths.user_dir.join("config.yaml"));
    }
    files
}

/// The variable names `${NAME}` and `${NAME:-…}` in `files` (unreadable ones skipped).
fn referenced(files: &[PathBuf]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in files {
        if let Ok(text) = std::fs::read_to_string(file) {
            names_in(&text, &mut names);
        }
    }
    names
}

fn names_in(text: &str, names: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        rest = &rest[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let closes = rest[end..].starts_with('}') || rest[end..].starts_with(":-");
        if closes && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            names.insert(name.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_in_any_form_are_found_and_nothing_else() {
        let mut names = BTreeSet::new();
        names_in(
            r#"{"env": {"A": "${GH_TOKEN}", "B": "x${API_KEY:-none}y", "C": "$PLAIN ${1BAD} ${ok_2} ${UNCLOSED"}}"#,
            &mut names,
        );
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(names, ["API_KEY", "GH_TOKEN", "ok_2"]);
    }

    #[test]
    fn the_project_files_are_read_from_its_root() {
        let dir = std::env::temp_dir().join(format!("rc-env-{}", std::process::id()));
        let sub = dir.join("src/deep");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(
            dir.join(".mcp.json"),
            r#"{"mcpServers": {"s": {"command": "x", "env": {"T": "${ROOT_TOKEN}"}}}}"#,
        )
        .unwrap();
        let files = config_files(&sub);
        assert!(files.contains(&dir.join(".mcp.json")));
        assert!(referenced(&files).contains("ROOT_TOKEN"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
