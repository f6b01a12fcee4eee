//! The scripted mock LLM server used by end-to-end tests and benchmarks: a real HTTP/1.1
//! server on 127.0.0.1 that speaks the Anthropic Messages API (`POST /v1/messages`) and
//! OpenAI Chat Completions (`POST /v1/chat/completions`), both streamed as SSE. This
//! module owns the [`MockLlm`] handle; the script types live in [`script`] (which also
//! documents the JSON script format), the SSE rendering in `anthropic` / `openai`.
//!
//! Each valid model request (either protocol) pops the next [`ScriptedReply`]; when the
//! queue is empty the fallback answers, or, without one, HTTP 500 with
//! [`SCRIPT_EXHAUSTED`] in the body. Every request to a model endpoint is recorded
//! (malformed ones too; they get a 400 and pop nothing).
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use roocode_tests::mock_llm::{MockLlm, Reply, Script, ScriptedReply, ToolCall};
//! use serde_json::json;
//!
//! let mock = MockLlm::start(
//!     Script::new()
//!         .reply(Reply::tool_call("Read", json!({"file_path": "a.txt"})))
//!         .reply(ScriptedReply::new(Reply::text("All done.")).with_gate("g1")),
//! )
//! .await?;
//! // ANTHROPIC_BASE_URL=mock.base_url(), OPENAI_BASE_URL=mock.openai_base_url()
//! mock.wait_for_gate_reached("g1").await; // the second answer is mid-stream
//! mock.open_gate("g1");
//! mock.wait_for_requests(2).await;
//! assert_eq!(mock.requests()[0].header("anthropic-version"), Some("2023-06-01"));
//! # Ok(()) }
//! ```

mod anthropic;
mod openai;
pub mod route;
pub mod script;
mod server;
mod state;
mod stream;
#[cfg(test)]
mod test_client;
#[cfg(test)]
mod tests;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use route::{Route, RouteMatch};
pub use script::{
    DEFAULT_CHUNK_CHARS, Reply, Rule, Script, ScriptedReply, ToolCall, UsageSpec, system_text,
};
pub use server::SCRIPT_EXHAUSTED;
pub use state::RecordedRequest;

use state::State;

/// A running mock LLM server. Dropping it (or [`MockLlm::shutdown`]) stops the server
/// and every open connection.
pub struct MockLlm {
    addr: SocketAddr,
    state: Arc<State>,
    task: JoinHandle<()>,
}

impl MockLlm {
    /// Starts a server on an ephemeral loopback port. Needs a tokio runtime.
    pub async fn start(script: impl Into<Script>) -> anyhow::Result<Self> {
        Self::start_on_port(0, script).await
    }

    /// Starts a server on `127.0.0.1:port` (`0` = ephemeral).
    pub async fn start_on_port(port: u16, script: impl Into<Script>) -> anyhow::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .with_context(|| format!("mock-llm: cannot listen on 127.0.0.1:{port}"))?;
        let addr = listener
            .local_addr()
            .context("mock-llm: no local address")?;
        let state = Arc::new(State::new(script.into()));
        let task = tokio::spawn(server::serve(listener, state.clone()));
        Ok(Self { addr, state, task })
    }

    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`, for `OPENAI_BASE_URL`.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Appends a reply to the queue.
    pub fn push(&self, reply: impl Into<ScriptedReply>) {
        self.state.push(reply.into());
    }

    /// Appends a reply to the queue of the agent `when` matches (see [`route`]).
    pub fn push_route(&self, when: RouteMatch, reply: impl Into<ScriptedReply>) {
        self.state.push_route(when, reply.into());
    }

    /// Sets (or clears) the reply used when the queue is empty.
    pub fn set_fallback(&self, reply: Option<ScriptedReply>) {
        self.state.set_fallback(reply);
    }

    /// Replies still queued (the fallback not counted).
    pub fn remaining(&self) -> usize {
        self.state.remaining()
    }

    /// Opens a gate: streams waiting on it continue, later ones do not stop at it.
    pub fn open_gate(&self, name: &str) {
        self.state.open_gate(name);
    }

    /// All requests to the model endpoints so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests()
    }

    /// How many requests were recorded.
    pub fn request_count(&self) -> usize {
        self.state.request_count()
    }

    /// Resolves once at least `n` requests were recorded (their reply is already taken
    /// from the queue by then).
    pub async fn wait_for_requests(&self, n: usize) {
        self.state.wait_for_requests(n).await;
    }

    /// Resolves once a stream has sent its pre-gate chunks and waits on gate `name`
    /// (immediately if one already did).
    pub async fn wait_for_gate_reached(&self, name: &str) {
        self.state.wait_for_gate_reached(name).await;
    }

    /// Stops the server and waits until the listener is closed.
    pub async fn shutdown(mut self) {
        self.task.abort();
        let _ = (&mut self.task).await;
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for MockLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockLlm")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}
