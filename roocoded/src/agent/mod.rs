//! The agent engine: sessions, their turns and the loop that runs them.
//!
//! [`Engine`] is what the RPC layer talks to: it creates sessions, accepts messages
//! (starting a turn or queueing behind the running one), cancels, and recovers after a
//! crash. It holds small services, each with its own API: [`Sessions`] (finding them),
//! [`Approvals`] (requests waiting for a human), [`ProcessBook`] (command processes),
//! the store and the event log. A turn runs the agent an [`AgentSpec`] describes, with
//! the [`TurnSettings`] built once per iteration; the loop is in `turn`, tool execution
//! (always through `permission`) in `executor`. Everything that happens is an event in
//! the session's log; this module never knows who is watching — only, for the idle
//! notification (`idle`), whether anyone is.

mod approvals;
mod call_row;
mod children;
mod compaction;
mod compaction_drop;
#[cfg(test)]
mod context_cache_tests;
pub mod definitions;
mod engine;
mod error;
mod executor;
mod hooks;
mod human;
mod human_time;
mod idle;
mod import;
pub mod inline_call;
mod mcp;
mod mcp_status;
mod processes;
pub(crate) mod prompt;
mod prune;
mod recovery;
mod replay;
mod rewind;
mod runtime;
mod sandbox_notice;
mod sessions;
mod settings;
mod skills;
mod spec;
mod stored_context;
mod summarizer;
mod team;
mod tool_hooks;
mod tool_trail;
mod turn;
mod turn_config;
mod turns;
pub mod workflow;

pub use approvals::{Approvals, PermissionAnswer, PermissionAsk};
pub use engine::Engine;
pub use error::AgentError;
pub use processes::ProcessBook;
pub use sessions::Sessions;
pub use settings::TurnSettings;
pub use spec::{AgentSpec, Limits, PermissionContext, coordinating, main_tools};
