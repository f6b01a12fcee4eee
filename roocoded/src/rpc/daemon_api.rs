//! `daemon.*`, `commands.*` and `pending.*`.

use jsonrpsee::core::SubscriptionResult;
use jsonrpsee::{Extensions, PendingSubscriptionSink};
use roocode_protocol::api::{CommandsApiServer, DaemonApiServer, PendingApiServer, RpcResult};
use roocode_protocol::daemon::{ClientInfo, DaemonInfo, HelloResponse};
use roocode_protocol::prune::{PruneParams, PruneReport};
use roocode_protocol::session::{ClientEnv, CommandInfo, PendingRequest};
use roocode_protocol::{BUILD_ID, PROTOCOL_VERSION, VERSION};
use tokio::sync::broadcast::error::RecvError;

use super::errors::to_rpc;
use super::handshake::HandshakeState;
use super::{Handler, Peer};
use crate::clock;

/// The build id this daemon reports: `ROOCODE_DAEMON_BUILD_ID` pretends to be another
/// build (to try the clients' mismatch warning), otherwise the real one.
fn build_id() -> String {
    std::env::var("ROOCODE_DAEMON_BUILD_ID").unwrap_or_else(|_| BUILD_ID.to_string())
}

#[jsonrpsee::core::async_trait]
impl DaemonApiServer for Handler {
    async fn hello(
        &self,
        ext: &Extensions,
        protocol: u32,
        build_id_of_client: String,
        client: ClientInfo,
    ) -> RpcResult<HelloResponse> {
        let peer = ext.get::<Peer>().copied();
        if let Some(state) = ext.get::<HandshakeState>() {
            state.set_client(client.clone());
        }
        tracing::debug!(
            kind = %client.kind,
            pid = client.pid,
            peer_pid = ?peer.and_then(|p| p.pid),
            client_build = %build_id_of_client,
            protocol,
            "hello"
        );
        Ok(HelloResponse {
            protocol: PROTOCOL_VERSION,
            version: VERSION.to_string(),
            build_id: build_id(),
            pid: std::process::id(),
            compatible: protocol == PROTOCOL_VERSION,
            warnings: self.0.warnings.clone(),
        })
    }

    async fn info(&self) -> RpcResult<DaemonInfo> {
        let ctx = &self.0;
        let (sessions, running_turns) = ctx.engine.counts().await.map_err(to_rpc)?;
        Ok(DaemonInfo {
            pid: std::process::id(),
            version: VERSION.to_string(),
            build_id: build_id(),
            protocol: PROTOCOL_VERSION,
            socket_path: ctx.paths.socket.display().to_string(),
            database_path: ctx.paths.database.display().to_string(),
            log_path: ctx.paths.log.display().to_string(),
            started_at: clock::rfc3339(ctx.started_at_ms),
            uptime_secs: ctx.started.elapsed().as_secs(),
            sessions,
            running_turns,
            warnings: ctx.warnings.clone(),
        })
    }

    async fn subscribe_daemon(&self, pending: PendingSubscriptionSink) -> SubscriptionResult {
        let mut rx = self.0.engine.events().subscribe_all();
        let sink = pending.accept().await?;
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Ok(ev) => {
                        let raw = serde_json::value::to_raw_value(&*ev)?;
                        if sink.send(raw).await.is_err() {
                            return Ok(());
                        }
                    }
                    Err(RecvError::Lagged(n)) => tracing::debug!(skipped = n, "daemon subscriber fell behind"),
                    Err(RecvError::Closed) => return Ok(()),
                },
                _ = sink.closed() => return Ok(()),
            }
        }
    }

    async fn shutdown(&self) -> RpcResult<()> {
        tracing::info!("shutdown requested over RPC");
        let stop = self.0.stop.clone();
        // Let this reply leave before the connections close.
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            stop.cancel();
        });
        Ok(())
    }

    async fn prune(&self, params: PruneParams) -> RpcResult<PruneReport> {
        self.0
            .engine
            .prune(&params)
            .await
            .map_err(super::errors::to_rpc)
    }
}

#[jsonrpsee::core::async_trait]
impl CommandsApiServer for Handler {
    async fn list(
        &self,
        session_id: Option<String>,
        env: Option<ClientEnv>,
    ) -> RpcResult<Vec<CommandInfo>> {
        let Some(session_id) = session_id else {
            return Ok(crate::commands::local());
        };
        let engine = &self.0.engine;
        let row = engine.resolve(&session_id).await.map_err(to_rpc)?;
        let env = match env {
            Some(env) => env,
            None => engine.client_env(&row.id).await,
        };
        Ok(crate::commands::list(engine, &row, &env).await)
    }
}

#[jsonrpsee::core::async_trait]
impl PendingApiServer for Handler {
    async fn list(&self) -> RpcResult<Vec<PendingRequest>> {
        self.0.engine.pending(None).await.map_err(to_rpc)
    }
}
