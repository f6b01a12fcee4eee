//! The flight recorder's writer: what the recorder keeps is written by one task of its
//! own, in the order it was handed over, so that recording never holds up a turn —
//! scrubbing, splitting and storing a request body (tens of kilobytes, every model
//! call) and a tool call's row happen beside the agent loop, not in it.
//!
//! Whoever reads what the recorder keeps first waits for what was handed over before
//! to be written ([`Writer::flush`]): `session.trace`, `session.trace_body`, a replay
//! reading its recording, the daemon stopping. A crash loses at most what was still
//! queued (a few calls' bodies: a replay then says which are missing).

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::bodies::{BodyRecorder, split};
use crate::llm::CallOutcome;
use crate::store::{Store, ToolCallRow};

/// What the writer is given to write.
enum Job {
    Body {
        recorder: BodyRecorder,
        session_id: String,
        model_call_id: String,
        request: bytes::Bytes,
        response: serde_json::Value,
    },
    ToolCall(Box<ToolCallRow>),
    Flush(oneshot::Sender<()>),
}

/// The handle of the recorder's writer task (cheap to clone).
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::UnboundedSender<Job>,
}

impl Writer {
    /// Starts the writer over `store`; call from inside the tokio runtime.
    pub fn start(store: Store) -> Writer {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(Arc::new(store), rx));
        Writer { tx }
    }

    fn send(&self, job: Job) {
        if self.tx.send(job).is_err() {
            tracing::warn!("the flight recorder's writer is gone: a record was dropped");
        }
    }

    /// Keeps the bodies of the call recorded as `model_call_id`, scrubbed and capped as
    /// `recorder` says.
    pub fn body(
        &self,
        recorder: &BodyRecorder,
        session_id: &str,
        model_call_id: &str,
        outcome: &CallOutcome,
    ) {
        let r = &outcome.response;
        self.send(Job::Body {
            recorder: recorder.clone(),
            session_id: session_id.to_string(),
            model_call_id: model_call_id.to_string(),
            request: outcome.request_body.clone(),
            response: serde_json::json!({
                "content": r.content,
                "stop_reason": r.stop_reason.as_str(),
                "usage": r.usage,
            }),
        });
    }

    /// Records a tool call's row.
    pub fn tool_call(&self, row: ToolCallRow) {
        self.send(Job::ToolCall(Box::new(row)));
    }

    /// Returns once everything handed over before is written.
    pub async fn flush(&self) {
        let (done, written) = oneshot::channel();
        self.send(Job::Flush(done));
        let _ = written.await;
    }
}

async fn run(store: Arc<Store>, mut rx: mpsc::UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        match job {
            Job::Body {
                recorder,
                session_id,
                model_call_id,
                request,
                response,
            } => {
                let scrubber = recorder.scrubber();
                let request = split(&scrubber.scrub(&String::from_utf8_lossy(&request)));
                let response = scrubber.scrub(&response.to_string());
                if let Err(e) = store
                    .record_bodies(
                        &session_id,
                        &model_call_id,
                        &request,
                        &response,
                        recorder.cap(),
                    )
                    .await
                {
                    tracing::warn!("cannot record the model call's bodies: {e}");
                }
            }
            Job::ToolCall(row) => {
                if let Err(e) = store.record_tool_call(&row).await {
                    tracing::warn!("cannot record the tool call in the trace: {e}");
                }
            }
            Job::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewSession;

    #[tokio::test]
    async fn what_was_handed_over_is_written_by_the_time_a_flush_returns() {
        let store = Store::memory().await.unwrap();
        let id = store
            .insert_session(&NewSession {
                id: "0191ab-9".into(),
                parent_session_id: None,
                kind: roocode_protocol::session::SessionKind::Main,
                title: String::new(),
                cwd: "/p".into(),
                root: "/p".into(),
                model: "anthropic/sonnet".into(),
                mode: roocode_protocol::Mode::Default,
            })
            .await
            .unwrap()
            .id;
        let writer = Writer::start(store.clone());
        for n in 0..20 {
            writer.tool_call(ToolCallRow {
                session_id: id.clone(),
                call_id: format!("c{n:02}"),
                turn_id: "t".into(),
                agent_id: id.clone(),
                tool: "Read".into(),
                input: "{}".into(),
                decision: "allow".into(),
                decided_by: "{}".into(),
                outcome: "ok".into(),
                started_at: n,
                ..ToolCallRow::default()
            });
        }
        writer.flush().await;
        assert_eq!(store.tool_calls(&id).await.unwrap().len(), 20);
    }
}
