//! The permission-relevant part of a configuration (issue 9, item 2): the keys that
//! decide what the agent may do — `permissions` (rules, mode, additional directories,
//! protected branches), `sandbox`, `env`, `security`, `tools`, `agents.custom_disallowed`,
//! `enable_verification_agent` (it adds a background agent that runs the build and the
//! tests), `hooks` and `mcp_servers`. A turn
//! applies a change to them that appears while it runs only after the user approved it;
//! [`Guarded::changes`] is what the user is shown.
//!
//! `skills.auto`, `continuation` and `notifications` are not guarded: none grants a
//! tool, a path or a command (an auto-loaded skill is the project's own instructions,
//! which its files can give anyway, a continuation limit only bounds how long the agent
//! goes on by itself, and `notifications.idle_after_ms` only says when the user's own
//! notification hooks hear of an idle agent); like `model:` or `max_turns:`, an edit of
//! them applies at the next turn.

use super::{
    Config, EnvConfig, PermissionsConfig, RawValue, SandboxConfig, SecurityConfig, ToolsConfig,
};

/// The permission-relevant keys of a merged configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Guarded {
    permissions: PermissionsConfig,
    sandbox: SandboxConfig,
    env: EnvConfig,
    security: SecurityConfig,
    /// Which tools exist: removing a `tools.disabled` entry gives one back.
    tools: ToolsConfig,
    custom_disallowed: Vec<String>,
    /// Switching it on gives the model an unattended agent that runs commands.
    verification_agent: Option<bool>,
    hooks: Option<RawValue>,
    mcp_servers: Option<RawValue>,
}

impl Guarded {
    pub fn of(config: &Config) -> Self {
        Self {
            permissions: config.permissions.clone(),
            sandbox: config.sandbox.clone(),
            env: config.env.clone(),
            security: config.security.clone(),
            tools: config.tools.clone(),
            custom_disallowed: config.agents.custom_disallowed.clone(),
            verification_agent: config.enable_verification_agent,
            hooks: config.hooks.clone(),
            mcp_servers: config.mcp_servers.clone(),
        }
    }

    /// Replaces the permission-relevant keys of `config` by these.
    pub fn apply_to(&self, config: &mut Config) {
        config.permissions = self.permissions.clone();
        config.sandbox = self.sandbox.clone();
        config.env = self.env.clone();
        config.security = self.security.clone();
        config.tools = self.tools.clone();
        config.agents.custom_disallowed = self.custom_disallowed.clone();
        config.enable_verification_agent = self.verification_agent;
        config.hooks = self.hooks.clone();
        config.mcp_servers = self.mcp_servers.clone();
    }

    /// `rule` appended to `permissions.allow` (as "allow always" does to the files).
    pub fn add_allow_rule(&mut self, rule: &str) {
        self.permissions.add_allow_rule(rule, None);
    }

    /// What changed from `self` to `newer`, one line per change (`+ permissions.allow:
    /// Bash(*)`, `permissions.mode: default → bypassPermissions`); empty if nothing did.
    pub fn changes(&self, newer: &Guarded) -> Vec<String> {
        let mut out = Vec::new();
        let (a, b) = (&self.permissions, &newer.permissions);
        scalar(
            &mut out,
            "permissions.mode",
            &a.mode.map(|m| m.as_str()),
            &b.mode.map(|m| m.as_str()),
        );
        list(&mut out, "permissions.allow", &a.allow, &b.allow);
        list(&mut out, "permissions.ask", &a.ask, &b.ask);
        list(&mut out, "permissions.deny", &a.deny, &b.deny);
        list(
            &mut out,
            "permissions.additional_directories",
            &a.additional_directories,
            &b.additional_directories,
        );
        list(
            &mut out,
            "permissions.protected_branches",
            &a.protected_branches,
            &b.protected_branches,
        );
        let (a, b) = (&self.sandbox, &newer.sandbox);
        scalar(&mut out, "sandbox.mode", &a.mode, &b.mode);
        scalar(&mut out, "sandbox.network", &a.network, &b.network);
        list(
            &mut out,
            "sandbox.allow_write",
            &a.allow_write,
            &b.allow_write,
        );
        list(&mut out, "sandbox.deny_read", &a.deny_read, &b.deny_read);
        list(&mut out, "sandbox.scrub_env", &a.scrub_env, &b.scrub_env);
        list(
            &mut out,
            "env.forward",
            &self.env.forward,
            &newer.env.forward,
        );
        scalar(
            &mut out,
            "security.redact",
            &self.security.redact,
            &newer.security.redact,
        );
        list(
            &mut out,
            "tools.disabled",
            &self.tools.disabled,
            &newer.tools.disabled,
        );
        scalar(&mut out, "tools.bash", &self.tools.bash, &newer.tools.bash);
        list(
            &mut out,
            "agents.custom_disallowed",
            &self.custom_disallowed,
            &newer.custom_disallowed,
        );
        scalar(
            &mut out,
            "enable_verification_agent",
            &self.verification_agent,
            &newer.verification_agent,
        );
        raw(&mut out, "hooks", &self.hooks, &newer.hooks);
        raw(
            &mut out,
            "mcp_servers",
            &self.mcp_servers,
            &newer.mcp_servers,
        );
        out
    }
}

fn scalar<T: PartialEq + std::fmt::Debug>(
    out: &mut Vec<String>,
    key: &str,
    a: &Option<T>,
    b: &Option<T>,
) {
    if a != b {
        let show = |v: &Option<T>| {
            v.as_ref()
                .map_or("(not set)".to_string(), |v| format!("{v:?}"))
        };
        out.push(format!("{key}: {} → {}", show(a), show(b)));
    }
}

fn list(out: &mut Vec<String>, key: &str, a: &[String], b: &[String]) {
    for item in b.iter().filter(|i| !a.contains(i)) {
        out.push(format!("+ {key}: {item}"));
    }
    for item in a.iter().filter(|i| !b.contains(i)) {
        out.push(format!("- {key}: {item}"));
    }
}

fn raw(out: &mut Vec<String>, key: &str, a: &Option<RawValue>, b: &Option<RawValue>) {
    if a != b {
        let shown = b
            .as_ref()
            .and_then(|v| yaml_serde::to_string(v).ok())
            .map_or("(removed)".to_string(), |t| t.trim().replace('\n', "; "));
        out.push(format!("{key} changed: {shown}"));
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn parse(text: &str) -> Config {
        Config::parse(Path::new("c.yaml"), text).unwrap()
    }

    #[test]
    fn only_permission_keys_count() {
        let a = parse("model: a/b\nmax_turns: 3\n");
        let b = parse("model: c/d\nmax_turns: 9\ncontext: {large_result_chars: 10}\n");
        assert_eq!(Guarded::of(&a), Guarded::of(&b));
        assert!(Guarded::of(&a).changes(&Guarded::of(&b)).is_empty());
    }

    #[test]
    fn changes_are_listed_one_per_line() {
        let a = parse("permissions: {allow: [Read], mode: default}\n");
        let b = parse(
            "permissions: {allow: [\"Bash(*)\"], mode: bypassPermissions, additional_directories: [/]}\nsandbox: {network: deny}\nsecurity: {redact: false}\nhooks: [{event: x}]\n",
        );
        let changes = Guarded::of(&a).changes(&Guarded::of(&b));
        assert_eq!(
            changes,
            [
                "permissions.mode: \"default\" → \"bypassPermissions\"",
                "+ permissions.allow: Bash(*)",
                "- permissions.allow: Read",
                "+ permissions.additional_directories: /",
                "sandbox.network: (not set) → Deny",
                "security.redact: (not set) → false",
                "hooks changed: - event: x",
            ]
        );
    }

    #[test]
    fn giving_a_tool_back_is_a_change_to_approve() {
        let a = parse(
            "tools: {disabled: [WebFetch], bash: false}\nagents: {custom_disallowed: [Bash]}\n",
        );
        let b = parse("tools: {}\n");
        let changes = Guarded::of(&a).changes(&Guarded::of(&b));
        assert_eq!(
            changes,
            [
                "- tools.disabled: WebFetch",
                "tools.bash: false → (not set)",
                "- agents.custom_disallowed: Bash",
            ]
        );
    }

    #[test]
    fn switching_on_the_verification_agent_is_a_change_to_approve() {
        let a = parse("model: a/b\n");
        let b = parse("enable_verification_agent: true\n");
        let changes = Guarded::of(&a).changes(&Guarded::of(&b));
        assert_eq!(changes, ["enable_verification_agent: (not set) → true"]);
        let mut kept = parse("enable_verification_agent: false\n");
        Guarded::of(&b).apply_to(&mut kept);
        assert!(kept.verification_agent_enabled());
    }

    #[test]
    fn apply_replaces_only_permission_keys() {
        let mut target = parse("model: a/b\npermissions: {allow: [Read]}\n");
        let source = parse("model: c/d\npermissions: {deny: [Bash]}\n");
        Guarded::of(&source).apply_to(&mut target);
        assert_eq!(target.model.as_deref(), Some("a/b"));
        assert_eq!(target.permissions.deny, ["Bash"]);
        assert!(target.permissions.allow.is_empty());
    }
}
