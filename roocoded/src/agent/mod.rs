//! The agent engine: sessions, their turns and the loop that runs them.
//!
//! [`Agents`] is what the RPC layer talks to: it creates sessions, accepts messages
//! (starting a turn or queueing behind the running one), cancels, and recovers after a
//! crash. The loop itself is in [`turn`]; tool execution (always through
//! `permission`) in [`executor`]. Everything that happens is an event in the
//! session's log; this module never knows who is watching.

mod approvals;
mod call_row;
mod compaction;
#[cfg(test)]
mod context_cache_tests;
mod executor;
mod human;
mod human_time;
mod import;
mod processes;
pub mod project;
pub(crate) mod prompt;
mod recovery;
mod runtime;
mod short_ids;
mod summarizer;
mod turn;
mod turn_config;

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use roocode_protocol::content::Message;
use roocode_protocol::event::EventPayload;
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{
    ClientEnv, CreateParams, PendingRequest, SendParams, SendResponse, SessionInfo, SessionKind,
    SessionStatus,
};
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::context::budget::EstimatedContext;
use crate::events::EventLog;
use crate::store::{NewSession, SessionRow, Store, StoreError};
use crate::tools::Registry;

use runtime::{Queued, Running, SessionRuntime};

/// Why a request to the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("no session matches `{0}`: list them with `roocode-cli sessions`")]
    NotFound(String),
    #[error("`{0}` matches several sessions ({1}): give more characters of the id")]
    Ambiguous(String, String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The engine: every session of the daemon.
pub struct Agents {
    store: Store,
    events: EventLog,
    paths: Paths,
    http: reqwest::Client,
    tools: Arc<Registry>,
    runtimes: Mutex<HashMap<String, Arc<SessionRuntime>>>,
    tasks: TaskTracker,
    approvals: approvals::Approvals,
    processes: processes::ProcessBook,
}

impl Agents {
    /// The engine over `store`; call from inside the tokio runtime.
    pub fn new(store: Store, paths: Paths) -> Self {
        Agents {
            events: EventLog::new(store.clone()),
            processes: processes::ProcessBook::start(store.clone()),
            store,
            paths,
            http: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(30))
                .build()
                .unwrap_or_default(),
            tools: Arc::new(Registry::with_builtins()),
            runtimes: Mutex::new(HashMap::new()),
            tasks: TaskTracker::new(),
            approvals: approvals::Approvals::default(),
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// The tools the agents of this engine are given.
    pub fn tools(&self) -> &Registry {
        &self.tools
    }

    /// The process groups of the commands running for the model now.
    pub fn command_groups(&self) -> std::collections::HashSet<i32> {
        self.processes.running_groups()
    }

    /// Where the daemon's files live.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// Loads the merged configuration of a project.
    pub fn config(&self, root: &Path) -> Result<Config, AgentError> {
        Config::load(&self.paths.user_dir, root).map_err(|e| AgentError::Config(e.to_string()))
    }

    /// Finds a session by id or unique id prefix.
    pub async fn resolve(&self, id_or_prefix: &str) -> Result<SessionRow, AgentError> {
        if let Some(row) = self.store.session(id_or_prefix).await? {
            return Ok(row);
        }
        let ids = self.store.session_ids_with_prefix(id_or_prefix, 5).await?;
        match ids.as_slice() {
            [] => Err(AgentError::NotFound(id_or_prefix.to_string())),
            [one] => self
                .store
                .session(one)
                .await?
                .ok_or_else(|| AgentError::NotFound(id_or_prefix.to_string())),
            many => Err(AgentError::Ambiguous(
                id_or_prefix.to_string(),
                many.join(", "),
            )),
        }
    }

    pub async fn info(&self, id: &str) -> Result<SessionInfo, AgentError> {
        self.with_short_id(self.resolve(id).await?.to_info()).await
    }

    /// Sessions by last activity; `dir` (any directory) filters by its project root.
    pub async fn list(
        &self,
        dir: Option<&str>,
        limit: u32,
    ) -> Result<Vec<SessionInfo>, AgentError> {
        let root = dir.map(|d| project::project_root(Path::new(d)).display().to_string());
        let rows = self.store.list_sessions(root.as_deref(), limit).await?;
        self.with_short_ids(rows.iter().map(SessionRow::to_info).collect())
            .await
    }

    /// (sessions, running turns).
    pub async fn counts(&self) -> Result<(u64, u64), AgentError> {
        Ok((
            self.store.count_sessions().await?,
            self.store.count_running_turns().await?,
        ))
    }

    /// The session's state and its requests waiting for a human.
    pub async fn snapshot(
        &self,
        id: &str,
    ) -> Result<(SessionInfo, Vec<PendingRequest>), AgentError> {
        let info = self.info(id).await?;
        let pending = self.pending(Some(&info.id)).await?;
        Ok((info, pending))
    }

    /// Permission requests and questions waiting for an answer.
    pub async fn pending(
        &self,
        session_id: Option<&str>,
    ) -> Result<Vec<PendingRequest>, AgentError> {
        Ok(self.store.pending_requests(session_id).await?)
    }

    pub async fn create(&self, params: CreateParams) -> Result<SessionInfo, AgentError> {
        let cwd = PathBuf::from(&params.cwd);
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(AgentError::Invalid(format!(
                "working directory `{}` is not an existing absolute directory",
                params.cwd
            )));
        }
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        let root = project::project_root(&cwd);
        let config = self.config(&root)?;
        let mode = match params.mode {
            Some(m) => check_mode(&m)?,
            None => config.permission_mode(),
        };
        let model = match &params.model {
            Some(m) => m.trim().to_string(),
            None => crate::llm::model_spec(&params.env, &config),
        };
        // Resolve it with the caller's keys now, so a missing key leaves no empty session.
        crate::llm::resolve_model(&model, &params.env, &config, &self.http)
            .map_err(|e| AgentError::Config(e.to_string()))?;
        let id = uuid::Uuid::now_v7().to_string();
        let row = self
            .store
            .insert_session(&NewSession {
                id: id.clone(),
                parent_session_id: None,
                kind: SessionKind::Main,
                title: params.title.clone().unwrap_or_default(),
                cwd: cwd.display().to_string(),
                root: root.display().to_string(),
                model,
                mode,
            })
            .await?;
        let rt = self.runtime(&id).await?;
        rt.state.lock().await.env = params.env;
        tracing::info!(session = %id, root = %row.root, model = %row.model, "session created");
        self.with_short_id(row.to_info()).await
    }

    /// Accepts a user message: starts a turn, or queues it behind the running one.
    pub async fn send(self: &Arc<Self>, params: SendParams) -> Result<SendResponse, AgentError> {
        let text = params.text.trim_end().to_string();
        if text.trim().is_empty() {
            return Err(AgentError::Invalid("the message is empty".into()));
        }
        let row = self.resolve(&params.session_id).await?;
        let id = row.id.clone();
        if let Some(model) = &params.model
            && *model != row.model
        {
            self.set_model(&id, model).await?;
        }
        if let Some(mode) = &params.mode
            && *mode != row.mode.as_str()
        {
            self.set_mode(&id, mode).await?;
        }
        // Check the model and its key now, so a missing key is a clear error at once.
        let row = self.resolve(&id).await?;
        let config = self.config(Path::new(&row.root))?;
        crate::llm::resolve_model(&row.model, &params.env, &config, &self.http)
            .map_err(|e| AgentError::Config(e.to_string()))?;
        if row.title.is_empty() {
            self.store.set_session_title(&id, &title_of(&text)).await?;
        }

        let rt = self.runtime(&id).await?;
        let input_id = uuid::Uuid::now_v7().to_string();
        let mut state = rt.state.lock().await;
        state.env = params.env;
        if state.running.is_some() {
            self.store.queue_input(&id, &input_id, &text).await?;
            state.queue.push_back(Queued {
                input_id: input_id.clone(),
                text: text.clone(),
            });
            self.events
                .append(
                    &id,
                    &id,
                    EventPayload::MessageQueued {
                        input_id: input_id.clone(),
                        text,
                    },
                )
                .await?;
            return Ok(SendResponse {
                input_id,
                turn_id: None,
                queued: true,
            });
        }
        self.store.queue_input(&id, &input_id, &text).await?;
        state.queue.push_back(Queued {
            input_id: input_id.clone(),
            text,
        });
        let running = Running::new(uuid::Uuid::now_v7().to_string());
        let turn_id = running.turn_id.clone();
        self.begin_turn(&id, &running).await?;
        state.running = Some(running);
        drop(state);
        self.spawn_turns(rt);
        Ok(SendResponse {
            input_id,
            turn_id: Some(turn_id),
            queued: false,
        })
    }

    async fn begin_turn(&self, session_id: &str, running: &Running) -> Result<(), AgentError> {
        self.store.insert_turn(&running.turn_id, session_id).await?;
        self.store
            .set_session_status(session_id, SessionStatus::Running, Some(&running.turn_id))
            .await?;
        Ok(())
    }

    /// Runs turns on the session until its queue is empty.
    fn spawn_turns(self: &Arc<Self>, rt: Arc<SessionRuntime>) {
        let agents = self.clone();
        self.tasks.spawn(async move {
            loop {
                turn::run(&agents, &rt).await;
                let mut state = rt.state.lock().await;
                let stopping = state.running.as_ref().is_some_and(Running::was_interrupted);
                if stopping {
                    // The daemon is stopping: queued messages stay stored for later.
                    state.running = None;
                    break;
                }
                if state.queue.is_empty() {
                    state.running = None;
                    drop(state);
                    if let Err(e) = agents.finish_idle(&rt.id).await {
                        tracing::error!(session = %rt.id, "cannot mark the session idle: {e}");
                    }
                    break;
                }
                // Messages queued while the turn ended start the next turn at once.
                let next = Running::new(uuid::Uuid::now_v7().to_string());
                if let Err(e) = agents.begin_turn(&rt.id, &next).await {
                    tracing::error!(session = %rt.id, "cannot start the next turn: {e}");
                    state.running = None;
                    break;
                }
                state.running = Some(next);
            }
            rt.turn_ended.notify_waiters();
        });
    }

    async fn finish_idle(&self, id: &str) -> Result<(), AgentError> {
        let status = match self.store.session(id).await? {
            Some(row) if row.status == SessionStatus::Interrupted => SessionStatus::Interrupted,
            Some(_) => SessionStatus::Idle,
            None => return Ok(()),
        };
        self.store.set_session_status(id, status, None).await?;
        Ok(())
    }

    /// Interrupts the running turn. Returns whether one was running.
    pub async fn cancel(&self, id: &str) -> Result<bool, AgentError> {
        let row = self.resolve(id).await?;
        let Some(rt) = self.existing_runtime(&row.id) else {
            return Ok(false);
        };
        let state = rt.state.lock().await;
        match &state.running {
            Some(running) => {
                tracing::info!(session = %row.id, turn = %running.turn_id, "cancel requested");
                running.cancel.cancel();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    pub async fn delete(&self, id: &str) -> Result<(), AgentError> {
        let row = self.resolve(id).await?;
        if let Some(rt) = self.existing_runtime(&row.id) {
            let ended = rt.turn_ended.notified();
            let running = {
                let state = rt.state.lock().await;
                state.running.as_ref().map(|r| r.cancel.cancel()).is_some()
            };
            if running {
                let _ = tokio::time::timeout(Duration::from_secs(10), ended).await;
            }
            rt.shell.kill_all().await;
        }
        self.runtimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&row.id);
        self.store.delete_session(&row.id).await?;
        self.events.forget(&row.id);
        tracing::info!(session = %row.id, "session deleted");
        Ok(())
    }

    pub async fn set_mode(&self, id: &str, mode: &str) -> Result<SessionInfo, AgentError> {
        let row = self.resolve(id).await?;
        let mode = check_mode(mode)?;
        self.store.set_session_mode(&row.id, mode).await?;
        let mode = mode.as_str().to_string();
        self.events
            .append(&row.id, &row.id, EventPayload::ModeChanged { mode })
            .await?;
        self.info(&row.id).await
    }

    pub async fn set_model(&self, id: &str, model: &str) -> Result<SessionInfo, AgentError> {
        let row = self.resolve(id).await?;
        let config = self.config(Path::new(&row.root))?;
        crate::llm::check_model_spec(model, &config)
            .map_err(|e| AgentError::Config(e.to_string()))?;
        self.store.set_session_model(&row.id, model).await?;
        self.events
            .append(
                &row.id,
                &row.id,
                EventPayload::ModelChanged {
                    model: model.to_string(),
                },
            )
            .await?;
        self.info(&row.id).await
    }

    /// Empties the model context (`/clear`); refused while a turn runs.
    pub async fn clear_context(&self, id: &str) -> Result<(), AgentError> {
        if let Some(rt) = self.existing_runtime(id)
            && rt.state.lock().await.running.is_some()
        {
            return Err(AgentError::Invalid(
                "a turn is running: cancel it first (Esc, or `roocode-cli cancel`)".into(),
            ));
        }
        self.rewrite_context(id, Vec::new()).await?;
        self.events
            .append(id, id, EventPayload::ContextCleared)
            .await?;
        Ok(())
    }

    /// Replaces the session's stored context outside a turn, and its cached copy with
    /// it (waiting for a turn that holds the copy to end).
    async fn rewrite_context(&self, id: &str, messages: Vec<Message>) -> Result<(), AgentError> {
        let Some(rt) = self.existing_runtime(id) else {
            self.store.replace_context(id, &messages).await?;
            return Ok(());
        };
        let mut cached = rt.context.lock().await;
        // Emptied first: if the write fails, the next turn reloads what the store has.
        *cached = None;
        self.store.replace_context(id, &messages).await?;
        *cached = Some(EstimatedContext::new(messages));
        Ok(())
    }

    /// Drops the session's cached context, so that its next turn reloads it from the
    /// store. Call it after rewriting a session's stored context from outside the
    /// agent loop (`session.import`). It waits for a running turn to end: that turn
    /// holds the cache and would otherwise put its stale copy back.
    pub async fn forget_cached_context(&self, id: &str) {
        if let Some(rt) = self.existing_runtime(id) {
            *rt.context.lock().await = None;
        }
    }

    fn existing_runtime(&self, id: &str) -> Option<Arc<SessionRuntime>> {
        self.runtimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// The in-memory side of a session, created on first use with its stored queue.
    async fn runtime(&self, id: &str) -> Result<Arc<SessionRuntime>, AgentError> {
        if let Some(rt) = self.existing_runtime(id) {
            return Ok(rt);
        }
        let queue: VecDeque<Queued> = self
            .store
            .queued_inputs(id)
            .await?
            .into_iter()
            .map(|i| Queued {
                input_id: i.id,
                text: i.text,
            })
            .collect();
        let mut map = self.runtimes.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(map
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(SessionRuntime::new(id.to_string(), queue)))
            .clone())
    }

    /// Instruction files and the memory index for a session's conversation.
    pub fn session_reminder(&self, row: &SessionRow) -> Option<String> {
        prompt::session_reminder(Path::new(&row.root), &self.paths.user_dir)
    }

    /// Where large tool results of a session are saved (readable by its agent).
    pub fn tool_results_dir(&self, session_id: &str) -> PathBuf {
        self.paths.data_dir.join("tool-results").join(session_id)
    }

    /// Where the session's plan file lives (plan mode writes it without asking).
    pub fn plan_file(&self, session_id: &str) -> PathBuf {
        self.paths
            .data_dir
            .join("plans")
            .join(format!("{session_id}.md"))
    }

    /// The environment the session's client sent last.
    async fn env_of(&self, rt: &SessionRuntime) -> ClientEnv {
        rt.state.lock().await.env.clone()
    }
}

fn check_mode(mode: &str) -> Result<roocode_protocol::Mode, AgentError> {
    mode.parse::<roocode_protocol::Mode>()
        .map_err(AgentError::Invalid)
}

/// A session title from its first prompt: the first line, at most 60 characters.
fn title_of(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut title: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        title.push('…');
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_line() {
        assert_eq!(title_of("\n  fix the test\nplease"), "fix the test");
        assert_eq!(title_of(&"x".repeat(70)).chars().count(), 61);
    }
}
