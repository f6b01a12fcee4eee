//! Failures the CLI reports: a short `kind` (for `--output json`) and the message to
//! print after `error: `. RPC errors keep the daemon's own message (which may say what
//! to do, e.g. which API key variable to set), followed by the CLI's hint for the
//! error's code (which `roocode-cli` command helps). Command-line mistakes are
//! [`UsageError`]s (exit status 2).

use std::fmt;

use jsonrpsee::core::client::Error as RpcError;
use roocode_client::{ConnectError, RpcFailure};
use roocode_protocol::error::RpcErrorCode;

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
            RpcError::Call(_) => match RpcFailure::of(&e) {
                Some(f) => Failure::new(f.kind(), f.with_hint(hint(f.code))),
                None => Failure::new("rpc", e.to_string()),
            },
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

/// What a CLI user can do about an RPC error of this code, said after its message.
fn hint(code: RpcErrorCode) -> Option<&'static str> {
    match code {
        RpcErrorCode::SessionNotFound => Some("list them with `roocode-cli sessions`"),
        RpcErrorCode::AmbiguousSession => Some("give more characters of the id"),
        RpcErrorCode::Busy => Some("cancel it first with `roocode-cli cancel`"),
        RpcErrorCode::RequestNotFound => Some("list the waiting ones with `roocode-cli pending`"),
        RpcErrorCode::MethodNotFound => Some(
            "the daemon is older than this client: restart it with `roocode-cli daemon restart`",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonrpsee::types::ErrorObject;

    #[test]
    fn rpc_errors_keep_the_daemon_message() {
        let e = RpcError::Call(ErrorObject::owned(
            RpcErrorCode::InvalidConfig.code(),
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
            RpcErrorCode::InvalidConfig.code(),
            "bad key",
            Some(data),
        ));
        assert_eq!(Failure::from(e).kind, "auth");
    }

    #[test]
    fn the_cli_adds_its_own_hint_by_code() {
        let e = RpcError::Call(ErrorObject::owned(
            RpcErrorCode::SessionNotFound.code(),
            "no session matches `zz`",
            None::<()>,
        ));
        let f = Failure::from(e);
        assert_eq!(f.kind, "session_not_found");
        assert_eq!(
            f.message,
            "no session matches `zz`: list them with `roocode-cli sessions`"
        );
    }
}
