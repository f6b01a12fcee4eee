//! `roocoded`: the RooCode daemon as a library. The binary (`main.rs`) only parses
//! arguments and calls [`daemon::run`].
//!
//! Layers (DESIGN.md §1), each a module talking to the others through narrow interfaces:
//! - interaction: [`rpc`] (socket server, subscriptions), [`commands`] (slash commands), [`config`]
//! - engine: [`llm`] (providers, stream normalisation, retry), [`agent`] (the loop)
//! - tools: [`tools`]
//! - memory: [`context`] (chain validation), [`store`] (SQLite), [`events`] (the session event log)
//! - security: [`permission`] — every tool call passes through it.

pub mod clock;
pub mod store;
pub mod context;
pub mod events;
