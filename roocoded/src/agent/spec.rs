//! [`AgentSpec`]: the agent a turn runs, as a value — its system prompt, tool set,
//! permission context, model and limits. The turn loop reads only this (and the
//! [`TurnSettings`](super::settings::TurnSettings) built around it), never the session
//! row or the config files directly, so that another kind of agent (a sub-agent, a
//! teammate, a skill) is another value, not another loop: a session's main agent
//! ([`AgentSpec::main`]), or a sub-agent or teammate as its stored spec describes it
//! ([`AgentSpec::child`]).

use std::path::PathBuf;
use std::sync::Arc;

use roocode_protocol::Mode;
use roocode_protocol::session::{ClientEnv, SessionKind};

use super::children::ChildSpec;
use super::prompt;
use crate::config::Config;
use crate::store::SessionRow;
use crate::tools::{AgentKind, Registry, Selection, ToolSet};

/// Output limit asked of the model per call.
const MAX_OUTPUT_TOKENS: u32 = 16_384;
/// Three unknown or disabled tools in a row end the turn.
const MAX_UNKNOWN_STREAK: u32 = 3;

/// One agent, as a turn runs it.
#[derive(Clone)]
pub struct AgentSpec {
    /// The agent's id in events and call records (the main agent's is its session's).
    pub agent_id: String,
    /// Byte-stable for the agent's life, so providers can cache it.
    pub system_prompt: String,
    /// The tools the agent may call (the model sees exactly these).
    pub tools: ToolSet,
    pub permission: PermissionContext,
    /// The model as the agent names it: `provider/model`, possibly an alias
    /// (`anthropic/sonnet`); resolved with the client's keys in `TurnSettings`.
    pub model: String,
    pub limits: Limits,
    /// A session's main agent in coordinator mode (no code tools: its plan-mode reminder
    /// says to plan through teammates).
    pub coordinator: bool,
    /// Where the agent works instead of the project root: its git worktree
    /// (`isolation: worktree`). Its configuration, instructions, memory and
    /// "allow always" rules still come from the project root.
    pub workspace: Option<PathBuf>,
}

/// What the permission gate needs to know about the agent; its rules come from the
/// turn's configuration (`TurnConfig`: the project's and the user's files, and the
/// "allow always" answers of the turn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionContext {
    pub mode: Mode,
    /// The one file plan mode lets the agent write without asking.
    pub plan_file: PathBuf,
    /// Its commands must be read-only (`Explore`, `Plan`): the gate refuses any other.
    pub read_only_commands: bool,
}

/// When a turn stops on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Model calls with tool use per turn (`max_turns`).
    pub max_turns: u32,
    /// Output tokens asked of the model per call.
    pub max_output_tokens: u32,
    /// Calls of unknown or disabled tools in a row that end the turn.
    pub max_unknown_streak: u32,
}

impl Limits {
    /// The limits of `config`; `ROOCODE_MAX_TURNS` in the client's environment wins.
    pub fn of(config: &Config, env: &ClientEnv) -> Self {
        let max_turns = env
            .get("ROOCODE_MAX_TURNS")
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|n| *n > 0)
            .unwrap_or_else(|| config.max_turns());
        Self {
            max_turns,
            max_output_tokens: MAX_OUTPUT_TOKENS,
            max_unknown_streak: MAX_UNKNOWN_STREAK,
        }
    }
}

/// The session's main agent's tools: every tool the configuration leaves
/// (`tools.disabled`, `tools.bash`), `ExitPlanMode` only while it plans, and only the
/// coordinator's tools in coordinator mode ([`coordinating`]).
pub fn main_tools(registry: &Arc<Registry>, config: &Config, row: &SessionRow) -> ToolSet {
    let selection = Selection::main(&config.tools.disabled, config.tools.bash)
        .in_mode(row.mode)
        .coordinating(coordinating(row, config))
        .leading(row.leads_team);
    crate::tools::select(registry, &selection)
}

/// Whether the session's main agent runs as a coordinator: the session's own choice
/// (`/coordinator on|off`), else the project's `coordinator: true`. Only a main session
/// coordinates (a teammate or sub-agent never does).
pub fn coordinating(row: &SessionRow, config: &Config) -> bool {
    row.kind == SessionKind::Main && row.coordinator.unwrap_or_else(|| config.coordinator())
}

impl AgentSpec {
    /// The session's main agent as the session row and the configuration describe it
    /// now; `plan_file` is the session's plan file.
    pub fn main(
        row: &SessionRow,
        config: &Config,
        env: &ClientEnv,
        tools: &Arc<Registry>,
        plan_file: PathBuf,
    ) -> Self {
        let role = prompt::Role::of(row, config);
        AgentSpec {
            agent_id: row.id.clone(),
            system_prompt: prompt::system_prompt(row, role),
            tools: main_tools(tools, config, row),
            coordinator: role == prompt::Role::Coordinator,
            permission: PermissionContext {
                // An unknown stored mode is treated as the default: the gate asks.
                mode: row.mode,
                plan_file,
                read_only_commands: false,
            },
            model: row.model.clone(),
            limits: Limits::of(config, env),
            workspace: None,
        }
    }

    /// A sub-agent as its stored `spec` describes it, with the configuration's tool
    /// layers applied now (`tools.disabled` and `agents.custom_disallowed` apply to a
    /// running child too).
    pub fn child(
        row: &SessionRow,
        spec: &ChildSpec,
        config: &Config,
        env: &ClientEnv,
        tools: &Arc<Registry>,
        plan_file: PathBuf,
    ) -> Self {
        let kind = match spec.team {
            Some(_) => AgentKind::Teammate {
                custom: spec.custom,
            },
            None => AgentKind::Child {
                custom: spec.custom,
                background: spec.background,
            },
        };
        let selection = Selection {
            kind,
            disabled: &config.tools.disabled,
            bash: config.tools.bash,
            custom_disallowed: &config.agents.custom_disallowed,
            allowed: spec.tools.as_deref(),
            disallowed: &spec.disallowed_tools,
            // A teammate in plan mode asks its lead to approve its plan with ExitPlanMode.
            planning: spec.team.is_some() && row.mode == Mode::Plan,
            leading: false,
        };
        let mut set = crate::tools::select(tools, &selection);
        if let Some(advertised) = &spec.advertised_tools {
            set = set.advertising(advertised);
        }
        let mut limits = Limits::of(config, env);
        if let Some(max_turns) = spec.max_turns.filter(|n| *n > 0) {
            limits.max_turns = max_turns;
        }
        AgentSpec {
            agent_id: row.id.clone(),
            system_prompt: spec.system_prompt.clone(),
            tools: set,
            coordinator: false,
            permission: PermissionContext {
                mode: row.mode,
                plan_file,
                read_only_commands: spec.read_only_commands,
            },
            model: row.model.clone(),
            limits,
            workspace: spec.workspace.clone(),
        }
    }

    /// The reminder added to the newest message while the agent plans (plan mode
    /// constrains by prompt; the system prompt stays unchanged).
    pub fn plan_reminder(&self) -> Option<String> {
        (self.permission.mode == Mode::Plan).then(|| {
            if self.coordinator {
                prompt::coordinator_plan_reminder()
            } else {
                prompt::plan_mode_reminder(&self.permission.plan_file)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> ClientEnv {
        let mut env = ClientEnv::default();
        for (k, v) in vars {
            env.vars.insert((*k).to_string(), (*v).to_string());
        }
        env
    }

    #[test]
    fn the_client_s_max_turns_wins_when_it_is_a_positive_number() {
        let config = Config::default();
        let default = config.max_turns();
        assert_eq!(Limits::of(&config, &env(&[])).max_turns, default);
        assert_eq!(
            Limits::of(&config, &env(&[("ROOCODE_MAX_TURNS", "7")])).max_turns,
            7
        );
        for ignored in ["0", "x", ""] {
            let limits = Limits::of(&config, &env(&[("ROOCODE_MAX_TURNS", ignored)]));
            assert_eq!(limits.max_turns, default, "{ignored:?}");
        }
    }
}
