//! The [`Bench`]: one agent's workflow state loaded from the store (its function rows,
//! counters, artifacts, todo list, the skills that define its functions), changed by
//! the synchronous rules of `evaluate` and `observe`, which only record what follows
//! (rows to save, artifacts to write, texts to inject, events), and then committed in
//! one place ([`Bench::commit`]). Keeping the rules free of I/O keeps them testable.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use roocode_protocol::event::EventPayload;
use roocode_protocol::workflow::FunctionPhase;
use serde::{Deserialize, Serialize};

use super::super::{AgentError, Engine};
use super::artifacts;
use crate::skills::{Activation, FunctionSpec, Skill, SkillSet};
use crate::store::{AgentCounters, FunctionRow};
use crate::tools::{TodoItem, TodoStatus};

/// The activation arguments a row keeps (`FunctionRow::args`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredArgs {
    #[serde(default)]
    pub positional: Vec<String>,
    #[serde(default)]
    pub named: Vec<(String, String)>,
    #[serde(default)]
    pub raw: String,
}

impl StoredArgs {
    pub fn of(activation: &Activation) -> Self {
        StoredArgs {
            positional: activation.positional.clone(),
            named: activation.named.clone(),
            raw: activation.raw.clone(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    pub fn parse(json: &str) -> Self {
        serde_json::from_str(json).unwrap_or_default()
    }

    pub fn activation(&self, name: &str) -> Activation {
        Activation {
            name: name.to_string(),
            positional: self.positional.clone(),
            named: self.named.clone(),
            raw: self.raw.clone(),
        }
    }
}

/// One agent's workflow, loaded.
pub struct Bench {
    pub session_id: String,
    pub rows: Vec<FunctionRow>,
    pub skills: Arc<SkillSet>,
    pub counters: AgentCounters,
    /// The session's artifacts' texts, by name.
    pub artifacts: BTreeMap<String, String>,
    pub todos: Vec<TodoItem>,
    /// Names of the rows to save.
    pub changed: BTreeSet<String>,
    /// Artifacts to write: name, text, the function that captured it.
    pub written: Vec<(String, String, Option<String>)>,
    /// Texts for the agent's inbox, in order.
    pub injections: Vec<String>,
    pub events: Vec<EventPayload>,
    /// The todo list to set (a `sync_todos` seeded it from a checklist).
    pub todos_set: Option<Vec<TodoItem>>,
    /// User messages queued but not delivered yet (a user's activation counts from
    /// after them).
    pub pending_messages: u32,
}

impl Bench {
    /// A bench over what is given (no store): for the rules' tests and for `load`.
    pub fn new(
        session_id: &str,
        rows: Vec<FunctionRow>,
        skills: Arc<SkillSet>,
        counters: AgentCounters,
        artifacts: BTreeMap<String, String>,
        todos: Vec<TodoItem>,
    ) -> Self {
        Bench {
            session_id: session_id.to_string(),
            rows,
            skills,
            counters,
            artifacts,
            todos,
            changed: BTreeSet::new(),
            written: Vec::new(),
            injections: Vec::new(),
            events: Vec::new(),
            todos_set: None,
            pending_messages: 0,
        }
    }

    /// Loads `session_id`'s workflow; `skills` are the session's, read this turn.
    pub async fn load(
        engine: &Engine,
        session_id: &str,
        skills: Arc<SkillSet>,
        todos: Vec<TodoItem>,
    ) -> Result<Self, AgentError> {
        let store = engine.store();
        let rows = store.workflow_functions(session_id).await?;
        let counters = store.workflow_counters(session_id).await?;
        let names: Vec<String> = store
            .artifacts(session_id)
            .await?
            .into_iter()
            .map(|a| a.name)
            .collect();
        let dir = engine.artifact_dir(session_id);
        let artifacts = tokio::task::spawn_blocking(move || {
            names
                .into_iter()
                .filter_map(|name| artifacts::read(&dir, &name).map(|text| (name, text)))
                .collect::<BTreeMap<_, _>>()
        })
        .await
        .unwrap_or_default();
        Ok(Bench::new(
            session_id, rows, skills, counters, artifacts, todos,
        ))
    }

    /// Whether anything is left to commit.
    pub fn is_settled(&self) -> bool {
        self.changed.is_empty()
            && self.written.is_empty()
            && self.injections.is_empty()
            && self.events.is_empty()
            && self.todos_set.is_none()
    }

    /// Writes what the rules decided: artifacts (files first, then their records),
    /// rows, injections into the agent's inbox, the todo list, then the events.
    /// Returns whether anything was injected.
    pub async fn commit(
        mut self,
        engine: &Engine,
        todos: &crate::tools::TodoList,
    ) -> Result<bool, AgentError> {
        let store = engine.store();
        let dir: PathBuf = engine.artifact_dir(&self.session_id);
        for (name, text, function) in std::mem::take(&mut self.written) {
            let (d, n, t) = (dir.clone(), name.clone(), text.clone());
            let wrote = tokio::task::spawn_blocking(move || artifacts::write(&d, &n, &t))
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))
                .and_then(|r| r);
            if let Err(e) = wrote {
                tracing::error!(artifact = %name, "cannot write the artifact: {e}");
                self.events.push(event(
                    "artifact_failed",
                    &name,
                    None,
                    format!("the artifact `{name}` could not be written: {e}"),
                ));
                continue;
            }
            store
                .record_artifact(
                    &self.session_id,
                    &name,
                    function.as_deref(),
                    text.len() as u64,
                    &artifacts::digest(&text),
                )
                .await?;
        }
        let changed: Vec<&FunctionRow> = self
            .rows
            .iter()
            .filter(|r| self.changed.contains(&r.name))
            .collect();
        let injected = !self.injections.is_empty();
        store
            .save_workflow(
                &self.session_id,
                &changed,
                self.counters.iteration,
                &self.injections,
            )
            .await?;
        if let Some(items) = self.todos_set.take() {
            todos.replace(items);
        }
        for payload in std::mem::take(&mut self.events) {
            engine
                .events()
                .append(&self.session_id, &self.session_id, payload)
                .await?;
        }
        Ok(injected)
    }

    /// The skill defining the function `name`, when it is one.
    pub fn function(&self, name: &str) -> Option<(&Skill, &FunctionSpec)> {
        let skill = self.skills.get(name)?;
        Some((skill, skill.function.as_ref()?))
    }

    pub fn row(&self, name: &str) -> Option<&FunctionRow> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// The row of `name`, marked to be saved.
    pub fn row_mut(&mut self, name: &str) -> Option<&mut FunctionRow> {
        let row = self.rows.iter_mut().find(|r| r.name == name)?;
        self.changed.insert(row.name.clone());
        Some(row)
    }

    /// Whether `name` is in the active set and not complete.
    pub fn is_live(&self, name: &str) -> bool {
        self.row(name)
            .is_some_and(|r| r.active && r.phase != FunctionPhase::Complete)
    }

    /// The names of the live functions, in row order.
    pub fn live(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.active && r.phase != FunctionPhase::Complete)
            .map(|r| r.name.clone())
            .collect()
    }

    /// Whether the todo list or a checklist artifact of `spec` has an open item.
    pub fn open_todos(&self, spec: &FunctionSpec) -> bool {
        let todos_open = self.todos.iter().any(|t| t.status != TodoStatus::Completed);
        todos_open
            || checklist_artifacts(spec)
                .iter()
                .filter_map(|name| self.artifacts.get(name))
                .any(|text| artifacts::checklist(text).iter().any(|i| !i.done))
    }
}

/// The artifacts whose checklist `plan_todos_complete` and `sync_todos` read: those the
/// function consumes or produces, `plan` when it names none.
pub fn checklist_artifacts(spec: &FunctionSpec) -> Vec<String> {
    let mut names: Vec<String> = spec
        .consumes
        .iter()
        .chain(&spec.produces)
        .cloned()
        .collect();
    names.dedup();
    if names.is_empty() {
        names.push("plan".to_string());
    }
    names
}

/// A `workflow` event.
pub fn event(
    step: &str,
    name: &str,
    phase: Option<FunctionPhase>,
    message: String,
) -> EventPayload {
    EventPayload::Workflow {
        step: step.to_string(),
        name: name.to_string(),
        phase,
        message,
    }
}
