//! `session.*`: thin translations to [`crate::agent::Agents`].

use jsonrpsee::PendingSubscriptionSink;
use jsonrpsee::core::SubscriptionResult;
use roocode_protocol::api::{RpcResult, SessionApiServer};
use roocode_protocol::session::{
    CommandOutput, CreateParams, ExportPage, HistoryPage, ImportParams, SendParams, SendResponse,
    SessionInfo,
};

use super::Handler;
use super::errors::to_rpc;
use crate::agent::AgentError;

/// Largest page a client may ask for.
const MAX_PAGE: u32 = 1000;

#[jsonrpsee::core::async_trait]
impl SessionApiServer for Handler {
    async fn create(&self, params: CreateParams) -> RpcResult<SessionInfo> {
        self.0.agents.create(params).await.map_err(to_rpc)
    }

    async fn list(&self, root: Option<String>, limit: Option<u32>) -> RpcResult<Vec<SessionInfo>> {
        self.0
            .agents
            .list(root.as_deref(), limit.unwrap_or(MAX_PAGE).min(MAX_PAGE))
            .await
            .map_err(to_rpc)
    }

    async fn get(&self, session_id: String) -> RpcResult<SessionInfo> {
        self.0.agents.info(&session_id).await.map_err(to_rpc)
    }

    async fn history(
        &self,
        session_id: String,
        before_seq: Option<u64>,
        after_seq: Option<u64>,
        limit: Option<u32>,
    ) -> RpcResult<HistoryPage> {
        let agents = &self.0.agents;
        let row = agents.resolve(&session_id).await.map_err(to_rpc)?;
        let limit = limit.unwrap_or(200).clamp(1, MAX_PAGE);
        let store = agents.store();
        let page = match after_seq {
            Some(after) => {
                let mut events = store
                    .events_after(&row.id, after, limit + 1)
                    .await
                    .map_err(|e| to_rpc(e.into()))?;
                let has_more = events.len() > limit as usize;
                events.truncate(limit as usize);
                HistoryPage { events, has_more }
            }
            None => {
                let (events, has_more) = store
                    .events_before(&row.id, before_seq, limit)
                    .await
                    .map_err(|e| to_rpc(e.into()))?;
                HistoryPage { events, has_more }
            }
        };
        Ok(page)
    }

    async fn send(&self, params: SendParams) -> RpcResult<SendResponse> {
        self.0.agents.send(params).await.map_err(to_rpc)
    }

    async fn cancel(&self, session_id: String) -> RpcResult<bool> {
        self.0.agents.cancel(&session_id).await.map_err(to_rpc)
    }

    async fn command(&self, session_id: String, line: String) -> RpcResult<CommandOutput> {
        let agents = &self.0.agents;
        let row = agents.resolve(&session_id).await.map_err(to_rpc)?;
        let output = crate::commands::run(agents, &row, &line)
            .await
            .map_err(to_rpc)?;
        Ok(CommandOutput { output })
    }

    async fn set_mode(&self, session_id: String, mode: String) -> RpcResult<SessionInfo> {
        self.0
            .agents
            .set_mode(&session_id, &mode)
            .await
            .map_err(to_rpc)
    }

    async fn set_model(&self, session_id: String, model: String) -> RpcResult<SessionInfo> {
        self.0
            .agents
            .set_model(&session_id, &model)
            .await
            .map_err(to_rpc)
    }

    async fn delete(&self, session_id: String) -> RpcResult<()> {
        self.0.agents.delete(&session_id).await.map_err(to_rpc)
    }

    async fn import(&self, params: ImportParams) -> RpcResult<SessionInfo> {
        self.0.agents.import(params).await.map_err(to_rpc)
    }

    async fn export(
        &self,
        session_id: String,
        format: Option<String>,
        offset: Option<u64>,
        limit: Option<u32>,
    ) -> RpcResult<ExportPage> {
        if let Some(f) = format.as_deref()
            && f != "jsonl"
        {
            return Err(to_rpc(AgentError::Invalid(format!(
                "unknown export format `{f}`: the only format is jsonl"
            ))));
        }
        let agents = &self.0.agents;
        let row = agents.resolve(&session_id).await.map_err(to_rpc)?;
        let offset = offset.unwrap_or(0);
        let limit = limit.unwrap_or(200).clamp(1, MAX_PAGE);
        let lines = agents
            .store()
            .context_lines(&row.id, offset, limit + 1)
            .await
            .map_err(|e| to_rpc(e.into()))?;
        let more = lines.len() > limit as usize;
        let mut lines = lines;
        lines.truncate(limit as usize);
        let next_offset = more.then(|| offset + u64::from(limit));
        Ok(ExportPage { lines, next_offset })
    }

    async fn subscribe_events(
        &self,
        pending: PendingSubscriptionSink,
        session_id: String,
        since_seq: Option<u64>,
    ) -> SubscriptionResult {
        super::subscribe::subscribe(self, pending, session_id, since_seq).await
    }
}
