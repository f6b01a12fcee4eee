//! Workflow functions (`workflow.*`): skills with state — their phases, the evidence
//! their observers recorded, the artifacts they produced — as `/workflow` and
//! `roocode-cli workflow` show them. Every change is also a `workflow` event on the
//! session's stream.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a function stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FunctionPhase {
    /// Its gate holds (or it has none): its instructions are in force.
    Active,
    /// Its gate does not hold yet: the model is told what it waits for.
    Gated,
    /// A transition deactivated it, or its `continue_until` held.
    Complete,
}

impl FunctionPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            FunctionPhase::Active => "active",
            FunctionPhase::Gated => "gated",
            FunctionPhase::Complete => "complete",
        }
    }

    /// `None` for a name this build does not know.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "active" => Some(FunctionPhase::Active),
            "gated" => Some(FunctionPhase::Gated),
            "complete" => Some(FunctionPhase::Complete),
            _ => None,
        }
    }
}

/// One function of an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FunctionInfo {
    pub name: String,
    pub phase: FunctionPhase,
    /// In the agent's active set (a complete function has left it).
    pub active: bool,
    /// Activated by `skills.auto` with `locked: true`: never deactivated.
    pub locked: bool,
    /// The agent's model call it was activated at, and the agent's count now.
    pub activated_at: u32,
    pub iteration: u32,
    /// The tags its observers recorded, and those `evidence_met` waits for.
    pub evidence: Vec<String>,
    #[serde(default)]
    pub requires_evidence: Vec<String>,
    /// The tools the agent called since it was activated.
    pub tools: Vec<String>,
    pub continuations: u32,
    /// Its key-value store (`state_eq` reads it).
    pub state: BTreeMap<String, String>,
    #[serde(default)]
    pub produces: Vec<String>,
    #[serde(default)]
    pub consumes: Vec<String>,
    /// The conditions its gate waits for (gated), empty otherwise.
    #[serde(default)]
    pub waiting_for: Vec<String>,
    /// The skill file no longer defines it as a function (deleted or edited).
    #[serde(default)]
    pub missing: bool,
}

/// An artifact a function captured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ArtifactInfo {
    pub name: String,
    /// The function whose observer captured it.
    #[serde(default)]
    pub function: Option<String>,
    pub bytes: u64,
    pub updated_at_ms: i64,
    /// The file holding it (readable; RooCode writes it).
    pub path: String,
}

/// Where a `|loop|` stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoopPhase {
    /// A round runs (or is about to).
    Running,
    /// Every round ran, or a worker said the objective is met.
    Complete,
    /// Two rounds in a row changed nothing: the stall guard ended it.
    Stalled,
    /// The user stopped it.
    Stopped,
    /// It could not go on (a round could not be started).
    Failed,
}

impl LoopPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            LoopPhase::Running => "running",
            LoopPhase::Complete => "complete",
            LoopPhase::Stalled => "stalled",
            LoopPhase::Stopped => "stopped",
            LoopPhase::Failed => "failed",
        }
    }

    /// `None` for a name this build does not know.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "running" => Some(LoopPhase::Running),
            "complete" => Some(LoopPhase::Complete),
            "stalled" => Some(LoopPhase::Stalled),
            "stopped" => Some(LoopPhase::Stopped),
            "failed" => Some(LoopPhase::Failed),
            _ => None,
        }
    }
}

/// One round of a loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoundInfo {
    pub round: u32,
    /// Its worker (a background sub-agent of the loop's origin), once started.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// `starting`, `running`, `completed`, `failed`, `interrupted` (the daemon lost it
    /// before its worker started), `stopped`.
    pub state: String,
    /// The start of the worker's summary.
    #[serde(default)]
    pub summary: Option<String>,
}

/// A `|loop|`: its task, settings, phase and rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LoopInfo {
    pub id: String,
    /// The agent that started it (its rounds are its background sub-agents).
    pub session_id: String,
    pub root_id: String,
    pub task: String,
    #[serde(default)]
    pub objective: Option<String>,
    /// `inherit` (each round starts from the previous round's summary) or `fresh`.
    pub mode: String,
    pub rounds: u32,
    pub phase: LoopPhase,
    /// Why it ended, for a person.
    #[serde(default)]
    pub reason: Option<String>,
    pub rounds_run: Vec<RoundInfo>,
    pub created_at_ms: i64,
}

impl LoopInfo {
    /// One line: id, phase, rounds, task.
    pub fn line(&self) -> String {
        let done = self
            .rounds_run
            .iter()
            .filter(|r| r.state == "completed")
            .count();
        let task: String = self.task.chars().take(60).collect();
        let reason = self
            .reason
            .as_deref()
            .map(|r| format!(" — {r}"))
            .unwrap_or_default();
        format!(
            "{}  {:<8} {done}/{} rounds ({})  {task}{reason}",
            short(&self.id),
            self.phase.as_str(),
            self.rounds,
            self.mode
        )
    }
}

fn short(id: &str) -> &str {
    id.get(id.len().saturating_sub(8)..).unwrap_or(id)
}

/// A collaboration graph and where its workflow stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GraphInfo {
    /// Its agents (node names), in order.
    pub agents: Vec<String>,
    /// Its edges, `a -> b: label` or `a -> (exit)`.
    pub edges: Vec<String>,
    /// The agents it expects next.
    pub frontier: Vec<String>,
    /// The agents completed in the current round.
    pub completed: Vec<String>,
    pub iteration: u32,
    /// `None` for a graph without a loop.
    #[serde(default)]
    pub max_iterations: Option<u32>,
    /// Per loop (its agents joined by `+`), the iterations it made.
    pub loop_counts: BTreeMap<String, u32>,
    /// `active`, `complete` or `exhausted`.
    pub status: String,
    /// Why it ended.
    #[serde(default)]
    pub reason: Option<String>,
    /// Dispatches off the route in a row.
    pub off_route: u32,
    /// Completions that advanced it.
    pub steps: u32,
    pub active: bool,
}

impl GraphInfo {
    /// The graph for a person.
    pub fn report(&self) -> String {
        let mut out = format!(
            "Collaboration graph ({}): {}\n",
            self.status,
            self.agents.join(", ")
        );
        for edge in &self.edges {
            out.push_str(&format!("  {edge}\n"));
        }
        let max = self
            .max_iterations
            .map(|m| format!("/{m}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  frontier: {}; completed: {}; iteration {}{max}; {} step(s); {} off-route dispatch(es) in a row\n",
            list_or_none(&self.frontier),
            list_or_none(&self.completed),
            self.iteration,
            self.steps,
            self.off_route
        ));
        if let Some(reason) = &self.reason {
            out.push_str(&format!("  ended: {reason}\n"));
        }
        out
    }
}

/// `workflow.get`'s answer: one agent's workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WorkflowInfo {
    pub session_id: String,
    /// Its functions, active ones first, by name.
    pub functions: Vec<FunctionInfo>,
    /// Its session's artifacts, by name.
    pub artifacts: Vec<ArtifactInfo>,
    /// The agent's model calls so far.
    pub iteration: u32,
    /// The loops it started, newest first.
    #[serde(default)]
    pub loops: Vec<LoopInfo>,
    /// Its collaboration graph, when it orchestrates one.
    #[serde(default)]
    pub graph: Option<GraphInfo>,
}

impl WorkflowInfo {
    /// The workflow for a person (`/workflow`, `roocode-cli workflow`): each function
    /// with its phase, what it waits for, its evidence, then the artifacts.
    pub fn report(&self) -> String {
        let mut out = String::new();
        if self.functions.is_empty() {
            out.push_str("No workflow function has been activated in this session (activate one with |plan| or |name| at the start of a message).\n");
        } else {
            out.push_str(&format!(
                "Workflow functions ({} model calls so far):\n",
                self.iteration
            ));
            for f in &self.functions {
                let mut flags = Vec::new();
                if f.locked {
                    flags.push("locked".to_string());
                }
                if f.missing {
                    flags.push("no longer defined".to_string());
                }
                if !f.active && f.phase != FunctionPhase::Complete {
                    flags.push("inactive".to_string());
                }
                let flags = if flags.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", flags.join(", "))
                };
                out.push_str(&format!(
                    "  {:<16} {:<9}{flags} since call {}, {} continuation(s)\n",
                    f.name,
                    f.phase.as_str(),
                    f.activated_at,
                    f.continuations
                ));
                if !f.waiting_for.is_empty() {
                    out.push_str(&format!("    waiting for: {}\n", f.waiting_for.join(", ")));
                }
                if !f.requires_evidence.is_empty() || !f.evidence.is_empty() {
                    out.push_str(&format!(
                        "    evidence: {} (needs: {})\n",
                        list_or_none(&f.evidence),
                        list_or_none(&f.requires_evidence)
                    ));
                }
                if !f.state.is_empty() {
                    let kv: Vec<String> = f.state.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    out.push_str(&format!("    state: {}\n", kv.join(", ")));
                }
                if !f.produces.is_empty() || !f.consumes.is_empty() {
                    out.push_str(&format!(
                        "    produces: {}; consumes: {}\n",
                        list_or_none(&f.produces),
                        list_or_none(&f.consumes)
                    ));
                }
            }
        }
        out.push_str(&self.artifacts_report());
        if let Some(graph) = &self.graph {
            out.push_str(&graph.report());
        }
        if !self.loops.is_empty() {
            out.push_str("Loops:\n");
            for l in &self.loops {
                out.push_str(&format!("  {}\n", l.line()));
                for r in &l.rounds_run {
                    let summary = r
                        .summary
                        .as_deref()
                        .and_then(|s| s.lines().find(|l| !l.trim().is_empty()))
                        .map(|s| format!(": {}", s.chars().take(80).collect::<String>()))
                        .unwrap_or_default();
                    out.push_str(&format!("    round {} {}{summary}\n", r.round, r.state));
                }
            }
        }
        out
    }

    /// The artifacts alone (`/artifacts`).
    pub fn artifacts_report(&self) -> String {
        if self.artifacts.is_empty() {
            return "No artifact yet.\n".to_string();
        }
        let mut out = String::from("Artifacts:\n");
        for a in &self.artifacts {
            let by = a
                .function
                .as_deref()
                .map(|f| format!(" by {f}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "  {:<16} {} bytes{by}  {}\n",
                a.name, a.bytes, a.path
            ));
        }
        out
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}
