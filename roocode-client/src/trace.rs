//! A session's trace (`session.trace`, [`roocode_protocol::trace::SessionTrace`]) as both clients show it:
//! `roocode-cli trace` prints it, the TUI's trace view (Ctrl+T) draws it.
//!
//! - [`filter()`]: the part of a trace one asked for — one turn of the main agent
//!   (`--turn N`, with the sub-agents started in it) and/or one agent's subtree
//!   (`--agent ID`: an agent id, a unique prefix of it or of its short id, or a
//!   sub-agent's name); errors say which turns and agents there are;
//! - [`timeline()`]: the trace as [`TraceLine`]s — a small line model (depth, kind,
//!   tone, text, and the call id of a tool line) that the CLI prints indented and the
//!   TUI styles — ending with a totals line ([`Totals`]);
//! - [`why()`]: one paragraph answering "why was this call allowed, denied or asked":
//!   the tool and its input, the agent, turn and model call, the decision, the layer
//!   with its details (a rule's text, file and line; the mode; a hook; who answered),
//!   and how the call ended; [`find_call`] resolves a call id or a unique prefix of
//!   one.
//!
//! [`example`] is a hand-built trace of every kind of line, for the clients' tests.

mod filter;
mod format;
mod timeline;
mod why;

pub mod example;

pub use filter::{Filter, FilterError, filter};
pub use timeline::{LineKind, Tone, Totals, TraceLine, layer_detail, timeline, totals};
pub use why::{CallLookup, FoundCall, find_call, why};

use roocode_protocol::trace::AgentTrace;

/// Every agent of `agent`'s tree, `agent` first, depth first in the order the trace
/// lists them (a turn's sub-agents before the agents placed under no turn).
pub fn agents(agent: &AgentTrace) -> Vec<&AgentTrace> {
    let mut out = vec![agent];
    for turn in &agent.turns {
        for child in &turn.agents {
            out.extend(agents(child));
        }
    }
    for child in &agent.agents {
        out.extend(agents(child));
    }
    out
}

/// How an agent is named in a trace: `main agent`, `sub-agent scout (Explore)
/// 5c0a7e1d`, `teammate builder 1a2b3c4d`.
pub fn agent_label(agent: &AgentTrace) -> String {
    let short = crate::agents::short(&agent.agent_id);
    let kind = match agent.kind.as_str() {
        "main" => return "main agent".to_owned(),
        "teammate" => "teammate",
        "sub_agent" => "sub-agent",
        other => other,
    };
    let mut out = kind.to_owned();
    if !agent.name.is_empty() {
        out.push(' ');
        out.push_str(&agent.name);
    }
    if !agent.agent_type.is_empty() && agent.agent_type != agent.name {
        out.push_str(&format!(" ({})", agent.agent_type));
    }
    out.push(' ');
    out.push_str(&short);
    out
}
