//! The environment of a command run for the model.
//!
//! It is the session's client environment snapshot (what `roocode-cli`/`roocode-tui`
//! send, `roocode_protocol::session::ClientEnv::forwards`: `PATH`, `HOME`, `SHELL`,
//! `LANG`, `LC_*`, `TERM`, `TZ`, `USER`, tool homes, `SSH_AUTH_SOCK` and the provider
//! variables), then:
//!
//! 1. every name listed in `env.forward` (user and local files; `*` globs allowed) that
//!    the client did not send is taken from the daemon's own environment, which is the
//!    environment of the client that started it;
//! 2. removed: `ROOCODE_*`, `ANTHROPIC_*`, `OPENAI_*`, every `*_API_KEY` and `*_BASE_URL`,
//!    `TMUX` and `TMUX_PANE` (the client forwards them so the daemon can open teammates'
//!    panes; a command that had them could drive the user's other panes),
//!    the `api_key_env` of configured providers, and `sandbox.scrub_env`
//!    (globs allowed). Removal wins over forwarding: `env.forward` cannot bring a
//!    provider key back;
//! 3. `TMPDIR`, `TMP` and `TEMP` point at the session's private temporary directory.

use std::collections::BTreeMap;

/// Never passed to commands (globs).
pub const ALWAYS_SCRUBBED: &[&str] = &[
    "ROOCODE_*",
    "ANTHROPIC_*",
    "OPENAI_*",
    "*_API_KEY",
    "*_BASE_URL",
    "TMUX",
    "TMUX_PANE",
];

/// What [`command_env`] needs besides the snapshot.
#[derive(Debug, Clone, Default)]
pub struct EnvPolicy {
    /// Configured `env.forward` (user and local files).
    pub forward: Vec<String>,
    /// Configured `sandbox.scrub_env` plus the configured providers' key variables.
    pub scrub: Vec<String>,
}

/// The command's environment; `daemon_var` reads the daemon's own environment.
pub fn command_env(
    client: &BTreeMap<String, String>,
    policy: &EnvPolicy,
    daemon_vars: &[(String, String)],
    tmpdir: Option<&std::path::Path>,
) -> BTreeMap<String, String> {
    let mut env = client.clone();
    for (name, value) in daemon_vars {
        if !env.contains_key(name) && policy.forward.iter().any(|p| glob(p, name)) {
            env.insert(name.clone(), value.clone());
        }
    }
    env.retain(|name, _| {
        !ALWAYS_SCRUBBED
            .iter()
            .copied()
            .chain(policy.scrub.iter().map(String::as_str))
            .any(|p| glob(p, name))
    });
    if let Some(dir) = tmpdir {
        let dir = dir.display().to_string();
        for name in ["TMPDIR", "TMP", "TEMP"] {
            env.insert(name.to_string(), dir.clone());
        }
    }
    env
}

/// `*` matches any run of characters; everything else literally.
pub fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == name;
    };
    if parts.len() == 1 {
        return pattern == name;
    }
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("LC_*", "LC_ALL"));
        assert!(glob("*_API_KEY", "DEEPSEEK_API_KEY"));
        assert!(!glob("*_API_KEY", "API_KEY"));
        assert!(glob("A*B*C", "AxxBxC"));
        assert!(!glob("A*B*C", "AxxC"));
        assert!(glob("TERM", "TERM"));
        assert!(!glob("TERM", "TERMINFO"));
        assert!(glob("*", "ANY"));
        assert!(!glob("AB*BA", "ABA"));
    }

    #[test]
    fn keys_removed_forwarded_added_tmpdir_set() {
        let client: BTreeMap<String, String> = [
            ("PATH", "/bin"),
            ("HOME", "/h"),
            ("ANTHROPIC_API_KEY", "sk-ant-x"),
            ("OPENAI_BASE_URL", "http://x"),
            ("DEEPSEEK_API_KEY", "k"),
            ("ROOCODE_HOME", "/r"),
            ("MY_TOKEN", "t"),
            ("TERM", "xterm"),
            ("TMUX", "/tmp/tmux-1000/default,1,0"),
            ("TMUX_PANE", "%1"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let policy = EnvPolicy {
            forward: vec![
                "GOFLAGS".into(),
                "X_*".into(),
                "OPENAI_API_KEY".into(),
                "TMUX*".into(),
            ],
            scrub: vec!["MY_*".into()],
        };
        let daemon = vec![
            ("GOFLAGS".to_string(), "-mod=mod".to_string()),
            ("X_ONE".to_string(), "1".to_string()),
            ("OPENAI_API_KEY".to_string(), "sk-daemon".to_string()),
            ("UNLISTED".to_string(), "u".to_string()),
            ("PATH".to_string(), "/daemon/bin".to_string()),
            ("TMUX".to_string(), "/tmp/tmux-1000/daemon,2,0".to_string()),
        ];
        let env = command_env(
            &client,
            &policy,
            &daemon,
            Some(std::path::Path::new("/t/s")),
        );
        let names: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "GOFLAGS", "HOME", "PATH", "TEMP", "TERM", "TMP", "TMPDIR", "X_ONE"
            ]
        );
        assert_eq!(env["PATH"], "/bin");
        assert_eq!(env["TMPDIR"], "/t/s");
    }
}
