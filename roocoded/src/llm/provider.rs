//! [`Provider`]: the one model endpoint over HTTP. It encodes a request in its
//! [`WireFormat`], POSTs it with the endpoint's credentials, turns transport failures
//! and error statuses into classified [`LlmError`]s, and parses the SSE answer with the
//! format's parser. What differs between Anthropic and OpenAI-compatible servers is in
//! `wire/`; everything here is written once for both.

use futures_util::TryStreamExt;
use reqwest::header::{HeaderMap, HeaderValue};

use super::error::{ErrorContext, LlmError, one_line};
use super::http::{error_chain, read_error_body, retry_after};
use super::wire::WireFormat;
use super::{EventStream, ModelRequest, sse};

/// How requests authenticate.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// No credentials (local servers).
    None,
    /// `x-api-key` (ANTHROPIC_API_KEY).
    ApiKey(String),
    /// `authorization: Bearer` (OpenAI-compatible keys; ANTHROPIC_AUTH_TOKEN for
    /// gateways).
    Bearer(String),
}

/// One endpoint speaking one wire format.
pub struct Provider {
    http: reqwest::Client,
    format: WireFormat,
    /// The full POST URL.
    url: String,
    auth: Auth,
    /// Advice for an unreachable endpoint, e.g. `check that the server is running and
    /// ANTHROPIC_BASE_URL is right`.
    network_hint: String,
    errors: ErrorContext,
}

impl Provider {
    /// `base_url` is what the format's path is appended to (Anthropic's has no `/v1`,
    /// an OpenAI-compatible one ends in `/v1`); `errors` names the provider and where
    /// its key comes from, `network_hint` what to check when it is unreachable.
    pub(crate) fn new(
        http: reqwest::Client,
        format: WireFormat,
        base_url: &str,
        auth: Auth,
        errors: ErrorContext,
        network_hint: String,
    ) -> Self {
        Provider {
            http,
            format,
            url: format.url(base_url.trim_end_matches('/')),
            auth,
            network_hint,
            errors,
        }
    }

    pub fn format(&self) -> WireFormat {
        self.format
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        &self.url
    }

    pub(crate) fn errors(&self) -> &ErrorContext {
        &self.errors
    }

    /// The request body for `req` (encoded once per call, then reused by every attempt).
    pub(crate) fn encode(&self, req: &ModelRequest<'_>) -> Result<bytes::Bytes, LlmError> {
        self.format
            .encode(req)
            .map(bytes::Bytes::from)
            .map_err(|e| LlmError::Config(format!("cannot encode the request: {e}")))
    }

    /// One HTTP request: POSTs `body` and returns the response once a success status
    /// arrived.
    pub(crate) async fn send(&self, body: bytes::Bytes) -> Result<reqwest::Response, LlmError> {
        let mut headers = self.auth_headers()?;
        self.format.add_headers(&mut headers);
        let response = self
            .http
            .post(&self.url)
            .headers(headers)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .body(body)
            .send()
            .await
            .map_err(|e| LlmError::Network {
                url: self.url.clone(),
                detail: one_line(&error_chain(&e)),
                hint: self.network_hint.clone(),
            })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let text = read_error_body(response).await;
        Err(self
            .errors
            .status_error(status.as_u16(), retry_after, &text))
    }

    /// The normalised events of a response `send` returned.
    pub(crate) fn events(&self, response: reqwest::Response) -> EventStream {
        let bytes = response.bytes_stream().map_err(|e| error_chain(&e));
        let parser = self.format.parser(self.errors.clone());
        sse::parse_stream(bytes, parser, self.errors.clone())
    }

    fn auth_headers(&self) -> Result<HeaderMap, LlmError> {
        let bad_key = |_| {
            LlmError::Config(format!(
                "the API key for {} contains characters not allowed in an HTTP header: check {}",
                self.errors.provider, self.errors.key_hint
            ))
        };
        let mut headers = HeaderMap::new();
        match &self.auth {
            Auth::None => {}
            Auth::ApiKey(key) => {
                let value = HeaderValue::from_str(key).map_err(bad_key)?;
                headers.insert("x-api-key", value);
            }
            Auth::Bearer(token) => {
                let value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(bad_key)?;
                headers.insert(reqwest::header::AUTHORIZATION, value);
            }
        }
        Ok(headers)
    }
}
