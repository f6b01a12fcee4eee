//! The accept loop: one jsonrpsee service per connection, WebSocket framing over the
//! Unix stream, the peer's uid checked before any byte is read.

use futures_util::FutureExt;
use jsonrpsee::server::middleware::rpc::RpcServiceBuilder;
use jsonrpsee::server::{
    Methods, Server, ServerConfig, serve_with_graceful_shutdown, stop_channel,
};
use roocode_protocol::api::{
    CommandsApiServer, DaemonApiServer, DoctorApiServer, PendingApiServer, PermissionApiServer,
    QuestionApiServer, SessionApiServer,
};
use tokio::net::UnixListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower::Service;

use super::{DaemonContext, Peer, handshake};

/// Serves until `stop` is cancelled, then drains open connections (bounded wait).
pub async fn serve(listener: &UnixListener, ctx: DaemonContext, stop: CancellationToken) {
    let (stop_handle, server_handle) = stop_channel();
    let cfg = ServerConfig::builder()
        .ws_only()
        .max_connections(256)
        .max_subscriptions_per_connection(1024)
        .set_message_buffer_capacity(4096)
        .max_request_body_size(64 << 20)
        .max_response_body_size(64 << 20)
        .build();
    let builder = Server::builder().set_config(cfg).to_service_builder();
    let mut methods = Methods::new();
    let handler = super::Handler(ctx.clone());
    let parts: [Result<(), _>; 7] = [
        methods.merge(DaemonApiServer::into_rpc(handler.clone())),
        methods.merge(SessionApiServer::into_rpc(handler.clone())),
        methods.merge(CommandsApiServer::into_rpc(handler.clone())),
        methods.merge(PendingApiServer::into_rpc(handler.clone())),
        methods.merge(PermissionApiServer::into_rpc(handler.clone())),
        methods.merge(QuestionApiServer::into_rpc(handler.clone())),
        methods.merge(DoctorApiServer::into_rpc(handler)),
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
        let state = handshake::HandshakeState::default();
        let conn_state = state.clone();
        let gate = RpcServiceBuilder::new().layer_fn(move |service| handshake::HelloGate {
            service,
            state: state.clone(),
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
        conns.spawn(async move {
            if let Err(e) = serve_with_graceful_shutdown(stream, svc, stopped).await {
                tracing::debug!("connection ended: {e}");
            }
            closed.await;
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
