//! The engine's side of a collaboration graph (`collaboration:` in config or in an
//! agent definition; rolebox's graph kept in SQLite). A main session whose config has
//! one is an orchestrator, and so is a teammate started from a definition that has one
//! (it leads its helpers along it): at its first model call (a teammate's: when it
//! starts) the graph starts (parsed then, stored with its state, so an
//! edit of the config never changes a running workflow); before each model call the
//! orchestrator is told the graph and where it stands when that changed.
//!
//! A dispatch (an `Agent` call naming one of the graph's agents) is checked against the
//! frontier: on the route it is counted; off it, the agent still runs but the graph
//! does not move, and a correction reaches the orchestrator through its inbox — three
//! in a row end the workflow, telling it to synthesize what it has. The worker's task
//! gets its role (from whom its work comes, to whom it goes). The graph advances when
//! a dispatched agent **completes** (foreground or background, never at launch), once
//! per dispatch; when the termination asks for the `converged` judge, a tool-less
//! model call answers YES or NO, recorded like every model call.

use std::path::Path;
use std::sync::Arc;

use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::workflow::GraphInfo;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::super::call_row::{CallOf, call_row};
use super::super::{AgentError, Engine};
use super::bench::event;
use crate::config::Config;
use crate::llm::{self, ModelRequest};
use crate::recovery::{RetryPolicy, call_retrying};
use crate::store::{AgentRow, GraphRow, InjectionKind, Purpose, SessionRow};
use crate::workflow::graph::{self, Completion, Dispatch, Graph, GraphState, Status};

/// The tools whose use counts as changing files (`result_matches: {no_changes}`).
const EDIT_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// The judge's system prompt.
const JUDGE_SYSTEM: &str = "You judge whether a collaboration of coding agents has \
converged. You receive their latest results. Answer YES or NO only.";

/// The `model_calls` turn id of the judge's calls.
const JUDGE_TURN: &str = "workflow:judge";

/// A graph loaded from its row.
pub(crate) struct Loaded {
    graph: Graph,
    state: GraphState,
    told: Option<String>,
}

fn load(row: &GraphRow) -> Option<Loaded> {
    Some(Loaded {
        graph: serde_json::from_str(&row.graph).ok()?,
        state: serde_json::from_str(&row.state).ok()?,
        told: row.told.clone(),
    })
}

fn to_row(loaded: &Loaded) -> GraphRow {
    GraphRow {
        graph: serde_json::to_string(&loaded.graph).unwrap_or_default(),
        state: serde_json::to_string(&loaded.state).unwrap_or_default(),
        status: loaded.state.status.to_string(),
        told: loaded.told.clone(),
    }
}

/// Whether `row` may follow a graph: a main session of a project whose config has one,
/// or a teammate (its definition may have given it one). Both the reminder and the
/// dispatches are gated by it, so a graph removed from the config stops for both.
fn follows_graph(row: &SessionRow, config: &Config) -> bool {
    use roocode_protocol::session::SessionKind;
    match row.kind {
        SessionKind::Main => config.collaboration.is_some(),
        SessionKind::Teammate => true,
        SessionKind::SubAgent | SessionKind::Unknown => false,
    }
}

/// How long the `converged` judge may take (`ROOCODE_JUDGE_TIMEOUT_MS`, 60 s).
fn judge_timeout(env: &roocode_protocol::session::ClientEnv) -> std::time::Duration {
    let ms = env
        .get("ROOCODE_JUDGE_TIMEOUT_MS")
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(60_000);
    std::time::Duration::from_millis(ms)
}

fn now_ms() -> u64 {
    u64::try_from(crate::clock::now_ms()).unwrap_or(0)
}

impl Engine {
    /// The orchestrator's graph: stored, or started now when `config` has one (a main
    /// session only). `None`: the session has no workflow graph.
    async fn graph_of(
        &self,
        row: &SessionRow,
        config: &Config,
    ) -> Result<Option<Loaded>, AgentError> {
        if self.store().workflow_graph(&row.id).await?.is_some() {
            return self.stored_graph(&row.id).await;
        }
        let (Some(block), roocode_protocol::session::SessionKind::Main) =
            (&config.collaboration, row.kind)
        else {
            return Ok(None);
        };
        let graph =
            graph::parse(block).map_err(|e| AgentError::Config(format!("collaboration: {e}")))?;
        self.check_graph_agents(row, config, &graph).await;
        self.start_graph(&row.id, graph).await.map(Some)
    }

    /// Tells the user (an event on the session's stream) of graph agents that are no
    /// agent type here: dispatching one would fail, and only the model would see why.
    async fn check_graph_agents(&self, row: &SessionRow, config: &Config, graph: &Graph) {
        let parent = super::super::children::ParentCall {
            session: row.clone(),
            env: self.client_env(&row.id).await,
            config: config.clone(),
            system_prompt: String::new(),
            tool_names: Vec::new(),
            cancel: CancellationToken::new(),
            files: Default::default(),
        };
        let types: Vec<String> = self
            .agent_types(&parent)
            .into_iter()
            .map(|t| t.name)
            .filter(|n| !n.is_empty())
            .collect();
        let unknown: Vec<&str> = graph
            .agents
            .iter()
            .map(String::as_str)
            .filter(|a| !types.iter().any(|t| t == a))
            .collect();
        if unknown.is_empty() {
            return;
        }
        let message = format!(
            "collaboration: {} {} no agent type here (the types are {}): add a definition in .roocode/agents/ or fix the name",
            unknown.join(", "),
            if unknown.len() == 1 { "is" } else { "are" },
            types.join(", ")
        );
        tracing::warn!(session = %row.id, "{message}");
        if let Err(e) = self
            .events()
            .append(
                &row.id,
                &row.id,
                event("graph", "collaboration", None, message),
            )
            .await
        {
            tracing::warn!("cannot record the graph's warning: {e}");
        }
    }

    /// Starts `graph` for the orchestrator `session_id`: stored with its first state.
    pub(crate) async fn start_graph(
        &self,
        session_id: &str,
        graph: Graph,
    ) -> Result<Loaded, AgentError> {
        let loaded = Loaded {
            state: graph.start(now_ms()),
            graph,
            told: None,
        };
        self.store()
            .save_workflow_graph(session_id, &to_row(&loaded))
            .await?;
        let message = format!(
            "collaboration graph started over {} (frontier: {})",
            loaded.graph.agents.join(", "),
            loaded.state.frontier.join(", ")
        );
        self.graph_event(session_id, session_id, "collaboration", message)
            .await?;
        Ok(loaded)
    }

    /// The graph stored for `session_id`; an unreadable one is logged and is none.
    async fn stored_graph(&self, session_id: &str) -> Result<Option<Loaded>, AgentError> {
        let Some(row) = self.store().workflow_graph(session_id).await? else {
            return Ok(None);
        };
        let loaded = load(&row);
        if loaded.is_none() {
            tracing::error!(session = %session_id, "the stored collaboration graph is unreadable");
        }
        Ok(loaded)
    }

    /// A `graph` step on `session_id`'s stream (`agent_id`: who it concerns).
    async fn graph_event(
        &self,
        session_id: &str,
        agent_id: &str,
        name: &str,
        message: String,
    ) -> Result<(), AgentError> {
        self.events()
            .append(session_id, agent_id, event("graph", name, None, message))
            .await?;
        Ok(())
    }

    /// Before a model call of `row`: the graph's reminder queued in its inbox when it
    /// changed since the orchestrator last read it. Returns whether it was.
    pub(crate) async fn graph_before_call(
        &self,
        row: &SessionRow,
        config: &Config,
    ) -> Result<bool, AgentError> {
        // Only a project with a graph, or a teammate (its definition may have one),
        // pays for the lookup.
        if !follows_graph(row, config) {
            return Ok(false);
        }
        let _held = self.workflow_locks.lock(&row.id).await;
        let Some(mut loaded) = self.graph_of(row, config).await? else {
            return Ok(false);
        };
        let reminder = loaded.graph.reminder(&loaded.state);
        let stamp = format!("{:016x}", crate::workflow::fnv(&reminder));
        if loaded.told.as_deref() == Some(stamp.as_str()) {
            return Ok(false);
        }
        loaded.told = Some(stamp);
        self.store()
            .save_workflow_graph(&row.id, &to_row(&loaded))
            .await?;
        self.store()
            .queue_injection(&row.id, InjectionKind::Workflow, &reminder)
            .await?;
        Ok(true)
    }

    /// An `Agent` call of `parent` is about to start `node` as agent `agent_id`: its
    /// verdict counted and recorded (a correction queued off the route). Returns the
    /// role the worker's task gets; `None` when the graph has nothing to say (no graph,
    /// or `node` not one of its agents).
    pub(crate) async fn graph_dispatch(
        &self,
        parent: &SessionRow,
        config: &Config,
        node: &str,
        agent_id: &str,
    ) -> Result<Option<String>, AgentError> {
        if !follows_graph(parent, config) {
            return Ok(None);
        }
        let _held = self.workflow_locks.lock(&parent.id).await;
        let Some(mut loaded) = self.graph_of(parent, config).await? else {
            return Ok(None);
        };
        if !loaded.graph.has_agent(node) {
            return Ok(None);
        }
        let verdict = loaded.graph.dispatch(&mut loaded.state, node);
        let on_route = matches!(verdict, Dispatch::OnRoute);
        self.store()
            .save_workflow_graph(&parent.id, &to_row(&loaded))
            .await?;
        self.store()
            .record_dispatch(&parent.id, agent_id, node, on_route)
            .await?;
        let message = match &verdict {
            Dispatch::OnRoute => format!("dispatch of {node}: on the route"),
            Dispatch::OffRoute { end: true, .. } => format!(
                "dispatch of {node} off the route: the workflow ended ({})",
                graph::OFF_ROUTE_REASON
            ),
            Dispatch::OffRoute { end: false, .. } => {
                format!("dispatch of {node} off the route: not counted")
            }
        };
        self.graph_event(&parent.id, &parent.id, node, message)
            .await?;
        if let Dispatch::OffRoute { correction, .. } = verdict {
            self.store()
                .queue_injection(&parent.id, InjectionKind::Workflow, &correction)
                .await?;
        }
        Ok(Some(loaded.graph.role(node).unwrap_or_default()))
    }

    /// The dispatched agent `row` completed with `result`: the graph advances (once per
    /// dispatch), asking the judge when its termination says so.
    pub(crate) async fn graph_completed(
        self: &Arc<Self>,
        row: &AgentRow,
        result: &str,
    ) -> Result<(), AgentError> {
        let store = self.store();
        let Some(dispatch) = store.dispatch_of(&row.id).await? else {
            return Ok(());
        };
        if dispatch.completed {
            return Ok(());
        }
        let _held = self.workflow_locks.lock(&dispatch.session_id).await;
        let Some(mut loaded) = self.stored_graph(&dispatch.session_id).await? else {
            return Ok(());
        };
        let completion = Completion {
            agent: dispatch.node.clone(),
            result: result.to_string(),
            changed_files: Some(self.changed_files(&row.id).await),
        };
        let now = now_ms();
        // A dispatch off the route never moves the graph, even if its agent is due by
        // the time it completes.
        let step = match dispatch.on_route {
            true => Some(loaded.graph.complete(&mut loaded.state, &completion, now)),
            false => None,
        };
        let mut ended = step.as_ref().and_then(|s| s.ended.clone());
        if step.as_ref().is_some_and(|s| s.judge_needed) {
            let converged = self.ask_judge(&dispatch.session_id, &loaded).await;
            ended = loaded
                .graph
                .judged(&mut loaded.state, converged, now)
                .or(ended);
        }
        if !store
            .complete_dispatch(&row.id, &dispatch.session_id, &to_row(&loaded))
            .await?
        {
            return Ok(());
        }
        let advanced = step.as_ref().is_some_and(|s| s.advanced);
        let frontier = step.map(|s| s.frontier).unwrap_or_default();
        let node = &dispatch.node;
        let message = match (&ended, advanced) {
            (Some((status, reason)), _) => {
                format!("{node} completed: the workflow is {status} ({reason})")
            }
            (None, true) => format!(
                "{node} completed: next {} (iteration {})",
                if frontier.is_empty() {
                    "nothing".to_string()
                } else {
                    frontier.join(", ")
                },
                loaded.state.iteration
            ),
            (None, false) => format!("{node} completed off the route: the graph did not move"),
        };
        self.graph_event(&dispatch.session_id, &row.id, node, message)
            .await?;
        Ok(())
    }

    /// After a start: a dispatched agent that completed while the daemon could not count
    /// it (it stopped between the two) is counted now.
    pub async fn resume_graphs(self: &Arc<Self>) -> Result<(), AgentError> {
        for id in self.store().open_dispatches().await? {
            let Some(row) = self.store().agent(&id).await? else {
                continue;
            };
            if row.state == roocode_protocol::agents::AgentState::Completed {
                let result = row.result.clone().unwrap_or_default();
                if let Err(e) = self.graph_completed(&row, &result).await {
                    tracing::error!(agent = %id, "cannot count the dispatch's completion: {e}");
                }
            }
        }
        Ok(())
    }

    /// A genuine user message reached `session_id`: a graph whose workflow ended starts
    /// a new run for it (its state begins again; the graph stays the one stored).
    pub(crate) async fn graph_user_message(&self, session_id: &str) -> Result<(), AgentError> {
        let _held = self.workflow_locks.lock(session_id).await;
        let Some(mut loaded) = self.stored_graph(session_id).await? else {
            return Ok(());
        };
        if loaded.state.status == Status::Active {
            return Ok(());
        }
        loaded.state = loaded.graph.start(now_ms());
        loaded.told = None;
        self.store()
            .save_workflow_graph(session_id, &to_row(&loaded))
            .await?;
        let message = format!(
            "collaboration graph started again for the new message (frontier: {})",
            loaded.state.frontier.join(", ")
        );
        self.graph_event(session_id, session_id, "collaboration", message)
            .await?;
        Ok(())
    }

    /// Whether the agent's conversation used a file-editing tool.
    async fn changed_files(&self, agent_id: &str) -> bool {
        let Ok(messages) = self.store().context(agent_id).await else {
            return false;
        };
        messages.iter().any(|m| {
            m.role == Role::Assistant
                && m.content.iter().any(|b| {
                    matches!(b, ContentBlock::ToolUse { name, .. } if EDIT_TOOLS.contains(&name.as_str()))
                })
        })
    }

    /// The `converged` judge: a tool-less call of the orchestrator's model, recorded;
    /// a failed call or an unclear answer is "not converged".
    async fn ask_judge(&self, session_id: &str, loaded: &Loaded) -> bool {
        let Ok(Some(row)) = self.store().session(session_id).await else {
            return false;
        };
        let env = self.client_env(session_id).await;
        let Ok(config) = self.config(Path::new(&row.root)) else {
            return false;
        };
        let model = match llm::resolve_model(&row.model, &env, &config, &self.http) {
            Ok(model) => model,
            Err(e) => {
                tracing::warn!(session = %session_id, "the judge's model does not resolve: {e}");
                return false;
            }
        };
        let request = ModelRequest {
            model: model.model.clone(),
            system: JUDGE_SYSTEM.to_string(),
            messages: llm::owned_messages(vec![Message::user_text(
                loaded.graph.judge_prompt(&loaded.state),
            )]),
            tools: Vec::new(),
            max_tokens: 16,
        };
        let policy = RetryPolicy::from_env_and_config(&env, &config);
        let span = tracing::info_span!("model_call", model = %model.spec, purpose = "judge");
        let cancel = CancellationToken::new();
        let mut progress = |_| {};
        let call =
            call_retrying(&model, &request, &policy, &cancel, &mut progress).instrument(span);
        let result = match tokio::time::timeout(judge_timeout(&env), call).await {
            Ok(result) => result,
            Err(_) => {
                cancel.cancel();
                let message =
                    "the judge did not answer in time (ROOCODE_JUDGE_TIMEOUT_MS): not converged"
                        .to_string();
                tracing::warn!(session = %session_id, "{message}");
                let _ = self
                    .events()
                    .append(
                        session_id,
                        session_id,
                        event("graph", "judge", None, message),
                    )
                    .await;
                return false;
            }
        };
        let of = CallOf {
            session_id,
            turn_id: JUDGE_TURN,
            agent_id: session_id,
            purpose: Purpose::Judge,
        };
        let call = match &result {
            Ok(outcome) => {
                if let Err(e) = self
                    .store()
                    .add_session_usage(session_id, &outcome.response.usage)
                    .await
                {
                    tracing::warn!("cannot add the judge's call to the session usage: {e}");
                }
                call_row(of, &model, Some(outcome), None)
            }
            Err(e) => call_row(of, &model, None, Some(e.to_string())),
        };
        if let Err(e) = self.store().record_model_call(&call).await {
            tracing::warn!("cannot record the judge's model call: {e}");
        }
        match result {
            Ok(outcome) => graph::judge_answer(&outcome.response.text()).unwrap_or(false),
            Err(e) => {
                tracing::warn!(session = %session_id, "the judge's call failed: {e}");
                false
            }
        }
    }

    /// The graph of `session_id` as clients see it.
    pub(super) async fn graph_info(
        &self,
        session_id: &str,
    ) -> Result<Option<GraphInfo>, AgentError> {
        let Some(loaded) = self.stored_graph(session_id).await? else {
            return Ok(None);
        };
        let (graph, state) = (&loaded.graph, &loaded.state);
        Ok(Some(GraphInfo {
            agents: graph.agents.clone(),
            edges: graph.edges.iter().map(|e| e.to_string()).collect(),
            frontier: state.frontier.clone(),
            completed: state.completed.clone(),
            iteration: state.iteration,
            max_iterations: graph.effective_max_iterations(),
            loop_counts: state.loop_counts.clone(),
            status: state.status.to_string(),
            reason: state.reason.clone(),
            off_route: state.off_route,
            steps: state.steps,
            active: state.status == Status::Active,
        }))
    }
}
