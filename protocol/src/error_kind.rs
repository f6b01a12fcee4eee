//! The classes of errors that `error` events and failed turns carry
//! ([`crate::event::ErrorInfo`]), so clients can react to a class (an `auth` failure
//! asks for a key) without reading messages.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of error an `error` event or a failed turn reports. A kind this build
/// does not know (a newer daemon's) decodes into [`ErrorKind::Other`] with its
/// spelling kept, so it can still be shown.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A missing or refused API key.
    Auth,
    /// A configuration problem (bad model, unknown provider, broken file).
    Config,
    Network,
    RateLimited,
    Overloaded,
    ServerError,
    /// The conversation no longer fits the model's window.
    ContextOverflow,
    /// The provider refused the request as malformed.
    InvalidRequest,
    /// The model's stream broke off or could not be read.
    Stream,
    Cancelled,
    /// Something failed inside the daemon; see its log.
    Internal,
    /// The model kept calling tools that do not exist.
    UnknownTool,
    /// The turn reached its iteration limit (`max_turns`).
    MaxTurns,
    /// The answer reached the model's output limit (`max_tokens`).
    MaxTokens,
    /// The daemon stopped while the turn ran.
    Interrupted,
    /// The command sandbox is weaker than configured, or unavailable.
    Sandbox,
    /// A config file turned invalid during the turn.
    ConfigInvalid,
    /// Permission settings changed during a turn and were not applied.
    ConfigChangeRefused,
    /// A kind this build does not know, spelled as received.
    #[serde(untagged)]
    Other(String),
}

/// The known kinds, for parsing and tests.
const KNOWN: &[ErrorKind] = &[
    ErrorKind::Auth,
    ErrorKind::Config,
    ErrorKind::Network,
    ErrorKind::RateLimited,
    ErrorKind::Overloaded,
    ErrorKind::ServerError,
    ErrorKind::ContextOverflow,
    ErrorKind::InvalidRequest,
    ErrorKind::Stream,
    ErrorKind::Cancelled,
    ErrorKind::Internal,
    ErrorKind::UnknownTool,
    ErrorKind::MaxTurns,
    ErrorKind::MaxTokens,
    ErrorKind::Interrupted,
    ErrorKind::Sandbox,
    ErrorKind::ConfigInvalid,
    ErrorKind::ConfigChangeRefused,
];

impl ErrorKind {
    /// The wire spelling (`rate_limited`).
    pub fn as_str(&self) -> &str {
        match self {
            ErrorKind::Auth => "auth",
            ErrorKind::Config => "config",
            ErrorKind::Network => "network",
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::ServerError => "server_error",
            ErrorKind::ContextOverflow => "context_overflow",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::Stream => "stream",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Internal => "internal",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::MaxTurns => "max_turns",
            ErrorKind::MaxTokens => "max_tokens",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Sandbox => "sandbox",
            ErrorKind::ConfigInvalid => "config_invalid",
            ErrorKind::ConfigChangeRefused => "config_change_refused",
            ErrorKind::Other(s) => s,
        }
    }

    /// The kind spelled `s` (its wire spelling); any other spelling is [`ErrorKind::Other`].
    pub fn parse(s: &str) -> Self {
        KNOWN
            .iter()
            .find(|k| k.as_str() == s)
            .cloned()
            .unwrap_or_else(|| ErrorKind::Other(s.to_owned()))
    }
}

impl From<&str> for ErrorKind {
    fn from(s: &str) -> Self {
        ErrorKind::parse(s)
    }
}

impl From<String> for ErrorKind {
    fn from(s: String) -> Self {
        ErrorKind::parse(&s)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_kinds_keep_their_spelling_and_parse_back() {
        for k in KNOWN {
            let json = serde_json::to_value(k).unwrap();
            assert_eq!(json, serde_json::Value::from(k.as_str()));
            assert_eq!(&serde_json::from_value::<ErrorKind>(json).unwrap(), k);
            assert_eq!(&ErrorKind::parse(k.as_str()), k);
        }
    }

    #[test]
    fn an_unknown_kind_is_kept_as_spelled() {
        let k: ErrorKind = serde_json::from_str(r#""quota_exceeded""#).unwrap();
        assert_eq!(k, ErrorKind::Other("quota_exceeded".into()));
        assert_eq!(serde_json::to_string(&k).unwrap(), r#""quota_exceeded""#);
        assert_eq!(ErrorKind::from("auth"), ErrorKind::Auth);
    }
}
