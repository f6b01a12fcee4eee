//! The OpenAI-compatible Chat Completions format: the request body ([`request`]) and
//! the SSE parser ([`parser`]), written for what OpenAI, DeepSeek, GLM, Ollama,
//! llama.cpp and vLLM send.

mod parser;
mod request;
#[cfg(test)]
mod request_tests;
#[cfg(test)]
mod tests;

pub(super) use parser::OpenAiParser;
pub(super) use request::encode;
