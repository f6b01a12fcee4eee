//! The RooCode wire contract: every type that crosses the daemon's socket and the
//! JSON-RPC API declared once, used by `roocoded` (server) and every client.
//!
//! - [`api`]: the RPC traits (`daemon.*`, `session.*`, `commands.*`, `pending.*`, `team.*`, `mcp.*`, …).
//! - [`event`]: the numbered session events clients replay and follow.
//! - [`content`]: messages as lists of content blocks (what the model sees).
//! - [`session`], [`daemon`]: request and response types.
//! - [`doctor`]: the health report of `doctor.run`.
//! - [`agents`]: the agent definitions of `agent.definitions`.
//! - [`mcp`]: MCP servers as `mcp.list|get|approve` show them.
//! - [`mode`]: the permission mode ([`Mode`]).
//! - [`error`]: the typed codes of RPC errors; [`error_kind`]: the classes of `error` events.
//! - [`question`]: the questions of `AskUserQuestion` and how answers resolve.
//! - [`rewind`]: a session's turns and the plan and outcome of `session.rewind`.
//! - [`teams`]: agent teams: member states, `team.*` and `mailbox.*` answers.
//! - [`trace`]: the flight recorder's timeline of a session (`session.trace`).
//! - [`short_id`]: the short session ids people see and type.
//! - [`paths`]: where the daemon's files live (shared so clients find the socket).
//! - [`prune`]: what `daemon.prune` removes from RooCode's data.
//! - [`replay`]: `session.replay`, a recorded session run again offline.
//! - [`schema`]: the JSON Schema of all of it, for clients not written in Rust.
//!
//! Connecting, auto-start and the event feed clients share live in `roocode-client`.
//!
//! # Compatibility
//!
//! Every enum the daemon sends decodes a value this build does not know into a
//! fallback variant (`Unknown`), so an older client goes on when a newer daemon adds
//! an event type, a content block, a status or an error kind, and only skips what it
//! cannot understand. Enums a client sends (a [`session::PermissionDecision`]) have no
//! fallback: the daemon refuses what it does not know with
//! [`error::RpcErrorCode::InvalidParams`] rather than guess.
//!
//! # The JSON Schema
//!
//! `protocol/schema/protocol.json` is generated from these types (see [`schema`]). A
//! test compares it with the types; after changing a wire type, regenerate it with
//! `ROOCODE_WRITE_SCHEMA=1 cargo test -p roocode-protocol schema` and commit the file.

pub mod agents;
pub mod api;
pub mod command;
pub mod content;
pub mod daemon;
pub mod doctor;
pub mod error;
pub mod error_kind;
pub mod event;
pub mod hooks;
pub mod mcp;
pub mod mode;
pub mod paths;
pub mod prune;
pub mod question;
pub mod replay;
pub mod rewind;
pub mod schema;
pub mod session;
pub mod short_id;
pub mod teams;
pub mod trace;
pub mod workflow;

pub use mode::Mode;

/// Version of the wire protocol, checked by `daemon.hello`: a client and a daemon of
/// different versions refuse to talk (beyond restarting the daemon).
///
/// The rule: bump it only for a change an older peer cannot decode or would
/// misunderstand — a field removed, renamed or made required, a type changed, a
/// method's meaning changed. Additions an older peer survives do not bump it: an
/// optional field (`#[serde(default)]`), a new method, a new variant of an enum the
/// daemon sends (it decodes into the fallback `Unknown`, see the crate docs), a new
/// error code (read as `RpcErrorCode::Unknown`). Typing `ErrorInfo.kind` and the
/// fallback variants kept the JSON of version 1 as it was, so it stays 1.
pub const PROTOCOL_VERSION: u32 = 1;

/// Version of this build of RooCode.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Identifies the sources this binary was built from (`<version>+<git hash>`).
pub const BUILD_ID: &str = env!("ROOCODE_BUILD_ID");
