//! Keeping a model call's raw bodies (`trace.bodies`): the request as sent and the
//! answer as assembled (`content`, `stop_reason`, `usage` — what a replay serves back),
//! both scrubbed of the call's secrets by value, up to `trace.max_body_mb` per session.
//! The agent loop and compaction keep theirs through one [`BodyRecorder`].

use roocode_protocol::content::{ContentBlock, Usage};
use serde::Deserialize;

use super::scrub::Scrubber;
use crate::config::Config;
use crate::llm::CallOutcome;
use crate::store::Store;

/// What keeping a call's bodies needs: the secrets to scrub and the session's cap.
#[derive(Debug, Clone)]
pub struct BodyRecorder {
    scrubber: Scrubber,
    cap: u64,
}

impl BodyRecorder {
    /// The recorder of a call made with the client environment `env` under `config`;
    /// `None` when bodies are not kept (`trace.bodies: false`, `trace.record: false`).
    pub fn new(env: &std::collections::BTreeMap<String, String>, config: &Config) -> Option<Self> {
        let cap = config.trace_bodies_cap()?;
        Some(BodyRecorder {
            scrubber: Scrubber::for_turn(env, config),
            cap,
        })
    }

    /// Keeps the bodies of the call recorded as `model_call_id` (a failure is logged:
    /// the recorder never fails what it records).
    pub async fn record(
        &self,
        store: &Store,
        session_id: &str,
        model_call_id: &str,
        outcome: &CallOutcome,
    ) {
        let request = self
            .scrubber
            .scrub(&String::from_utf8_lossy(&outcome.request_body));
        let r = &outcome.response;
        let response = serde_json::json!({
            "content": r.content,
            "stop_reason": r.stop_reason.as_str(),
            "usage": r.usage,
        });
        let response = self.scrubber.scrub(&response.to_string());
        if let Err(e) = store
            .record_bodies(session_id, model_call_id, &request, &response, self.cap)
            .await
        {
            tracing::warn!("cannot record the model call's bodies: {e}");
        }
    }
}

/// A recorded answer as [`BodyRecorder::record`] keeps it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RecordedAnswer {
    pub content: Vec<ContentBlock>,
    pub stop_reason: String,
    #[serde(default)]
    pub usage: Usage,
}

impl RecordedAnswer {
    /// The answer of a recorded response body.
    pub fn parse(response: &str) -> Result<RecordedAnswer, serde_json::Error> {
        serde_json::from_str(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_answer_reads_back() {
        let body = serde_json::json!({
            "content": [{"type": "text", "text": "hi"},
                        {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "a"}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 0, "cache_write_tokens": 0},
        });
        let answer = RecordedAnswer::parse(&body.to_string()).unwrap();
        assert_eq!(answer.content.len(), 2);
        assert_eq!(answer.stop_reason, "tool_use");
        assert_eq!(answer.usage.input_tokens, 10);
    }
}
