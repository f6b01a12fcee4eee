//! The relay in front of jsonrpsee, one per connection: it speaks WebSocket to the
//! client on the Unix socket and to jsonrpsee over an in-memory pipe, and looks at
//! every message in between.
//!
//! Client to daemon, each message goes through the frame pre-parser
//! ([`super::frames::inspect`]): malformed ones are answered here (`Invalid Request` /
//! `Parse error`, `id: null` when the id cannot be read) instead of vanishing inside
//! jsonrpsee, valid ids jsonrpsee cannot hold (`-1`) travel under a token and are put
//! back into the reply, and messages over the size or nesting bound are refused.
//! Daemon to client, messages queue in a bounded buffer: a client that stops reading
//! fills it, and once it has stayed full for the stall bound the connection is
//! dropped, so a stuck client costs the daemon a bounded amount of memory.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::{AsyncRead, AsyncWrite};
use soketto::connection::{Error as WsError, Receiver, Sender};
use soketto::handshake::{self, ServerResponse};
use tokio::io::DuplexStream;
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_util::compat::{Compat, TokioAsyncReadCompatExt};

use super::frames::{self, INVALID_REQUEST, Inspected, PARSE_ERROR};
use super::limits::Limits;

/// Why a connection could not be relayed.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error("WebSocket handshake with the client failed: {0}")]
    Client(String),
    #[error("WebSocket handshake with the RPC service failed: {0}")]
    Service(String),
    #[error("the client did not complete its WebSocket handshake within {0:?}")]
    Timeout(Duration),
}

/// How long a client may take to send its WebSocket upgrade.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The start of every response jsonrpsee writes (it puts `id` right after `jsonrpc`).
const RESPONSE_HEAD: &str = "{\"jsonrpc\":\"2.0\",\"id\":";

/// Relays one client connection to jsonrpsee (reached through `service`) until either
/// side closes, the client stalls, or it breaks the protocol.
pub async fn run(
    client: UnixStream,
    service: DuplexStream,
    limits: Limits,
) -> Result<(), RelayError> {
    let (to_client, from_client) = tokio::time::timeout(HANDSHAKE_TIMEOUT, accept(client, &limits))
        .await
        .map_err(|_| RelayError::Timeout(HANDSHAKE_TIMEOUT))??;
    let (to_service, from_service) = connect(service, &limits).await?;
    let (queue, queued) = mpsc::channel::<String>(limits.client_buffer.max(1));
    let relay = Relay {
        tokens: Mutex::new(HashMap::new()),
        prefix: format!("roocode-relay-{:016x}-", fastrand::u64(..)),
        queue,
        limits,
    };
    tokio::select! {
        () = relay.inbound(from_client, to_service) => {}
        () = relay.outbound(from_service) => {}
        () = write_to_client(to_client, queued) => {}
    }
    Ok(())
}

type Ws<T> = (Sender<Compat<T>>, Receiver<Compat<T>>);

async fn accept(client: UnixStream, limits: &Limits) -> Result<Ws<UnixStream>, RelayError> {
    let mut server = handshake::Server::new(client.compat());
    let key = server
        .receive_request()
        .await
        .map_err(|e| RelayError::Client(e.to_string()))?
        .key();
    server
        .send_response(&handshake::server::Response::Accept {
            key,
            protocol: None,
        })
        .await
        .map_err(|e| RelayError::Client(e.to_string()))?;
    let mut builder = server.into_builder();
    // Only the message bound: a larger message is then read past (never buffered) and
    // answered, while a frame bound would drop the connection with no answer.
    builder.set_max_message_size(limits.max_message);
    Ok(builder.finish())
}

async fn connect(service: DuplexStream, limits: &Limits) -> Result<Ws<DuplexStream>, RelayError> {
    let mut client = handshake::Client::new(service.compat(), "localhost", "/");
    match client.handshake().await {
        Ok(ServerResponse::Accepted { .. }) => {}
        Ok(other) => return Err(RelayError::Service(format!("{other:?}"))),
        Err(e) => return Err(RelayError::Service(e.to_string())),
    }
    let mut builder = client.into_builder();
    // Responses are bounded by jsonrpsee's own response limit; allow them through.
    builder.set_max_message_size(limits.max_response);
    builder.set_max_frame_size(limits.max_response);
    Ok(builder.finish())
}

struct Relay {
    /// Token ids in flight → the id the client sent (JSON text).
    tokens: Mutex<HashMap<String, String>>,
    /// This connection's token prefix (random, so a client cannot guess another's).
    prefix: String,
    queue: mpsc::Sender<String>,
    limits: Limits,
}

impl Relay {
    /// Queues a message for the client; false when the client has stalled (the
    /// buffer stayed full for the stall bound) or is gone: drop the connection.
    async fn to_client(&self, msg: String) -> bool {
        match tokio::time::timeout(self.limits.client_stall, self.queue.send(msg)).await {
            Ok(Ok(())) => true,
            Ok(Err(_)) => false,
            Err(_) => {
                tracing::warn!(
                    buffered = self.limits.client_buffer,
                    stall = ?self.limits.client_stall,
                    "dropping a client that stopped reading"
                );
                false
            }
        }
    }

    async fn inbound<C, S>(&self, mut from: Receiver<C>, mut to: Sender<S>)
    where
        C: AsyncRead + AsyncWrite + Unpin,
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut buf = Vec::new();
        let mut next_token: u64 = 0;
        loop {
            buf.clear();
            match from.receive_data(&mut buf).await {
                Ok(_) => {}
                Err(WsError::MessageTooLarge { maximum, .. }) => {
                    let why = format!(
                        "Invalid Request: the message is larger than the {maximum}-byte limit (ROOCODE_RPC_MAX_MESSAGE)"
                    );
                    if !self
                        .to_client(frames::error_response(None, INVALID_REQUEST, &why))
                        .await
                    {
                        return;
                    }
                    continue;
                }
                Err(e) => {
                    tracing::debug!("client connection ended: {e}");
                    return;
                }
            }
            let Ok(text) = std::str::from_utf8(&buf) else {
                let reply = frames::error_response(
                    None,
                    PARSE_ERROR,
                    "Parse error: the message is not UTF-8 text",
                );
                if !self.to_client(reply).await {
                    return;
                }
                continue;
            };
            let sent =
                match frames::inspect(text, self.limits.max_depth, |s| s.starts_with(&self.prefix))
                {
                    Inspected::Forward => to.send_text(text).await,
                    Inspected::Remap { span, id } => {
                        next_token += 1;
                        let token = format!("{}{next_token}", self.prefix);
                        let patched =
                            format!("{}\"{token}\"{}", &text[..span.start], &text[span.end..]);
                        self.tokens
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .insert(token, id.to_string());
                        to.send_text_owned(patched).await
                    }
                    Inspected::Reply(reply) => {
                        if !self.to_client(reply).await {
                            return;
                        }
                        continue;
                    }
                };
            if sent.is_err() || to.flush().await.is_err() {
                return;
            }
        }
    }

    async fn outbound<S>(&self, mut from: Receiver<S>)
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            if let Err(e) = from.receive_data(&mut buf).await {
                tracing::debug!("RPC service connection ended: {e}");
                return;
            }
            let Ok(text) = String::from_utf8(std::mem::take(&mut buf)) else {
                tracing::warn!("the RPC service sent a message that is not UTF-8; dropped");
                continue;
            };
            let text = self.restore_id(text);
            if !self.to_client(text).await {
                return;
            }
        }
    }

    /// Puts the client's own id back into a response that carries a token.
    fn restore_id(&self, text: String) -> String {
        let mut tokens = self
            .tokens
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tokens.is_empty() {
            return text;
        }
        let Some(rest) = text
            .strip_prefix(RESPONSE_HEAD)
            .and_then(|r| r.strip_prefix('"'))
        else {
            return text;
        };
        let Some(end) = rest.find('"') else {
            return text;
        };
        match tokens.remove(&rest[..end]) {
            Some(id) => format!("{RESPONSE_HEAD}{id}{}", &rest[end + 1..]),
            None => text,
        }
    }
}

async fn write_to_client<C>(mut to: Sender<C>, mut queued: mpsc::Receiver<String>)
where
    C: AsyncRead + AsyncWrite + Unpin,
{
    while let Some(msg) = queued.recv().await {
        if to.send_text_owned(msg).await.is_err() {
            return;
        }
        if queued.is_empty() && to.flush().await.is_err() {
            return;
        }
    }
}
