//! `roocoded`: the RooCode daemon as a library. The binary (`main.rs`) only parses
//! arguments and calls [`daemon::run_blocking`].
//!
//! Layers (DESIGN.md §1), each a module talking to the others through narrow interfaces:
//! - interaction: [`rpc`] (socket server, subscriptions), [`commands`] (slash commands), [`config`]
//! - engine: [`llm`] (providers, stream normalisation, retry), [`agent`] (the loop),
//!   [`recovery`] (failure categories and the strategy chains that answer them)
//! - tools: [`tools`]; [`skills`] (skill files, their activation and argument substitution)
//! - extensions: [`hooks`] — user commands and text injections at session events
//! - memory: [`context`] (chain validation), [`store`] (SQLite), [`events`] (the session event log),
//!   [`memory`] (instruction files, auto memory)
//! - security: [`permission`] — every tool call passes through it; [`sandbox`] — the OS
//!   sandbox every command runs in.
//! - facts: [`project`] — the project root and git's branches and worktrees, read for all;
//!   [`disk_usage`] — what RooCode's data takes on disk.
//! - after the fact: [`snapshot`] — workspace snapshots for rewind; [`trace`] — what the
//!   flight recorder records of each iteration.
//!
//! [`daemon`] ties them together: socket, lock, recovery, shutdown.

pub mod agent;
pub mod clock;
pub mod commands;
pub mod config;
pub mod context;
pub mod daemon;
pub mod disk_usage;
pub mod events;
pub(crate) mod frontmatter;
pub mod hooks;
pub mod llm;
pub mod mcp;
pub mod memory;
pub mod permission;
pub mod project;
pub mod recovery;
pub mod rpc;
pub mod sandbox;
pub mod skills;
pub mod snapshot;
pub mod store;
pub mod tools;
pub mod trace;
pub mod workflow;
