//! [`Traced`]: the RPC middleware that runs every call inside a `rpc` tracing span
//! naming the method, the request id, the client kind (from the connection's
//! `daemon.hello`) and the peer's pid (from its socket credentials), so whatever a
//! call logs — down to the model calls of a turn it starts — says which client and
//! request it served.

use jsonrpsee::MethodResponse;
use jsonrpsee::core::middleware::{Batch, Notification, RpcServiceT};
use jsonrpsee::types::Request;
use tracing::Instrument;

use super::Peer;
use super::handshake::HandshakeState;

/// The middleware, one per connection: outermost, so refused calls are traced too.
#[derive(Clone)]
pub struct Traced<S> {
    pub service: S,
    pub peer: Peer,
    pub handshake: HandshakeState,
}

impl<S> RpcServiceT for Traced<S>
where
    S: RpcServiceT<MethodResponse = MethodResponse> + Send + Sync + Clone + 'static,
{
    type MethodResponse = S::MethodResponse;
    type NotificationResponse = S::NotificationResponse;
    type BatchResponse = S::BatchResponse;

    fn call<'a>(
        &self,
        request: Request<'a>,
    ) -> impl Future<Output = Self::MethodResponse> + Send + 'a {
        // Before `daemon.hello` has run the kind is not known yet.
        let client = self.handshake.client_kind();
        let span = tracing::info_span!(
            "rpc",
            method = %request.method_name(),
            id = %request.id(),
            client = %client.as_deref().unwrap_or("-"),
            pid = self.peer.pid,
        );
        // Inner services may do work before their future is first polled: in the span too.
        let call = span.in_scope(|| self.service.call(request));
        call.instrument(span)
    }

    fn batch<'a>(
        &self,
        requests: Batch<'a>,
    ) -> impl Future<Output = Self::BatchResponse> + Send + 'a {
        self.service.batch(requests)
    }

    fn notification<'a>(
        &self,
        n: Notification<'a>,
    ) -> impl Future<Output = Self::NotificationResponse> + Send + 'a {
        self.service.notification(n)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, PoisonError};

    use jsonrpsee::types::{ErrorObjectOwned, Id};
    use roocode_protocol::daemon::ClientInfo;

    use super::*;

    /// Logs one line inside whatever span the call runs in.
    #[derive(Clone)]
    struct Logs;

    impl RpcServiceT for Logs {
        type MethodResponse = MethodResponse;
        type NotificationResponse = MethodResponse;
        type BatchResponse = MethodResponse;

        fn call<'a>(&self, r: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
            tracing::info!("handled");
            let err = ErrorObjectOwned::owned(1, "x", None::<()>);
            std::future::ready(MethodResponse::error(r.id().into_owned(), err))
        }

        fn batch<'a>(&self, _: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
            std::future::ready(MethodResponse::error(
                Id::Null,
                ErrorObjectOwned::owned(1, "x", None::<()>),
            ))
        }

        fn notification<'a>(
            &self,
            _: Notification<'a>,
        ) -> impl Future<Output = MethodResponse> + Send + 'a {
            self.batch(Batch::new())
        }
    }

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let mut v = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            v.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn every_call_runs_in_a_span_naming_method_id_client_and_pid() {
        let out = Captured::default();
        let writer = out.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let handshake = HandshakeState::default();
        let traced = Traced {
            service: Logs,
            peer: Peer {
                uid: 1000,
                pid: Some(4242),
            },
            handshake: handshake.clone(),
        };
        let call = |id: u64| Request::borrowed("session.get", None, Id::Number(id));
        traced.call(call(6)).await;
        handshake.set_client(ClientInfo {
            kind: "tui".into(),
            name: "roocode-tui".into(),
            pid: 4242,
        });
        traced.call(call(7)).await;
        let text = String::from_utf8_lossy(&out.0.lock().unwrap_or_else(PoisonError::into_inner))
            .into_owned();
        assert!(
            text.contains("rpc{method=session.get id=6 client=- pid=4242}: "),
            "{text}"
        );
        assert!(
            text.contains("rpc{method=session.get id=7 client=tui pid=4242}: "),
            "{text}"
        );
    }
}
