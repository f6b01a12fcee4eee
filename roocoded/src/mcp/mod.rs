//! The MCP host (DESIGN.md §7): the servers a session's project configures, the
//! clients that talk to them, and their tools in the agent's tool set.
//!
//! - `config`: which servers a project has and from which scope, what starting one
//!   runs once its `${VAR}` references are expanded (`expand`), and what an approval is
//!   kept under; `approvals`: the user's approvals of project servers.
//! - `client`: one connection to one server (stdio child or streamable HTTP), its
//!   tools, resources and prompts, and calls bounded by timeouts and cancellable.
//! - `server`: one server kept running by its supervisor (restarts with backoff);
//!   `hub`: the daemon's servers, one per expanded launch, shared by sessions.
//! - `session`: a session's servers and its tool overlay; `tool`: one MCP tool in the
//!   registry (`names`: what the model calls it; `result`: its result as the model
//!   reads it); `status`: a server as `mcp.list|get` and `/mcp` show it;
//!   `tool_search`: `ToolSearch`, which loads deferred tools; `resources`:
//!   `ListMcpResources` and `ReadMcpResource`.
//! - `prompts`: the servers' prompts as slash commands (`/mcp__<server>__<prompt>`)
//!   and the typed arguments mapped onto theirs; `prompt_text`: a prompt's messages as
//!   one text; `session_prompts`: a session's prompts, and one of them filled in.

pub mod approvals;
pub mod client;
pub mod config;
pub mod expand;
pub mod hub;
pub mod names;
pub mod prompt_text;
pub mod prompts;
pub mod resources;
pub mod result;
pub mod server;
pub mod session;
pub mod session_prompts;
pub mod status;
pub mod tool;
pub mod tool_search;

pub use hub::McpHub;
pub use prompts::{McpPromptArg, McpPromptInfo, map_arguments};

#[cfg(test)]
pub(crate) mod test_support;
