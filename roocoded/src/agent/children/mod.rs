//! Sub-agents (DESIGN.md §9): agents that agents start with the `Agent` tool.
//!
//! A child is a session of its own (kind `sub_agent`, with its own messages, read-file
//! state, permission record and usage) and an `agents` row saying who started it, as
//! what, and how it ended. It runs through the same turn loop as a main agent, as the
//! [`AgentSpec`](super::AgentSpec) its stored [`ChildSpec`] describes.
//!
//! - `spawn`: from an `Agent` call to a running child — its type (built in, or from a
//!   definition file), model, mode, tool set and first context (the task, or for a fork
//!   the parent's conversation).
//! - `run`: starting its turns (in a slot of `agents.max_concurrent` when it runs in the
//!   background), its timeout, and what happens when its turns end: its outcome goes
//!   to the waiting parent (foreground) or into the parent's inbox as a
//!   `<task-notification>` (background), exactly once.
//! - `host`: the [`AgentHost`](crate::tools::AgentHost) a parent's tool calls use
//!   (`Agent`, `TaskList`, `TaskGet`, `TaskStop`).
//! - `info`: agents as clients see them (`agent.list`, `agent.get`).
//! - `book`: the live side (who waits for whom, turn slots), rebuilt after a restart
//!   from the store, where every agent is recorded.

mod book;
mod builtin;
mod fork;
mod host;
mod info;
mod isolation;
mod notification;
mod run;
mod spawn;
mod types;

pub use book::{Book, Entry, Outcome, Phase, SlotGuard, StopCause};
pub use builtin::builtin_types;
pub use host::ChildHost;
pub(in crate::agent) use isolation::RetiredBranch;
pub use notification::summary_of;
pub use spawn::ParentCall;
pub(in crate::agent) use spawn::Started;
pub use types::{ChildSpec, latitude};
