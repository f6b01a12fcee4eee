//! [`Engine`]: what the RPC layer talks to. It owns the sessions and their turns, and
//! holds the small services they use: the store, the event log, the approvals waiting
//! for a human, the book of running command processes. Turns are queued and run in
//! `turns.rs`; each runs the agent its [`AgentSpec`](super::AgentSpec) describes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::event::{DecidedBy, EventPayload};
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{
    CreateParams, ExportPage, HistoryPage, PendingRequest, PermissionDecision, SessionInfo,
};
use tokio_util::task::TaskTracker;

use super::approvals::Approvals;
use super::processes::ProcessBook;
use super::runtime::Runtimes;
use super::sessions::Sessions;
use super::{AgentError, prompt};
use crate::config::Config;
use crate::events::EventLog;
use crate::store::{NewSession, SessionRow, Store};
use crate::tools::Registry;

/// The engine: every session of the daemon and the turns they run.
pub struct Engine {
    pub(super) store: Store,
    pub(super) events: Arc<EventLog>,
    pub(super) paths: Paths,
    pub(super) http: reqwest::Client,
    /// The built-in tools: the tool set of the main agent.
    pub(super) tools: Arc<Registry>,
    pub(super) sessions: Sessions,
    pub(super) runtimes: Runtimes,
    pub(super) tasks: TaskTracker,
    pub(super) approvals: Approvals,
    pub(super) processes: ProcessBook,
    /// The live side of running sub-agents.
    pub(super) children: super::children::Book,
    /// The live side of teams (debounced wakes of leads).
    pub(super) teams: super::team::TeamBook,
    /// The daemon's MCP servers, shared by the sessions whose launches are the same.
    pub(super) mcp: crate::mcp::McpHub,
    /// Each session's MCP servers and tool overlay.
    pub(super) mcp_sessions: super::mcp::McpSessions,
    /// Which project hooks the user approved.
    pub(super) hook_approvals: crate::hooks::HookApprovals,
    /// Each hook's last result.
    pub(super) hook_results: super::hooks::HookResults,
    /// Which sessions wait for the user unwatched (the `idle_prompt` notification).
    pub(super) idle: super::idle::IdleBook,
    /// The shadow store of workspace snapshots, one before each turn (rewind).
    pub(super) snapshots: Arc<crate::snapshot::Snapshots>,
    /// The sessions a replay runs, each with the recording it serves.
    pub(super) replays: super::replay::Replays,
    /// Writes what the flight recorder keeps, beside the turns.
    pub(super) recorder: crate::trace::writer::Writer,
    /// One lock per loop and per orchestrator's graph (`agent::workflow`).
    pub(super) workflow_locks: super::workflow::WorkflowLocks,
}

impl Engine {
    /// The engine over `store`; call from inside the tokio runtime.
    pub fn new(store: Store, paths: Paths) -> Self {
        let events = Arc::new(EventLog::new(store.clone()));
        let mcp = crate::mcp::McpHub::new(&paths.data_dir);
        let hook_approvals = crate::hooks::HookApprovals::new(&paths.data_dir);
        let snapshots = Arc::new(
            crate::snapshot::Snapshots::new(
                &paths.data_dir.join("snapshots"),
                crate::snapshot::Limits::default(),
            )
            .excluding([paths.data_dir.clone(), paths.user_dir.clone()]),
        );
        Engine {
            snapshots,
            recorder: crate::trace::writer::Writer::start(store.clone()),
            workflow_locks: Default::default(),
            approvals: Approvals::new(store.clone(), events.clone()),
            processes: ProcessBook::start(store.clone()),
            sessions: Sessions::new(store.clone()),
            events,
            store,
            paths,
            http: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(30))
                .build()
                .unwrap_or_default(),
            tools: Arc::new(Registry::with_builtins()),
            runtimes: Runtimes::default(),
            tasks: TaskTracker::new(),
            children: super::children::Book::default(),
            teams: super::team::TeamBook::default(),
            mcp,
            mcp_sessions: super::mcp::McpSessions::default(),
            hook_approvals,
            hook_results: super::hooks::HookResults::default(),
            idle: super::idle::IdleBook::default(),
            replays: super::replay::Replays::default(),
        }
    }

    /// The flight recorder's writer: readers of what it keeps flush it first.
    pub fn recorder(&self) -> &crate::trace::writer::Writer {
        &self.recorder
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// The process groups of the commands running for the model now.
    pub fn command_groups(&self) -> std::collections::HashSet<i32> {
        self.processes.running_groups()
    }

    /// Where the daemon's files live.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The built-in tools (the main agent's tool set).
    pub fn tools(&self) -> &Arc<Registry> {
        &self.tools
    }

    /// Loads the merged configuration of a project.
    pub fn config(&self, root: &Path) -> Result<Config, AgentError> {
        Config::load(&self.paths.user_dir, root).map_err(|e| AgentError::Config(e.to_string()))
    }

    /// Finds a session by id or unique id prefix.
    pub async fn resolve(&self, id_or_prefix: &str) -> Result<SessionRow, AgentError> {
        self.sessions.resolve(id_or_prefix).await
    }

    /// The session's state, with its short id and its model's context window.
    pub async fn info(&self, id: &str) -> Result<SessionInfo, AgentError> {
        let mut info = self.sessions.info(id).await?;
        info.context_window = self.window_of(&info.model, &info.root);
        Ok(info)
    }

    /// The context window the loop budgets `model` with in the project at `root`
    /// (aliases expanded, `context.window_tokens` applied; no key needed), or `None`
    /// when the model does not resolve.
    fn window_of(&self, model: &str, root: &str) -> Option<u64> {
        let config = self.config(Path::new(root)).ok()?;
        crate::llm::context_window(model, &config).ok()
    }

    /// Sessions by last activity; `dir` (any directory) filters by its project root;
    /// main sessions only unless `all`.
    pub async fn list(
        &self,
        dir: Option<&str>,
        limit: u32,
        all: bool,
    ) -> Result<Vec<SessionInfo>, AgentError> {
        self.sessions.list(dir, limit, all).await
    }

    /// (sessions, running turns).
    pub async fn counts(&self) -> Result<(u64, u64), AgentError> {
        self.sessions.counts().await
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

    /// A page of the session's event log: after `after_seq` (oldest first), or else
    /// before `before_seq` (the newest page when `None`).
    pub async fn history(
        &self,
        id: &str,
        before_seq: Option<u64>,
        after_seq: Option<u64>,
        limit: u32,
    ) -> Result<HistoryPage, AgentError> {
        let row = self.resolve(id).await?;
        Ok(match after_seq {
            Some(after) => {
                let mut events = self.store.events_after(&row.id, after, limit + 1).await?;
                let has_more = events.len() > limit as usize;
                events.truncate(limit as usize);
                HistoryPage { events, has_more }
            }
            None => {
                let (events, has_more) =
                    self.store.events_before(&row.id, before_seq, limit).await?;
                HistoryPage { events, has_more }
            }
        })
    }

    /// A page of the session's model context as JSONL lines, from message `offset`.
    pub async fn export(
        &self,
        id: &str,
        offset: u64,
        limit: u32,
    ) -> Result<ExportPage, AgentError> {
        let row = self.resolve(id).await?;
        let mut lines = self.store.context_lines(&row.id, offset, limit + 1).await?;
        let more = lines.len() > limit as usize;
        lines.truncate(limit as usize);
        let next_offset = more.then(|| offset + u64::from(limit));
        Ok(ExportPage { lines, next_offset })
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
        let root = crate::project::root(&cwd);
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
                kind: roocode_protocol::session::SessionKind::Main,
                title: params.title.clone().unwrap_or_default(),
                cwd: cwd.display().to_string(),
                root: root.display().to_string(),
                model,
                mode,
            })
            .await?;
        let rt = self.runtime(&id).await?;
        rt.state.lock().await.env = params.env.clone();
        rt.session_started
            .store(true, std::sync::atomic::Ordering::SeqCst);
        tracing::info!(session = %id, root = %row.root, model = %row.model, "session created");
        self.session_event(&row, &params.env, |c| {
            crate::hooks::HookInput::session_start(c, crate::hooks::SessionSource::Startup)
        })
        .await;
        let mut info = self.sessions.with_short_id(row.to_info()).await?;
        info.context_window = self.window_of(&info.model, &info.root);
        Ok(info)
    }

    /// Deletes a session; its sub-agents are stopped first (and deleted with it), and
    /// the snapshot files only it needed go too.
    pub async fn delete(self: &Arc<Self>, id: &str) -> Result<(), AgentError> {
        let row = self.resolve(id).await?;
        let env = self.client_env(&row.id).await;
        self.delete_unpruned(&row.id).await?;
        // A failure leaves files a later prune removes, and never fails the deletion.
        if let Err(e) = self.prune_snapshots(super::rewind::prune_grace(&env)).await {
            tracing::warn!("cannot prune the snapshots of the deleted session: {e}");
        }
        Ok(())
    }

    /// Deletes a session and its files, leaving the shared snapshot store as it is.
    pub(super) async fn delete_unpruned(self: &Arc<Self>, id: &str) -> Result<(), AgentError> {
        let row = self.resolve(id).await?;
        let env = self.client_env(&row.id).await;
        self.session_event(&row, &env, |c| {
            crate::hooks::HookInput::session_end(c, "delete")
        })
        .await;
        // Its turn first, so it starts no new child meanwhile; then its children.
        if let Some(rt) = self.runtimes.get(&row.id)
            && let Some(running) = &rt.state.lock().await.running
        {
            running.cancel.cancel();
        }
        self.stop_children(&row.id).await?;
        let mut dirs = vec![self.tool_results_dir(&row.id)];
        for child in self.store.children(&row.id).await? {
            dirs.push(self.tool_results_dir(&child.id));
            if let Some(rt) = self.runtimes.get(&child.id) {
                rt.shell.kill_all().await;
            }
            self.runtimes.remove(&child.id);
            self.events.forget(&child.id);
            self.mcp_forget(&child.id);
        }
        if let Some(rt) = self.runtimes.get(&row.id) {
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
        self.runtimes.remove(&row.id);
        self.store.delete_session(&row.id).await?;
        let transcript = super::hooks::transcript_path(&self.paths.data_dir, &row.id);
        if let Err(e) = std::fs::remove_file(&transcript)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %transcript.display(), "transcript not removed: {e}");
        }
        self.events.forget(&row.id);
        self.mcp_forget(&row.id);
        for dir in dirs.iter().chain(std::iter::once(&self.plan_file(&row.id))) {
            let gone = match std::fs::symlink_metadata(dir) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(dir),
                Ok(_) => std::fs::remove_file(dir),
                Err(e) => Err(e),
            };
            if let Err(e) = gone
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(path = %dir.display(), "not removed: {e}");
            }
        }
        tracing::info!(session = %row.id, "session deleted");
        Ok(())
    }

    pub async fn set_mode(&self, id: &str, mode: &str) -> Result<SessionInfo, AgentError> {
        let row = self.resolve(id).await?;
        let mode = check_mode(mode)?;
        self.store.set_session_mode(&row.id, mode).await?;
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
                    context_window: self.window_of(model, &row.root),
                },
            )
            .await?;
        self.info(&row.id).await
    }

    /// Answers a permission request; the first answer wins.
    pub async fn respond_permission(
        &self,
        id: &str,
        decision: PermissionDecision,
        feedback: Option<String>,
        decided_by: DecidedBy,
    ) -> Result<(), AgentError> {
        self.approvals
            .respond_permission(id, decision, feedback, decided_by)
            .await
    }

    /// Answers a question; the first answer wins.
    pub async fn respond_question(
        &self,
        id: &str,
        answers: Vec<String>,
        decided_by: DecidedBy,
    ) -> Result<(), AgentError> {
        self.approvals
            .respond_question(id, answers, decided_by)
            .await
    }

    /// The context window the session's turns budget with: its model resolved with
    /// the client's last environment (aliases expanded), as the loop resolves it;
    /// `None` when the model does not resolve now (a missing key, say).
    pub async fn model_window(&self, row: &SessionRow) -> Option<u64> {
        let env = match self.runtimes.get(&row.id) {
            Some(rt) => rt.state.lock().await.env.clone(),
            None => Default::default(),
        };
        let config = self.config(Path::new(&row.root)).ok()?;
        crate::llm::resolve_model(&row.model, &env, &config, &self.http)
            .ok()
            .map(|m| m.context_window)
    }

    /// The main agent's system prompt for the session (what `/context` counts).
    pub fn system_prompt(&self, row: &SessionRow) -> String {
        let role = self
            .config(Path::new(&row.root))
            .map_or(prompt::Role::Solo, |c| prompt::Role::of(row, &c));
        prompt::system_prompt(row, role)
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
}

pub(super) fn check_mode(mode: &str) -> Result<roocode_protocol::Mode, AgentError> {
    mode.parse::<roocode_protocol::Mode>()
        .map_err(AgentError::Invalid)
}
