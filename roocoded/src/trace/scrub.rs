//! Secrets out of recorded bodies, by value: a request body holds whatever the model
//! was shown, and a key pasted into a prompt, printed by a command or read from a file
//! would otherwise be written to the database. Every value of a variable that holds a
//! secret — the providers' keys (`*_API_KEY`, each `api_key_env`), the names and globs
//! of `sandbox.scrub_env`, names that say token, secret or password — and the values of
//! MCP servers' `env` and `headers` are replaced by `[scrubbed NAME]` wherever they
//! appear, also as JSON escapes them. Values shorter than [`MIN_SECRET`] are left
//! alone: they would match ordinary text. The client forwards only some variables, so
//! the daemon's own environment (the starting client's) is read as well.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::sandbox::env::glob;

/// Shorter values are not scrubbed.
pub const MIN_SECRET: usize = 6;

/// Variable names whose values are secrets, besides the configured ones.
const SECRET_NAMES: &[&str] = &[
    "*_API_KEY",
    "*API_KEY*",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*_KEY",
    "*CREDENTIALS*",
];

/// The secret values of one turn's client environment and configuration.
#[derive(Debug, Clone, Default)]
pub struct Scrubber {
    /// (what to say instead, the value), longest values first.
    secrets: Vec<(String, String)>,
}

impl Scrubber {
    /// The secrets of `env` (the client's environment, which forwards only some
    /// variables) and of the daemon's own (inherited from the client that started it)
    /// under `config`.
    pub fn for_turn(env: &BTreeMap<String, String>, config: &Config) -> Scrubber {
        let mut all: BTreeMap<String, String> = std::env::vars().collect();
        all.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        Scrubber::new(&all, config)
    }

    /// The secrets of `env` under `config`.
    pub fn new(env: &BTreeMap<String, String>, config: &Config) -> Scrubber {
        let mut names: Vec<String> = SECRET_NAMES.iter().map(|s| s.to_string()).collect();
        names.extend(
            config
                .providers
                .values()
                .filter_map(|p| p.api_key_env.clone()),
        );
        names.extend(config.sandbox.scrub_env.iter().cloned());
        let mut secrets: Vec<(String, String)> = env
            .iter()
            .filter(|(name, _)| names.iter().any(|p| glob(p, name)))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        for (server, entry) in mcp_entries(config) {
            for (name, value) in entry.env.iter().chain(&entry.headers) {
                secrets.push((format!("{server}.{name}"), value.clone()));
            }
        }
        Scrubber::from_pairs(secrets)
    }

    /// A scrubber of `(name, value)` pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Scrubber {
        let mut secrets: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(name, value)| (name, value.trim().to_string()))
            .filter(|(_, value)| value.chars().count() >= MIN_SECRET && !value.starts_with("${"))
            .collect();
        // A value inside another is replaced after it.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.1.len()));
        secrets.dedup_by(|a, b| a.1 == b.1);
        Scrubber { secrets }
    }

    /// `text` with every secret replaced.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.secrets {
            let shown = format!("[scrubbed {name}]");
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &shown);
            }
            // As a JSON string holds it.
            let escaped = serde_json::to_string(value).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != value && out.contains(escaped) {
                out = out.replace(escaped, &shown);
            }
        }
        out
    }
}

/// The configured MCP servers, as far as they parse.
fn mcp_entries(config: &Config) -> Vec<(String, crate::config::McpServerEntry)> {
    let Some(raw) = &config.mcp_servers else {
        return Vec::new();
    };
    let Ok(map) = yaml_serde::from_value::<BTreeMap<String, yaml_serde::Value>>(raw.clone()) else {
        return Vec::new();
    };
    map.into_iter()
        .filter_map(|(name, v)| Some((name, yaml_serde::from_value(v).ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn secrets_are_scrubbed_by_value_wherever_they_appear() {
        let mut config = Config::default();
        config.sandbox.scrub_env = vec!["MY_*".into()];
        config.mcp_servers = Some(
            yaml_serde::from_str("gh: {command: gh-mcp, env: {GH_AUTH: ghp_canary_123456}}")
                .unwrap(),
        );
        let e = env(&[
            ("ANTHROPIC_API_KEY", "sk-ant-canary-aaaaaaaa"),
            ("MY_PASS", "hunter2-canary"),
            ("PATH", "/usr/bin:/bin"),
            ("SHORT_TOKEN", "abc"),
            ("QUOTED_SECRET", "a\"b\\c-canary"),
        ]);
        let s = Scrubber::new(&e, &config);
        let body = r#"{"text":"key sk-ant-canary-aaaaaaaa and hunter2-canary, ghp_canary_123456, a\"b\\c-canary; PATH /usr/bin:/bin abc"}"#;
        let out = s.scrub(body);
        for leaked in ["sk-ant-canary", "hunter2-canary", "ghp_canary", "c-canary"] {
            assert!(!out.contains(leaked), "{leaked} in {out}");
        }
        assert!(out.contains("[scrubbed ANTHROPIC_API_KEY]"), "{out}");
        assert!(out.contains("[scrubbed gh.GH_AUTH]"), "{out}");
        assert!(
            out.contains("/usr/bin:/bin") && out.contains(" abc"),
            "{out}"
        );
    }
}
