//! WebFetch's `prompt`: a tool-less model call that answers the prompt from the fetched
//! page. It is one of the few model calls outside the loop, so its system prompt says
//! what it is, and it is recorded like every other call.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::content::{ContentBlock, Message};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::llm::{self, ModelRequest, ResolvedModel, RetryPolicy};
use crate::tools::Summarizer;

const SYSTEM: &str = "You are the page reader of RooCode's WebFetch tool. You receive the \
content of a web page and a prompt from a coding agent. Answer the prompt from the page \
only, concisely, quoting exact code, commands and version numbers where they matter. If \
the page does not answer it, say so.";

/// Answers WebFetch prompts with the session's model.
pub struct ModelSummarizer {
    pub model: ResolvedModel,
    pub policy: RetryPolicy,
    pub cancel: CancellationToken,
}

impl std::fmt::Debug for ModelSummarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSummarizer")
            .field("model", &self.model.spec)
            .finish_non_exhaustive()
    }
}

impl Summarizer for ModelSummarizer {
    fn summarize<'a>(
        &'a self,
        content: &'a str,
        prompt: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        async move {
            let request = ModelRequest {
                model: self.model.model.clone(),
                system: SYSTEM.to_string(),
                messages: vec![Message::user_text(format!(
                    "<page>\n{content}\n</page>\n\nPrompt: {prompt}"
                ))],
                tools: Vec::new(),
                max_tokens: 4096,
            };
            let span =
                tracing::info_span!("model_call", model = %self.model.spec, purpose = "webfetch");
            let outcome = llm::call_model(
                &self.model,
                &request,
                &self.policy,
                &self.cancel,
                &mut |_| {},
            )
            .instrument(span)
            .await
            .map_err(|e| e.to_string())?;
            let text: String = outcome
                .response
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            Ok(text)
        }
        .boxed()
    }
}
