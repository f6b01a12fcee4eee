//! [`TurnSettings`]: everything one iteration of a turn runs with, built once before its
//! model call and passed down to the model call, context management and the tool
//! executor — the agent ([`AgentSpec`]), the configuration and command-sandbox
//! settings the turn holds ([`TurnConfig`]), the model resolved with the client's keys,
//! the retry policy and the permission gate's settings. Nothing below it reads the
//! session row, the config files or the model resolution again.
//!
//! One thing changes within an iteration: an "allow always" answer adds a rule that
//! applies to the next batch of tool calls at once, so [`TurnSettings::gate`] looks at
//! the turn's live rules.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use roocode_protocol::session::ClientEnv;

use super::children::ChildSpec;
use super::spec::AgentSpec;
use super::turn_config::TurnConfig;
use crate::config::Config;
use crate::llm::{self, LlmError, ResolvedModel};
use crate::permission::{GateSettings, PermissionGate};
use crate::recovery::RetryPolicy;
use crate::sandbox::SandboxSettings;
use crate::store::SessionRow;
use crate::tools::Registry;
use crate::tools::turn_scope::Combined;

/// One iteration's settings (see the module doc).
pub struct TurnSettings<'t> {
    /// The session as the iteration began: its id, working directory, project root.
    pub session: SessionRow,
    pub agent: AgentSpec,
    /// The environment the session's client sent last (keys, `ROOCODE_*`).
    pub env: ClientEnv,
    pub config: Config,
    pub sandbox: SandboxSettings,
    pub model: ResolvedModel,
    pub retry: RetryPolicy,
    /// The gate's settings for the rules of `config`.
    pub gate: GateSettings,
    /// Where the user's configuration lives (the gate protects it).
    pub user_dir: PathBuf,
    /// Rules the turn's commands and skills pre-approve (see `tools::turn_scope`).
    pre_approved: Vec<String>,
    /// The turn's hooks (`pre_tool_use`, `post_tool_use`, `permission_request`, …).
    pub hooks: Option<Arc<super::hooks::SessionHooks>>,
    live: &'t TurnConfig,
}

/// What the engine gives an iteration to build its settings from.
pub struct Sources<'a> {
    pub env: ClientEnv,
    pub tools: Arc<Registry>,
    /// What deferring the session's MCP tools needs (None: it has none).
    pub deferral: Option<super::mcp::Deferral>,
    pub plan_file: PathBuf,
    pub user_dir: &'a Path,
    pub http: &'a reqwest::Client,
    /// What the turn's commands and skills set (tools, rules, model).
    pub scope: Combined,
    /// The hooks the turn runs (None: none, e.g. a command's inline call).
    pub hooks: Option<Arc<super::hooks::SessionHooks>>,
}

impl<'t> TurnSettings<'t> {
    /// The settings of the session's main agent now: `session` read at the start of the
    /// iteration, `live` the turn's configuration.
    pub fn main(
        session: SessionRow,
        live: &'t TurnConfig,
        sources: Sources<'_>,
    ) -> Result<Self, LlmError> {
        Self::for_agent(session, None, live, sources)
    }

    /// The settings of the session's agent now: its main agent, or the sub-agent
    /// `child` describes.
    pub fn for_agent(
        session: SessionRow,
        child: Option<&ChildSpec>,
        live: &'t TurnConfig,
        sources: Sources<'_>,
    ) -> Result<Self, LlmError> {
        let config = live.get();
        let env = sources.env;
        let agent = match child {
            Some(spec) => AgentSpec::child(
                &session,
                spec,
                &config,
                &env,
                &sources.tools,
                sources.plan_file,
            ),
            None => AgentSpec::main(&session, &config, &env, &sources.tools, sources.plan_file),
        };
        let mut agent = agent;
        let scope = sources.scope;
        if let Some(allowed) = &scope.allowed_tools {
            agent.tools = crate::tools::turn_scope::narrow(agent.tools, allowed);
        }
        // A running skill's own tools, after the narrowing (its `allowed_tools` name
        // the agent's tools, not its own).
        if !scope.skill_tools.is_empty() {
            agent.tools =
                crate::tools::turn_scope::with_skill_tools(agent.tools, &scope.skill_tools);
        }
        if let Some(model) = scope.model {
            agent.model = model;
        }
        let model = llm::resolve_model(&agent.model, &env, &config, sources.http)?;
        agent.tools = super::mcp::defer(
            agent.tools,
            model.context_window,
            config.mcp.defer_threshold(),
            sources.deferral.as_ref(),
        );
        let retry = RetryPolicy::from_env_and_config(&env, &config);
        let gate = gate_settings(&config, &agent, &session, &scope.pre_approved);
        Ok(TurnSettings {
            pre_approved: scope.pre_approved,
            hooks: sources.hooks,
            sandbox: live.sandbox(),
            session,
            agent,
            env,
            config,
            model,
            retry,
            gate,
            user_dir: sources.user_dir.to_path_buf(),
            live,
        })
    }

    /// The same settings with the agent on model `spec` (recovery's fallback model).
    pub fn with_model(mut self, spec: &str, http: &reqwest::Client) -> Result<Self, LlmError> {
        self.model = llm::resolve_model(spec, &self.env, &self.config, http)?;
        self.agent.model = spec.to_string();
        Ok(self)
    }

    /// The permission gate for the next batch of tool calls: the iteration's settings,
    /// with the rules "allow always" added since.
    pub fn gate(&self) -> PermissionGate {
        let now = self.live.get();
        let settings = if now.permissions == self.config.permissions {
            self.gate.clone()
        } else {
            gate_settings(&now, &self.agent, &self.session, &self.pre_approved)
        };
        PermissionGate::new(settings).with_user_dir(self.user_dir.clone())
    }

    /// An "allow always" rule was written to the local config: the turn applies it at
    /// once (see `TurnConfig::allow_rule`).
    pub fn allow_rule(&self, rule: &str) {
        self.live.allow_rule(rule);
    }
}

/// The gate's settings for `config`'s rules and the `pre_approved` ones of the turn's
/// commands and skills (allow rules: a deny or ask rule still wins over them).
fn gate_settings(
    config: &Config,
    agent: &AgentSpec,
    session: &SessionRow,
    pre_approved: &[String],
) -> GateSettings {
    let widened;
    let config = if pre_approved.is_empty() {
        config
    } else {
        let mut c = config.clone();
        c.permissions.allow.extend(pre_approved.iter().cloned());
        widened = c;
        &widened
    };
    let (mut settings, rule_errors) =
        GateSettings::from_config(config, agent.permission.mode, Path::new(&session.root));
    for e in rule_errors {
        tracing::warn!(session = %session.id, "ignoring an invalid permission rule: {e}");
    }
    settings.plan_file = Some(agent.permission.plan_file.clone());
    settings.read_only_commands = agent.permission.read_only_commands;
    settings
}

#[cfg(test)]
mod tests {
    use roocode_protocol::Mode;
    use roocode_protocol::paths::Paths;
    use roocode_protocol::session::CreateParams;

    use super::*;
    use crate::agent::Engine;
    use crate::store::Store;

    /// An engine with one session in a project whose local config says `local`.
    async fn session(local: &str) -> (tempfile::TempDir, Engine, SessionRow, ClientEnv) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join(".roocode")).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::write(project.join(".roocode/config.local.yaml"), local).unwrap();
        let paths =
            Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
                .unwrap();
        let store = Store::open(&paths.database).await.unwrap();
        let engine = Engine::new(store, paths);
        let mut env = ClientEnv::default();
        env.vars
            .insert("ANTHROPIC_API_KEY".into(), "sk-test".into());
        let info = engine
            .create(CreateParams {
                cwd: project.display().to_string(),
                model: Some("anthropic/sonnet".into()),
                env: env.clone(),
                ..CreateParams::default()
            })
            .await
            .unwrap();
        let row = engine.resolve(&info.id).await.unwrap();
        (dir, engine, row, env)
    }

    fn settings<'t>(
        engine: &Engine,
        row: &SessionRow,
        env: &ClientEnv,
        live: &'t TurnConfig,
    ) -> TurnSettings<'t> {
        let sources = Sources {
            env: env.clone(),
            tools: engine.tools().clone(),
            deferral: None,
            plan_file: engine.plan_file(&row.id),
            user_dir: &engine.paths().user_dir,
            http: &engine.http,
            scope: Default::default(),
            hooks: None,
        };
        TurnSettings::main(row.clone(), live, sources).unwrap()
    }

    /// With an 8,192-token window (a local model's), the system prompt and the tools the
    /// request sends (their short descriptions) stay under a third of the window.
    #[tokio::test]
    async fn an_8192_window_keeps_the_prompt_and_tools_under_a_third() {
        let (_dir, engine, row, env) = session("context: {window_tokens: 8192}\n").await;
        let live = TurnConfig::load(&engine.paths().user_dir, Path::new(&row.root)).unwrap();
        let now = settings(&engine, &row, &env, &live);
        assert_eq!(now.model.context_window, 8192);
        let tools = llm::tools_for_window(
            now.agent.tools.defs(),
            now.model.context_window,
            now.config.small_window_tokens(),
        );
        let tools =
            crate::context::budget::estimate_tokens(&serde_json::to_string(&tools).unwrap());
        let prompt = crate::context::budget::estimate_tokens(&now.agent.system_prompt);
        assert!(
            (tools + prompt) * 3 < 8192,
            "system prompt {prompt} + tools {tools} tokens"
        );
    }

    #[tokio::test]
    async fn the_main_agent_is_the_session_and_its_config_as_a_value() {
        let (_dir, engine, row, env) = session("max_turns: 3\n").await;
        let live = TurnConfig::load(&engine.paths().user_dir, Path::new(&row.root)).unwrap();
        let now = settings(&engine, &row, &env, &live);
        assert_eq!(now.agent.agent_id, row.id);
        assert_eq!(now.agent.model, "anthropic/sonnet");
        assert_eq!(now.agent.system_prompt, engine.system_prompt(&row));
        assert_eq!(now.agent.limits.max_turns, 3);
        assert_eq!(now.agent.permission.mode, Mode::Default);
        assert_eq!(now.agent.plan_reminder(), None);
        // The alias is resolved once, for the iteration, with the client's keys.
        assert_ne!(now.model.model, "sonnet");
        assert_eq!(
            engine.model_window(&row).await,
            Some(now.model.context_window)
        );

        engine.set_mode(&row.id, "plan").await.unwrap();
        let row = engine.resolve(&row.id).await.unwrap();
        let planning = settings(&engine, &row, &env, &live);
        assert_eq!(planning.agent.permission.mode, Mode::Plan);
        let reminder = planning.agent.plan_reminder().unwrap();
        assert!(
            reminder.contains(&engine.plan_file(&row.id).display().to_string()),
            "{reminder}"
        );
    }

    #[tokio::test]
    async fn an_allow_always_rule_reaches_the_next_batch_s_gate() {
        let (_dir, engine, row, env) = session("{}\n").await;
        let live = TurnConfig::load(&engine.paths().user_dir, Path::new(&row.root)).unwrap();
        let now = settings(&engine, &row, &env, &live);
        assert!(now.gate().settings().rules.is_empty());
        now.allow_rule("Bash(make)");
        assert!(!now.gate().settings().rules.is_empty());
        assert!(now.gate.rules.is_empty(), "the snapshot is the iteration's");
    }
}
