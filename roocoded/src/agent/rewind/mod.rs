//! Rewind (issue 16): a session's turns with the files each changed, and undoing a
//! turn with every later one — the files put back as the snapshot before it has them
//! (`files`), the conversation put back as it was before it, or both.
//!
//! The snapshots are taken by the turn itself (`turn/snapshot.rs`): before it, the
//! tree and the conversation; after it, the tree again. A rewind is refused while a
//! turn runs or the session's sub-agents work (they change the files), and holds the
//! session's cached context for its whole length, so no turn starts meanwhile. The
//! undone turns are marked, so that the next rewind's default is the turn before; the
//! tree the rewind leaves becomes the "after" of the last turn kept, so the rewind's
//! own writes are not taken for someone else's later. A `rewound` event tells every
//! attached client (and later replays) what happened.

mod files;
mod plan;
mod prune;

pub use prune::{DEFAULT_GRACE, grace as prune_grace};

use std::collections::HashMap;
use std::path::PathBuf;

use roocode_protocol::agents::AgentState;
use roocode_protocol::event::EventPayload;
use roocode_protocol::rewind::{NotRestorable, RewindParams, RewindPlan, TurnSummary};
use roocode_protocol::session::SessionKind;

use super::{AgentError, Engine};
use crate::context::budget::EstimatedContext;
use crate::snapshot::{self, BlobId};
use crate::store::{SessionTurn, TurnSnapshot};
use files::{Apply, FilesError, FilesOutcome, Undone, rewind_files};

/// How much of a turn's prompt a summary shows.
const PROMPT_PREVIEW: usize = 120;

/// A session's turns, numbered, with their snapshots.
struct Numbered {
    turns: Vec<SessionTurn>,
    snapshots: HashMap<String, TurnSnapshot>,
}

impl Numbered {
    fn snapshot(&self, number: u32) -> Option<&TurnSnapshot> {
        let turn = self.turns.get(number.checked_sub(1)? as usize)?;
        self.snapshots.get(&turn.turn_id)
    }

    fn last(&self) -> u32 {
        self.turns.len() as u32
    }

    /// The turn a rewind undoes: `to`, checked, or the last one no rewind undid.
    fn target(&self, to: Option<u32>) -> Result<u32, AgentError> {
        let last = self.last();
        if last == 0 {
            return Err(AgentError::Invalid(
                "the session has no turn to rewind".into(),
            ));
        }
        let Some(n) = to else {
            return (1..=last)
                .rev()
                .find(|&n| self.snapshot(n).is_some_and(|s| s.rewound_at.is_none()))
                .ok_or_else(|| {
                    AgentError::Invalid(
                        "no turn of the session can be rewound (every one was undone already, or none had a snapshot)".into(),
                    )
                });
        };
        if n == 0 || n > last {
            return Err(AgentError::Invalid(format!(
                "the session has turns 1 to {last}; there is no turn {n}"
            )));
        }
        match self.snapshot(n) {
            None => Err(AgentError::Invalid(format!(
                "turn {n} has no snapshot (snapshots were off, ROOCODE_REWIND_SNAPSHOTS=0, or it could not be taken)"
            ))),
            Some(s) if s.rewound_at.is_some() => Err(AgentError::Invalid(format!(
                "turn {n} was undone by an earlier rewind"
            ))),
            Some(_) => Ok(n),
        }
    }

    /// The turns from `from` on that no rewind undid, with their snapshots.
    fn undone_from(&self, from: u32) -> Vec<(u32, &TurnSnapshot)> {
        (from..=self.last())
            .filter_map(|n| self.snapshot(n).map(|s| (n, s)))
            .filter(|(_, s)| s.rewound_at.is_none())
            .collect()
    }
}

fn blob(id: &str) -> Result<BlobId, AgentError> {
    BlobId::parse(id)
        .ok_or_else(|| AgentError::Invalid(format!("a stored snapshot id is damaged: {id}")))
}

fn io_error(e: impl std::fmt::Display) -> AgentError {
    AgentError::Invalid(format!("cannot read the workspace snapshots: {e}"))
}

/// The files a recorded snapshot left out, as its row keeps them.
fn skipped_of(row: &TurnSnapshot) -> Vec<NotRestorable> {
    let list: Vec<serde_json::Value> = serde_json::from_str(&row.skipped).unwrap_or_default();
    list.iter()
        .filter_map(|v| {
            Some(NotRestorable {
                path: v.get("path")?.as_str()?.to_string(),
                why: v.get("why")?.as_str()?.to_string(),
            })
        })
        .collect()
}

impl Engine {
    async fn numbered(&self, session_id: &str) -> Result<Numbered, AgentError> {
        let turns = self.store.session_turns(session_id).await?;
        let snapshots = self
            .store
            .turn_snapshots(session_id)
            .await?
            .into_iter()
            .map(|s| (s.turn_id.clone(), s))
            .collect();
        Ok(Numbered { turns, snapshots })
    }

    /// The session's turns, oldest first, with the files each changed.
    pub async fn turn_summaries(&self, id: &str) -> Result<Vec<TurnSummary>, AgentError> {
        let row = self.resolve(id).await?;
        let numbered = self.numbered(&row.id).await?;
        let snapshots = self.snapshots.clone();
        let root = PathBuf::from(&row.root);
        // Per turn, the trees before and after it (the next turn's start, or the tree
        // now, standing in for an after the daemon never took).
        let pairs: Vec<Option<(String, Option<String>)>> = (1..=numbered.last())
            .map(|n| {
                let s = numbered.snapshot(n)?;
                let next = numbered.snapshot(n + 1).map(|s| s.manifest.clone());
                Some((s.manifest.clone(), s.after_manifest.clone().or(next)))
            })
            .collect();
        let changed = tokio::task::spawn_blocking(move || {
            let mut now = None;
            pairs
                .into_iter()
                .map(|pair| {
                    let (before, after) = pair?;
                    let before = snapshots.manifest(&BlobId::parse(&before)?).ok()?;
                    let after = match after.as_deref().and_then(BlobId::parse) {
                        Some(id) => snapshots.manifest(&id).ok()?,
                        None => match &now {
                            Some(m) => Clone::clone(m),
                            None => {
                                let m = snapshots.take(&root).ok()?.manifest;
                                now = Some(m.clone());
                                m
                            }
                        },
                    };
                    Some(
                        before
                            .diff(&after)
                            .into_iter()
                            .map(|c| c.path().to_string())
                            .collect::<Vec<_>>(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .await
        .map_err(io_error)?;
        Ok(numbered
            .turns
            .iter()
            .zip(changed)
            .enumerate()
            .map(|(i, (turn, files))| {
                let snapshot = numbered.snapshots.get(&turn.turn_id);
                TurnSummary {
                    number: i as u32 + 1,
                    turn_id: turn.turn_id.clone(),
                    started_at: turn.started_at,
                    prompt: preview(turn.prompt.as_deref().unwrap_or("")),
                    files: files.unwrap_or_default(),
                    rewindable: snapshot.is_some(),
                    rewound: snapshot.is_some_and(|s| s.rewound_at.is_some()),
                }
            })
            .collect())
    }

    /// Plans a rewind, or with `apply` does it (see the module doc).
    pub async fn rewind(&self, params: &RewindParams) -> Result<RewindPlan, AgentError> {
        let row = self.resolve(&params.session_id).await?;
        if row.kind != SessionKind::Main {
            return Err(AgentError::Invalid(
                "only a main session can be rewound (a sub-agent's changes are its parent's turn's)"
                    .into(),
            ));
        }
        let rt = self.runtimes.load(&self.store, &row.id).await?;
        let busy = || AgentError::Busy("rewind".into());
        // Held to the end: no turn starts while the files and the context are put back.
        let mut cached = rt.context.try_lock().map_err(|_| busy())?;
        if rt.state.lock().await.running.is_some() {
            return Err(busy());
        }
        let working: Vec<String> = self
            .store
            .children(&row.id)
            .await?
            .into_iter()
            .filter(|c| {
                matches!(
                    c.state,
                    AgentState::Queued | AgentState::Running | AgentState::Waiting
                )
            })
            .map(|c| c.name)
            .collect();
        if !working.is_empty() {
            return Err(AgentError::Invalid(format!(
                "cannot rewind while the session's sub-agents work ({}): wait for them, or stop them with `roocode-cli agents stop`",
                working.join(", ")
            )));
        }
        let numbered = self.numbered(&row.id).await?;
        let target = numbered.target(params.to)?;
        let undone = numbered.undone_from(target);
        let Some((_, first)) = undone.first() else {
            return Err(AgentError::Invalid(format!(
                "turn {target} has no snapshot to rewind to"
            )));
        };
        let first = (*first).clone();
        let mut plan = RewindPlan {
            session_id: row.id.clone(),
            turn: target,
            last_turn: numbered.last(),
            scope: params.scope,
            workspace: String::new(),
            files: Vec::new(),
            not_restorable: Vec::new(),
            notes: Vec::new(),
            messages_removed: 0,
            prompt: numbered
                .turns
                .get(target as usize - 1)
                .and_then(|t| t.prompt.clone())
                .unwrap_or_default(),
            applied: false,
            restored: Vec::new(),
            removed: Vec::new(),
            kept: Vec::new(),
            refused: Vec::new(),
        };
        let conversation = if params.scope.conversation() {
            let Some(id) = first.conversation.as_deref() else {
                return Err(AgentError::Invalid(format!(
                    "the conversation before turn {target} was not recorded; rewind the files only (--files)"
                )));
            };
            let id = blob(id)?;
            let snapshots = self.snapshots.clone();
            let messages = tokio::task::spawn_blocking(move || {
                snapshot::conversation::get(snapshots.objects(), &id)
            })
            .await
            .map_err(io_error)?
            .map_err(io_error)?;
            let now = self.store.context_len(&row.id).await?;
            plan.messages_removed = now.saturating_sub(messages.len()) as u64;
            Some(messages)
        } else {
            None
        };
        let undone_ids: Vec<String> = undone.iter().map(|(_, s)| s.turn_id.clone()).collect();
        if params.apply && params.scope.files() {
            // What the undone turns left running in the background stops first: it
            // would write over what is put back, or swap a directory for a symlink
            // under the restore.
            rt.shell.kill_all().await;
        }
        if params.scope.files() {
            let outcome = self.rewind_workspace(&first, &undone, params).await?;
            plan.workspace = outcome.workspace;
            plan.files = outcome.files;
            plan.not_restorable = outcome.not_restorable;
            plan.notes = ignore_notes(std::path::Path::new(&first.root));
            if let Some((done, kept, left)) = outcome.applied {
                plan.restored = done.written;
                plan.removed = done.removed;
                plan.kept = kept;
                plan.refused = done
                    .refused
                    .into_iter()
                    .map(|(path, why)| NotRestorable { path, why })
                    .collect();
                // The tree the rewind left is where the kept turns now end.
                let kept_turn = (1..target)
                    .rev()
                    .filter_map(|n| numbered.snapshot(n))
                    .find(|s| s.rewound_at.is_none());
                if let Some(kept_turn) = kept_turn {
                    self.store
                        .set_turn_after_snapshot(&kept_turn.turn_id, left.as_str())
                        .await?;
                }
            }
        }
        if !params.apply {
            return Ok(plan);
        }
        if let Some(messages) = conversation {
            *cached = None;
            self.store.replace_context(&row.id, &messages).await?;
            *cached = Some(EstimatedContext::new(messages));
            rt.skills_told.forget();
        }
        self.store
            .mark_turns_rewound(&undone_ids, crate::clock::now_ms())
            .await?;
        plan.applied = true;
        drop(cached);
        let event = EventPayload::Rewound {
            turn: target,
            files: params.scope.files(),
            conversation: params.scope.conversation(),
            restored: plan.restored.len() as u64,
            removed: plan.removed.len() as u64,
            kept: plan.kept.len() as u64,
            messages_removed: plan.messages_removed,
        };
        self.events.append(&row.id, &row.id, event).await?;
        tracing::info!(
            session = %row.id,
            turn = target,
            restored = plan.restored.len(),
            removed = plan.removed.len(),
            kept = plan.kept.len(),
            messages_removed = plan.messages_removed,
            "rewound"
        );
        Ok(plan)
    }

    /// The file side, in a blocking task.
    async fn rewind_workspace(
        &self,
        first: &TurnSnapshot,
        undone: &[(u32, &TurnSnapshot)],
        params: &RewindParams,
    ) -> Result<FilesOutcome, AgentError> {
        let undone: Vec<Undone> = undone
            .iter()
            .map(|(number, s)| {
                Ok(Undone {
                    number: *number,
                    before: blob(&s.manifest)?,
                    after: s.after_manifest.as_deref().map(blob).transpose()?,
                })
            })
            .collect::<Result<_, AgentError>>()?;
        let skipped = skipped_of(first);
        let apply = params.apply.then(|| Apply {
            expect: params.workspace.clone(),
            overwrite_conflicts: params.overwrite_conflicts,
        });
        let snapshots = self.snapshots.clone();
        let root = PathBuf::from(&first.root);
        tokio::task::spawn_blocking(move || {
            rewind_files(&snapshots, &root, &undone, skipped, apply)
        })
        .await
        .map_err(io_error)?
        .map_err(|e| match e {
            FilesError::Changed => AgentError::Invalid(e.to_string()),
            FilesError::Io(e) => io_error(e),
        })
    }
}

/// What the snapshots of `root` never hold: the files its ignore files leave out.
fn ignore_notes(root: &std::path::Path) -> Vec<String> {
    let files: Vec<&str> = [".gitignore", ".ignore", ".rooignore"]
        .into_iter()
        .filter(|f| root.join(f).is_file())
        .collect();
    if files.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "files ignored by {} are not snapshotted: what the turns changed there (build outputs, dependencies) is left as it is",
        files.join(", ")
    )]
}

/// The start of `text` on one line.
fn preview(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(PROMPT_PREVIEW) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_is_one_line_and_short() {
        assert_eq!(preview("fix it\nplease"), "fix it");
        let long = "x".repeat(200);
        assert_eq!(preview(&long).chars().count(), PROMPT_PREVIEW + 1);
    }

    #[test]
    fn a_damaged_id_is_an_error() {
        assert!(blob("nope").is_err());
    }
}
