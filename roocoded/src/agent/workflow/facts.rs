//! What a function's conditions are evaluated against: its own row (evidence, tools
//! seen, key-value store, where it was activated), the agent's counters, the session's
//! artifacts and the agent's todo list.

use super::bench::Bench;
use crate::skills::FunctionSpec;
use crate::store::FunctionRow;
use crate::workflow::condition::Facts;

/// The facts of one function in one agent.
pub struct FunctionFacts<'a> {
    pub bench: &'a Bench,
    pub row: &'a FunctionRow,
    pub spec: &'a FunctionSpec,
}

impl Facts for FunctionFacts<'_> {
    /// A genuine user message was delivered in this turn after the one that activated
    /// the function (the activating message itself approves nothing).
    fn user_approval(&self) -> bool {
        let turn = self.bench.counters.turn_message;
        turn > 0 && turn > self.row.activated_message
    }

    fn artifact_exists(&self, name: &str) -> bool {
        self.bench
            .artifacts
            .get(name)
            .is_some_and(|t| !t.trim().is_empty())
    }

    fn plan_todos_complete(&self) -> bool {
        !self.bench.open_todos(self.spec)
    }

    fn evidence_met(&self) -> bool {
        self.spec
            .requires_evidence
            .iter()
            .all(|tag| self.row.evidence.contains(tag))
    }

    fn tool_observed(&self, tool: &str) -> bool {
        self.row.tools.iter().any(|t| t == tool)
    }

    /// Model calls of the agent since the function was activated.
    fn turn_count(&self) -> u32 {
        self.bench
            .counters
            .iteration
            .saturating_sub(self.row.activated_at)
    }

    fn state(&self, key: &str) -> Option<String> {
        self.row.kv.get(key).cloned()
    }
}
