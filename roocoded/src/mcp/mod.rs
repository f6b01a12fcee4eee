//! The MCP host (DESIGN.md §7): the servers a session's project configures, the
//! clients that talk to them, and their tools in the agent's tool set.
//!
//! - `client`: one connection to one server (stdio child or streamable HTTP), its
//!   tools and resources, and calls bounded by timeouts.
//! - `config`: which servers a project has and from which scope, what starting one
//!   runs once its `${VAR}` references are expanded, and what an approval is kept under.
//! - `expand`: the `${VAR}` / `${VAR:-default}` references.

pub mod client;
pub mod config;
pub mod expand;
