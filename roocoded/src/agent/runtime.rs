//! What the daemon holds in memory for a session between calls: the client's latest
//! environment (keys stay here, never in the store), the running turn, the queue of
//! messages sent while it runs, and the model context as stored, so that a turn does
//! not reload the whole history from SQLite.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::session::ClientEnv;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::context::budget::EstimatedContext;
use crate::store::{Store, StoreError};
use crate::tools::{FileState, ShellState, TodoList};

/// A turn in progress.
pub struct Running {
    pub turn_id: String,
    pub cancel: CancellationToken,
    /// Set when the daemon, not the user, stops the turn (it ends `interrupted`).
    pub interrupted: Arc<AtomicBool>,
}

impl Running {
    pub fn new(turn_id: String) -> Self {
        Running {
            turn_id,
            cancel: CancellationToken::new(),
            interrupted: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn was_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }
}

/// A user message waiting for the next model call.
#[derive(Debug, Clone)]
pub struct Queued {
    pub input_id: String,
    pub text: String,
    /// What the slash command that sent it sets for its turn.
    pub scope: Option<crate::tools::turn_scope::TurnScope>,
}

/// Mutable state of one session (behind the runtime's lock).
pub struct RuntimeState {
    pub env: ClientEnv,
    pub running: Option<Running>,
    pub queue: VecDeque<Queued>,
    /// Something was queued in the agent's inbox since its turn last looked: the turn
    /// loop runs another turn instead of going idle. Many items queued together wake
    /// it once.
    pub woken: bool,
}

/// One session's in-memory side.
pub struct SessionRuntime {
    pub id: String,
    pub state: tokio::sync::Mutex<RuntimeState>,
    /// Signalled whenever a turn task ends.
    pub turn_ended: Notify,
    /// Files the main agent has read (for the read-before-edit rule).
    pub files: Arc<FileState>,
    /// The session's todo list (`TodoWrite`).
    pub todos: Arc<TodoList>,
    /// The session's shell (working directory, background shells); dropping the
    /// runtime kills its background shells.
    pub shell: Arc<ShellState>,
    /// The session's model context exactly as the store holds it (with each message's
    /// token estimate), kept between turns so that only the first turn after a
    /// (re)start or a rewrite loads, decodes and estimates it.
    /// `None` until loaded, and after anything that may have made it differ.
    ///
    /// What keeps it right: whoever writes the stored context holds this lock while
    /// writing, and leaves in it what was written or `None`. A turn holds it from its
    /// start to its end (taking the context out, putting it back only if the turn ended
    /// without an error); rewrites outside the turn (`/clear`, `/compact`, recovery,
    /// `session.import`) take it around their write; code outside the agent that
    /// rewrites the stored context calls `Engine::forget_cached_context` after its write.
    ///
    /// Lock order: `context`, then `state`. Never wait for this lock while holding
    /// `state`: the turn takes `state` while it holds this one.
    pub context: tokio::sync::Mutex<Option<EstimatedContext>>,
    /// A permission-relevant config change the user refused during a turn: the next
    /// turn asks again if the files still say the same (see `agent::turn_config`).
    pub refused_config: std::sync::Mutex<Option<crate::agent::turn_config::Refused>>,
    /// The sandbox's warnings were told at this session's first turn (see
    /// `agent::sandbox_notice`).
    pub sandbox_announced: std::sync::atomic::AtomicBool,
    /// A sub-agent's or teammate's spec, read from its agent row at its first turn (the
    /// row's spec never changes after its insert).
    pub child_spec: std::sync::OnceLock<crate::agent::children::ChildSpec>,
    /// What the commands and skills of the running turn set (dropped when it ends).
    pub scopes: Arc<crate::tools::turn_scope::TurnScopes>,
    /// What the model has been told about the session's skills.
    pub skills_told: crate::agent::skills::SkillsTold,
    /// The user was told that project hooks wait for approval.
    pub hooks_unapproved_told: AtomicBool,
    /// `session_start` fired for it in this daemon (at its creation, or at its first
    /// turn after a restart).
    pub session_started: AtomicBool,
    /// `stop`-hook continuations since the last genuine user message, and in all.
    pub continuations: std::sync::Mutex<(u32, u32)>,
    /// The agent has workflow functions (rows in the store): its turns evaluate them.
    pub workflow: AtomicBool,
}

impl SessionRuntime {
    pub fn new(id: String, queue: VecDeque<Queued>) -> Self {
        SessionRuntime {
            id,
            state: tokio::sync::Mutex::new(RuntimeState {
                env: ClientEnv::default(),
                running: None,
                queue,
                woken: false,
            }),
            turn_ended: Notify::new(),
            files: Arc::new(FileState::default()),
            todos: Arc::new(TodoList::new()),
            shell: Arc::new(ShellState::new()),
            context: tokio::sync::Mutex::new(None),
            refused_config: std::sync::Mutex::new(None),
            sandbox_announced: std::sync::atomic::AtomicBool::new(false),
            child_spec: std::sync::OnceLock::new(),
            scopes: Arc::default(),
            skills_told: Default::default(),
            hooks_unapproved_told: AtomicBool::new(false),
            session_started: AtomicBool::new(false),
            continuations: std::sync::Mutex::new((0, 0)),
            workflow: AtomicBool::new(false),
        }
    }
}

/// The in-memory side of every session used since the daemon started, by session id.
#[derive(Default)]
pub struct Runtimes(Mutex<HashMap<String, Arc<SessionRuntime>>>);

impl Runtimes {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<SessionRuntime>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The session's runtime, if it has one.
    pub fn get(&self, id: &str) -> Option<Arc<SessionRuntime>> {
        self.map().get(id).cloned()
    }

    /// The session's runtime, created on first use with its stored queue.
    pub async fn load(&self, store: &Store, id: &str) -> Result<Arc<SessionRuntime>, StoreError> {
        if let Some(rt) = self.get(id) {
            return Ok(rt);
        }
        let queue: VecDeque<Queued> = store
            .queued_inputs(id)
            .await?
            .into_iter()
            .map(|i| Queued {
                input_id: i.id,
                text: i.text,
                scope: i
                    .scope
                    .as_deref()
                    .and_then(crate::tools::turn_scope::TurnScope::from_json),
            })
            .collect();
        Ok(self
            .map()
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(SessionRuntime::new(id.to_string(), queue)))
            .clone())
    }

    pub fn remove(&self, id: &str) {
        self.map().remove(id);
    }

    /// Removes `rt`, the runtime of `id`, unless another one replaced it meanwhile.
    pub fn remove_if(&self, id: &str, rt: &Arc<SessionRuntime>) {
        let mut map = self.map();
        if map.get(id).is_some_and(|r| Arc::ptr_eq(r, rt)) {
            map.remove(id);
        }
    }

    pub fn all(&self) -> Vec<Arc<SessionRuntime>> {
        self.map().values().cloned().collect()
    }
}
