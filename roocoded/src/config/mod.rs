//! Configuration: reads the user, project and local `config.yaml` files, validates them
//! and merges them into one [`Config`] (DESIGN.md §10). Validation is strict: broken
//! YAML, an unknown or misspelled key and a value of the wrong type are errors, and an
//! invalid file reports every one of its problems at once, each with file, line, column
//! and, for an unknown key, the closest valid key and the valid keys at that level
//! ([`ConfigError::Problems`], found by `validate`). Each permission rule keeps the
//! file and line it was written at through the merge ([`RuleOrigins`], `provenance`).
//! Environment variables are applied by their users (e.g. `llm::resolve_model` reads
//! the client's environment), not here.

mod error;
mod guarded;
mod mcp_servers;
mod provenance;
mod sections;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_problems;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use error::{ConfigError, Problem};
pub use guarded::Guarded;
pub use mcp_servers::{McpServerEntry, yaml_servers};
pub use provenance::{RuleKind, RuleOrigin, RuleOrigins, rule_line};
pub use sections::{
    AgentsConfig, AgentsLimits, ContextConfig, ContinuationConfig, DEFAULT_IDLE_NOTIFY_AFTER_MS,
    DEFAULT_MAX_CONTINUATIONS_PER_MESSAGE, DEFAULT_MAX_CONTINUATIONS_PER_SESSION,
    DEFAULT_MCP_DEFER_THRESHOLD, DEFAULT_MCP_STARTUP_WAIT_MS, EnvConfig, LlmConfig,
    MAX_IDLE_DEBOUNCE_MS, McpConfig, NotificationsConfig, PermissionsConfig, PriceConfig,
    ProviderConfig, ProviderKind, RecoveryConfig, RetryConfig, SandboxConfig, SandboxMode,
    SandboxNetwork, SecurityConfig, SkillsConfig, TeamBackend, TeamsConfig, TeamsSettings,
    ToolsConfig, TraceConfig,
};

/// Raw YAML value of a key owned by a later feature (`mcp_servers`, `hooks`, ...).
pub type RawValue = yaml_serde::Value;

/// Default for [`Config::max_turns`].
pub const DEFAULT_MAX_TURNS: u32 = 50;
/// Default for [`Config::compact_threshold`].
pub const DEFAULT_COMPACT_THRESHOLD: f64 = 0.85;
/// Default for [`Config::small_window_tokens`].
pub const DEFAULT_SMALL_WINDOW_TOKENS: u64 = 16_384;
/// Default for [`Config::large_result_chars`].
pub const DEFAULT_LARGE_RESULT_CHARS: u64 = 25_000;

/// The merged configuration. Every field is optional in a file; accessors apply defaults.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Model spec such as `anthropic/claude-sonnet-4-5` (`ROOCODE_MODEL` wins over it).
    #[serde(default)]
    pub model: Option<String>,
    /// Named custom endpoints, usable as `<name>/<model>`.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    #[serde(default)]
    pub max_turns: Option<u32>,
    #[serde(default)]
    pub permissions: PermissionsConfig,
    #[serde(default)]
    pub context: ContextConfig,
    #[serde(default)]
    pub retry: RetryConfig,
    /// `llm:`: the stall timeout of model calls; see [`Config::stall_timeout`].
    #[serde(default)]
    pub llm: LlmConfig,
    /// `trace:`: the flight recorder's bodies; see [`Config::trace_bodies_cap`].
    #[serde(default)]
    pub trace: TraceConfig,
    /// Price overrides by model name (provider-side name or full spec).
    #[serde(default)]
    pub prices: BTreeMap<String, PriceConfig>,
    #[serde(default)]
    pub sandbox: SandboxConfig,
    #[serde(default)]
    pub env: EnvConfig,
    #[serde(default)]
    pub security: SecurityConfig,
    #[serde(default)]
    pub tools: ToolsConfig,
    #[serde(default)]
    pub agents: AgentsConfig,
    #[serde(default)]
    pub teams: TeamsConfig,
    /// `coordinator: true`: a team lead keeps only its team, task, message and agent
    /// tools (with TodoWrite, Memory and AskUserQuestion), never a code tool; `/coordinator
    /// on|off` sets it per session.
    #[serde(default, deserialize_with = "sections::strict_bool")]
    pub coordinator: Option<bool>,
    /// MCP servers by name ([`McpServerEntry`] each, checked when the file is parsed);
    /// kept raw so that maps of all files merge by server name. `mcp::config` reads
    /// each file's own, to know its scope.
    #[serde(default)]
    pub mcp_servers: Option<RawValue>,
    #[serde(default)]
    pub mcp: McpConfig,
    /// Kept raw for the hooks feature; lists of all files are combined.
    #[serde(default)]
    pub hooks: Option<RawValue>,
    /// `enable_verification_agent: true` adds the built-in `Verification` sub-agent type
    /// (a background agent that runs the build and the tests). A guarded key.
    #[serde(default, deserialize_with = "sections::strict_bool")]
    pub enable_verification_agent: Option<bool>,
    /// `recovery:`: the attempts cap, the fallback model and the strategy chains.
    #[serde(default)]
    pub recovery: RecoveryConfig,
    /// `skills: {auto: [...]}`: skills every session of the project loads by itself.
    #[serde(default)]
    pub skills: SkillsConfig,
    /// `continuation:`: how often the agent goes on by itself; see
    /// [`Config::max_continuations_per_message`].
    #[serde(default)]
    pub continuation: ContinuationConfig,
    /// `notifications:`: when an idle agent is notified; see
    /// [`Config::idle_notify_after`].
    #[serde(default)]
    pub notifications: NotificationsConfig,
    /// `collaboration:`: the graph the main agent's dispatches follow
    /// ([`crate::workflow::graph`]); checked when the file is parsed, the last file's
    /// whole block wins.
    #[serde(default)]
    pub collaboration: Option<RawValue>,
    /// The files that were read, in merge order.
    #[serde(skip)]
    pub sources: Vec<PathBuf>,
}

impl Config {
    /// Reads and merges, in this order (later wins for values, lists are combined):
    /// `user_dir/config.yaml`, `project_root/.roocode/config.yaml`,
    /// `project_root/.roocode/config.local.yaml`. Missing files are skipped; a file
    /// reached twice (the project is the home directory) is read once. Invalid files
    /// are one [`ConfigError::Problems`] listing the problems of all of them.
    pub fn load(user_dir: &Path, project_root: &Path) -> Result<Config, ConfigError> {
        let project_dir = project_root.join(".roocode");
        let candidates = [
            user_dir.join("config.yaml"),
            project_dir.join("config.yaml"),
            project_dir.join("config.local.yaml"),
        ];
        let mut config = Config::default();
        let mut problems: Vec<Problem> = Vec::new();
        let mut seen: Vec<PathBuf> = Vec::new();
        for path in candidates {
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => return Err(ConfigError::Read { path, source }),
            };
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if seen.contains(&canonical) {
                continue;
            }
            seen.push(canonical);
            match Config::parse(&path, &text) {
                Ok(file) => config.merge(file),
                Err(e) => problems.extend(e.problems()),
            }
        }
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::Problems(problems))
        }
    }

    /// Parses one file's text; `path` is only used in errors and `sources`. An invalid
    /// file is a [`ConfigError::Problems`] with all its problems.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        // An empty or comment-only file is an empty config, not an error.
        let value: RawValue =
            yaml_serde::from_str(text).map_err(|e| ConfigError::from_yaml(path, &e))?;
        if value.is_null() {
            return Ok(Config {
                sources: vec![path.to_path_buf()],
                ..Config::default()
            });
        }
        if !value.is_mapping() {
            return Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                message: "expected a mapping of keys (model:, providers:, ...) at the top level"
                    .to_string(),
            });
        }
        // The strict reading decides; the search for every problem runs only when it
        // failed, so a valid file reads exactly as serde says.
        let read = yaml_serde::from_str::<Config>(text);
        // Kept raw for merging by name, but checked here, where positions are known.
        let servers = match value.get("mcp_servers") {
            Some(_) => yaml_servers(path, text).err(),
            None => None,
        };
        let mut problems = match &read {
            Ok(_) => Vec::new(),
            Err(first) => {
                let found = validate::problems::<Config>(path, text);
                if found.is_empty() {
                    vec![Problem::from_yaml(path, first)]
                } else {
                    found
                }
            }
        };
        if let Some(servers) = servers {
            problems.extend(servers.problems());
            validate::sort(&mut problems);
        }
        if let Some(graph) = value.get("collaboration")
            && let Err(e) = crate::workflow::graph::parse(graph)
        {
            let line = validate::key_line(text, &["collaboration"]).map(|l| (l as usize, 1));
            problems.push(Problem::new(path, line, format!("collaboration: {e}")));
            validate::sort(&mut problems);
        }
        match read {
            Ok(mut config) if problems.is_empty() => {
                config.sources = vec![path.to_path_buf()];
                config.permissions.origins = provenance::locate(path, text, &config.permissions);
                Ok(config)
            }
            _ => Err(ConfigError::Problems(problems)),
        }
    }

    /// Merges `later` over `self`: scalars of `later` win, lists are appended, maps are
    /// merged by key (an entry of `later` replaces the same key of `self`).
    pub fn merge(&mut self, later: Config) {
        let Config {
            model,
            providers,
            max_turns,
            permissions,
            context,
            retry,
            llm,
            trace,
            prices,
            sandbox,
            env,
            security,
            tools,
            agents,
            teams,
            coordinator,
            mcp_servers,
            mcp,
            hooks,
            enable_verification_agent,
            recovery,
            skills,
            continuation,
            notifications,
            collaboration,
            sources,
        } = later;
        override_with(&mut self.model, model);
        self.providers.extend(providers);
        override_with(&mut self.max_turns, max_turns);

        override_with(&mut self.permissions.mode, permissions.mode);
        append_unique(&mut self.permissions.allow, permissions.allow);
        append_unique(&mut self.permissions.ask, permissions.ask);
        append_unique(&mut self.permissions.deny, permissions.deny);
        self.permissions.origins.merge(permissions.origins);
        append_unique(
            &mut self.permissions.additional_directories,
            permissions.additional_directories,
        );
        append_unique(
            &mut self.permissions.protected_branches,
            permissions.protected_branches,
        );

        override_with(
            &mut self.context.compact_threshold,
            context.compact_threshold,
        );
        override_with(
            &mut self.context.large_result_chars,
            context.large_result_chars,
        );
        override_with(&mut self.context.window_tokens, context.window_tokens);
        override_with(
            &mut self.context.small_window_tokens,
            context.small_window_tokens,
        );

        override_with(&mut self.retry.max_attempts, retry.max_attempts);
        override_with(&mut self.retry.base_delay_ms, retry.base_delay_ms);
        override_with(&mut self.retry.max_delay_secs, retry.max_delay_secs);
        override_with(&mut self.retry.max_total_secs, retry.max_total_secs);
        override_with(&mut self.llm.stall_timeout_s, llm.stall_timeout_s);
        override_with(&mut self.trace.record, trace.record);
        override_with(&mut self.trace.bodies, trace.bodies);
        override_with(&mut self.trace.max_body_mb, trace.max_body_mb);

        self.prices.extend(prices);
        override_with(&mut self.sandbox.mode, sandbox.mode);
        override_with(&mut self.sandbox.network, sandbox.network);
        append_unique(&mut self.sandbox.allow_write, sandbox.allow_write);
        append_unique(&mut self.sandbox.deny_read, sandbox.deny_read);
        append_unique(&mut self.sandbox.scrub_env, sandbox.scrub_env);
        append_unique(&mut self.env.forward, env.forward);
        override_with(&mut self.security.redact, security.redact);
        append_unique(&mut self.tools.disabled, tools.disabled);
        // Limits only tighten: a committed project file cannot raise the user's.
        tighten(&mut self.agents.max_concurrent, agents.max_concurrent);
        tighten(&mut self.agents.timeout_s, agents.timeout_s);
        tighten(&mut self.agents.auto_background_s, agents.auto_background_s);
        append_unique(&mut self.agents.custom_disallowed, agents.custom_disallowed);
        override_with(&mut self.teams.backend, teams.backend);
        override_with(&mut self.teams.idle_debounce_ms, teams.idle_debounce_ms);
        override_with(&mut self.coordinator, coordinator);
        // Files only take tools away: a `bash: false` is never undone.
        if self.tools.bash != Some(false) {
            override_with(&mut self.tools.bash, tools.bash);
        }
        merge_raw(&mut self.mcp_servers, mcp_servers);
        override_with(&mut self.mcp.startup_wait_ms, mcp.startup_wait_ms);
        override_with(&mut self.mcp.defer_threshold, mcp.defer_threshold);
        merge_raw(&mut self.hooks, hooks);
        override_with(&mut self.collaboration, collaboration);
        override_with(
            &mut self.enable_verification_agent,
            enable_verification_agent,
        );
        override_with(
            &mut self.recovery.max_total_attempts,
            recovery.max_total_attempts,
        );
        override_with(&mut self.recovery.fallback_model, recovery.fallback_model);
        self.recovery.chains.extend(recovery.chains);
        append_unique(&mut self.skills.auto, skills.auto);
        override_with(
            &mut self.continuation.max_per_message,
            continuation.max_per_message,
        );
        override_with(
            &mut self.continuation.max_per_session,
            continuation.max_per_session,
        );
        override_with(
            &mut self.notifications.idle_after_ms,
            notifications.idle_after_ms,
        );
        self.sources.extend(sources);
    }

    /// The sub-agent limits, defaults filled in (`agents:`).
    pub fn agents_limits(&self) -> AgentsLimits {
        AgentsLimits {
            max_concurrent: self.agents.max_concurrent.unwrap_or(16).max(1),
            timeout: std::time::Duration::from_secs(self.agents.timeout_s.unwrap_or(1800)),
            auto_background: std::time::Duration::from_secs(
                self.agents.auto_background_s.unwrap_or(120),
            ),
        }
    }

    /// `teams:` with its defaults, the idle debounce cut to [`MAX_IDLE_DEBOUNCE_MS`];
    /// `ROOCODE_TEAM_DEBOUNCE_MS` is applied by the engine.
    pub fn teams_settings(&self) -> TeamsSettings {
        TeamsSettings {
            backend: self.teams.backend.unwrap_or_default(),
            idle_debounce: std::time::Duration::from_millis(
                self.teams
                    .idle_debounce_ms
                    .unwrap_or(250)
                    .min(MAX_IDLE_DEBOUNCE_MS),
            ),
        }
    }

    /// Whether team leads of this project run as coordinators (`coordinator: true`).
    pub fn coordinator(&self) -> bool {
        self.coordinator == Some(true)
    }

    /// Whether the built-in `Verification` agent type exists
    /// (`enable_verification_agent: true`).
    pub fn verification_agent_enabled(&self) -> bool {
        self.enable_verification_agent == Some(true)
    }

    /// The skills every session of the project loads by itself (`skills.auto` of all
    /// files, each name once, in file order).
    pub fn auto_skills(&self) -> &[String] {
        &self.skills.auto
    }

    /// How many times the agent may go on by itself after one user message
    /// (`continuation.max_per_message`, default
    /// [`DEFAULT_MAX_CONTINUATIONS_PER_MESSAGE`]); `0`: never.
    pub fn max_continuations_per_message(&self) -> u32 {
        self.continuation
            .max_per_message
            .unwrap_or(DEFAULT_MAX_CONTINUATIONS_PER_MESSAGE)
    }

    /// How many times the agent may go on by itself in one session
    /// (`continuation.max_per_session`, default
    /// [`DEFAULT_MAX_CONTINUATIONS_PER_SESSION`]); `0`: never.
    pub fn max_continuations_per_session(&self) -> u32 {
        self.continuation
            .max_per_session
            .unwrap_or(DEFAULT_MAX_CONTINUATIONS_PER_SESSION)
    }

    /// How long a main agent waits for the user, with no client attached, before the
    /// `notification` hooks hear of it (`notifications.idle_after_ms`, default
    /// [`DEFAULT_IDLE_NOTIFY_AFTER_MS`]).
    pub fn idle_notify_after(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            self.notifications
                .idle_after_ms
                .unwrap_or(DEFAULT_IDLE_NOTIFY_AFTER_MS),
        )
    }

    /// Whether the flight recorder records parts and tool calls (`trace.record`).
    pub fn trace_recording(&self) -> bool {
        self.trace.record != Some(false)
    }

    /// Bytes of model-call bodies the flight recorder keeps per session, `None` when
    /// `trace.bodies: false` (default 50 MB, `trace.max_body_mb`).
    pub fn trace_bodies_cap(&self) -> Option<u64> {
        if self.trace.bodies == Some(false) || !self.trace_recording() {
            return None;
        }
        Some(
            self.trace
                .max_body_mb
                .unwrap_or(50)
                .saturating_mul(1024 * 1024),
        )
    }

    /// How long a model call may send nothing before it counts as a `network` failure
    /// (`llm.stall_timeout_s`, default [`crate::llm::DEFAULT_STALL_TIMEOUT`]).
    pub fn stall_timeout(&self) -> std::time::Duration {
        self.llm.stall_timeout_s.map_or(
            crate::llm::DEFAULT_STALL_TIMEOUT,
            std::time::Duration::from_secs_f64,
        )
    }

    /// Attempts at one error whatever its chain says (`recovery.max_total_attempts`,
    /// default [`crate::recovery::DEFAULT_MAX_TOTAL_ATTEMPTS`]).
    pub fn recovery_max_total_attempts(&self) -> u32 {
        self.recovery
            .max_total_attempts
            .unwrap_or(crate::recovery::DEFAULT_MAX_TOTAL_ATTEMPTS)
    }

    /// Every category's recovery chain: the defaults, with the configured ones in
    /// their place.
    pub fn recovery_chains(
        &self,
    ) -> std::collections::BTreeMap<crate::recovery::Category, crate::recovery::Chain> {
        crate::recovery::Chain::all(&self.recovery.chains)
    }

    /// Maximum loop iterations per turn (default 50).
    pub fn max_turns(&self) -> u32 {
        self.max_turns.unwrap_or(DEFAULT_MAX_TURNS)
    }

    /// The configured model spec, if any.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref().filter(|m| !m.trim().is_empty())
    }

    /// Permission mode (default `default`).
    pub fn permission_mode(&self) -> roocode_protocol::Mode {
        self.permissions.mode.unwrap_or_default()
    }

    /// `permissions.additional_directories`, as written (relative ones are resolved
    /// against the session's working directory by the sandbox).
    pub fn additional_directories(&self) -> Vec<PathBuf> {
        self.permissions
            .additional_directories
            .iter()
            .map(PathBuf::from)
            .collect()
    }

    /// Fraction of the context window at which compaction starts (default 0.85).
    pub fn compact_threshold(&self) -> f64 {
        self.context
            .compact_threshold
            .unwrap_or(DEFAULT_COMPACT_THRESHOLD)
    }

    /// Tool results longer than this are shortened (default 25,000 characters).
    pub fn large_result_chars(&self) -> u64 {
        self.context
            .large_result_chars
            .unwrap_or(DEFAULT_LARGE_RESULT_CHARS)
    }

    /// `sandbox.mode` (default `auto`).
    pub fn sandbox_mode(&self) -> SandboxMode {
        self.sandbox.mode.unwrap_or(SandboxMode::Auto)
    }

    /// `sandbox.network` (default `allow`).
    pub fn sandbox_network(&self) -> SandboxNetwork {
        self.sandbox.network.unwrap_or(SandboxNetwork::Allow)
    }

    /// `security.redact` (default true).
    pub fn redact(&self) -> bool {
        self.security.redact.unwrap_or(true)
    }

    /// Context window override from `context.window_tokens`.
    pub fn window_tokens(&self) -> Option<u64> {
        self.context.window_tokens
    }

    /// `context.small_window_tokens` (default 16,384): a window below it gets the
    /// tools' short descriptions, so the system prompt and tools stay small.
    pub fn small_window_tokens(&self) -> u64 {
        self.context
            .small_window_tokens
            .unwrap_or(DEFAULT_SMALL_WINDOW_TOKENS)
    }
}

fn override_with<T>(slot: &mut Option<T>, later: Option<T>) {
    if later.is_some() {
        *slot = later;
    }
}

/// The smaller of the two, where set.
fn tighten<T: Ord + Copy>(slot: &mut Option<T>, later: Option<T>) {
    *slot = match (*slot, later) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
}

fn append_unique(list: &mut Vec<String>, later: Vec<String>) {
    for item in later {
        if !list.contains(&item) {
            list.push(item);
        }
    }
}

/// Raw values: mappings merge by key (later entry wins), sequences are concatenated,
/// anything else is replaced.
fn merge_raw(slot: &mut Option<RawValue>, later: Option<RawValue>) {
    let Some(later) = later else { return };
    match (slot.as_mut(), later) {
        (Some(RawValue::Mapping(base)), RawValue::Mapping(more)) => {
            for (k, v) in more {
                base.insert(k, v);
            }
        }
        (Some(RawValue::Sequence(base)), RawValue::Sequence(more)) => base.extend(more),
        (_, later) => *slot = Some(later),
    }
}
