//! What every RooCode client shares, so the CLI, the TUI and the tests reach the daemon
//! the same way: opening the socket and the `daemon.hello` handshake ([`mod@connect`]),
//! starting the daemon when nothing answers ([`autostart`]), following a session's
//! numbered events without losing or repeating one ([`feed`]), naming a tool call on
//! one line ([`display`]), sub-agents and their events ([`agents`]), teams and theirs
//! ([`teams`]), rewinds ([`rewind`]), replays ([`replay`]), a session's transcript for people
//! ([`transcript`]), a session's trace as lines and "why" ([`mod@trace`]), and the environment a client forwards ([`mod@env`]).
//!
//! The wire types and RPC traits themselves live in `roocode-protocol`, which the
//! daemon shares; nothing here is used by the daemon.

pub mod agents;
pub mod autostart;
pub mod connect;
pub mod display;
pub mod env;
pub mod feed;
pub mod replay;
pub mod rewind;
pub mod rpc_error;
pub mod sequence;
pub mod teams;
pub mod trace;
pub mod transcript;
pub mod workflow;

pub use connect::{ConnectError, RpcClient, build_mismatch_warning, connect, connect_raw};
pub use env::client_env;
pub use feed::EventFeed;
pub use rpc_error::{RpcFailure, error_message};
