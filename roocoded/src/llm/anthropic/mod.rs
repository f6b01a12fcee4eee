//! The Anthropic Messages provider: POST `{base}/v1/messages` with `x-api-key` (or a
//! bearer token) and `anthropic-version`, streamed as SSE through [`parser`].

mod parser;
mod request;
#[cfg(test)]
mod request_tests;
#[cfg(test)]
mod tests;

use futures_util::future::BoxFuture;
use futures_util::{FutureExt, TryStreamExt};
use reqwest::header::{HeaderMap, HeaderValue};

use super::error::{ErrorContext, LlmError};
use super::http::{Endpoint, error_chain};
use super::{EventStream, ModelRequest, Provider, sse};

pub(crate) use request::ObjectInput;

/// The `anthropic-version` header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Default base URL (without `/v1`).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// How requests authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnthropicAuth {
    /// `x-api-key` (ANTHROPIC_API_KEY).
    ApiKey(String),
    /// `authorization: Bearer` (ANTHROPIC_AUTH_TOKEN, for gateways).
    Bearer(String),
}

/// Speaks the Anthropic Messages protocol to one endpoint.
pub struct AnthropicProvider {
    http: reqwest::Client,
    endpoint: Endpoint,
    auth: AnthropicAuth,
}

impl AnthropicProvider {
    /// `base_url` has no `/v1` (`https://api.anthropic.com`); `provider` names it in
    /// errors, `key_hint` says what to check on an auth failure, `network_hint` what to
    /// check when the endpoint is unreachable.
    pub(crate) fn new(
        http: reqwest::Client,
        base_url: &str,
        auth: AnthropicAuth,
        errors: ErrorContext,
        network_hint: String,
    ) -> Self {
        AnthropicProvider {
            http,
            endpoint: Endpoint {
                url: format!("{}/v1/messages", base_url.trim_end_matches('/')),
                network_hint,
                errors,
            },
            auth,
        }
    }

    fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut h = HeaderMap::new();
        let bad_key = |_| {
            LlmError::Config(format!(
                "the API key for {} contains characters not allowed in an HTTP header: check {}",
                self.endpoint.errors.provider, self.endpoint.errors.key_hint
            ))
        };
        match &self.auth {
            AnthropicAuth::ApiKey(key) => {
                h.insert("x-api-key", HeaderValue::from_str(key).map_err(bad_key)?);
            }
            AnthropicAuth::Bearer(token) => {
                let value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(bad_key)?;
                h.insert(reqwest::header::AUTHORIZATION, value);
            }
        }
        h.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        Ok(h)
    }
}

impl Provider for AnthropicProvider {
    fn protocol(&self) -> &'static str {
        "anthropic"
    }

    fn encode(&self, req: &ModelRequest<'_>) -> Result<bytes::Bytes, LlmError> {
        request::encode(req)
            .map(bytes::Bytes::from)
            .map_err(|e| LlmError::Config(format!("cannot encode the request: {e}")))
    }

    fn stream(&self, body: bytes::Bytes) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        async move {
            let response = self
                .endpoint
                .post(&self.http, self.headers()?, body)
                .await?;
            let bytes = response.bytes_stream().map_err(|e| error_chain(&e));
            let parser = parser::AnthropicParser::new(self.endpoint.errors.clone());
            Ok(sse::parse_stream(bytes, parser))
        }
        .boxed()
    }

    fn endpoint(&self) -> &str {
        &self.endpoint.url
    }
}
