//! A loop's rounds: each one recorded, then started as a background sub-agent of the
//! loop's origin (`general-purpose`, told its round and, in `inherit` mode, the
//! previous round's summary). When a round's worker ends, [`Engine::loop_round_ended`]
//! takes the place of its task notification: the round is recorded with a fingerprint
//! (its summary and the workspace it left), a `[loop round i/N]` line goes to the
//! origin's inbox, and the loop either starts the next round or ends — all rounds run,
//! `LOOP_DONE`, the stall guard (two rounds in a row that changed nothing), a stop —
//! with a report that wakes the origin.
//!
//! After a restart ([`Engine::resume_loops`]) a running round's worker has been resumed
//! with the other background agents; a round whose worker ended is completed; a round
//! recorded but never started is marked `interrupted` and reported at the origin's next
//! message, and the loop goes on with the next round. No round runs twice: a round is
//! recorded once (the store refuses a second), and only its own worker ends it.

use std::path::Path;
use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;

use roocode_protocol::agents::AgentState;
use roocode_protocol::session::ClientEnv;
use roocode_protocol::workflow::LoopPhase;
use tokio_util::sync::CancellationToken;

use super::super::children::{Outcome, ParentCall};
use super::super::{AgentError, Engine};
use super::bench::event;
use super::loops::{one_line, short};
use crate::store::{AgentRow, LoopRow, RoundRow};
use crate::tools::{AgentRequest, FileState};
use crate::workflow::looping::{self, Mode, RoundFingerprint};

/// Rounds failing in a row that end a loop.
const MAX_FAILED_ROUNDS: usize = 2;

/// The agent type of a round's worker.
const WORKER_TYPE: &str = "general-purpose";

/// The most files the stall guard's workspace fingerprint reads; a bigger tree is
/// judged by the workers' summaries alone.
const MAX_FINGERPRINT_FILES: usize = 20_000;

impl Engine {
    /// Records round `round` of `lp` and starts its worker (`seed`: the previous round's
    /// summary, in `inherit` mode). The worker's id is recorded with the round before the
    /// worker exists; a loop that no longer runs starts nothing.
    pub(super) async fn start_round(
        self: &Arc<Self>,
        lp: &LoopRow,
        round: u32,
        seed: Option<String>,
        env: ClientEnv,
    ) -> Result<(), AgentError> {
        let store = self.store();
        let agent_id = uuid::Uuid::now_v7().to_string();
        if !store.insert_round(&lp.id, round, &agent_id).await? {
            return Ok(());
        }
        let started = match self.start_worker(lp, round, seed, env, &agent_id).await {
            Ok(started) => started,
            Err(e) => {
                let error = e.to_string();
                store
                    .end_round(&lp.id, round, "failed", Some(&error), None, None)
                    .await?;
                return Err(e);
            }
        };
        if !store.set_round_running(&lp.id, round).await? {
            // Stopped while its worker was being started: the worker stops too.
            self.stop_agent(&started.id).await?;
            return Ok(());
        }
        let message = format!(
            "loop {} round {round}/{} started ({})",
            short(&lp.id),
            lp.rounds,
            started.name
        );
        self.events()
            .append(
                &lp.session_id,
                &started.id,
                event("round_started", &lp.id, None, message),
            )
            .await?;
        Ok(())
    }

    /// Starts the worker of a round as the background sub-agent `agent_id` of the
    /// loop's origin.
    async fn start_worker(
        self: &Arc<Self>,
        lp: &LoopRow,
        round: u32,
        seed: Option<String>,
        env: ClientEnv,
        agent_id: &str,
    ) -> Result<super::super::children::Started, AgentError> {
        let Some(origin) = self.store().session(&lp.session_id).await? else {
            return Err(AgentError::NotFound(format!(
                "the loop's session {} is gone",
                lp.session_id
            )));
        };
        let config = self.config(Path::new(&origin.root))?;
        let spec = Self::loop_spec(lp);
        let prompt = looping::round_prompt(&spec, round, seed.as_deref());
        let files = match self.runtimes.get(&origin.id) {
            Some(rt) => rt.files.clone(),
            None => Arc::new(FileState::default()),
        };
        let parent = ParentCall {
            session: origin,
            env,
            config,
            system_prompt: String::new(),
            tool_names: Vec::new(),
            cancel: CancellationToken::new(),
            files,
        };
        let request = AgentRequest {
            prompt,
            description: format!("loop {} round {round}/{}", short(&lp.id), lp.rounds),
            subagent_type: Some(WORKER_TYPE.to_string()),
            model: None,
            run_in_background: true,
            name: Some(format!("loop-round-{round}")),
            isolation: None,
            resume: None,
            team_name: None,
            mode: None,
            backend: None,
            tools: None,
            scope: None,
        };
        let plan = self
            .plan_child(&parent, &request)
            .map_err(AgentError::Invalid)?;
        self.record_planned_as(agent_id, &parent, &request, plan)
            .await
            .map_err(AgentError::Invalid)
    }

    /// The worker `row` of a loop's round ended with `outcome`: handled here instead of
    /// its task notification. Returns whether `row` was a round's worker. (Boxed: a
    /// round's end starts the next round, whose end comes back here.)
    pub(in crate::agent) fn loop_round_ended<'a>(
        self: &'a Arc<Self>,
        row: &'a AgentRow,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<bool, AgentError>> {
        self.round_ended(row, outcome).boxed()
    }

    async fn round_ended(
        self: &Arc<Self>,
        row: &AgentRow,
        outcome: &Outcome,
    ) -> Result<bool, AgentError> {
        let store = self.store();
        let Some(round) = store.round_of_agent(&row.id).await? else {
            return Ok(false);
        };
        let _held = self.workflow_locks.lock(&round.loop_id).await;
        let Some(lp) = store.workflow_loop(&round.loop_id).await? else {
            return Ok(false);
        };
        let state = match outcome.state {
            AgentState::Completed => "completed",
            AgentState::Cancelled => "stopped",
            AgentState::Failed
            | AgentState::Queued
            | AgentState::Running
            | AgentState::Waiting
            | AgentState::Idle
            | AgentState::Unknown => "failed",
        };
        let summary = match &outcome.error {
            Some(error) if outcome.result.trim().is_empty() => format!("failed: {error}"),
            Some(error) => format!("failed: {error}\n{}", outcome.result),
            None => outcome.result.clone(),
        };
        let workspace = self.workspace_fingerprint(&row.id).await;
        let hash = format!("{:016x}", crate::workflow::fnv(summary.trim()));
        let ended = store
            .end_round(
                &round.loop_id,
                round.round,
                state,
                Some(&summary),
                Some(&hash),
                workspace.as_deref(),
            )
            .await?;
        let last = store
            .loop_rounds(&round.loop_id)
            .await?
            .last()
            .is_some_and(|r| r.round == round.round);
        match (ended, lp.phase) {
            // The usual end of a round, or one whose end the daemon recorded before it
            // stopped (the loop still waits on it).
            (true, _) | (false, LoopPhase::Running) if last => {
                self.advance_loop(&round.loop_id, Some(row)).await?;
            }
            // The worker of a round the user stopped: the loop's report is its end.
            (false, LoopPhase::Stopped) if last => {
                self.report_loop_end(&round.loop_id, Some(row)).await?;
            }
            // A worker its origin resumed later (Agent with resume): its answer is the
            // origin's, as any agent's.
            _ => return Ok(false),
        }
        // Told (or past telling): never a task notification of its own.
        store.mark_notified(&row.id).await?;
        Ok(true)
    }

    /// What follows the loop's last round: nothing while one runs, else the next round
    /// or the loop's end (see the module doc). `worker`: the round's worker that just
    /// ended, whose notification the final report becomes.
    pub(super) async fn advance_loop(
        self: &Arc<Self>,
        loop_id: &str,
        worker: Option<&AgentRow>,
    ) -> Result<(), AgentError> {
        let store = self.store();
        let Some(lp) = store.workflow_loop(loop_id).await? else {
            return Ok(());
        };
        let rounds = store.loop_rounds(loop_id).await?;
        let Some(last) = rounds.last() else {
            return Ok(());
        };
        if matches!(last.state.as_str(), "starting" | "running") {
            return Ok(());
        }
        let line = looping::progress_line(
            last.round,
            lp.rounds,
            last.summary.as_deref().unwrap_or(&last.state),
        );
        if lp.phase != LoopPhase::Running {
            return self.report_loop_end(loop_id, worker).await;
        }
        // "No change" is judged by the workspace the round left; by the worker's summary
        // only when the workspace could not be read.
        let fingerprints: Vec<RoundFingerprint> = rounds
            .iter()
            .filter(|r| r.state == "completed")
            .map(|r| RoundFingerprint {
                summary_hash: match &r.workspace {
                    Some(_) => 0,
                    None => r
                        .summary_hash
                        .as_deref()
                        .and_then(|h| u64::from_str_radix(h, 16).ok())
                        .unwrap_or(0),
                },
                workspace: r.workspace.clone(),
            })
            .collect();
        let failed_in_a_row = rounds
            .iter()
            .rev()
            .take_while(|r| matches!(r.state.as_str(), "failed" | "interrupted"))
            .count();
        let done =
            last.state == "completed" && looping::done(last.summary.as_deref().unwrap_or(""));
        let end = if done {
            Some((
                LoopPhase::Complete,
                format!("round {} said the objective is met (LOOP_DONE)", last.round),
            ))
        } else if last.round >= lp.rounds {
            Some((LoopPhase::Complete, format!("all {} rounds ran", lp.rounds)))
        } else if failed_in_a_row >= MAX_FAILED_ROUNDS {
            Some((
                LoopPhase::Failed,
                format!("{failed_in_a_row} rounds in a row failed"),
            ))
        } else if looping::stalled(&fingerprints) {
            Some((
                LoopPhase::Stalled,
                format!(
                    "stall guard: rounds {} and {} changed nothing",
                    last.round.saturating_sub(1),
                    last.round
                ),
            ))
        } else {
            None
        };
        if let Some((phase, reason)) = end {
            store.end_loop(loop_id, phase, &reason).await?;
            return self.report_loop_end(loop_id, worker).await;
        }
        // The next round, seeded from the last one that completed.
        let seed = match Mode::parse(&lp.mode) {
            Some(Mode::Fresh) => None,
            Some(Mode::Inherit) | None => rounds
                .iter()
                .rev()
                .find(|r| r.state == "completed")
                .and_then(|r| r.summary.as_deref())
                .map(looping::seed),
        };
        let env = self.client_env(&lp.session_id).await;
        let next = last.round + 1;
        if let Err(e) = self.start_round(&lp, next, seed, env).await {
            let reason = format!("round {next} could not be started: {e}");
            store.end_loop(loop_id, LoopPhase::Failed, &reason).await?;
            return self.report_loop_end(loop_id, worker).await;
        }
        // The origin reads the line at its next model call (no wake); the worker is
        // marked told with it, in one transaction.
        match worker {
            Some(w) => {
                store
                    .notify_parent(&w.id, crate::store::InjectionKind::Workflow, &line)
                    .await?;
            }
            None => self.tell_origin(&lp, &line).await?,
        }
        let agent = worker.map_or(lp.session_id.as_str(), |w| w.id.as_str());
        self.events()
            .append(
                &lp.session_id,
                agent,
                event(
                    "loop_round",
                    &lp.id,
                    None,
                    format!("loop {} {line}", short(&lp.id)),
                ),
            )
            .await?;
        Ok(())
    }

    /// The loop has ended: its report (every round's gist, why it ended) goes to the
    /// origin, whom it wakes — as the task notification of `worker` when a round's
    /// worker ended last, so a client waiting for the origin's agents sees it delivered.
    pub(super) async fn report_loop_end(
        self: &Arc<Self>,
        loop_id: &str,
        worker: Option<&AgentRow>,
    ) -> Result<(), AgentError> {
        let store = self.store();
        let Some(lp) = store.workflow_loop(loop_id).await? else {
            return Ok(());
        };
        // Whichever path ends the loop (a round's end, a stop, a resume) reports it once.
        if !store.mark_loop_reported(loop_id).await? {
            return Ok(());
        }
        let rounds = store.loop_rounds(loop_id).await?;
        let reason = lp
            .reason
            .clone()
            .unwrap_or_else(|| lp.phase.as_str().to_string());
        let mut report = format!(
            "[loop {} {}] {reason}. Task: {}\n",
            short(&lp.id),
            lp.phase.as_str(),
            one_line(&lp.task)
        );
        for r in &rounds {
            report.push_str(&format!(
                "{}\n",
                looping::progress_line(r.round, lp.rounds, &round_gist(r))
            ));
        }
        if let Some(last) = rounds.iter().rev().find(|r| r.state == "completed") {
            report.push_str(&format!(
                "\nThe last round's summary:\n{}\n",
                looping::seed(last.summary.as_deref().unwrap_or(""))
            ));
        }
        report.push_str("Tell the user what the loop did and what is left.");
        self.events()
            .append(
                &lp.session_id,
                worker.map_or(lp.session_id.as_str(), |w| w.id.as_str()),
                event(
                    "loop",
                    &lp.id,
                    None,
                    format!("loop {} {}: {reason}", short(&lp.id), lp.phase.as_str()),
                ),
            )
            .await?;
        match worker {
            Some(worker) => self.notify_loop_end(worker, &report).await,
            None => {
                self.tell_origin(&lp, &report).await?;
                self.wake(&lp.session_id).await
            }
        }
    }

    /// After a start, once the background agents have been resumed: every running loop
    /// goes on from its stored rounds (see the module doc).
    pub async fn resume_loops(self: &Arc<Self>) -> Result<(), AgentError> {
        for lp in self.store().workflow_loops(None, true).await? {
            if let Err(e) = self.resume_loop(&lp).await {
                tracing::error!(loop_id = %lp.id, "cannot resume the loop: {e}");
            }
        }
        Ok(())
    }

    async fn resume_loop(self: &Arc<Self>, lp: &LoopRow) -> Result<(), AgentError> {
        let store = self.store();
        let held = self.workflow_locks.lock(&lp.id).await;
        let rounds = store.loop_rounds(&lp.id).await?;
        let Some(last) = rounds.last() else {
            // Recorded, but the daemon stopped before its first round was.
            drop(held);
            let env = self.client_env(&lp.session_id).await;
            return self.start_round(lp, 1, None, env).await;
        };
        if !matches!(last.state.as_str(), "starting" | "running") {
            return self.advance_loop(&lp.id, None).await;
        }
        let worker = match &last.agent_id {
            Some(agent) => store.agent(agent).await?,
            None => None,
        };
        match worker {
            // Resumed with the other background agents: its end comes as usual.
            Some(row) if !row.state.is_final() => Ok(()),
            // It ended, and the daemon stopped before the loop heard of it.
            Some(row) => {
                drop(held);
                let outcome = Outcome::recorded(&row);
                self.loop_round_ended(&row, &outcome).await.map(|_| ())
            }
            // Recorded, but its worker never started.
            None => {
                store
                    .end_round(&lp.id, last.round, "interrupted", None, None, None)
                    .await?;
                self.tell_origin(
                    lp,
                    &format!(
                        "[loop {} round {}/{}] interrupted: the daemon stopped before its worker started; the loop goes on with the next round.",
                        short(&lp.id),
                        last.round,
                        lp.rounds
                    ),
                )
                .await?;
                tracing::warn!(loop_id = %lp.id, round = last.round, "a loop round was lost in a restart");
                self.advance_loop(&lp.id, None).await
            }
        }
    }

    /// A fingerprint of the workspace `agent_id` worked in: every file's path, size and
    /// modification time (ignored files left out); `None` when it cannot be read or is
    /// too big.
    async fn workspace_fingerprint(&self, agent_id: &str) -> Option<String> {
        let session = self.store().session(agent_id).await.ok()??;
        let root = std::path::PathBuf::from(&session.root);
        tokio::task::spawn_blocking(move || fingerprint_tree(&root))
            .await
            .ok()?
    }
}

/// The first line of a round's summary, or its state.
fn round_gist(r: &RoundRow) -> String {
    match r.summary.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(summary) if r.state == "completed" => summary.to_string(),
        Some(summary) => format!("{}: {summary}", r.state),
        None => r.state.clone(),
    }
}

/// See [`Engine::workspace_fingerprint`].
fn fingerprint_tree(root: &Path) -> Option<String> {
    let mut entries = Vec::new();
    for entry in ignore::WalkBuilder::new(root).hidden(false).build() {
        let entry = entry.ok()?;
        if entry.path().components().any(|c| c.as_os_str() == ".git") {
            continue;
        }
        let meta = entry.metadata().ok()?;
        if !meta.is_file() {
            continue;
        }
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        entries.push(format!(
            "{}\0{}\0{modified}",
            entry
                .path()
                .strip_prefix(root)
                .unwrap_or(entry.path())
                .display(),
            meta.len()
        ));
        if entries.len() > MAX_FINGERPRINT_FILES {
            return None;
        }
    }
    entries.sort();
    Some(format!(
        "{:016x}",
        crate::workflow::fnv(&entries.join("\n"))
    ))
}
