//! From an `Agent` call to a recorded, started child: its type, model, mode, tool set
//! and first context are decided here, and checked before anything is stored, so a
//! call that cannot start a child leaves nothing behind and tells the model why.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use roocode_protocol::agents::AgentState;
use roocode_protocol::event::EventPayload;
use roocode_protocol::session::{ClientEnv, SessionKind};
use tokio_util::sync::CancellationToken;

use super::book::Phase;
use super::fork;
use super::types::{AgentType, ChildSpec};
use crate::agent::definitions::{self, Isolation, ModelChoice, ModelTier};
use crate::agent::{AgentError, Engine};
use crate::config::Config;
use crate::store::{NewAgent, NewSession, SessionRow};
use crate::tools::turn_scope::TurnScope;
use crate::tools::{AgentRequest, FileState};

/// What a parent's `Agent` call knows of the agent making it.
#[derive(Clone)]
pub struct ParentCall {
    pub session: SessionRow,
    pub env: ClientEnv,
    pub config: Config,
    /// The parent's system prompt and tool names (a fork keeps both).
    pub system_prompt: String,
    pub tool_names: Vec<String>,
    /// The parent's turn: cancelling it cancels its foreground children.
    pub cancel: CancellationToken,
    pub files: Arc<FileState>,
}

/// A child that has started (or queued for a slot).
pub(in crate::agent) struct Started {
    pub id: String,
    pub name: String,
    pub background: bool,
}

impl Engine {
    /// The types `Agent` can start for `parent`: the built-ins, then the definition
    /// files (a definition of a built-in's name replaces it).
    pub(in crate::agent) fn agent_types(&self, parent: &ParentCall) -> Vec<AgentType> {
        let mut types = super::builtin_types(parent.config.verification_agent_enabled());
        if let Some(home) = parent.env.get("HOME") {
            let user = crate::project::UserDirs {
                roocode: self.paths.user_dir.clone(),
                home: PathBuf::from(home),
            };
            let loaded = definitions::load(&user, Path::new(&parent.session.root));
            for problem in &loaded.problems {
                tracing::warn!("agent definition not loaded: {problem}");
            }
            for d in &loaded.definitions {
                types.retain(|t| t.name != d.name);
                types.push(AgentType::from(d));
            }
        }
        types
    }

    /// Starts the child `request` asks for; the error is what the model reads.
    pub(super) async fn start_agent(
        self: &Arc<Self>,
        parent: &ParentCall,
        request: AgentRequest,
    ) -> Result<Started, String> {
        match parent.session.kind {
            SessionKind::Main => {}
            SessionKind::Teammate => helper_of_teammate(&request)?,
            _ => {
                return Err(
                    "sub-agents cannot start agents of their own: do this part of the task yourself"
                        .into(),
                );
            }
        }
        if let Some(team) = request.team_name.clone() {
            return self.start_teammate(parent, request, &team).await;
        }
        if let Some(id) = &request.resume {
            return self.resume_agent(parent, id, &request).await;
        }
        let mut request = request;
        // A collaboration graph counts the dispatch (recorded before the agent exists)
        // and gives the worker its role.
        let id = uuid::Uuid::now_v7().to_string();
        if let Some(node) = request.subagent_type.clone()
            && let Some(role) = self
                .graph_dispatch(&parent.session, &parent.config, &node, &id)
                .await
                .map_err(|e| format!("the collaboration graph could not be read: {e}"))?
            && !role.is_empty()
        {
            request.prompt = format!(
                "{}\n\n<collaboration-role>\n{role}\n</collaboration-role>",
                request.prompt
            );
        }
        let plan = self.plan_child(parent, &request)?;
        self.record_planned_as(&id, parent, &request, plan).await
    }

    /// Records and starts the child `plan` describes; if that fails, nothing of it
    /// stays.
    pub(in crate::agent) async fn record_planned(
        self: &Arc<Self>,
        parent: &ParentCall,
        request: &AgentRequest,
        plan: Plan,
    ) -> Result<Started, String> {
        let id = uuid::Uuid::now_v7().to_string();
        self.record_planned_as(&id, parent, request, plan).await
    }

    /// [`Engine::record_planned`] with the child's id chosen beforehand (so what
    /// refers to it is recorded before the child exists: a crash in between leaves a
    /// record of an agent that never started, never an agent nobody knows of).
    pub(in crate::agent) async fn record_planned_as(
        self: &Arc<Self>,
        id: &str,
        parent: &ParentCall,
        request: &AgentRequest,
        plan: Plan,
    ) -> Result<Started, String> {
        let id = id.to_string();
        // In a replay the child replays the agent its parent started next.
        self.replay_adopt(&parent.session.id, &id, &plan.name).await;
        match self.record_child(&id, parent, request, plan).await {
            Ok(started) => Ok(started),
            Err(e) => {
                // Whatever was stored of it goes (its worktree, if made, is cleaned at
                // the next start as one without an agent).
                if let Err(cleanup) = self.store.delete_session(&id).await {
                    tracing::warn!(agent = %id, "cannot remove the agent that failed to start: {cleanup}");
                }
                Err(format!("the agent could not be started: {e}"))
            }
        }
    }

    /// Everything about the child that can be decided (and refused) before it exists.
    pub(in crate::agent) fn plan_child(
        &self,
        parent: &ParentCall,
        request: &AgentRequest,
    ) -> Result<Plan, String> {
        let ty = match &request.subagent_type {
            None => None,
            Some(name) => {
                let types = self.agent_types(parent);
                let found = types.iter().find(|t| t.name == *name).cloned();
                match found {
                    Some(t) => Some(t),
                    None => {
                        let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
                        return Err(format!(
                            "unknown subagent_type `{name}`: the available types are {} (or leave subagent_type out to fork yourself)",
                            names.join(", ")
                        ));
                    }
                }
            }
        };
        let isolation = match request.isolation.as_deref() {
            None => ty.as_ref().map_or(Isolation::None, |t| t.isolation),
            Some("worktree") => Isolation::Worktree,
            Some("none") => Isolation::None,
            Some(other) => {
                return Err(format!(
                    "unknown isolation `{other}`: the only isolation is \"worktree\""
                ));
            }
        };
        let choice = match &request.model {
            Some(m) => definitions::fields::model(m),
            None => ty
                .as_ref()
                .map_or(ModelChoice::Inherit, |t| t.model.clone()),
        };
        let model = child_model(&choice, &parent.session.model, &parent.config);
        crate::llm::resolve_model(&model, &parent.env, &parent.config, &self.http)
            .map_err(|e| format!("the model `{model}` cannot be used for the agent: {e}"))?;
        let limits = parent.config.agents_limits();
        let (spec, agent_type, mode) = match &ty {
            None => {
                let spec = ChildSpec {
                    system_prompt: parent.system_prompt.clone(),
                    custom: false,
                    background: true,
                    tools: None,
                    disallowed_tools: Vec::new(),
                    max_turns: None,
                    read_only_commands: false,
                    timeout_s: limits.timeout.as_secs(),
                    advertised_tools: Some(parent.tool_names.clone()),
                    workspace: None,
                    team: None,
                };
                (spec, "fork".to_string(), parent.session.mode)
            }
            Some(t) => {
                // `Bash(git log:*)` in a tool list names the tool Bash (Claude Code's
                // permission-rule spelling); the rule itself is not applied here.
                let tools: Option<Vec<String>> = t.tools.as_ref().map(|names| {
                    names
                        .iter()
                        .map(|n| {
                            n.split_once('(')
                                .map_or(n.as_str(), |(tool, _)| tool)
                                .trim()
                                .to_string()
                        })
                        .collect()
                });
                // A caller's narrowing (a fork skill's `allowed_tools`) keeps only what
                // both allow.
                let tools = match (&request.tools, tools) {
                    (None, tools) => tools,
                    (Some(wanted), None) => Some(wanted.clone()),
                    (Some(wanted), Some(typed)) => {
                        Some(typed.into_iter().filter(|t| wanted.contains(t)).collect())
                    }
                };
                let unknown: Vec<&String> = tools
                    .iter()
                    .flatten()
                    .filter(|name| self.tools.get(name).is_none())
                    .collect();
                if !unknown.is_empty() {
                    tracing::warn!(agent_type = %t.name, ?unknown, "tools named by the definition do not exist here; dropped");
                }
                let spec = ChildSpec {
                    system_prompt: t.prompt.clone(),
                    custom: t.custom,
                    background: request.run_in_background || t.background,
                    tools,
                    disallowed_tools: t.disallowed_tools.clone(),
                    max_turns: t.max_turns,
                    read_only_commands: t.read_only_commands,
                    timeout_s: t.timeout_s.unwrap_or(limits.timeout.as_secs()),
                    advertised_tools: None,
                    workspace: None,
                    team: None,
                };
                let mode = super::types::child_mode(t, parent.session.mode);
                (spec, t.name.clone(), mode)
            }
        };
        let name = request.name.clone().unwrap_or_else(|| agent_type.clone());
        Ok(Plan {
            spec,
            agent_type,
            name,
            model,
            mode,
            isolation,
            kind: SessionKind::SubAgent,
            joining: None,
            plan_mode_required: ty.as_ref().is_some_and(|t| t.plan_mode_required),
            collaboration: ty.as_ref().and_then(|t| t.collaboration.clone()),
        })
    }

    /// Stores the child (session, row, first context), announces it on the parent's
    /// stream and starts it.
    async fn record_child(
        self: &Arc<Self>,
        id: &str,
        parent: &ParentCall,
        request: &AgentRequest,
        mut plan: Plan,
    ) -> Result<Started, AgentError> {
        let id = id.to_string();
        let root = PathBuf::from(&parent.session.root);
        let mut cwd = parent.session.cwd.clone();
        let mut worktree = None;
        if plan.isolation == Isolation::Worktree {
            let prepared = self
                .prepare_worktree(&root, &id, &plan.name)
                .await
                .map_err(AgentError::Invalid)?;
            cwd = prepared.path.display().to_string();
            plan.spec.workspace = Some(prepared.path.clone());
            worktree = Some(prepared);
        }
        // A typed child's prompt ends, like every agent's, with where it works (a fork
        // keeps its parent's prompt byte for byte).
        if request.subagent_type.is_some() {
            let workspace = plan
                .spec
                .workspace
                .as_ref()
                .map_or(parent.session.root.clone(), |w| w.display().to_string());
            let environment =
                crate::agent::prompt::environment(&cwd, &workspace, crate::clock::now_ms());
            plan.spec.system_prompt =
                format!("{}\n\n{environment}", plan.spec.system_prompt.trim_end());
        }
        // A fork's first context is its parent's conversation, read before it is stored.
        let fork_context = match request.subagent_type {
            None => {
                let messages = self.store.context(&parent.session.id).await?;
                Some(
                    fork::first_context(messages, &request.prompt).ok_or_else(|| {
                        AgentError::Invalid(
                            "a fork needs its parent's tool call in the conversation".into(),
                        )
                    })?,
                )
            }
            Some(_) => None,
        };
        let background = plan.spec.background;
        let row = self
            .store
            .insert_agent(&NewAgent {
                session: NewSession {
                    id: id.clone(),
                    parent_session_id: Some(parent.session.id.clone()),
                    kind: plan.kind,
                    title: request.description.clone(),
                    cwd,
                    root: parent.session.root.clone(),
                    model: plan.model.clone(),
                    mode: plan.mode,
                },
                name: plan.name.clone(),
                agent_type: plan.agent_type.clone(),
                description: request.description.clone(),
                background,
                spec: plan
                    .spec
                    .to_json()
                    .map_err(|e| AgentError::Invalid(format!("the agent's spec: {e}")))?,
                state: AgentState::Queued,
            })
            .await?;
        if let Some(wt) = &worktree {
            self.store
                .set_agent_worktree(&id, Some(&wt.path.display().to_string()), Some(&wt.branch))
                .await?;
        }
        if let Some(joining) = &plan.joining {
            let worktree = worktree.as_ref().map(|w| w.path.display().to_string());
            self.join_team(&row, joining, worktree.as_deref(), plan.plan_mode_required)
                .await?;
        }
        match fork_context {
            Some(messages) => self.store.replace_context(&id, &messages).await?,
            None => {
                let input_id = uuid::Uuid::now_v7().to_string();
                let scope = request.scope.as_ref().map(TurnScope::to_json);
                self.store
                    .queue_input(&id, &input_id, &request.prompt, scope.as_deref())
                    .await?;
            }
        }
        let rt = self.runtime(&id).await?;
        rt.state.lock().await.env = parent.env.clone();
        if request.subagent_type.is_none() {
            rt.files.absorb(&parent.files);
        }
        tracing::info!(agent = %id, parent = %parent.session.id, agent_type = %row.agent_type, background, "sub-agent started");
        self.events
            .append(
                &parent.session.id,
                &id,
                EventPayload::AgentSpawned {
                    name: row.name.clone(),
                    agent_type: row.agent_type.clone(),
                    description: row.description.clone(),
                    background,
                },
            )
            .await?;
        let phase = if background {
            Phase::Background
        } else {
            Phase::Foreground
        };
        self.run_child(&id, phase).await?;
        Ok(Started {
            id,
            name: row.name,
            background,
        })
    }

    /// Continues a finished child with `request.prompt`, its history kept.
    async fn resume_agent(
        self: &Arc<Self>,
        parent: &ParentCall,
        given: &str,
        request: &AgentRequest,
    ) -> Result<Started, String> {
        let children = self
            .store
            .children(&parent.session.id)
            .await
            .map_err(|e| e.to_string())?;
        let matching: Vec<_> = children
            .iter()
            .filter(|c| c.id.starts_with(given))
            .collect();
        let row = match matching.as_slice() {
            [one] => (*one).clone(),
            [] => {
                return Err(format!(
                    "no agent of yours has the id `{given}`: TaskList lists them"
                ));
            }
            _ => {
                return Err(format!(
                    "`{given}` names several agents: give more of the id"
                ));
            }
        };
        if !row.state.is_final() && row.state != AgentState::Idle {
            return Err(format!(
                "agent {} is still {}: wait for its result before resuming it",
                row.id, row.state
            ));
        }
        let background = request.run_in_background || row.background;
        // A worktree child's worktree was removed when it ended: it is checked out again.
        self.reopen_worktree(&row).await?;
        let input_id = uuid::Uuid::now_v7().to_string();
        let store = &self.store;
        store
            .queue_input(&row.id, &input_id, &request.prompt, None)
            .await
            .map_err(|e| e.to_string())?;
        store
            .restart_agent(&row.id, background)
            .await
            .map_err(|e| e.to_string())?;
        let rt = self.runtime(&row.id).await.map_err(|e| e.to_string())?;
        {
            let mut state = rt.state.lock().await;
            state.env = parent.env.clone();
            if !state.queue.iter().any(|q| q.input_id == input_id) {
                state.queue.push_back(crate::agent::runtime::Queued {
                    input_id,
                    text: request.prompt.clone(),
                    scope: None,
                });
            }
        }
        let phase = if background {
            Phase::Background
        } else {
            Phase::Foreground
        };
        // Its parent's watchers see it start again.
        let spawned = EventPayload::AgentSpawned {
            name: row.name.clone(),
            agent_type: row.agent_type.clone(),
            description: row.description.clone(),
            background,
        };
        if let Err(e) = self
            .events
            .append(&parent.session.id, &row.id, spawned)
            .await
        {
            tracing::warn!(agent = %row.id, "cannot record agent_spawned: {e}");
        }
        if let Err(e) = self.run_child(&row.id, phase).await {
            let failed = super::book::Outcome {
                state: AgentState::Failed,
                result: String::new(),
                error: Some(e.to_string()),
            };
            self.record_failure(&row, &failed).await;
            return Err(format!("agent {} could not be resumed: {e}", row.id));
        }
        Ok(Started {
            id: row.id,
            name: row.name,
            background,
        })
    }
}

/// A child before it exists.
pub(in crate::agent) struct Plan {
    pub spec: ChildSpec,
    pub agent_type: String,
    pub name: String,
    pub model: String,
    pub mode: roocode_protocol::Mode,
    pub isolation: Isolation,
    /// `sub_agent`, or `teammate` for a member of a team.
    pub kind: SessionKind,
    /// The team a teammate joins.
    pub joining: Option<crate::agent::team::Joining>,
    /// Its type asks for plan approval when it runs as a teammate.
    pub plan_mode_required: bool,
    /// Its type's collaboration graph (followed when it runs as a teammate).
    pub collaboration: Option<Box<crate::workflow::graph::Graph>>,
}

/// What a teammate may start: foreground helpers of a named type only (no background
/// agents, forks, resumes or teammates of its own).
fn helper_of_teammate(request: &AgentRequest) -> Result<(), String> {
    if request.team_name.is_some() {
        return Err("only the team's lead adds teammates: ask the lead with SendMessage".into());
    }
    if request.run_in_background || request.resume.is_some() {
        return Err("a teammate starts foreground helpers only: leave out run_in_background and resume, and wait for the helper's answer".into());
    }
    if request.subagent_type.is_none() {
        return Err(
            "a teammate cannot fork itself: name a subagent_type (such as Explore or general-purpose)"
                .into(),
        );
    }
    Ok(())
}

/// The model a child runs: `inherit` is the parent's; a tier is the parent's
/// provider's model of that tier, or the parent's when the provider has no tiers.
fn child_model(choice: &ModelChoice, parent_model: &str, config: &Config) -> String {
    match choice {
        ModelChoice::Inherit => parent_model.to_string(),
        ModelChoice::Tier(tier) => {
            let tier = match tier {
                ModelTier::Haiku => "haiku",
                ModelTier::Sonnet => "sonnet",
                ModelTier::Opus => "opus",
            };
            crate::llm::tier_spec(parent_model, tier, config)
                .unwrap_or_else(|| parent_model.to_string())
        }
        ModelChoice::Spec(spec) => spec.clone(),
    }
}
