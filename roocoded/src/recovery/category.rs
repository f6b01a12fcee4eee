//! [`Category`]: the kinds of failure recovery tells apart, and how an LLM error maps
//! onto them. The LLM layer has already classified the provider's answer structurally
//! (status, the provider's error type; context overflow recognised before any generic
//! 400), so this mapping is total and never reads messages.

use std::fmt;

use crate::llm::LlmError;

/// One kind of failure, named as in the configuration (`recovery.chains.<name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// 429, honouring `retry-after`.
    RateLimited,
    /// 529, 503, Anthropic's `overloaded_error` mid-stream.
    Overloaded,
    /// Any other 5xx.
    ServerError,
    /// Connection refused or reset, a stream cut or stalled, a timeout.
    Network,
    /// 401/403: never retried; the message says which key to set.
    Auth,
    /// The request does not fit the model's window (413 included).
    ContextOverflow,
    /// A tool call whose arguments are not valid JSON or fail the tool's schema.
    MalformedToolCall,
    /// An edit whose `old_string` is not in the file, or is there several times.
    EditError,
    /// The model answered with nothing: no text, no tool call.
    EmptyResult,
    /// A tool that ran and failed: its result goes to the model, no chain starts.
    ToolFailure,
    /// A request the provider will never accept as sent (404 unknown model, other
    /// 400/422): aborted at once with the provider's message.
    BadRequest,
}

impl Category {
    /// Every category, in the order of the design's table.
    pub const ALL: [Category; 11] = [
        Category::RateLimited,
        Category::Overloaded,
        Category::ServerError,
        Category::Network,
        Category::Auth,
        Category::ContextOverflow,
        Category::MalformedToolCall,
        Category::EditError,
        Category::EmptyResult,
        Category::ToolFailure,
        Category::BadRequest,
    ];

    /// Its name in the configuration, events and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::RateLimited => "rate_limited",
            Category::Overloaded => "overloaded",
            Category::ServerError => "server_error",
            Category::Network => "network",
            Category::Auth => "auth",
            Category::ContextOverflow => "context_overflow",
            Category::MalformedToolCall => "malformed_tool_call",
            Category::EditError => "edit_error",
            Category::EmptyResult => "empty_result",
            Category::ToolFailure => "tool_failure",
            Category::BadRequest => "bad_request",
        }
    }

    /// The category named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// What words name it for a person: `rate limited`, `context too long`.
    pub fn describe(self) -> &'static str {
        match self {
            Category::RateLimited => "rate limited",
            Category::Overloaded => "overloaded",
            Category::ServerError => "server error",
            Category::Network => "network error",
            Category::Auth => "not authorised",
            Category::ContextOverflow => "context too long",
            Category::MalformedToolCall => "malformed tool call",
            Category::EditError => "edit did not match",
            Category::EmptyResult => "empty answer",
            Category::ToolFailure => "tool failed",
            Category::BadRequest => "request refused",
        }
    }

    /// The category of a failed model call; `None` for what is no failure to recover
    /// from (a cancel) or is the user's to fix before anything is sent (a bad model
    /// spec in the configuration).
    pub fn of_llm(error: &LlmError) -> Option<Self> {
        Some(match error.root() {
            LlmError::MissingKey { .. } | LlmError::Auth { .. } => Category::Auth,
            LlmError::RateLimited { .. } => Category::RateLimited,
            LlmError::Overloaded { .. } => Category::Overloaded,
            LlmError::ServerError { .. } => Category::ServerError,
            // A stream that broke or stalled after the request was accepted is the
            // connection's failure: sent again, it usually goes through.
            LlmError::Network { .. } | LlmError::Stream { .. } => Category::Network,
            LlmError::ContextOverflow { .. } => Category::ContextOverflow,
            LlmError::InvalidRequest { .. } => Category::BadRequest,
            LlmError::Config(_) | LlmError::Cancelled => return None,
            // `root` never returns it.
            LlmError::RetriesExhausted { .. } => return None,
        })
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn names_round_trip_and_are_unique() {
        for c in Category::ALL {
            assert_eq!(Category::from_name(c.as_str()), Some(c));
        }
        let mut names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Category::ALL.len());
        assert_eq!(Category::from_name("rate-limited"), None);
    }

    #[test]
    fn llm_errors_map_onto_categories() {
        let p = || "anthropic".to_string();
        let table = [
            (
                LlmError::RateLimited {
                    provider: p(),
                    detail: "HTTP 429".into(),
                    retry_after: Some(Duration::from_secs(3)),
                },
                Some(Category::RateLimited),
            ),
            (
                LlmError::Overloaded {
                    provider: p(),
                    detail: "overloaded_error".into(),
                    retry_after: None,
                },
                Some(Category::Overloaded),
            ),
            (
                LlmError::ServerError {
                    provider: p(),
                    status: Some(502),
                    detail: "HTTP 502".into(),
                    retry_after: None,
                },
                Some(Category::ServerError),
            ),
            (
                LlmError::Network {
                    url: "http://127.0.0.1:1".into(),
                    detail: "connection refused".into(),
                    hint: "start it".into(),
                },
                Some(Category::Network),
            ),
            (
                LlmError::Stream {
                    provider: p(),
                    detail: "ended early".into(),
                },
                Some(Category::Network),
            ),
            (
                LlmError::Auth {
                    provider: p(),
                    status: Some(401),
                    detail: "HTTP 401".into(),
                    key_hint: "ANTHROPIC_API_KEY".into(),
                },
                Some(Category::Auth),
            ),
            (
                LlmError::MissingKey {
                    var: "OPENAI_API_KEY".into(),
                },
                Some(Category::Auth),
            ),
            (
                LlmError::ContextOverflow {
                    provider: p(),
                    detail: "prompt is too long".into(),
                },
                Some(Category::ContextOverflow),
            ),
            (
                LlmError::InvalidRequest {
                    provider: p(),
                    status: Some(404),
                    detail: "model not found".into(),
                    hint: "check the model".into(),
                },
                Some(Category::BadRequest),
            ),
            (LlmError::Config("bad spec".into()), None),
            (LlmError::Cancelled, None),
        ];
        for (error, expected) in table {
            assert_eq!(Category::of_llm(&error), expected, "{error:?}");
            let exhausted = LlmError::RetriesExhausted {
                attempts: 5,
                last: Box::new(error.clone()),
            };
            assert_eq!(Category::of_llm(&exhausted), expected, "the root decides");
        }
    }
}
