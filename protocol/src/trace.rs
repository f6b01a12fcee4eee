//! `session.trace`: the flight recorder's timeline of a session — per agent, its turns;
//! per turn, each model call (iteration) with its size by part, tokens, cache use and
//! latency, the tool calls it asked for with their durations and who allowed them, and
//! the compactions, recoveries, injections and rewinds between them; sub-agents nested
//! under the agent that started them. `roocode-cli trace --json` prints this type, so
//! its field names are a stable format (additions only).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A part's size: characters and estimated tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PartSize {
    pub chars: u64,
    pub tokens: u64,
}

/// What a request was made of. `messages` leaves out the tool results and the
/// injections (reminders the daemon added), which have their own parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RequestParts {
    pub system: PartSize,
    pub tools: PartSize,
    pub messages: PartSize,
    pub tool_results: PartSize,
    pub injections: PartSize,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolTrace {
    pub call_id: String,
    pub tool: String,
    /// Its input, as JSON (capped).
    pub input: String,
    /// `allow`, `ask` or `deny`: the permission layer's answer.
    pub decision: String,
    /// Which layer gave it: `dangerous`, `read_only_agent`, `path_sandbox`,
    /// `credentials`, `hard_link`, `protected`, `private_address`, `opaque_command`,
    /// `rule`, `mode`, `hook`, `os_sandbox`, ...
    pub layer: String,
    /// The layer's details (the rule's text, file and line; the mode; ...).
    #[serde(default)]
    pub decided_by: Value,
    /// One sentence: why the call was allowed, asked or denied.
    pub why: String,
    /// When a human was asked: what they answered (`allow_once`, `allow_always`,
    /// `deny`), and by whom when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// `ok`, `error`, `denied`, `cancelled`.
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Unix milliseconds.
    pub started_at: i64,
    /// The tool's own time (a human's answer not counted).
    pub duration_ms: u64,
}

/// One model call of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IterationTrace {
    pub model_call_id: String,
    /// 1 for the turn's first call; a retried call keeps its iteration's number.
    pub iteration: u32,
    pub model: String,
    /// Unix milliseconds (when the call was recorded: its end).
    pub at: i64,
    pub request_bytes: u64,
    #[serde(default)]
    pub parts: RequestParts,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// Cache read tokens over all input tokens (read, written and uncached), 0 to 1.
    pub cache_hit_ratio: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The tool calls this answer asked for, in order.
    #[serde(default)]
    pub tools: Vec<ToolTrace>,
    /// Raw request and response bodies are kept for this call.
    #[serde(default)]
    pub has_bodies: bool,
}

/// Something that happened in a turn besides model and tool calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepTrace {
    /// `compaction`, `recovery`, `injected`, `rewound`, `context_cleared`, `error`.
    pub kind: String,
    /// The event's sequence number in the session's log.
    pub seq: u64,
    /// The event's time (RFC 3339).
    pub ts: String,
    /// One line for a person.
    pub text: String,
    /// The event as the log has it.
    #[serde(default)]
    pub detail: Value,
}

/// One turn of an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnTrace {
    /// As `rewind --to` takes it.
    pub number: u32,
    pub turn_id: String,
    pub started_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The start of the user message that began it.
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub iterations: Vec<IterationTrace>,
    #[serde(default)]
    pub steps: Vec<StepTrace>,
    /// Sub-agents and teammates this turn started.
    #[serde(default)]
    pub agents: Vec<AgentTrace>,
}

/// One agent: the session's main agent, a sub-agent or a teammate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentTrace {
    /// The agent's session id (the main agent's is the session's).
    pub agent_id: String,
    /// `main`, `sub_agent`, `teammate`.
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub agent_type: String,
    #[serde(default)]
    pub turns: Vec<TurnTrace>,
    /// Sub-agents whose starting turn is not known (started outside a turn).
    #[serde(default)]
    pub agents: Vec<AgentTrace>,
}

/// `session.trace_body`'s answer: what was sent to the model in one call and what came
/// back, as the flight recorder kept them (secrets scrubbed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceBody {
    /// The session (or sub-agent's session) the call belongs to.
    pub session_id: String,
    pub model_call_id: String,
    /// The request body as sent (JSON; the provider's format).
    pub request: Value,
    /// The answer as assembled: `content`, `stop_reason`, `usage`.
    pub response: Value,
}

/// `session.trace`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionTrace {
    pub session_id: String,
    /// Format version of this type (1).
    pub version: u32,
    pub agent: AgentTrace,
}
