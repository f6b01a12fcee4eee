//! Maps engine errors to JSON-RPC errors: the protocol's typed code
//! ([`RpcErrorCode`]), the engine's message (facts only) and [`RpcErrorData`] naming
//! the code and what the error is about, from which each client adds its own hint.

use jsonrpsee::types::ErrorObjectOwned;
use roocode_protocol::error::{RpcErrorCode, RpcErrorData};

use crate::agent::AgentError;

/// The code of an engine error.
pub fn code_of(e: &AgentError) -> RpcErrorCode {
    match e {
        AgentError::NotFound(_) => RpcErrorCode::SessionNotFound,
        AgentError::Ambiguous(..) => RpcErrorCode::AmbiguousSession,
        AgentError::Invalid(_) => RpcErrorCode::InvalidRequest,
        AgentError::Config(_) => RpcErrorCode::InvalidConfig,
        AgentError::Busy(_) => RpcErrorCode::Busy,
        AgentError::RequestNotFound { .. } => RpcErrorCode::RequestNotFound,
        AgentError::Store(_) => RpcErrorCode::Internal,
    }
}

pub fn to_rpc(e: AgentError) -> ErrorObjectOwned {
    let code = code_of(&e);
    if code == RpcErrorCode::Internal {
        tracing::error!("{e}");
    }
    let subject = match &e {
        AgentError::NotFound(id) | AgentError::Ambiguous(id, _) => Some(id.clone()),
        AgentError::RequestNotFound { id, .. } => Some(id.clone()),
        _ => None,
    };
    error_object(code, e.to_string(), subject)
}

/// An error object of `code` with `message`, its data naming the code and `subject`.
pub fn error_object(
    code: RpcErrorCode,
    message: impl Into<String>,
    subject: Option<String>,
) -> ErrorObjectOwned {
    let data = RpcErrorData {
        kind: code.kind().to_owned(),
        subject,
    };
    ErrorObjectOwned::owned(code.code(), message.into(), Some(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_carry_their_code_and_subject() {
        let obj = to_rpc(AgentError::NotFound("abc".into()));
        assert_eq!(obj.code(), RpcErrorCode::SessionNotFound.code());
        assert_eq!(obj.message(), "no session matches `abc`");
        let data = obj.data().map(|d| d.get().to_owned()).unwrap_or_default();
        assert_eq!(data, r#"{"kind":"session_not_found","subject":"abc"}"#);
        let busy = to_rpc(AgentError::Busy("compact".into()));
        assert_eq!(busy.code(), RpcErrorCode::Busy.code());
        assert_eq!(busy.message(), "cannot compact while a turn is running");
    }
}
