//! The per-call [`ToolContext`] and the per-agent [`FileState`] (which files this agent
//! has read, and what they looked like then), the seam for Edit/Write's
//! read-before-write rule.

use std::collections::{BTreeMap, HashMap};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

use super::bash::{ProcessRecorder, ShellState};
use super::{Summarizer, TodoList};
use crate::memory::MemoryDirs;
use crate::permission::{Call, Decided, Decision, PermissionGate, Place, Scope};

/// Everything a tool call may know about where it runs.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub session_id: String,
    /// Working directory, project root and the other directories calls may reach.
    pub scope: Scope,
    pub cancel: CancellationToken,
    /// The client's environment snapshot.
    pub env: BTreeMap<String, String>,
    /// Files this agent has read (shared by the agent's calls, not across agents).
    pub files: Arc<FileState>,
    /// The turn this call belongs to (checkpoints are kept per turn).
    pub turn_id: String,
    /// RooCode's data directory (checkpoints, plans, tool results live below it).
    pub data_dir: PathBuf,
    /// RooCode's user directory (`~/.roocode` or `ROOCODE_HOME`): the user's skills.
    pub user_dir: PathBuf,
    /// Live output of a long-running call; each piece becomes a `tool_output` event.
    pub progress: Option<ProgressFn>,
    /// The human behind the session, for tools that ask one (None: nobody to ask).
    pub human: Option<Arc<dyn super::Human>>,
    /// The session's todo list, replaced by `TodoWrite` (shared by the session's calls).
    pub todos: Arc<TodoList>,
    /// Condenses WebFetch content for a prompt (a tool-less model call); `None` returns
    /// the content with the prompt noted.
    pub summarizer: Option<Arc<dyn Summarizer>>,
    /// The session's shell: working directory between `Bash` calls, background shells.
    pub shell: Arc<ShellState>,
    /// Told about every process group a command tool spawns (crash recovery).
    pub processes: Option<Arc<dyn ProcessRecorder>>,
    /// Where the `Memory` tool keeps auto memories (None: the tool reports an error).
    pub memory_dirs: Option<MemoryDirs>,
    /// The permission gate of this call's agent, for a tool that meets a new target while
    /// it runs (WebFetch's redirects and the addresses a name resolves to). None: such
    /// targets are treated as needing approval.
    pub gate: Option<Arc<PermissionGate>>,
    /// The calling agent's sub-agents (`Agent` and the task tools); None: it cannot
    /// start any.
    pub agents: Option<Arc<dyn super::AgentHost>>,
    /// The calling agent's team (the team tools); None: it has none and can lead none.
    pub team: Option<Arc<dyn super::TeamHost>>,
    /// The OS sandbox of commands (None: commands run unconfined with `env` as is; only
    /// contexts built by tests have none).
    pub sandbox: Option<Arc<crate::sandbox::CommandSandbox>>,
    /// What the turn's skills set (a `Skill` call narrows the tools for the rest of
    /// the turn); None: outside a turn.
    pub scopes: Option<Arc<super::turn_scope::TurnScopes>>,
}

/// Receives live output of a running tool call.
#[derive(Clone)]
pub struct ProgressFn(pub Arc<dyn Fn(&str) + Send + Sync>);

impl ProgressFn {
    pub fn emit(&self, text: &str) {
        (self.0)(text);
    }
}

impl std::fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressFn")
    }
}

impl ToolContext {
    /// A context with no extra directories, an empty environment, a fresh cancellation
    /// token, an empty file record, an empty todo list, no summarizer, a fresh shell, no
    /// memory directories and no gate.
    pub fn new(session_id: impl Into<String>, cwd: PathBuf, root: PathBuf) -> Self {
        Self {
            session_id: session_id.into(),
            scope: Scope::new(cwd, root),
            cancel: CancellationToken::new(),
            env: BTreeMap::new(),
            files: Arc::new(FileState::default()),
            turn_id: String::new(),
            data_dir: PathBuf::new(),
            user_dir: PathBuf::new(),
            progress: None,
            human: None,
            todos: Arc::new(TodoList::new()),
            summarizer: None,
            shell: Arc::new(ShellState::new()),
            processes: None,
            memory_dirs: None,
            gate: None,
            agents: None,
            team: None,
            sandbox: None,
            scopes: None,
        }
    }

    /// `gate`'s answer for `call` made from here: this context's scope, the directory
    /// the shell would run its next command in, and whether commands are confined.
    pub fn check(&self, gate: &PermissionGate, call: &Call<'_>) -> Decision {
        self.check_decided(gate, call).decision
    }

    /// [`ToolContext::check`]'s answer with the permission layer that gave it.
    pub fn check_decided(&self, gate: &PermissionGate, call: &Call<'_>) -> Decided {
        let shell_cwd = self.shell.next_dir(self);
        let place = Place {
            scope: &self.scope,
            shell_cwd: &shell_cwd,
            confined: self.sandbox.as_ref().is_some_and(|s| s.confines()),
        };
        gate.check_decided(call, &place)
    }

    /// `path` resolved against the working directory (no canonicalisation).
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        self.scope.resolve(path)
    }
}

/// What a file looked like when it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub mtime: Option<SystemTime>,
    pub len: u64,
}

impl FileStamp {
    pub fn of(meta: &Metadata) -> Self {
        Self {
            mtime: meta.modified().ok(),
            len: meta.len(),
        }
    }
}

/// Answer of [`FileState::status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadStatus {
    /// This agent never read the file.
    NotRead,
    /// Read, and the file on disk still matches the stamp taken then.
    Unchanged,
    /// Read, but the file changed (or vanished) since.
    Changed,
}

/// Per-agent record of files read: real path → stamp at read time.
#[derive(Debug, Default)]
pub struct FileState {
    reads: Mutex<HashMap<PathBuf, FileStamp>>,
}

impl FileState {
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, FileStamp>> {
        // A panic while holding this lock cannot leave the map half-updated (single
        // insert/get), so a poisoned lock is still usable.
        self.reads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Record that `real_path` was read when it had `stamp`.
    /// Adds `other`'s record to this one (a fork starts knowing what its parent read).
    pub fn absorb(&self, other: &FileState) {
        let theirs = other
            .reads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        self.reads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(theirs);
    }

    pub fn record(&self, real_path: PathBuf, stamp: FileStamp) {
        self.map().insert(real_path, stamp);
    }

    /// The stamp recorded for `real_path`, if it was read.
    pub fn get(&self, real_path: &Path) -> Option<FileStamp> {
        self.map().get(real_path).copied()
    }

    /// Forget a file (e.g. after this agent wrote it, the writer records a new stamp).
    pub fn forget(&self, real_path: &Path) {
        self.map().remove(real_path);
    }

    /// Compare the record for `real_path` with the file on disk now.
    pub fn status(&self, real_path: &Path) -> ReadStatus {
        let Some(recorded) = self.get(real_path) else {
            return ReadStatus::NotRead;
        };
        match std::fs::metadata(real_path) {
            Ok(meta) if FileStamp::of(&meta) == recorded => ReadStatus::Unchanged,
            _ => ReadStatus::Changed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_state_tracks_changes() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        std::fs::write(&f, "one").unwrap();
        let state = FileState::new();
        assert_eq!(state.status(&f), ReadStatus::NotRead);
        state.record(f.clone(), FileStamp::of(&std::fs::metadata(&f).unwrap()));
        assert_eq!(state.status(&f), ReadStatus::Unchanged);
        std::fs::write(&f, "two!").unwrap();
        assert_eq!(state.status(&f), ReadStatus::Changed);
        state.forget(&f);
        assert_eq!(state.status(&f), ReadStatus::NotRead);
    }
}
