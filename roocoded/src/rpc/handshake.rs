//! The handshake rule: the first call of every connection is `daemon.hello`. A rule of the RPC
//! middleware ([`super::refusing`]), one per connection, refuses every other call until then, and after a
//! hello from a client of another protocol allows only what it needs to restart the
//! daemon (`daemon.info`, `daemon.shutdown`).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use jsonrpsee::types::{ErrorObjectOwned, Request};
use roocode_protocol::PROTOCOL_VERSION;
use roocode_protocol::daemon::ClientInfo;
use roocode_protocol::error::RpcErrorCode;
use roocode_protocol::event::DecidedBy;

// 0: no hello yet.
const COMPATIBLE: u8 = 1;
const INCOMPATIBLE: u8 = 2;

/// Where a connection stands in the handshake, and who said hello; shared by the
/// middleware of one connection and (as a request extension) its handlers.
#[derive(Clone, Default)]
pub struct HandshakeState(Arc<Inner>);

#[derive(Default)]
struct Inner {
    stage: AtomicU8,
    client: Mutex<Option<ClientInfo>>,
}

impl HandshakeState {
    /// Remembers who is on this connection (from its `daemon.hello`).
    pub fn set_client(&self, client: ClientInfo) {
        *self.0.client.lock().unwrap_or_else(PoisonError::into_inner) = Some(client);
    }

    /// The kind of client on this connection (`cli`, `tui`, …), once it said hello.
    pub fn client_kind(&self) -> Option<String> {
        self.0
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|c| c.kind.clone())
    }

    /// Who is on this connection, as shown to other clients when it decides something.
    pub fn decided_by(&self) -> DecidedBy {
        match &*self.0.client.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(c) => DecidedBy {
                kind: c.kind.clone(),
                pid: Some(c.pid),
            },
            None => DecidedBy {
                kind: "unknown".into(),
                pid: None,
            },
        }
    }
}

/// The rule, one per connection (run by [`super::refusing::Refusing`]).
#[derive(Clone)]
pub struct HelloRule {
    pub state: HandshakeState,
}

impl super::refusing::Rule for HelloRule {
    fn refusal(&self, request: &Request<'_>) -> Option<ErrorObjectOwned> {
        let method = request.method_name();
        if method == "daemon.hello" {
            let protocol =
                request
                    .params()
                    .parse::<serde_json::Value>()
                    .ok()
                    .and_then(|p| match p {
                        serde_json::Value::Array(a) => {
                            a.first().and_then(serde_json::Value::as_u64)
                        }
                        p => p.get("protocol").and_then(serde_json::Value::as_u64),
                    });
            let state = if protocol == Some(u64::from(PROTOCOL_VERSION)) {
                COMPATIBLE
            } else {
                INCOMPATIBLE
            };
            self.state.0.stage.store(state, Ordering::SeqCst);
            return None;
        }
        match self.state.0.stage.load(Ordering::SeqCst) {
            COMPATIBLE => None,
            INCOMPATIBLE if matches!(method, "daemon.info" | "daemon.shutdown") => None,
            INCOMPATIBLE => Some(super::errors::error_object(
                RpcErrorCode::HandshakeRequired,
                format!(
                    "this daemon speaks protocol {PROTOCOL_VERSION}, the client another: restart it with `roocode-cli daemon restart`"
                ),
                None,
            )),
            _ => Some(super::errors::error_object(
                RpcErrorCode::HandshakeRequired,
                format!(
                    "call daemon.hello before {method}: it checks that client and daemon speak the same protocol"
                ),
                None,
            )),
        }
    }
}
