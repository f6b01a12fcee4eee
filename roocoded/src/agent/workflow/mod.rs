//! The engine's side of workflow functions (rolebox's pipeline, seed 001): skills with
//! state, kept per agent in SQLite so a workflow outlives every terminal and a daemon
//! crash.
//!
//! - A user activates a function with `|name|` at the start of a message
//!   (`Engine::activate_functions`), `skills.auto` activates one at each turn's start
//!   (locked when it says `locked: true`), and transitions activate others.
//! - Before every model call the turn loads the agent's [`Bench`], evaluates gates and
//!   transitions and tells the model what changed (`evaluate`), all through the
//!   agent's inbox; after each tool call and each assistant message the observers run
//!   (`observe`); at the end of a turn `continue_until` may send the agent back to work
//!   (`agent::turn::workflow`).
//! - Artifacts are files under the data directory ([`artifacts`]).
//!
//! Every phase change, transition, artifact capture and piece of evidence is a
//! `workflow` event on the agent's stream; `workflow.get` ([`Engine::workflow_info`])
//! shows the whole state.

pub mod artifacts;
mod bench;
mod evaluate;
mod facts;
mod graph;
mod locks;
mod loops;
mod observe;
mod rounds;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use roocode_protocol::workflow::{ArtifactInfo, FunctionInfo, FunctionPhase, WorkflowInfo};

pub use bench::{Bench, StoredArgs, event as bench_event};
pub use evaluate::Origin;
pub use locks::WorkflowLocks;
pub use loops::LOOP_SKILL;

use super::{AgentError, Engine};
use crate::skills::SkillSet;
use crate::store::SessionRow;

impl Engine {
    /// Activates the functions a user's message names (`|plan|`), before the message
    /// is queued; the model is told at its next call.
    pub(crate) async fn activate_functions(
        &self,
        row: &SessionRow,
        skills: Arc<SkillSet>,
        functions: &[(String, StoredArgs)],
    ) -> Result<(), AgentError> {
        if functions.is_empty() {
            return Ok(());
        }
        let rt = self.runtime(&row.id).await?;
        let mut bench = Bench::load(self, &row.id, skills, rt.todos.snapshot()).await?;
        // Messages queued before this one are delivered first: none of them approves.
        bench.pending_messages = u32::try_from(rt.state.lock().await.queue.len()).unwrap_or(0);
        for (name, args) in functions {
            bench.activate(name, args, Origin::User);
        }
        rt.workflow.store(true, std::sync::atomic::Ordering::SeqCst);
        bench.commit(self, &rt.todos).await?;
        Ok(())
    }

    /// The `skills.auto` functions not live yet, activated (locked when they say so).
    pub(crate) async fn activate_auto_functions(
        &self,
        session_id: &str,
        skills: Arc<SkillSet>,
        auto: &[String],
        todos: &crate::tools::TodoList,
    ) -> Result<bool, AgentError> {
        let names: Vec<&String> = auto
            .iter()
            .filter(|n| skills.get(n).is_some_and(|s| s.function.is_some()))
            .collect();
        if names.is_empty() {
            return Ok(false);
        }
        let mut bench = Bench::load(self, session_id, skills, todos.snapshot()).await?;
        for name in names {
            bench.activate(name, &StoredArgs::default(), Origin::Auto);
        }
        bench.commit(self, todos).await?;
        Ok(true)
    }

    /// One agent's workflow: its functions, with what their gates wait for, and its
    /// session's artifacts.
    pub async fn workflow_info(&self, given: &str) -> Result<WorkflowInfo, AgentError> {
        let row = self.resolve(given).await?;
        let env = self.client_env(&row.id).await;
        let skills = Arc::new(super::skills::load(self, &row, &env).await);
        let todos = match self.runtimes.get(&row.id) {
            Some(rt) => rt.todos.snapshot(),
            None => Vec::new(),
        };
        let bench = Bench::load(self, &row.id, skills, todos).await?;
        let mut functions: Vec<FunctionInfo> = bench
            .rows
            .iter()
            .map(|r| {
                let spec = bench.function(&r.name).map(|(_, spec)| spec);
                FunctionInfo {
                    name: r.name.clone(),
                    phase: r.phase,
                    active: r.active,
                    locked: r.locked,
                    activated_at: r.activated_at,
                    iteration: bench.counters.iteration,
                    evidence: r.evidence.clone(),
                    requires_evidence: spec
                        .map(|s| s.requires_evidence.clone())
                        .unwrap_or_default(),
                    tools: r.tools.clone(),
                    continuations: r.continuations,
                    state: r.kv.clone(),
                    produces: spec.map(|s| s.produces.clone()).unwrap_or_default(),
                    consumes: spec.map(|s| s.consumes.clone()).unwrap_or_default(),
                    waiting_for: match r.phase {
                        FunctionPhase::Gated => bench.waiting_for(&r.name),
                        FunctionPhase::Active | FunctionPhase::Complete => Vec::new(),
                    },
                    missing: spec.is_none(),
                }
            })
            .collect();
        functions.sort_by_key(|f| (!f.active, f.name.clone()));
        let dir = self.artifact_dir(&row.id);
        let artifacts = self
            .store()
            .artifacts(&row.id)
            .await?
            .into_iter()
            .map(|a| ArtifactInfo {
                path: artifacts::artifact_path(&dir, &a.name)
                    .display()
                    .to_string(),
                name: a.name,
                function: a.function,
                bytes: a.bytes,
                updated_at_ms: a.updated_at,
            })
            .collect();
        let loops = self.loop_infos(Some(&row.id)).await?;
        let graph = self.graph_info(&row.id).await?;
        Ok(WorkflowInfo {
            session_id: row.id,
            functions,
            artifacts,
            iteration: bench.counters.iteration,
            loops,
            graph,
        })
    }
}
