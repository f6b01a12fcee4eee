//! Offline replay (`session.replay`): a recorded session run again against its recorded
//! model answers — no network, no API key — in a scratch copy of its project, with file
//! and shell tools executed for real and the rest (WebFetch, MCP calls, questions,
//! permission answers) taken from the recording. The replay is a new session; what it
//! finds comes on its event stream as `replay_divergence` events and ends with one
//! `replay_finished` event.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::session::ClientEnv;

/// `session.replay`'s parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayParams {
    /// The recorded session (a main session: its sub-agents replay with it).
    pub session_id: String,
    /// Where the scratch copy goes: a missing or empty directory gets the project as it
    /// was when the session started; a directory an earlier replay of the same session
    /// prepared is used as it is (so a file changed in it shows where the replay
    /// diverges). Anything else is refused. Default: a new temporary directory.
    #[serde(default)]
    pub into: Option<String>,
    /// Only prepare the scratch copy; run nothing.
    #[serde(default)]
    pub prepare_only: bool,
    /// The client's environment (its `HOME`, `PATH`; no key is needed).
    #[serde(default)]
    pub env: ClientEnv,
}

/// `session.replay`'s answer: the replay has started (or, with `prepare_only`, its
/// scratch copy is ready).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayStarted {
    /// The replay's own session (`None` with `prepare_only`): attach to it to follow.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The recorded session.
    pub recorded_session_id: String,
    /// The scratch copy the replay works in.
    pub dir: String,
    /// How the scratch copy was made: `snapshot` (the rewind snapshot taken before the
    /// session's first turn), `current` (the project as it is now: no snapshot was
    /// taken), or `reused` (a directory an earlier replay prepared).
    pub source: String,
    /// The user messages that will be sent again, in order.
    pub messages: u32,
    /// The recorded model answers, over every agent.
    pub model_calls: u64,
    /// What the copy or the recording leaves out (files that could not be copied,
    /// model calls that failed and are not replayed, …), one line each.
    #[serde(default)]
    pub notes: Vec<String>,
}
