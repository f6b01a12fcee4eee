//! `team.*` and `mailbox.*`: agent teams as clients see them — `team.list|get` and
//! `mailbox.list` read what `crate::agent::team` builds from the store; `team.delete`
//! is the user's cleanup (`Engine::delete_team`: refused while a member is active), and
//! like every user action it is refused to the model's commands (`peer_check::GUARDED`).

use roocode_protocol::api::{MailboxApiServer, RpcResult, TeamApiServer};
use roocode_protocol::teams::{MailInfo, TeamInfo};

use super::Handler;
use super::errors::to_rpc;

#[jsonrpsee::core::async_trait]
impl TeamApiServer for Handler {
    async fn list(&self, session_id: Option<String>) -> RpcResult<Vec<TeamInfo>> {
        self.0
            .engine
            .team_infos(session_id.as_deref())
            .await
            .map_err(to_rpc)
    }

    async fn get(&self, team: String) -> RpcResult<TeamInfo> {
        self.0.engine.team_info(&team).await.map_err(to_rpc)
    }

    async fn delete(&self, team: String) -> RpcResult<String> {
        let engine = &self.0.engine;
        let row = engine.find_team(&team).await.map_err(to_rpc)?;
        engine.delete_team(&row.id).await.map_err(to_rpc)
    }
}

#[jsonrpsee::core::async_trait]
impl MailboxApiServer for Handler {
    async fn list(&self, team: Option<String>, agent: Option<String>) -> RpcResult<Vec<MailInfo>> {
        self.0
            .engine
            .mail_infos(team.as_deref(), agent.as_deref())
            .await
            .map_err(to_rpc)
    }
}
