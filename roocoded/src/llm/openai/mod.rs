//! The OpenAI-compatible Chat Completions provider: POST `{base}/chat/completions`
//! (the base ends in `/v1`) with an optional bearer key, streamed as SSE through
//! [`parser`]. Works with OpenAI, DeepSeek, GLM, Ollama, llama.cpp, vLLM.

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

pub(crate) use request::MaxTokensField;

/// Default base URL (with `/v1`).
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Speaks Chat Completions to one endpoint.
pub struct OpenAiProvider {
    http: reqwest::Client,
    endpoint: Endpoint,
    key: Option<String>,
    max_field: MaxTokensField,
}

impl OpenAiProvider {
    /// `base_url` ends in `/v1`; `key` is optional for local servers.
    pub(crate) fn new(
        http: reqwest::Client,
        base_url: &str,
        key: Option<String>,
        errors: ErrorContext,
        network_hint: String,
    ) -> Self {
        let base_url = base_url.trim_end_matches('/');
        let max_field = match base_url == DEFAULT_BASE_URL {
            true => MaxTokensField::MaxCompletionTokens,
            false => MaxTokensField::MaxTokens,
        };
        OpenAiProvider {
            http,
            endpoint: Endpoint {
                url: format!("{base_url}/chat/completions"),
                network_hint,
                errors,
            },
            key,
            max_field,
        }
    }

    fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut h = HeaderMap::new();
        if let Some(key) = &self.key {
            let value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                LlmError::Config(format!(
                    "the API key for {} contains characters not allowed in an HTTP header: check {}",
                    self.endpoint.errors.provider, self.endpoint.errors.key_hint
                ))
            })?;
            h.insert(reqwest::header::AUTHORIZATION, value);
        }
        Ok(h)
    }
}

impl Provider for OpenAiProvider {
    fn protocol(&self) -> &'static str {
        "openai"
    }

    fn encode(&self, req: &ModelRequest<'_>) -> Result<bytes::Bytes, LlmError> {
        request::encode(req, self.max_field)
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
            let parser = parser::OpenAiParser::new(self.endpoint.errors.clone());
            Ok(sse::parse_stream(bytes, parser))
        }
        .boxed()
    }

    fn endpoint(&self) -> &str {
        &self.endpoint.url
    }
}
