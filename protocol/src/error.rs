//! The typed errors of RPC calls: every error the daemon returns carries one of the
//! codes of [`RpcErrorCode`] (the JSON-RPC `code`), a message that states what is wrong,
//! and [`RpcErrorData`] naming the code and what it is about. Messages state facts
//! only; each client adds the hint that fits its own user by code (a CLI user may be
//! told to run `roocode-cli sessions`, a TUI user to open the picker), never by
//! matching message text.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of failure a call met. The numeric codes are stable: a code is never
/// reused for another meaning, and a client meeting a code it does not know reads
/// it as [`RpcErrorCode::Unknown`] and shows the daemon's message alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RpcErrorCode {
    /// The session id (or prefix) matched no session.
    SessionNotFound,
    /// The session id prefix matched several sessions.
    AmbiguousSession,
    /// The request was understood but is not valid now (bad mode, unknown command, …).
    InvalidRequest,
    /// A configuration file or the client's environment is broken.
    InvalidConfig,
    /// The call needs `daemon.hello` first, or the client speaks another protocol.
    HandshakeRequired,
    /// The caller is (a descendant of) a command the daemon runs for the model: it may
    /// not answer permissions or questions, change the mode or send messages.
    RefusedFromCommand,
    /// The session is running a turn and the call needs it idle.
    Busy,
    /// No permission request or question waits under that id (never raised, or
    /// answered already).
    RequestNotFound,
    /// Something failed inside the daemon; see its log.
    Internal,
    /// JSON-RPC's own: the parameters do not decode (a missing or mistyped field).
    InvalidParams,
    /// JSON-RPC's own: no such method (a client newer than the daemon).
    MethodNotFound,
    /// A code this build does not know.
    Unknown(i32),
}

/// Every code this build knows, for tests and documentation.
pub const KNOWN_CODES: &[RpcErrorCode] = &[
    RpcErrorCode::SessionNotFound,
    RpcErrorCode::AmbiguousSession,
    RpcErrorCode::InvalidRequest,
    RpcErrorCode::InvalidConfig,
    RpcErrorCode::HandshakeRequired,
    RpcErrorCode::RefusedFromCommand,
    RpcErrorCode::Busy,
    RpcErrorCode::RequestNotFound,
    RpcErrorCode::Internal,
    RpcErrorCode::InvalidParams,
    RpcErrorCode::MethodNotFound,
];

impl RpcErrorCode {
    /// The JSON-RPC `code` of the error object.
    pub const fn code(self) -> i32 {
        match self {
            RpcErrorCode::SessionNotFound => -32001,
            RpcErrorCode::AmbiguousSession => -32002,
            RpcErrorCode::InvalidRequest => -32003,
            RpcErrorCode::InvalidConfig => -32004,
            RpcErrorCode::HandshakeRequired => -32005,
            RpcErrorCode::RefusedFromCommand => -32006,
            RpcErrorCode::Busy => -32007,
            RpcErrorCode::RequestNotFound => -32008,
            RpcErrorCode::Internal => -32010,
            RpcErrorCode::InvalidParams => -32602,
            RpcErrorCode::MethodNotFound => -32601,
            RpcErrorCode::Unknown(code) => code,
        }
    }

    /// The code of a JSON-RPC error object.
    pub fn from_code(code: i32) -> Self {
        KNOWN_CODES
            .iter()
            .copied()
            .find(|c| c.code() == code)
            .unwrap_or(RpcErrorCode::Unknown(code))
    }

    /// A short name of the code, as `roocode-cli --output json` reports it and
    /// [`RpcErrorData::kind`] carries it.
    pub const fn kind(self) -> &'static str {
        match self {
            RpcErrorCode::SessionNotFound => "session_not_found",
            RpcErrorCode::AmbiguousSession => "ambiguous_session",
            RpcErrorCode::InvalidRequest => "invalid_request",
            RpcErrorCode::InvalidConfig => "config",
            RpcErrorCode::HandshakeRequired => "handshake",
            RpcErrorCode::RefusedFromCommand => "refused",
            RpcErrorCode::Busy => "busy",
            RpcErrorCode::RequestNotFound => "request_not_found",
            RpcErrorCode::Internal => "internal",
            RpcErrorCode::InvalidParams => "invalid_params",
            RpcErrorCode::MethodNotFound => "method_not_found",
            RpcErrorCode::Unknown(_) => "rpc",
        }
    }
}

/// The `data` of the daemon's error objects. Every field may be absent (an older
/// daemon sends none), so clients decode it leniently.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RpcErrorData {
    /// [`RpcErrorCode::kind`] of the error's code.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// What the error is about: the session id or prefix, the request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_round_trip() {
        for (i, a) in KNOWN_CODES.iter().enumerate() {
            assert_eq!(RpcErrorCode::from_code(a.code()), *a);
            for b in &KNOWN_CODES[i + 1..] {
                assert_ne!(a.code(), b.code(), "{a:?} and {b:?}");
                assert_ne!(a.kind(), b.kind(), "{a:?} and {b:?}");
            }
        }
        assert_eq!(
            RpcErrorCode::from_code(-32099),
            RpcErrorCode::Unknown(-32099)
        );
        assert_eq!(RpcErrorCode::Unknown(-32099).code(), -32099);
    }
}
