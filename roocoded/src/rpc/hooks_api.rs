//! `hooks.*`: a project's hooks as the user looks at them — `hooks.list` (every hook,
//! where it is configured, whether it runs, its last result) and `hooks.approve` (a
//! project's hooks approved as they are now), answered by `agent::hooks`. Both are
//! refused to the model's commands (`peer_check::GUARDED`).

use roocode_protocol::api::{HooksApiServer, RpcResult};
use roocode_protocol::hooks::{HookInfo, HookList};
use roocode_protocol::session::ClientEnv;

use super::Handler;
use super::errors::to_rpc;

#[jsonrpsee::core::async_trait]
impl HooksApiServer for Handler {
    async fn list(&self, cwd: String, env: ClientEnv) -> RpcResult<HookList> {
        self.0.engine.hook_list(&cwd, &env).await.map_err(to_rpc)
    }

    async fn approve(
        &self,
        cwd: String,
        env: ClientEnv,
        ids: Vec<String>,
    ) -> RpcResult<Vec<HookInfo>> {
        self.0
            .engine
            .hook_approve(&cwd, &env, &ids)
            .await
            .map_err(to_rpc)
    }
}
