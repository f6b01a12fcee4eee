//! `LlmError`: every failure of the LLM layer, classified structurally (HTTP status and
//! the provider's error type; context overflow recognised before generic errors) into
//! the kinds the agent's recovery chains use. Each message is one line saying what
//! happened and what to do.

use std::time::Duration;

use serde_json::Value;

/// A failed model call or model resolution.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The API key variable for the chosen provider is not in the client's environment.
    #[error("{var} is not set: export it, or point ROOCODE_MODEL at another provider")]
    MissingKey { var: String },
    /// A bad model spec or provider configuration; the message says what to change.
    #[error("{0}")]
    Config(String),
    /// 401/403 (or an exhausted quota): the credentials are not accepted.
    #[error("{provider} rejected the request ({detail}): check {key_hint}")]
    Auth {
        provider: String,
        status: Option<u16>,
        detail: String,
        key_hint: String,
    },
    #[error(
        "{provider} rate limit reached ({detail}): wait a moment and retry, or lower the request rate"
    )]
    RateLimited {
        provider: String,
        detail: String,
        retry_after: Option<Duration>,
    },
    #[error("{provider} is overloaded ({detail}): try again in a little while")]
    Overloaded {
        provider: String,
        detail: String,
        retry_after: Option<Duration>,
    },
    #[error("{provider} server error ({detail}): try again later")]
    ServerError {
        provider: String,
        status: Option<u16>,
        detail: String,
        retry_after: Option<Duration>,
    },
    /// The endpoint could not be reached (connection refused, DNS, TLS, timeout).
    #[error("cannot reach {url} ({detail}): {hint}")]
    Network {
        url: String,
        detail: String,
        hint: String,
    },
    #[error(
        "the conversation is too long for the model's context window ({detail}): compact it or start a new session"
    )]
    ContextOverflow { provider: String, detail: String },
    /// 400/404/422 and other requests the provider will never accept as sent.
    #[error("{provider} rejected the request ({detail}): {hint}")]
    InvalidRequest {
        provider: String,
        status: Option<u16>,
        detail: String,
        hint: String,
    },
    /// The stream broke, ended before its terminal event or could not be parsed.
    #[error(
        "the response stream from {provider} broke ({detail}): try again, and check the server if it keeps failing"
    )]
    Stream { provider: String, detail: String },
    #[error("the model call was cancelled")]
    Cancelled,
    /// A retryable failure that outlasted the retry budget.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted { attempts: u32, last: Box<LlmError> },
}

impl LlmError {
    /// One of `auth`, `config`, `rate_limited`, `overloaded`, `server_error`, `network`,
    /// `context_overflow`, `invalid_request`, `stream`, `cancelled`.
    pub fn kind(&self) -> &'static str {
        match self {
            LlmError::MissingKey { .. } | LlmError::Auth { .. } => "auth",
            LlmError::Config(_) => "config",
            LlmError::RateLimited { .. } => "rate_limited",
            LlmError::Overloaded { .. } => "overloaded",
            LlmError::ServerError { .. } => "server_error",
            LlmError::Network { .. } => "network",
            LlmError::ContextOverflow { .. } => "context_overflow",
            LlmError::InvalidRequest { .. } => "invalid_request",
            LlmError::Stream { .. } => "stream",
            LlmError::Cancelled => "cancelled",
            LlmError::RetriesExhausted { last, .. } => last.kind(),
        }
    }

    /// Whether another attempt may succeed. `RetriesExhausted` is not: its budget is spent.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Overloaded { .. }
                | LlmError::ServerError { .. }
                | LlmError::Network { .. }
                | LlmError::Stream { .. }
        )
    }

    /// The server's `retry-after`, when it sent one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. }
            | LlmError::Overloaded { retry_after, .. }
            | LlmError::ServerError { retry_after, .. } => *retry_after,
            LlmError::RetriesExhausted { last, .. } => last.retry_after(),
            _ => None,
        }
    }

    /// The HTTP status, when the error came from one.
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Auth { status, .. }
            | LlmError::ServerError { status, .. }
            | LlmError::InvalidRequest { status, .. } => *status,
            LlmError::RateLimited { .. } => Some(429),
            LlmError::RetriesExhausted { last, .. } => last.status(),
            _ => None,
        }
    }

    /// The underlying error of `RetriesExhausted`, or `self`.
    pub fn root(&self) -> &LlmError {
        match self {
            LlmError::RetriesExhausted { last, .. } => last.root(),
            other => other,
        }
    }

    /// A short clause for `retrying` events: what went wrong, without advice.
    pub fn reason(&self) -> String {
        match self {
            LlmError::RateLimited { detail, .. } => format!("rate limited ({detail})"),
            LlmError::Overloaded { detail, .. } => format!("overloaded ({detail})"),
            LlmError::ServerError { detail, .. } => format!("server error ({detail})"),
            LlmError::Network { url, detail, .. } => format!("cannot reach {url} ({detail})"),
            LlmError::Stream { detail, .. } => format!("stream broke ({detail})"),
            other => other.to_string(),
        }
    }
}

/// Who produced an error, for messages: the provider's name and where its key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ErrorContext {
    /// `anthropic`, `openai`, or the custom provider's name.
    pub provider: String,
    /// What to check on an auth failure, e.g. `ANTHROPIC_API_KEY`.
    pub key_hint: String,
}

impl ErrorContext {
    #[cfg(test)]
    pub(crate) fn test(provider: &str) -> Self {
        ErrorContext {
            provider: provider.to_string(),
            key_hint: format!("{}_API_KEY", provider.to_uppercase()),
        }
    }

    pub(crate) fn stream_error(&self, detail: impl Into<String>) -> LlmError {
        LlmError::Stream {
            provider: self.provider.clone(),
            detail: one_line(&detail.into()),
        }
    }

    /// Classifies an HTTP error response.
    pub(crate) fn status_error(
        &self,
        status: u16,
        retry_after: Option<Duration>,
        body: &str,
    ) -> LlmError {
        let info = ErrorBody::parse(body);
        let detail = match info.message.is_empty() {
            true => format!("HTTP {status}"),
            false => format!("HTTP {status}: {}", info.message),
        };
        let overflow = matches!(status, 400 | 422) && info.is_context_overflow();
        let quota = info.code == "insufficient_quota" || info.kind == "insufficient_quota";
        let class = match status {
            413 => Class::ContextOverflow,
            _ if overflow => Class::ContextOverflow,
            401 | 403 => Class::Auth(self.key_hint.clone()),
            429 if quota => Class::Auth(format!(
                "the plan and billing of your {} account",
                self.provider
            )),
            429 => Class::RateLimited,
            // 503 is a server busy or still loading its model (llama.cpp, vLLM): back
            // off as from Anthropic's 529.
            529 | 503 => Class::Overloaded,
            _ if info.kind == "overloaded_error" => Class::Overloaded,
            408 | 500..=599 => Class::Server,
            404 => Class::Invalid(
                "check the model name (ROOCODE_MODEL or `model:` in config.yaml) and the base URL",
            ),
            _ => Class::Invalid(CHECK_REQUEST),
        };
        self.error(class, Some(status), detail, retry_after)
    }

    /// Classifies an error reported inside a stream (Anthropic `error` event, an OpenAI
    /// chunk with an `error` object). Unknown types are retryable stream failures.
    pub(crate) fn event_error(&self, error: &Value) -> LlmError {
        let info = ErrorBody::from_value(error);
        let detail = match (info.kind.is_empty(), info.message.is_empty()) {
            (false, false) => format!("{}: {}", info.kind, info.message),
            (false, true) => info.kind.clone(),
            (true, false) => info.message.clone(),
            (true, true) => "error event".to_string(),
        };
        let class = match info.kind.as_str() {
            _ if info.is_context_overflow() => Class::ContextOverflow,
            "overloaded_error" | "overloaded" => Class::Overloaded,
            "rate_limit_error" | "rate_limit_exceeded" => Class::RateLimited,
            "api_error" | "server_error" | "internal_error" | "timeout_error" => Class::Server,
            "authentication_error" | "permission_error" => Class::Auth(self.key_hint.clone()),
            "invalid_request_error" | "not_found_error" => Class::Invalid(CHECK_REQUEST),
            _ => Class::Stream,
        };
        self.error(class, None, detail, None)
    }

    /// The error of `class` from this provider; variants without a status or a
    /// `retry-after` drop them.
    fn error(
        &self,
        class: Class,
        status: Option<u16>,
        detail: String,
        retry_after: Option<Duration>,
    ) -> LlmError {
        let provider = self.provider.clone();
        match class {
            Class::Auth(key_hint) => LlmError::Auth {
                provider,
                status,
                detail,
                key_hint,
            },
            Class::RateLimited => LlmError::RateLimited {
                provider,
                detail,
                retry_after,
            },
            Class::Overloaded => LlmError::Overloaded {
                provider,
                detail,
                retry_after,
            },
            Class::Server => LlmError::ServerError {
                provider,
                status,
                detail,
                retry_after,
            },
            Class::ContextOverflow => LlmError::ContextOverflow { provider, detail },
            Class::Invalid(hint) => LlmError::InvalidRequest {
                provider,
                status,
                detail,
                hint: hint.to_string(),
            },
            Class::Stream => LlmError::Stream { provider, detail },
        }
    }
}

/// The advice for a request the provider will not accept.
const CHECK_REQUEST: &str = "check the model name and the request settings";

/// What a provider's failure is, before it gets the provider's name and the detail.
enum Class {
    /// With what to check.
    Auth(String),
    RateLimited,
    Overloaded,
    Server,
    ContextOverflow,
    /// With the advice.
    Invalid(&'static str),
    Stream,
}

/// The interesting parts of a provider's error JSON (Anthropic `{"type":"error",
/// "error":{"type","message"}}`, OpenAI `{"error":{"message","type","code"}}`).
struct ErrorBody {
    kind: String,
    code: String,
    message: String,
}

impl ErrorBody {
    fn parse(body: &str) -> Self {
        match serde_json::from_str::<Value>(body) {
            Ok(v) => match v.get("error") {
                Some(e @ Value::Object(_)) => Self::from_value(e),
                Some(Value::String(s)) => ErrorBody {
                    kind: String::new(),
                    code: String::new(),
                    message: one_line(s),
                },
                _ => Self::from_value(&v),
            },
            Err(_) => ErrorBody {
                kind: String::new(),
                code: String::new(),
                message: one_line(body),
            },
        }
    }

    fn from_value(v: &Value) -> Self {
        let v = match v.get("error") {
            Some(inner @ Value::Object(_)) => inner,
            _ => v,
        };
        let text = |key: &str| match v.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let kind = match text("type") {
            t if t == "error" => String::new(),
            t => t,
        };
        ErrorBody {
            kind,
            code: text("code"),
            message: one_line(&text("message")),
        }
    }

    fn is_context_overflow(&self) -> bool {
        const PATTERNS: &[&str] = &[
            "prompt is too long",
            "context_length_exceeded",
            "maximum context length",
            "context length",
            "context window",
            "context size",
            "input is too long",
        ];
        // OpenAI's code; llama.cpp's `llama-server` type.
        if self.code == "context_length_exceeded" || self.kind == "exceed_context_size_error" {
            return true;
        }
        let message = self.message.to_lowercase();
        PATTERNS.iter().any(|p| message.contains(p))
    }
}

/// Collapses whitespace to single spaces and caps the length, for one-line messages.
pub(crate) fn one_line(text: &str) -> String {
    const MAX_CHARS: usize = 300;
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => format!("{}…", &joined[..at]),
        None => joined,
    }
}

#[cfg(test)]
mod tests;
