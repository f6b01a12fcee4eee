//! The RooCode wire contract: every type that crosses the daemon's socket and the
//! JSON-RPC API declared once, used by `roocoded` (server) and every client.
//!
//! - [`api`]: the RPC traits (`daemon.*`, `session.*`, `commands.*`, `pending.*`).
//! - [`event`]: the numbered session events clients replay and follow.
//! - [`content`]: messages as lists of content blocks (what the model sees).
//! - [`session`], [`daemon`]: request and response types.
//! - [`doctor`]: the health report of `doctor.run`.
//! - [`display`]: how clients name a tool call on one line.
//! - [`mode`]: the permission mode ([`Mode`]).
//! - [`question`]: the questions of `AskUserQuestion` and how answers resolve.
//! - [`short_id`]: the short session ids people see and type.
//! - [`paths`]: where the daemon's files live (shared so clients find the socket).
//! - [`client`]: connecting to the daemon, the handshake, and auto-start.

pub mod api;
pub mod client;
pub mod content;
pub mod daemon;
pub mod display;
pub mod doctor;
pub mod error;
pub mod event;
pub mod mode;
pub mod paths;
pub mod question;
pub mod session;
pub mod short_id;

pub use mode::Mode;

/// Version of the wire protocol. Bumped on any incompatible change of this crate.
pub const PROTOCOL_VERSION: u32 = 1;

/// Version of this build of RooCode.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Identifies the sources this binary was built from (`<version>+<git hash>`).
pub const BUILD_ID: &str = env!("ROOCODE_BUILD_ID");
