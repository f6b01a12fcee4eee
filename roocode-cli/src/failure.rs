//! Failures the CLI reports: a short `kind` (for `--output json`) and the message to
//! print after `error: `. RPC errors keep the daemon's own message, which already says
//! what to do (e.g. which API key variable to set). Command-line mistakes are
//! [`UsageError`]s (exit status 2).

use std::fmt;

use jsonrpsee::core::client::Error as RpcError;
use roocode_protocol::client::ConnectError;
use roocode_protocol::error as codes;

/// A failure with a machine-readable kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: String,
    pub message: String,
}

impl Failure {
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Failure {
            kind: kind.into(),
            message: message.into(),
        }
    }

    /// The subscription or connection ended before the turn did.
    pub fn daemon_gone(log: &std::path::Path) -> Self {
        Failure::new(
            "disconnected",
            format!(
                "the daemon went away before the turn completed; its log is {}",
                log.display()
            ),
        )
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl From<RpcError> for Failure {
    fn from(e: RpcError) -> Self {
        match e {
            RpcError::Call(obj) => {
                let data_kind = obj
                    .data()
                    .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
                    .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_owned));
                let kind = data_kind.unwrap_or_else(|| kind_of_code(obj.code()).to_owned());
                Failure::new(kind, obj.message())
            }
            RpcError::RequestTimeout => {
                Failure::new("timeout", "the daemon did not answer in time")
            }
            RpcError::RestartNeeded(_) | RpcError::Transport(_) => Failure::new(
                "disconnected",
                "the connection to the daemon was lost (it stopped or crashed)",
            ),
            other => Failure::new("rpc", other.to_string()),
        }
    }
}

impl From<ConnectError> for Failure {
    fn from(e: ConnectError) -> Self {
        let kind = match &e {
            ConnectError::Incompatible { .. } => "incompatible",
            _ => "connection",
        };
        Failure::new(kind, e.to_string())
    }
}

/// A mistake in the command line (exit status 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The `kind` of an RPC error code of the daemon.
fn kind_of_code(code: i32) -> &'static str {
    match code {
        codes::SESSION_NOT_FOUND => "session_not_found",
        codes::AMBIGUOUS_SESSION => "ambiguous_session",
        codes::INVALID_REQUEST => "invalid_request",
        codes::CONFIG_ERROR => "config",
        codes::HANDSHAKE_REQUIRED => "handshake",
        codes::INTERNAL => "internal",
        -32602 => "invalid_params",
        -32601 => "method_not_found",
        _ => "rpc",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use jsonrpsee::types::ErrorObject;

    #[test]
    fn rpc_errors_keep_the_daemon_message() {
        let e = RpcError::Call(ErrorObject::owned(
            codes::CONFIG_ERROR,
            "no API key: set ANTHROPIC_API_KEY",
            None::<()>,
        ));
        let f = Failure::from(e);
        assert_eq!(f.kind, "config");
        assert_eq!(f.to_string(), "no API key: set ANTHROPIC_API_KEY");
    }

    #[test]
    fn a_kind_in_the_error_data_wins() {
        let data = serde_json::json!({"kind": "auth"});
        let e = RpcError::Call(ErrorObject::owned(
            codes::CONFIG_ERROR,
            "bad key",
            Some(data),
        ));
        assert_eq!(Failure::from(e).kind, "auth");
    }
}
