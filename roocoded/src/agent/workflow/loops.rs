//! `|loop|`: a task run in rounds of background workers (rolebox's LoopCoordinator,
//! kept in SQLite). `|loop:3,fresh| task` records a loop for the agent that received
//! the message (its origin) and starts round 1 as a background sub-agent of it; each
//! round's end is handled in `rounds` (the next round seeded with this one's summary
//! in `inherit` mode, a `[loop round i/N]` line in the origin's inbox, the stall guard,
//! the final report that wakes the origin).
//!
//! Limits: one running loop per origin; a task already looping in an ancestor is
//! refused; at most [`MAX_LIVE_PER_ROOT`] running loops under one root session. The
//! built-in skill `loop` names it; a project or user skill called `loop` shadows it
//! and is then an ordinary skill.

use std::sync::Arc;

use roocode_protocol::session::ClientEnv;
use roocode_protocol::workflow::{LoopInfo, LoopPhase, RoundInfo};

use super::super::{AgentError, Engine};
use super::bench::event;
use crate::skills::Activation;
use crate::store::{InjectionKind, LoopRow, SessionRow};
use crate::workflow::looping::{self, LoopSpec, MAX_LIVE_PER_ROOT, Mode};

/// The skill name that starts a loop.
pub const LOOP_SKILL: &str = "loop";

/// The most parents followed up to a root (a chain longer than this is corrupt).
const MAX_DEPTH: usize = 16;

impl Engine {
    /// `|loop…| task` in a user's message to `row`: checks the limits, records the loop
    /// and starts its first round. Returns the text the origin reads with the message
    /// (the loop's id and what to expect), notices first.
    pub(crate) async fn start_loop(
        self: &Arc<Self>,
        row: &SessionRow,
        env: &ClientEnv,
        activation: &Activation,
        task: &str,
    ) -> Result<String, AgentError> {
        let parsed =
            looping::spec(activation, task).map_err(|e| AgentError::Invalid(e.to_string()))?;
        let spec = parsed.spec;
        let store = self.store();
        if let Some(running) = store.workflow_loops(Some(&row.id), true).await?.first() {
            return Err(AgentError::Invalid(format!(
                "a loop is already running in this session ({}): stop it with /stop-loop or roocode-cli loop stop {}, or wait for it to end",
                running.id, running.id
            )));
        }
        let (root, ancestors) = self.ancestry(&row.id).await?;
        for ancestor in &ancestors {
            let same = store
                .workflow_loops(Some(ancestor), true)
                .await?
                .into_iter()
                .find(|l| l.task.trim() == spec.task.trim());
            if let Some(same) = same {
                return Err(AgentError::Invalid(format!(
                    "the same task is already looping in an ancestor of this agent (loop {} of {ancestor}): a loop inside it would repeat it",
                    same.id
                )));
            }
        }
        if store.running_loops_of_root(&root).await? >= MAX_LIVE_PER_ROOT {
            return Err(AgentError::Invalid(format!(
                "{MAX_LIVE_PER_ROOT} loops are already running under this session: stop one (roocode-cli loops lists them) before starting another"
            )));
        }
        let lp = LoopRow {
            id: uuid::Uuid::now_v7().to_string(),
            session_id: row.id.clone(),
            root_id: root,
            task: spec.task.clone(),
            objective: spec.objective.clone(),
            mode: spec.mode.as_str().to_string(),
            rounds: spec.rounds,
            phase: LoopPhase::Running,
            reason: None,
            created_at: crate::clock::now_ms(),
        };
        // The store keeps one running loop per origin and the root's limit even when
        // two messages race here.
        match store.insert_loop(&lp, MAX_LIVE_PER_ROOT).await {
            Ok(true) => {}
            Ok(false) => {
                return Err(AgentError::Invalid(format!(
                    "{MAX_LIVE_PER_ROOT} loops are already running under this session: stop one (roocode-cli loops lists them) before starting another"
                )));
            }
            Err(_) => {
                return Err(AgentError::Invalid(
                    "a loop is already running in this session: stop it with /stop-loop, or wait for it to end".into(),
                ));
            }
        }
        let started = format!(
            "loop {} started: {} round(s), {} mode, on: {}",
            short(&lp.id),
            spec.rounds,
            spec.mode.as_str(),
            one_line(&spec.task)
        );
        self.events()
            .append(&row.id, &row.id, event("loop", &lp.id, None, started))
            .await?;
        for notice in &parsed.notices {
            self.events()
                .append(
                    &row.id,
                    &row.id,
                    event("loop", &lp.id, None, notice.clone()),
                )
                .await?;
        }
        if let Err(e) = self.start_round(&lp, 1, None, env.clone()).await {
            let reason = format!("its first round could not be started: {e}");
            store.end_loop(&lp.id, LoopPhase::Failed, &reason).await?;
            return Err(AgentError::Invalid(format!("the loop {reason}")));
        }
        let mut text = String::new();
        for notice in parsed.notices {
            text.push_str(&notice);
            text.push('\n');
        }
        text.push_str(&format!(
            "The user started loop {} on the task in their message: {} round(s) of background workers, {} mode{}. Do not work on the task yourself. A `[loop round i/N]` line reaches you after each round and a report when the loop ends; then tell the user what the rounds did. The user stops it with /stop-loop.",
            lp.id,
            spec.rounds,
            spec.mode.as_str(),
            spec.objective
                .as_deref()
                .map(|o| format!(", objective: {o}"))
                .unwrap_or_default()
        ));
        Ok(text)
    }

    /// The root session of `id` and its ancestors (parent first), `id` excluded.
    async fn ancestry(&self, id: &str) -> Result<(String, Vec<String>), AgentError> {
        let mut ancestors = Vec::new();
        let mut current = id.to_string();
        for _ in 0..MAX_DEPTH {
            match self.store().agent(&current).await? {
                Some(agent) => {
                    ancestors.push(agent.parent_id.clone());
                    current = agent.parent_id;
                }
                None => break,
            }
        }
        Ok((current, ancestors))
    }

    /// The loop `lp`'s specification, as stored.
    pub(super) fn loop_spec(lp: &LoopRow) -> LoopSpec {
        LoopSpec {
            rounds: lp.rounds,
            mode: Mode::parse(&lp.mode).unwrap_or(Mode::Inherit),
            objective: lp.objective.clone(),
            task: lp.task.clone(),
        }
    }

    /// The loops of a session (or all), as clients see them.
    pub async fn loop_infos(&self, session: Option<&str>) -> Result<Vec<LoopInfo>, AgentError> {
        let session = match session {
            Some(given) => Some(self.resolve(given).await?.id),
            None => None,
        };
        let mut out = Vec::new();
        for lp in self
            .store()
            .workflow_loops(session.as_deref(), false)
            .await?
        {
            out.push(self.loop_info(lp).await?);
        }
        Ok(out)
    }

    pub(super) async fn loop_info(&self, lp: LoopRow) -> Result<LoopInfo, AgentError> {
        let rounds = self.store().loop_rounds(&lp.id).await?;
        Ok(LoopInfo {
            rounds_run: rounds
                .into_iter()
                .map(|r| RoundInfo {
                    round: r.round,
                    agent_id: r.agent_id,
                    state: r.state,
                    summary: r.summary.map(|s| s.chars().take(400).collect()),
                })
                .collect(),
            id: lp.id,
            session_id: lp.session_id,
            root_id: lp.root_id,
            task: lp.task,
            objective: lp.objective,
            mode: lp.mode,
            rounds: lp.rounds,
            phase: lp.phase,
            reason: lp.reason,
            created_at_ms: lp.created_at,
        })
    }

    /// The loop `given` names (its id or a unique prefix).
    pub(super) async fn find_loop(&self, given: &str) -> Result<LoopRow, AgentError> {
        let given = given.trim();
        if let Some(lp) = self.store().workflow_loop(given).await? {
            return Ok(lp);
        }
        let mut found = self.store().loops_with_prefix(given).await?;
        match (found.pop(), found.is_empty()) {
            (Some(lp), true) if !given.is_empty() => Ok(lp),
            (Some(_), false) => Err(AgentError::Invalid(format!(
                "`{given}` names more than one loop: give more of its id"
            ))),
            _ => Err(AgentError::NotFound(format!(
                "no loop `{given}` (roocode-cli loops lists them)"
            ))),
        }
    }

    /// Stops the loop `given` and the worker of its running round; its origin is told
    /// when the worker has ended (or at once when none runs).
    pub async fn stop_loop(self: &Arc<Self>, given: &str) -> Result<LoopInfo, AgentError> {
        let lp = self.find_loop(given).await?;
        let held = self.workflow_locks.lock(&lp.id).await;
        let store = self.store();
        if !store
            .end_loop(&lp.id, LoopPhase::Stopped, "stopped by the user")
            .await?
        {
            drop(held);
            return self.loop_info(self.find_loop(&lp.id).await?).await;
        }
        let rounds = store.loop_rounds(&lp.id).await?;
        let running = rounds
            .iter()
            .rev()
            .find(|r| matches!(r.state.as_str(), "starting" | "running"))
            .cloned();
        if let Some(r) = &running {
            store
                .end_round(&lp.id, r.round, "stopped", None, None, None)
                .await?;
        }
        // Released first: the worker's end takes the lock to report the stop.
        drop(held);
        let worker = running.and_then(|r| r.agent_id);
        let stopped = match &worker {
            Some(agent) => self.stop_agent(agent).await.unwrap_or(false),
            None => false,
        };
        if !stopped {
            // No worker to end (none started, or it had ended): the report goes now.
            self.report_loop_end(&lp.id, None).await?;
        }
        self.loop_info(self.find_loop(&lp.id).await?).await
    }

    /// `/stop-loop`: stops the running loop of `session_id`.
    pub async fn stop_session_loop(
        self: &Arc<Self>,
        session_id: &str,
    ) -> Result<String, AgentError> {
        let running = self.store().workflow_loops(Some(session_id), true).await?;
        let Some(lp) = running.first() else {
            return Ok("No loop is running in this session.".to_string());
        };
        let info = self.stop_loop(&lp.id).await?;
        let rounds = info
            .rounds_run
            .iter()
            .filter(|r| r.state == "completed")
            .count();
        Ok(format!(
            "Loop {} stopped after {rounds} completed round(s) of {}; its running worker was stopped.",
            info.id, info.rounds
        ))
    }

    /// Queues a line in the origin's inbox, read at its next model call (no wake).
    pub(super) async fn tell_origin(&self, lp: &LoopRow, text: &str) -> Result<(), AgentError> {
        self.store()
            .queue_injection(&lp.session_id, InjectionKind::Workflow, text)
            .await?;
        Ok(())
    }
}

/// The last 8 characters of an id (as lists show it).
pub(super) fn short(id: &str) -> &str {
    id.get(id.len().saturating_sub(8)..).unwrap_or(id)
}

/// The first line of `text`, at most 80 characters.
pub(super) fn one_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out: String = line.trim().chars().take(80).collect();
    if line.trim().chars().count() > 80 {
        out.push('…');
    }
    out
}
