//! `session.*`: thin translations to [`crate::agent::Engine`] (and slash commands to
//! [`crate::commands`]).

use jsonrpsee::PendingSubscriptionSink;
use jsonrpsee::core::SubscriptionResult;
use roocode_protocol::api::{RpcResult, SessionApiServer};
use roocode_protocol::replay::{ReplayParams, ReplayStarted};
use roocode_protocol::rewind::{RewindParams, RewindPlan, TurnSummary};
use roocode_protocol::session::{
    ClientEnv, CommandOutput, CreateParams, ExportPage, HistoryPage, ImportParams, SendParams,
    SendResponse, SessionInfo,
};
use roocode_protocol::trace::{SessionTrace, TraceBody};

use super::Handler;
use super::errors::to_rpc;
use crate::agent::AgentError;

/// Largest page a client may ask for.
const MAX_PAGE: u32 = 1000;

#[jsonrpsee::core::async_trait]
impl SessionApiServer for Handler {
    async fn create(&self, params: CreateParams) -> RpcResult<SessionInfo> {
        self.0.engine.create(params).await.map_err(to_rpc)
    }

    async fn list(
        &self,
        root: Option<String>,
        limit: Option<u32>,
        all: Option<bool>,
    ) -> RpcResult<Vec<SessionInfo>> {
        let limit = limit.unwrap_or(MAX_PAGE).min(MAX_PAGE);
        self.0
            .engine
            .list(root.as_deref(), limit, all.unwrap_or(false))
            .await
            .map_err(to_rpc)
    }

    async fn get(&self, session_id: String) -> RpcResult<SessionInfo> {
        self.0.engine.info(&session_id).await.map_err(to_rpc)
    }

    async fn history(
        &self,
        session_id: String,
        before_seq: Option<u64>,
        after_seq: Option<u64>,
        limit: Option<u32>,
    ) -> RpcResult<HistoryPage> {
        let limit = limit.unwrap_or(200).clamp(1, MAX_PAGE);
        self.0
            .engine
            .history(&session_id, before_seq, after_seq, limit)
            .await
            .map_err(to_rpc)
    }

    async fn send(&self, params: SendParams) -> RpcResult<SendResponse> {
        self.0.engine.send(params).await.map_err(to_rpc)
    }

    async fn cancel(&self, session_id: String) -> RpcResult<bool> {
        self.0.engine.cancel(&session_id).await.map_err(to_rpc)
    }

    async fn command(
        &self,
        session_id: String,
        line: String,
        env: Option<ClientEnv>,
    ) -> RpcResult<CommandOutput> {
        // Slash commands are the `commands` layer's: it drives the engine, never the
        // other way round.
        let engine = &self.0.engine;
        let row = engine.resolve(&session_id).await.map_err(to_rpc)?;
        let env = match env {
            Some(env) => env,
            None => engine.client_env(&row.id).await,
        };
        crate::commands::run(engine, &row, &line, env)
            .await
            .map_err(to_rpc)
    }

    async fn set_mode(&self, session_id: String, mode: String) -> RpcResult<SessionInfo> {
        self.0
            .engine
            .set_mode(&session_id, &mode)
            .await
            .map_err(to_rpc)
    }

    async fn set_model(&self, session_id: String, model: String) -> RpcResult<SessionInfo> {
        self.0
            .engine
            .set_model(&session_id, &model)
            .await
            .map_err(to_rpc)
    }

    async fn delete(&self, session_id: String) -> RpcResult<()> {
        self.0.engine.delete(&session_id).await.map_err(to_rpc)
    }

    async fn import(&self, params: ImportParams) -> RpcResult<SessionInfo> {
        self.0.engine.import(params).await.map_err(to_rpc)
    }

    async fn turns(&self, session_id: String) -> RpcResult<Vec<TurnSummary>> {
        self.0
            .engine
            .turn_summaries(&session_id)
            .await
            .map_err(to_rpc)
    }

    async fn rewind(&self, params: RewindParams) -> RpcResult<RewindPlan> {
        self.0.engine.rewind(&params).await.map_err(to_rpc)
    }

    async fn replay(&self, params: ReplayParams) -> RpcResult<ReplayStarted> {
        self.0.engine.replay(params).await.map_err(to_rpc)
    }

    async fn trace_body(&self, session_id: String, model_call_id: String) -> RpcResult<TraceBody> {
        let row = self.0.engine.resolve(&session_id).await.map_err(to_rpc)?;
        self.0.engine.recorder().flush().await;
        crate::trace::bodies::read(self.0.engine.store(), &row.id, &model_call_id)
            .await
            .map_err(to_rpc)
    }

    async fn trace(&self, session_id: String) -> RpcResult<SessionTrace> {
        let row = self.0.engine.resolve(&session_id).await.map_err(to_rpc)?;
        self.0.engine.recorder().flush().await;
        crate::trace::timeline::session_trace(self.0.engine.store(), &row.id)
            .await
            .map_err(|e| to_rpc(AgentError::from(e)))
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
        let offset = offset.unwrap_or(0);
        let limit = limit.unwrap_or(200).clamp(1, MAX_PAGE);
        self.0
            .engine
            .export(&session_id, offset, limit)
            .await
            .map_err(to_rpc)
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
