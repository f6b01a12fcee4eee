//! `mcp.*`: a project's MCP servers as the user looks at them — `mcp.list|get` (their
//! states, started and waited for as a session would; their tools) and `mcp.approve`
//! (a project server approved as it is now), answered by `agent::mcp_status`. All three
//! are refused to the model's commands (`peer_check::GUARDED`): a command may not
//! approve a server of its own repository, and listing reads files with the daemon's
//! rights.

use roocode_protocol::api::{McpApiServer, RpcResult};
use roocode_protocol::mcp::{McpApproval, McpServerInfo};
use roocode_protocol::session::ClientEnv;

use super::Handler;
use super::errors::to_rpc;

#[jsonrpsee::core::async_trait]
impl McpApiServer for Handler {
    async fn list(&self, cwd: String, env: ClientEnv) -> RpcResult<Vec<McpServerInfo>> {
        self.0.engine.mcp_list(&cwd, &env).await.map_err(to_rpc)
    }

    async fn get(&self, cwd: String, env: ClientEnv, name: String) -> RpcResult<McpServerInfo> {
        self.0
            .engine
            .mcp_get(&cwd, &env, &name)
            .await
            .map_err(to_rpc)
    }

    async fn approve(&self, cwd: String, env: ClientEnv, name: String) -> RpcResult<McpApproval> {
        self.0
            .engine
            .mcp_approve(&cwd, &env, &name)
            .await
            .map_err(to_rpc)
    }
}
