//! Offline replay (issue 16, item 4): a recorded session run again against its
//! recorded model answers — no network, no API key — in a scratch copy of its project.
//!
//! How it goes: [`Engine::replay`] reads the recording (`recording`: every agent's
//! answers, tool results and permission outcomes, the user's messages) and refuses one
//! whose bodies are gone; prepares the scratch copy (`scratch`); creates the replay's
//! own session there (a normal main session, without hooks or MCP servers) and
//! registers an [`AgentFeed`] for it in [`Replays`]; then a driver (`driver`) sends the
//! recorded user messages one by one, each once the session and its agents are quiet.
//!
//! While a session has a feed, the engine asks it instead of a model
//! ([`AgentFeed::answer`], at the loop's, compaction's and recovery's calls), asks it
//! which tool results come from the recording ([`AgentFeed::recorded_result`]: WebFetch,
//! MCP tools, questions, calls the recording did not run) and whether the live gate
//! still lets a call run ([`AgentFeed::permit`]: an `ask` is answered by the recording,
//! a `deny` stands), and compares every result ([`AgentFeed::compare`]). A sub-agent or
//! teammate started in a replay replays the next agent its parent started in the
//! recording ([`Engine::replay_adopt`]), so background children follow their recorded
//! order. Differences are `replay_divergence` events; the end is `replay_finished`.

mod driver;
mod feed;
mod normalize;
mod recording;
mod scratch;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::replay::{ReplayParams, ReplayStarted};
use roocode_protocol::session::{ClientEnv, SessionKind};

pub use feed::{AgentFeed, Run};
use recording::{RecordedAgent, Recording};

use super::{AgentError, Engine};
use crate::store::NewSession;

/// What a replay's client environment gets when it has no key: the name says what it
/// is, and nothing ever sends it (a replayed session asks its feed, not a model).
const PLACEHOLDER_KEY: &str = "replay-without-a-key";

/// The sessions being replayed, each with its feed.
#[derive(Default)]
pub struct Replays {
    agents: Mutex<HashMap<String, Arc<AgentFeed>>>,
}

impl Replays {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AgentFeed>>> {
        self.agents.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The feed of session `session_id` while a replay runs it.
    pub fn agent(&self, session_id: &str) -> Option<Arc<AgentFeed>> {
        self.lock().get(session_id).cloned()
    }

    /// Whether session `session_id` is being replayed (no hooks, no MCP servers).
    pub fn contains(&self, session_id: &str) -> bool {
        self.lock().contains_key(session_id)
    }

    fn insert(&self, feed: Arc<AgentFeed>) {
        self.lock().insert(feed.session_id.clone(), feed);
    }

    /// The feeds of `run`, in no particular order.
    fn of_run(&self, run: &Arc<Run>) -> Vec<Arc<AgentFeed>> {
        self.lock()
            .values()
            .filter(|f| Arc::ptr_eq(&f.run, run))
            .cloned()
            .collect()
    }

    /// Stops the replay whose main session is `session_id`; whether one ran.
    pub fn cancel(&self, session_id: &str) -> bool {
        match self.agent(session_id) {
            Some(feed) if feed.run.session_id == session_id => {
                feed.run.cancel.cancel();
                true
            }
            Some(_) | None => false,
        }
    }

    fn remove_run(&self, run: &Arc<Run>) {
        self.lock().retain(|_, f| !Arc::ptr_eq(&f.run, run));
    }
}

impl Engine {
    /// `session.replay`: starts a replay of the main session `params.session_id` (or,
    /// with `prepare_only`, only prepares its scratch copy).
    pub async fn replay(
        self: &Arc<Self>,
        params: ReplayParams,
    ) -> Result<ReplayStarted, AgentError> {
        let row = self.resolve(&params.session_id).await?;
        if row.kind != SessionKind::Main {
            let parent = row.parent_session_id.as_deref().unwrap_or("its parent");
            return Err(AgentError::Invalid(format!(
                "{} is a sub-agent's session: replay its main session ({parent}), with which it replays",
                row.id
            )));
        }
        if row.running_turn_id.is_some() {
            return Err(AgentError::Busy("replay".into()));
        }
        self.recorder.flush().await;
        let recording = Recording::load(&self.store, &row.id).await?;
        recording.check().map_err(|why| {
            AgentError::Invalid(format!("session {} cannot be replayed: {why}", row.id))
        })?;
        let scratch = self.replay_scratch(&row, params.into.as_deref()).await?;
        let mut notes = scratch.notes.clone();
        let failed = recording.failed_calls();
        if failed > 0 {
            notes.push(format!(
                "{failed} recorded model call(s) failed and are not replayed (their retries' answers are)"
            ));
        }
        let recorded_answers = recording.main.answer_count();
        let mut started = ReplayStarted {
            session_id: None,
            recorded_session_id: row.id.clone(),
            dir: scratch.dir.display().to_string(),
            source: scratch.source.to_string(),
            messages: recording.messages.len() as u32,
            model_calls: recorded_answers,
            notes,
        };
        if params.prepare_only {
            return Ok(started);
        }
        self.check_replay_sandbox(&scratch.dir, &params.env)?;
        let id = uuid::Uuid::now_v7().to_string();
        let run = Arc::new(Run::new(
            id.clone(),
            row.id.clone(),
            &scratch.dir,
            &row.root,
            recorded_answers,
            self.events.clone(),
        ));
        self.replays.insert(Arc::new(AgentFeed::new(
            run.clone(),
            id.clone(),
            recording.main,
        )));
        let env = self.replay_env(&row, &params.env);
        if let Err(e) = self
            .insert_replay_session(&id, &row, &scratch.dir, &env)
            .await
        {
            self.replays.remove_run(&run);
            return Err(e);
        }
        tracing::info!(session = %id, recorded = %row.id, dir = %scratch.dir.display(), "replay started");
        let engine = self.clone();
        let messages = recording.messages;
        let client_env = params.env;
        self.tasks.spawn(async move {
            engine.drive_replay(run, messages, env, client_env).await;
        });
        started.session_id = Some(id);
        Ok(started)
    }

    /// A replay runs recorded commands only where the OS sandbox confines them: refused
    /// on a machine where commands would run unconfined (whatever `sandbox.mode` says,
    /// a replay's is never `off`).
    fn check_replay_sandbox(&self, dir: &Path, env: &ClientEnv) -> Result<(), AgentError> {
        let config = self.config(dir)?;
        let mut settings = crate::sandbox::SandboxSettings::load(&self.paths.user_dir, dir)
            .map_err(|e| AgentError::Config(e.to_string()))?;
        super::turn_config::confine_settings(&mut settings);
        let sandbox =
            crate::sandbox::for_session(&self.paths, dir, dir, &env.vars, &config, &settings);
        if sandbox.confines() {
            return Ok(());
        }
        Err(AgentError::Invalid(
            "a replay runs the recorded commands, and only inside the OS sandbox (bubblewrap or Landlock), which commands cannot have on this machine: `roocode-cli doctor` says why".into(),
        ))
    }

    /// The client's environment with what a replay needs: a placeholder for the model's
    /// key when the client has none (it is resolved, never sent), and no window
    /// discovery (which would ask the model's server).
    fn replay_env(&self, row: &crate::store::SessionRow, client: &ClientEnv) -> ClientEnv {
        let mut env = client.clone();
        env.vars
            .insert("ROOCODE_WINDOW_DISCOVERY_MS".into(), "0".into());
        if let Ok(config) = self.config(Path::new(&row.root)) {
            for _ in 0..2 {
                match crate::llm::resolve_model(&row.model, &env, &config, &self.http) {
                    Err(crate::llm::LlmError::MissingKey { var }) => {
                        env.vars.insert(var, PLACEHOLDER_KEY.into());
                    }
                    Ok(_) | Err(_) => break,
                }
            }
        }
        env
    }

    /// The replay's session: a main session in the scratch copy with the recorded
    /// model and mode, created without the `session_start` hooks (a replay runs none).
    async fn insert_replay_session(
        &self,
        id: &str,
        recorded: &crate::store::SessionRow,
        dir: &Path,
        env: &ClientEnv,
    ) -> Result<(), AgentError> {
        let cwd = Path::new(&recorded.cwd)
            .strip_prefix(&recorded.root)
            .ok()
            .map(|rel| dir.join(rel))
            .filter(|p| p.is_dir())
            .unwrap_or_else(|| dir.to_path_buf());
        let title = match recorded.title.trim() {
            "" => format!("replay of {}", recorded.id),
            t => format!("replay of {t}"),
        };
        self.store
            .insert_session(&NewSession {
                id: id.to_string(),
                parent_session_id: None,
                kind: SessionKind::Main,
                title,
                cwd: cwd.display().to_string(),
                root: dir.display().to_string(),
                model: recorded.model.clone(),
                mode: recorded.mode,
            })
            .await?;
        let rt = self.runtime(id).await?;
        rt.state.lock().await.env = env.clone();
        rt.session_started
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    /// A child `child_id` that `parent_id` starts: when the parent is being replayed, it
    /// replays the next agent the parent started in the recording — or, when the
    /// recording has none, it gets no answer at all (a divergence), never a model's.
    pub(super) async fn replay_adopt(&self, parent_id: &str, child_id: &str, name: &str) {
        let Some(parent) = self.replays.agent(parent_id) else {
            return;
        };
        let recorded = match parent.next_child() {
            Some(recorded) => recorded,
            None => {
                let payload = roocode_protocol::event::EventPayload::ReplayDivergence {
                    kind: "agent_not_recorded".into(),
                    call_id: None,
                    tool: None,
                    message: format!(
                        "agent {name} was started, but the recording started no more agents here: it gets no model answers"
                    ),
                    expected: None,
                    actual: None,
                };
                parent.run.diverge(parent_id, payload).await;
                RecordedAgent {
                    name: name.to_string(),
                    ..RecordedAgent::default()
                }
            }
        };
        let feed = AgentFeed::new(parent.run.clone(), child_id.to_string(), recorded);
        self.replays.insert(Arc::new(feed));
    }
}
