//! WebFetch's `prompt`: a tool-less model call that answers the prompt from the fetched
//! page. It is one of the few model calls outside the loop, so its system prompt says
//! what it is, and it is recorded like every other call: a `model_calls` row whose
//! `turn_id` is `tool:WebFetch` (so `/cost` can tell it from the conversation), and the
//! session's usage totals.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::content::Message;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::llm::{self, CallOutcome, LlmError, ModelRequest, ResolvedModel};
use crate::recovery::{RetryPolicy, call_retrying};
use crate::store::{Store, tool_turn_id};

use super::call_row::{CallOf, call_row};
use crate::tools::Summarizer;

/// The tool these calls are made for, as recorded in `model_calls`.
const TOOL: &str = "WebFetch";

const SYSTEM: &str = "You are the page reader of RooCode's WebFetch tool. You receive the \
content of a web page and a prompt from a coding agent. Answer the prompt from the page \
only, concisely, quoting exact code, commands and version numbers where they matter. If \
the page does not answer it, say so.";

/// Answers WebFetch prompts with the session's model.
pub struct ModelSummarizer {
    pub model: ResolvedModel,
    pub policy: RetryPolicy,
    pub cancel: CancellationToken,
    /// Where the calls are recorded.
    pub store: Store,
    pub session_id: String,
    /// The agent whose tool call this is (the session id for the main agent).
    pub agent_id: String,
    /// `security.redact`: credentials in the page are redacted before the model sees
    /// them, as they are in every tool result.
    pub redact: bool,
}

impl ModelSummarizer {
    /// Records one call, successful or failed, as the agent loop does; a cancelled call
    /// is not recorded (nor is it by the loop). A storage failure is only logged: the
    /// answer is good all the same.
    async fn record(&self, result: &Result<CallOutcome, LlmError>) {
        let turn_id = tool_turn_id(TOOL);
        let of = CallOf {
            session_id: &self.session_id,
            turn_id: &turn_id,
            agent_id: &self.agent_id,
            purpose: crate::store::Purpose::WebFetch,
        };
        let row = match result {
            Ok(outcome) => {
                let u = &outcome.response.usage;
                if let Err(e) = self.store.add_session_usage(&self.session_id, u).await {
                    tracing::error!("cannot add WebFetch's model call to the session usage: {e}");
                }
                call_row(of, &self.model, Some(outcome), None)
            }
            Err(_) if self.cancel.is_cancelled() => return,
            Err(e) => call_row(of, &self.model, None, Some(e.to_string())),
        };
        if let Err(e) = self.store.record_model_call(&row).await {
            tracing::error!("cannot record WebFetch's model call: {e}");
        }
    }
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
            let redacted;
            let content = if self.redact {
                redacted = crate::tools::redact::redact(content).text;
                redacted.as_str()
            } else {
                content
            };
            let request = ModelRequest {
                model: self.model.model.clone(),
                system: SYSTEM.to_string(),
                messages: llm::owned_messages(vec![Message::user_text(format!(
                    "<page>\n{content}\n</page>\n\nPrompt: {prompt}"
                ))]),
                tools: Vec::new(),
                max_tokens: 4096,
            };
            let span =
                tracing::info_span!("model_call", model = %self.model.spec, purpose = "webfetch");
            let result = call_retrying(
                &self.model,
                &request,
                &self.policy,
                &self.cancel,
                &mut |_| {},
            )
            .instrument(span)
            .await;
            self.record(&result).await;
            Ok(result.map_err(|e| e.to_string())?.response.text())
        }
        .boxed()
    }
}
