//! Reading the daemon's RPC errors: the typed code ([`RpcErrorCode`]), the daemon's
//! message (facts only) and its data, so each client can add the hint that fits its
//! own user by code rather than by matching message text.

use jsonrpsee::core::ClientError;
use roocode_protocol::error::{RpcErrorCode, RpcErrorData};

/// An error the daemon returned for a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcFailure {
    pub code: RpcErrorCode,
    pub message: String,
    /// Empty when the daemon sent none (or one this client cannot read).
    pub data: RpcErrorData,
}

impl RpcFailure {
    /// The daemon's answer inside `e`; `None` for transport failures and timeouts.
    pub fn of(e: &ClientError) -> Option<Self> {
        let ClientError::Call(obj) = e else {
            return None;
        };
        let data = obj
            .data()
            .and_then(|raw| serde_json::from_str::<RpcErrorData>(raw.get()).ok())
            .unwrap_or_default();
        Some(RpcFailure {
            code: RpcErrorCode::from_code(obj.code()),
            message: obj.message().to_owned(),
            data,
        })
    }

    /// The kind to report: the one in the data, else the code's.
    pub fn kind(&self) -> &str {
        if self.data.kind.is_empty() {
            self.code.kind()
        } else {
            &self.data.kind
        }
    }

    /// The message followed by `hint` (`message: hint`), or the message alone.
    pub fn with_hint(&self, hint: Option<&str>) -> String {
        match hint {
            Some(hint) => format!("{}: {hint}", self.message),
            None => self.message.clone(),
        }
    }
}

/// The message of an RPC error: the daemon's own words for a call error, the
/// transport's description otherwise.
pub fn error_message(e: &ClientError) -> String {
    match RpcFailure::of(e) {
        Some(f) => f.message,
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonrpsee::types::ErrorObject;

    #[test]
    fn a_call_error_yields_its_code_and_data() {
        let data = serde_json::json!({"kind": "session_not_found", "subject": "abc"});
        let e = ClientError::Call(ErrorObject::owned(
            RpcErrorCode::SessionNotFound.code(),
            "no session matches `abc`",
            Some(data),
        ));
        let Some(f) = RpcFailure::of(&e) else {
            panic!("not a call error: {e}");
        };
        assert_eq!(f.code, RpcErrorCode::SessionNotFound);
        assert_eq!(f.data.subject.as_deref(), Some("abc"));
        assert_eq!(
            f.with_hint(Some("list them")),
            "no session matches `abc`: list them"
        );
        assert!(RpcFailure::of(&ClientError::RequestTimeout).is_none());
    }

    #[test]
    fn unreadable_data_and_unknown_codes_are_tolerated() {
        let e = ClientError::Call(ErrorObject::owned(-32077, "new", Some(42)));
        let Some(f) = RpcFailure::of(&e) else {
            panic!("not a call error");
        };
        assert_eq!(f.code, RpcErrorCode::Unknown(-32077));
        assert_eq!(f.kind(), "rpc");
        assert_eq!(error_message(&e), "new");
    }
}
