//! The accept loop: one jsonrpsee service per connection, the peer's uid checked
//! before any byte is read, the connection count bounded, and the client's WebSocket
//! relayed to jsonrpsee through the frame pre-parser ([`super::relay`]). Every call
//! runs in a tracing span ([`super::traced`]), then past the handshake and command
//! rules ([`super::refusing`]).

use futures_util::FutureExt;
use jsonrpsee::server::middleware::rpc::RpcServiceBuilder;
use jsonrpsee::server::{
    Methods, Server, ServerConfig, serve_with_graceful_shutdown, stop_channel,
};
use roocode_protocol::api::{
    AgentApiServer, CommandsApiServer, DaemonApiServer, DoctorApiServer, HooksApiServer,
    MailboxApiServer, McpApiServer, PendingApiServer, PermissionApiServer, QuestionApiServer,
    SessionApiServer, TeamApiServer, WorkflowApiServer,
};
use std::sync::Arc;

use tokio::net::UnixListener;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower::Service;

use super::limits::Limits;
use super::refusing::Refusing;
use super::traced::Traced;
use super::{DaemonContext, Peer, handshake, peer_check, relay};

/// Bytes buffered in each direction of the in-memory pipe between relay and jsonrpsee.
const PIPE_BUFFER: usize = 256 << 10;

/// Serves until `stop` is cancelled, then drains open connections (bounded wait).
pub async fn serve(listener: &UnixListener, ctx: DaemonContext, stop: CancellationToken) {
    let limits = Limits::from_env();
    let (stop_handle, server_handle) = stop_channel();
    let cfg = ServerConfig::builder()
        .ws_only()
        .max_connections(limits.max_connections as u32)
        .max_subscriptions_per_connection(limits.max_subscriptions)
        .set_message_buffer_capacity(4096)
        .max_request_body_size(limits.max_message as u32)
        .max_response_body_size(limits.max_response as u32)
        .set_batch_request_config(jsonrpsee::server::BatchRequestConfig::Disabled)
        .build();
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let engine = ctx.engine.clone();
    let builder = Server::builder().set_config(cfg).to_service_builder();
    let mut methods = Methods::new();
    let handler = super::Handler(ctx.clone());
    let parts: [Result<(), _>; 13] = [
        methods.merge(DaemonApiServer::into_rpc(handler.clone())),
        methods.merge(SessionApiServer::into_rpc(handler.clone())),
        methods.merge(CommandsApiServer::into_rpc(handler.clone())),
        methods.merge(PendingApiServer::into_rpc(handler.clone())),
        methods.merge(PermissionApiServer::into_rpc(handler.clone())),
        methods.merge(QuestionApiServer::into_rpc(handler.clone())),
        methods.merge(AgentApiServer::into_rpc(handler.clone())),
        methods.merge(TeamApiServer::into_rpc(handler.clone())),
        methods.merge(MailboxApiServer::into_rpc(handler.clone())),
        methods.merge(DoctorApiServer::into_rpc(handler.clone())),
        methods.merge(HooksApiServer::into_rpc(handler.clone())),
        methods.merge(McpApiServer::into_rpc(handler.clone())),
        methods.merge(WorkflowApiServer::into_rpc(handler)),
    ];
    for r in parts {
        if let Err(e) = r {
            tracing::error!("duplicate RPC method: {e}");
        }
    }
    let me = nix::unistd::geteuid().as_raw();
    let mut conns = JoinSet::new();
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(e) => { tracing::warn!("accept failed: {e}"); continue; }
            },
            _ = stop.cancelled() => break,
        };
        let peer = match stream.peer_cred() {
            Ok(cred) if cred.uid() == me => Peer {
                uid: cred.uid(),
                pid: cred.pid(),
            },
            Ok(cred) => {
                tracing::warn!(uid = cred.uid(), "refused a connection from another user");
                continue;
            }
            Err(e) => {
                tracing::warn!("cannot read the peer's credentials: {e}");
                continue;
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            tracing::warn!(
                limit = limits.max_connections,
                "refused a connection: too many open (ROOCODE_RPC_MAX_CONNECTIONS)"
            );
            continue;
        };
        let state = handshake::HandshakeState::default();
        let conn_state = state.clone();
        let traced_state = state.clone();
        let engine = engine.clone();
        let gate = RpcServiceBuilder::new()
            .layer_fn(move |service| Traced {
                service,
                peer,
                handshake: traced_state.clone(),
            })
            .layer_fn(move |service| Refusing {
                service,
                rule: handshake::HelloRule {
                    state: state.clone(),
                },
            })
            .layer_fn(move |service| Refusing {
                service,
                rule: peer_check::CommandRule {
                    peer_pid: peer.pid,
                    engine: engine.clone(),
                },
            });
        let mut svc = builder
            .clone()
            .set_rpc_middleware(gate)
            .build(methods.clone(), stop_handle.clone());
        let closed = svc.on_session_closed();
        let svc = tower::service_fn(move |mut req: http::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(peer);
            req.extensions_mut().insert(conn_state.clone());
            let mut svc = svc.clone();
            async move { svc.call(req).await.map_err(|e| anyhow::anyhow!("{e:?}")) }.boxed()
        });
        let stopped = stop_handle.clone().shutdown();
        let (ours, theirs) = tokio::io::duplex(PIPE_BUFFER);
        conns.spawn(async move {
            let _permit = permit;
            let service = async {
                if let Err(e) = serve_with_graceful_shutdown(theirs, svc, stopped).await {
                    tracing::debug!("connection ended: {e}");
                }
                closed.await;
            };
            let relayed = async {
                if let Err(e) = relay::run(stream, ours, limits).await {
                    tracing::debug!("connection not relayed: {e}");
                }
            };
            // The relay ends when either side closes; dropping its end of the pipe
            // then ends the jsonrpsee session too.
            tokio::join!(service, relayed);
        });
        // Reap finished connections so the set does not grow without bound.
        while conns.try_join_next().is_some() {}
    }
    let _ = server_handle.stop();
    let drain = async { while conns.join_next().await.is_some() {} };
    if tokio::time::timeout(std::time::Duration::from_secs(3), drain)
        .await
        .is_err()
    {
        tracing::warn!("some connections did not close in time");
    }
}
