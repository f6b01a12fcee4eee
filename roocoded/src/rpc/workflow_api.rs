//! `workflow.*`: an agent's workflow functions, its session's artifacts and loops
//! (`workflow.stop_loop` is refused to the model's commands), answered by
//! `agent::workflow`.

use roocode_protocol::api::{RpcResult, WorkflowApiServer};
use roocode_protocol::workflow::{LoopInfo, WorkflowInfo};

use super::Handler;
use super::errors::to_rpc;

#[jsonrpsee::core::async_trait]
impl WorkflowApiServer for Handler {
    async fn get(&self, session_id: String) -> RpcResult<WorkflowInfo> {
        self.0
            .engine
            .workflow_info(&session_id)
            .await
            .map_err(to_rpc)
    }

    async fn loops(&self, session_id: Option<String>) -> RpcResult<Vec<LoopInfo>> {
        self.0
            .engine
            .loop_infos(session_id.as_deref())
            .await
            .map_err(to_rpc)
    }

    async fn stop_loop(&self, loop_id: String) -> RpcResult<LoopInfo> {
        self.0.engine.stop_loop(&loop_id).await.map_err(to_rpc)
    }
}
