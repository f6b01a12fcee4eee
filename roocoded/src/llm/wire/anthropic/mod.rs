//! The Anthropic Messages format: the request body ([`request`]) and the SSE parser
//! ([`parser`]).

mod parser;
mod request;
#[cfg(test)]
mod request_tests;
#[cfg(test)]
mod tests;

pub(super) use parser::AnthropicParser;
pub(super) use request::encode;

/// The `anthropic-version` header value.
pub(super) const VERSION: &str = "2023-06-01";
