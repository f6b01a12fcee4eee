//! The typed sections of a config file: providers, permissions, context, retry, price
//! overrides, the command sandbox, the commands' environment, output redaction, tools,
//! agents, teams, MCP settings, skills, continuations, notifications and recovery. Every section rejects unknown
//! keys so a typo is reported with its line instead of being ignored.

use std::collections::BTreeMap;

use roocode_protocol::Mode;
use serde::{Deserialize, Deserializer};

use crate::recovery::{Category, Chain};

/// Which wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions (`{base_url}/chat/completions`).
    Openai,
    /// Anthropic Messages (`{base_url}/v1/messages`).
    Anthropic,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }
}

/// `providers.<name>`: a named endpoint, used as `<name>/<model>`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    #[serde(rename = "type")]
    pub kind: ProviderKind,
    /// For `openai` it ends in `/v1`; for `anthropic` it has no `/v1`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Name of the client environment variable holding the API key.
    #[serde(default)]
    pub api_key_env: Option<String>,
}

/// `permissions:`; rule lists of all files are combined.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionsConfig {
    #[serde(default, deserialize_with = "Mode::strict_option")]
    pub mode: Option<Mode>,
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub ask: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
    #[serde(default)]
    pub additional_directories: Vec<String>,
    /// Branches that `git push --force` may never rewrite, besides `main`, `master` and
    /// the remote's default branch.
    #[serde(default)]
    pub protected_branches: Vec<String>,
    /// Where each rule of `allow`, `ask` and `deny` was written (filled by
    /// `Config::parse`, kept by `Config::merge`); never part of equality.
    #[serde(skip)]
    pub origins: super::RuleOrigins,
}

/// `context:`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextConfig {
    /// Fraction of the window at which compaction starts, in (0, 1].
    #[serde(default, deserialize_with = "fraction")]
    pub compact_threshold: Option<f64>,
    #[serde(default)]
    pub large_result_chars: Option<u64>,
    /// Overrides the model table's context window.
    #[serde(default, deserialize_with = "positive_u64")]
    pub window_tokens: Option<u64>,
    /// Below this window, requests carry each tool's short description.
    #[serde(default, deserialize_with = "positive_u64")]
    pub small_window_tokens: Option<u64>,
}

/// `retry:` — limits of the retry loop around one model call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryConfig {
    #[serde(default, deserialize_with = "positive_u32")]
    pub max_attempts: Option<u32>,
    #[serde(default)]
    pub base_delay_ms: Option<u64>,
    #[serde(default)]
    pub max_delay_secs: Option<u64>,
    #[serde(default)]
    pub max_total_secs: Option<u64>,
}

/// `llm:` — how long a model call may stay silent.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// Seconds a server may send nothing, its connection open, before the call counts
    /// as a `network` failure (default 90; fractions allowed).
    #[serde(default, deserialize_with = "positive_f64")]
    pub stall_timeout_s: Option<f64>,
}

/// `trace:` — what the flight recorder keeps of each model call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Record each iteration's parts and each tool call's decision (default true;
    /// `false` only for measuring what recording costs).
    #[serde(default)]
    pub record: Option<bool>,
    /// Keep the request and response bodies (default true). They hold your code and
    /// prompts; secrets are scrubbed from them by value.
    #[serde(default)]
    pub bodies: Option<bool>,
    /// Megabytes of bodies kept per session (default 50); the oldest go first.
    #[serde(default)]
    pub max_body_mb: Option<u64>,
}

/// `prices.<model>`: US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceConfig {
    pub input: f64,
    pub output: f64,
    /// Defaults to the input price.
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Defaults to the input price.
    #[serde(default)]
    pub cache_write: Option<f64>,
}

/// `sandbox.mode`: how commands run for the model are confined by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// The best mechanism available (bubblewrap, else Landlock); a warning when degraded.
    Auto,
    /// Refuse to run commands without the full guarantee (bubblewrap).
    Required,
    /// No OS sandbox (the permission layers still apply).
    Off,
}

impl SandboxMode {
    /// The name as config files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Auto => "auto",
            SandboxMode::Required => "required",
            SandboxMode::Off => "off",
        }
    }
}

/// `sandbox.network`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxNetwork {
    Allow,
    /// A network namespace of its own: no network at all, the host's loopback included.
    Deny,
}

/// `sandbox:` — the kernel confinement of every command run for the model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    #[serde(default)]
    pub mode: Option<SandboxMode>,
    #[serde(default)]
    pub network: Option<SandboxNetwork>,
    /// Extra writable paths, besides the workspace and the defaults.
    #[serde(default)]
    pub allow_write: Vec<String>,
    /// Extra paths hidden from commands, besides the defaults.
    #[serde(default)]
    pub deny_read: Vec<String>,
    /// Extra environment variables (names, `*` globs allowed) removed from commands.
    #[serde(default)]
    pub scrub_env: Vec<String>,
}

/// `env:` — the environment of commands run for the model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvConfig {
    /// Variables of the client's environment passed on to commands, besides the defaults.
    #[serde(default)]
    pub forward: Vec<String>,
}

/// `tools:`: which built-in tools exist for the agents of a project. Every file can
/// only take tools away: `disabled` lists are combined, and a `bash: false` anywhere
/// stays (a later file's `bash: true` does not bring Bash back).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsConfig {
    /// Tools no agent gets (`[WebFetch]`).
    #[serde(default)]
    pub disabled: Vec<String>,
    /// `false`: no Bash, and none of its helpers (BashOutput, KillShell).
    #[serde(default)]
    pub bash: Option<bool>,
}

/// `agents:`: sub-agents (DESIGN.md §9). Unset keys take the defaults of
/// [`crate::config::Config::agents_limits`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsConfig {
    /// Running turns of background agents per daemon (default 16).
    #[serde(default)]
    pub max_concurrent: Option<u32>,
    /// A child's time limit in seconds, unless its definition says (default 1800).
    #[serde(default)]
    pub timeout_s: Option<u64>,
    /// Seconds a foreground child runs before it moves to the background (default 120).
    #[serde(default)]
    pub auto_background_s: Option<u64>,
    /// Tools custom agents (from definition files) never get.
    #[serde(default)]
    pub custom_disallowed: Vec<String>,
}

/// [`AgentsConfig`] with its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentsLimits {
    /// Running turns of background agents per daemon.
    pub max_concurrent: u32,
    /// A child's time limit, unless its definition says.
    pub timeout: std::time::Duration,
    /// How long a foreground child runs before it moves to the background.
    pub auto_background: std::time::Duration,
}

/// `teams:` (agent teams, DESIGN.md §9); see [`crate::config::Config::teams_settings`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamsConfig {
    /// Where a teammate is shown: `auto` (a tmux pane when the lead's client runs in
    /// tmux), `in-process` (no pane) or `tmux` (default `auto`).
    #[serde(default)]
    pub backend: Option<TeamBackend>,
    /// Milliseconds the lead's wake waits after a teammate's idle notice, so one lead
    /// iteration takes every notice that arrived meanwhile (default 250, at most
    /// [`MAX_IDLE_DEBOUNCE_MS`]).
    #[serde(default)]
    pub idle_debounce_ms: Option<u64>,
}

/// `mcp:` (the MCP host's settings; the servers are `mcp_servers:`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// Milliseconds a session's first model request waits for its MCP servers to start
    /// (default 3000); a server that comes up later adds its tools as deferred ones.
    #[serde(default)]
    pub startup_wait_ms: Option<u64>,
    /// The share of the context window MCP tools' schemas may take before they are
    /// deferred behind ToolSearch (default 0.1).
    #[serde(default)]
    pub defer_threshold: Option<f64>,
}

/// Default of `mcp.startup_wait_ms`.
pub const DEFAULT_MCP_STARTUP_WAIT_MS: u64 = 3_000;
/// Default of `mcp.defer_threshold`.
pub const DEFAULT_MCP_DEFER_THRESHOLD: f64 = 0.1;

impl McpConfig {
    pub fn startup_wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            self.startup_wait_ms.unwrap_or(DEFAULT_MCP_STARTUP_WAIT_MS),
        )
    }

    /// `defer_threshold`, kept within 0..=1.
    pub fn defer_threshold(&self) -> f64 {
        self.defer_threshold
            .filter(|t| t.is_finite())
            .unwrap_or(DEFAULT_MCP_DEFER_THRESHOLD)
            .clamp(0.0, 1.0)
    }
}

/// `teams.backend`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TeamBackend {
    #[default]
    Auto,
    InProcess,
    Tmux,
}

/// The longest `teams.idle_debounce_ms` honoured: a larger value (say, from a cloned
/// repository's config) is cut to this, so it cannot keep the lead from waking.
pub const MAX_IDLE_DEBOUNCE_MS: u64 = 5_000;

/// [`TeamsConfig`] with its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamsSettings {
    pub backend: TeamBackend,
    pub idle_debounce: std::time::Duration,
}

/// `skills:`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillsConfig {
    /// Skills loaded into every session of the project without being asked for, by
    /// name (`[commit-style, rust-review]`); the lists of all files are combined.
    #[serde(default)]
    pub auto: Vec<String>,
}

/// `continuation:` — how often the agent may go on by itself after the model stopped
/// with work left (e.g. open todo items). `0` switches continuing off.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContinuationConfig {
    /// Continuations per user message (default
    /// [`DEFAULT_MAX_CONTINUATIONS_PER_MESSAGE`]; `0`: never).
    #[serde(default)]
    pub max_per_message: Option<u32>,
    /// Continuations per session, all messages together (default
    /// [`DEFAULT_MAX_CONTINUATIONS_PER_SESSION`]; `0`: never).
    #[serde(default)]
    pub max_per_session: Option<u32>,
}

/// `notifications:` — when the `notification` hooks hear of an agent waiting for you.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotificationsConfig {
    /// How long a main agent waits for your next message, with no client attached to
    /// its session, before an `idle_prompt` notification fires (default
    /// [`DEFAULT_IDLE_NOTIFY_AFTER_MS`]; at least 1).
    #[serde(default, deserialize_with = "positive_u64")]
    pub idle_after_ms: Option<u64>,
}

/// `recovery:` — how the agent recovers from failures (DESIGN.md §11): the global cap
/// of attempts per error, the model to fall back to, and chains replacing the default
/// of a category (`chains: {network: [{retry: 3}, abort]}`; unknown names are errors).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveryConfig {
    /// Attempts at one error, whatever its chain says (default
    /// [`crate::recovery::DEFAULT_MAX_TOTAL_ATTEMPTS`]; at least 1).
    #[serde(default, deserialize_with = "positive_u32")]
    pub max_total_attempts: Option<u32>,
    /// `provider/model` for the `fallback_model` strategy (none: it is skipped).
    #[serde(default)]
    pub fallback_model: Option<String>,
    /// Chains by category; a later file's chain of a category replaces an earlier one's.
    #[serde(default, deserialize_with = "recovery_chains")]
    pub chains: BTreeMap<Category, Chain>,
}

fn recovery_chains<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<Category, Chain>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    match value {
        None => Ok(BTreeMap::new()),
        Some(value) => Chain::parse_map(&value).map_err(serde::de::Error::custom),
    }
}

/// Default of `notifications.idle_after_ms`: Claude Code's 60 s.
pub const DEFAULT_IDLE_NOTIFY_AFTER_MS: u64 = 60_000;

/// Default of `continuation.max_per_message`.
pub const DEFAULT_MAX_CONTINUATIONS_PER_MESSAGE: u32 = 5;
/// Default of `continuation.max_per_session`.
pub const DEFAULT_MAX_CONTINUATIONS_PER_SESSION: u32 = 25;

/// `security:`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecurityConfig {
    /// Replace credentials found in tool output by `[redacted: <kind>]` (default true).
    #[serde(default)]
    pub redact: Option<bool>,
}

fn fraction<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Option::<f64>::deserialize(d)?;
    match v {
        Some(x) if !(x > 0.0 && x <= 1.0) => Err(serde::de::Error::custom(format!(
            "{x} is out of range, expected a fraction in (0, 1] such as 0.85"
        ))),
        _ => Ok(v),
    }
}

fn positive_u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let v = Option::<u32>::deserialize(d)?;
    match v {
        Some(0) => Err(serde::de::Error::custom("must be at least 1")),
        _ => Ok(v),
    }
}

fn positive_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Option::<f64>::deserialize(d)?;
    match v {
        Some(x) if !(x.is_finite() && x > 0.0 && x <= 86_400.0) => Err(serde::de::Error::custom(
            "must be a number of seconds above 0 (at most 86400)",
        )),
        _ => Ok(v),
    }
}

fn positive_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = Option::<u64>::deserialize(d)?;
    match v {
        Some(0) => Err(serde::de::Error::custom("must be at least 1")),
        _ => Ok(v),
    }
}

/// `true` or `false`, and nothing YAML 1.1 would have read as one (`yes`, `on`, `"true"`):
/// a value that looks like a switch but is not one is an error at its line, not `false`.
pub(super) fn strict_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    struct StrictBool;
    impl<'de> serde::de::Visitor<'de> for StrictBool {
        type Value = Option<bool>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("true or false")
        }

        fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Self::Value, E> {
            Ok(Some(b))
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(StrictBool)
}
