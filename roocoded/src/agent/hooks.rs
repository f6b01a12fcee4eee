//! The engine's side of hooks (DESIGN.md §7, issue 14 item 4): which hooks run for a
//! session ([`SessionHooks`]: the user's, and the project's and local ones the user
//! approved — read at each turn's start, so an edit counts from the next turn), firing
//! an event and reading what its hooks decided ([`Fired`]), and the last result of each
//! hook for `/hooks`. The hooks themselves (files, conditions, running a command) are
//! `crate::hooks`'; where each event fires is the turn's, the executor's and the
//! session code's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::hooks::{HookInfo, HookList};
use roocode_protocol::session::ClientEnv;
use serde_json::Value;

use super::{AgentError, Engine};
use crate::hooks::{self, Decision, HookContext, HookEnv, HookInput, HookRun, HookSet, HookSpec};
use crate::store::{InjectionKind, SessionRow};

/// The hooks of one session, as its turn (or a session event) runs them.
pub struct SessionHooks {
    runnable: HookSet,
    /// Project hooks the user has not approved (they do not run).
    pub unapproved: Vec<HookSpec>,
    env: HookEnv,
    context: HookContext,
    transcript: Transcript,
}

/// The session's context as a JSONL file (the lines of `roocode-cli export`) at the
/// hooks' `transcript_path`, written again before each event a hook hears, so a hook
/// reads the conversation as it is then (Claude Code's hooks read theirs there).
struct Transcript {
    store: crate::store::Store,
    session_id: String,
    path: PathBuf,
}

/// Where a session's transcript file is, under the daemon's data directory.
pub(super) fn transcript_path(data_dir: &Path, session_id: &str) -> PathBuf {
    data_dir
        .join("transcripts")
        .join(format!("{session_id}.jsonl"))
}

impl Transcript {
    /// Writes the file (through a temporary one, so a hook never reads half of it); a
    /// failure is logged and the hook runs with what was there.
    async fn write(&self) {
        let lines = match self
            .store
            .context_lines(&self.session_id, 0, u32::MAX)
            .await
        {
            Ok(lines) => lines,
            Err(e) => {
                tracing::warn!(session = %self.session_id, "transcript not written: {e}");
                return;
            }
        };
        let path = self.path.clone();
        let written = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            let dir = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let mut text = lines.join("\n");
            text.push('\n');
            let temp = path.with_extension("jsonl.tmp");
            std::fs::write(&temp, text)?;
            std::fs::rename(&temp, &path)
        })
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(path = %self.path.display(), "transcript not written: {e}")
            }
            Err(e) => tracing::warn!("transcript not written: {e}"),
        }
    }
}

/// Each hook's last result, by hook id, for `/hooks` and `roocode-cli hooks list`.
#[derive(Debug, Default)]
pub struct HookResults(Mutex<HashMap<String, String>>);

impl HookResults {
    fn record(&self, id: String, result: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, result);
    }

    /// The last result of the hook `id`, if it ran since the daemon started.
    pub fn get(&self, id: &str) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }
}

/// What the hooks of one event said, in the order they ran.
#[derive(Debug, Default)]
pub struct Fired {
    runs: Vec<(String, HookRun)>,
}

impl Fired {
    /// Nothing ran.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The reason of the first hook that refused (exit 2, `deny`, `block`).
    pub fn refusal(&self) -> Option<String> {
        self.runs.iter().find_map(|(where_, run)| {
            run.outcome.is_blocking().then(|| {
                let reason = run
                    .outcome
                    .reason
                    .clone()
                    .unwrap_or_else(|| "a hook refused without saying why".into());
                format!("{reason} (hook {where_})")
            })
        })
    }

    /// The strongest permission decision: deny over ask over allow.
    pub fn decision(&self) -> Option<Decision> {
        let all: Vec<Decision> = self
            .runs
            .iter()
            .filter_map(|(_, r)| r.outcome.decision)
            .collect();
        [
            Decision::Deny,
            Decision::Block,
            Decision::Ask,
            Decision::Allow,
        ]
        .into_iter()
        .find(|d| all.contains(d))
    }

    /// The last replacement of the tool's input.
    pub fn updated_input(&self) -> Option<Value> {
        self.runs
            .iter()
            .rev()
            .find_map(|(_, r)| r.outcome.updated_input.clone())
    }

    /// Text the hooks add to the model's context, one piece per hook.
    pub fn context(&self) -> Vec<String> {
        self.runs
            .iter()
            .filter_map(|(_, r)| r.outcome.additional_context.clone())
            .filter(|t| !t.trim().is_empty())
            .collect()
    }

    /// `continue: false`: the reason to stop the agent, if a hook said so.
    pub fn stop(&self) -> Option<String> {
        self.runs.iter().find_map(|(_, r)| {
            (r.outcome.continue_ == Some(false)).then(|| {
                r.outcome
                    .stop_reason
                    .clone()
                    .unwrap_or_else(|| "a hook stopped the agent".into())
            })
        })
    }

    /// What went wrong running hooks (timeouts, crashes, bad output), to report.
    pub fn errors(&self) -> Vec<String> {
        self.runs
            .iter()
            .filter_map(|(where_, r)| {
                r.outcome
                    .error
                    .as_ref()
                    .or(r.error.as_ref())
                    .map(|e| format!("hook {where_}: {e}"))
            })
            .collect()
    }
}

impl SessionHooks {
    /// What a hook is told about the session (Claude Code's fields).
    pub fn context(&self) -> HookContext {
        self.context.clone()
    }

    /// Runs the hooks `input` matches, one after the other; records each one's result.
    pub async fn fire(&self, results: &HookResults, input: &HookInput) -> Fired {
        let mut fired = Fired::default();
        let matching: Vec<&HookSpec> = self.runnable.matching(input).collect();
        // Only a command can read the transcript: an `inject` hook costs no write.
        if matching
            .iter()
            .any(|h| matches!(h.action, hooks::HookAction::Command { .. }))
        {
            self.transcript.write().await;
        }
        for spec in matching {
            let run = hooks::run(spec, input, &self.env).await;
            let where_ = format!("{}:{}", spec.source.path.display(), spec.source.line);
            results.record(spec.id(), summary(&run));
            if let Some(e) = &run.error {
                tracing::warn!(hook = %where_, "hook failed: {e}");
            }
            fired.runs.push((where_, run));
        }
        fired
    }

    /// Whether any hook listens for `event`.
    pub fn listens(&self, event: hooks::HookEvent) -> bool {
        self.runnable.for_event(event).next().is_some()
    }
}

/// One line on what a run did, for `/hooks`.
fn summary(run: &HookRun) -> String {
    let ms = run.duration.as_millis();
    if run.timed_out {
        return format!("timed out after {ms} ms");
    }
    if let Some(e) = &run.error {
        return format!("failed: {e}");
    }
    match (run.exit_code, run.outcome.decision) {
        (_, Some(d)) => format!("{d:?} in {ms} ms").to_lowercase(),
        (Some(code), None) => format!("exit {code} in {ms} ms"),
        (None, None) => "injected".to_string(),
    }
}

impl Engine {
    /// The hooks that run for `row`'s session now (see the module doc).
    pub(super) async fn session_hooks(
        &self,
        row: &SessionRow,
        env: &ClientEnv,
    ) -> Arc<SessionHooks> {
        let root = PathBuf::from(&row.root);
        // A replay runs no hooks: what they did is in the recording already.
        let all = match self.replays.contains(&row.id) {
            true => HookSet {
                hooks: Vec::new(),
                problems: Vec::new(),
            },
            false => self.load_hooks(&root, env).await,
        };
        for problem in &all.problems {
            tracing::warn!(session = %row.id, "hook not loaded: {problem}");
        }
        let (runnable, unapproved): (Vec<HookSpec>, Vec<HookSpec>) = all
            .hooks
            .into_iter()
            .partition(|h| self.hook_approvals.allows(&root, h));
        let transcript = Transcript {
            store: self.store.clone(),
            session_id: row.id.clone(),
            path: transcript_path(&self.paths.data_dir, &row.id),
        };
        // A sub-agent's or teammate's events say which agent they come from.
        let agent = match &row.parent_session_id {
            Some(_) => match self.store.agent(&row.id).await {
                Ok(found) => found.map(|a| a.name),
                Err(e) => {
                    tracing::warn!(session = %row.id, "the agent of a hook event is unknown: {e}");
                    None
                }
            },
            None => None,
        };
        let mut vars = env.vars.clone();
        // A hook runs as the user's own command: it needs a PATH to find its programs.
        vars.entry("PATH".into())
            .or_insert_with(|| "/usr/local/bin:/usr/bin:/bin".into());
        let transcript_path = transcript.path.display().to_string();
        Arc::new(SessionHooks {
            transcript,
            runnable: HookSet {
                hooks: runnable,
                problems: Vec::new(),
            },
            unapproved,
            env: HookEnv {
                cwd: PathBuf::from(&row.cwd),
                project_dir: root,
                vars,
            },
            context: HookContext {
                session_id: row.id.clone(),
                cwd: PathBuf::from(&row.cwd),
                transcript_path,
                permission_mode: row.mode.as_str().to_string(),
                agent,
            },
        })
    }

    /// Queues what hooks said for the model (corrections, added context) in the
    /// agent's inbox, one system reminder each, before its next model call.
    pub(super) async fn queue_hook_texts(
        &self,
        session_id: &str,
        texts: &[String],
    ) -> Result<bool, crate::store::StoreError> {
        for text in texts {
            self.store
                .queue_injection(session_id, InjectionKind::Hook, text)
                .await?;
        }
        Ok(!texts.is_empty())
    }

    /// Fires a session event (`session_start`, `session_end`) of `row`'s session; the
    /// context its hooks add is queued for the agent's next model call.
    pub(super) async fn session_event(
        &self,
        row: &SessionRow,
        env: &ClientEnv,
        make: impl FnOnce(HookContext) -> HookInput,
    ) {
        let hooks = self.session_hooks(row, env).await;
        let input = make(hooks.context());
        if !hooks.listens(input.event()) {
            return;
        }
        let fired = hooks.fire(&self.hook_results, &input).await;
        for e in fired.errors() {
            tracing::warn!(session = %row.id, "{e}");
        }
        if let Err(e) = self.queue_hook_texts(&row.id, &fired.context()).await {
            tracing::error!(session = %row.id, "cannot queue a hook's context: {e}");
        }
    }

    /// The project's hooks that wait for the user's approval, and the project root.
    pub async fn hooks_to_approve(&self, root: &Path, env: &ClientEnv) -> Vec<HookSpec> {
        self.load_hooks(root, env)
            .await
            .hooks
            .into_iter()
            .filter(|h| !self.hook_approvals.allows(root, h))
            .collect()
    }

    /// Every hook of the project at `root` and of the user (RooCode's user directory,
    /// Claude Code's files under the client's home), read now.
    async fn load_hooks(&self, root: &Path, env: &ClientEnv) -> HookSet {
        let user = crate::commands::user_dirs(self, env);
        let root = root.to_path_buf();
        tokio::task::spawn_blocking(move || hooks::load(&user.roocode, &user.home, &root))
            .await
            .unwrap_or_else(|e| {
                tracing::error!("reading the hooks failed: {e}");
                HookSet::default()
            })
    }
}

impl Engine {
    /// `hooks.list`: every hook a session in `cwd` would have, approved or not.
    pub async fn hook_list(&self, cwd: &str, env: &ClientEnv) -> Result<HookList, AgentError> {
        let root = crate::project::root(Path::new(cwd));
        let all = self.load_hooks(&root, env).await;
        Ok(HookList {
            hooks: all.hooks.iter().map(|h| self.hook_info(&root, h)).collect(),
            problems: all.problems.iter().map(ToString::to_string).collect(),
        })
    }

    /// `hooks.approve`: approves the project's hooks `ids` (all waiting when empty).
    pub async fn hook_approve(
        &self,
        cwd: &str,
        env: &ClientEnv,
        ids: &[String],
    ) -> Result<Vec<HookInfo>, AgentError> {
        let root = crate::project::root(Path::new(cwd));
        let waiting = self.hooks_to_approve(&root, env).await;
        for id in ids {
            if !waiting.iter().any(|h| h.id() == *id) {
                let known: Vec<String> = waiting.iter().map(HookSpec::id).collect();
                return Err(AgentError::Invalid(format!(
                    "no project hook `{id}` waits for approval here; waiting: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
        }
        let chosen: Vec<&HookSpec> = waiting
            .iter()
            .filter(|h| ids.is_empty() || ids.contains(&h.id()))
            .collect();
        self.hook_approvals
            .approve(&root, chosen.iter().copied())
            .map_err(|e| AgentError::Invalid(format!("cannot record the approval: {e}")))?;
        Ok(chosen.iter().map(|h| self.hook_info(&root, h)).collect())
    }

    fn hook_info(&self, root: &Path, h: &HookSpec) -> HookInfo {
        let action = match &h.action {
            hooks::HookAction::Command { command, .. } => format!("run `{command}`"),
            hooks::HookAction::Inject { text } => {
                format!("inject {} characters", text.chars().count())
            }
        };
        let id = h.id();
        HookInfo {
            event: h.event.as_str().to_string(),
            matcher: h.matcher.as_ref().map(|m| m.pattern().to_string()),
            condition: h.condition.as_ref().map(|c| c.source().to_string()),
            action,
            file: h.source.path.display().to_string(),
            line: h.source.line as u64,
            scope: h.source.scope.as_str().to_string(),
            approved: self.hook_approvals.allows(root, h),
            last_result: self.hook_results.get(&id),
            id,
        }
    }
}
