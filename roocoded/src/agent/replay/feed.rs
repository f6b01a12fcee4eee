//! One replayed agent's side of a replay: the recorded answers its model calls get
//! ([`AgentFeed::answer`]), which of its tool calls take their result from the
//! recording instead of running ([`AgentFeed::recorded_result`]) and whether the live
//! permission gate lets the others run ([`AgentFeed::permit`]), and the comparison of
//! each result with the recorded one ([`AgentFeed::compare`]). What differs is a
//! divergence, told on the replay's stream by its [`Run`].

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::EventPayload;
use tokio_util::sync::CancellationToken;

use super::normalize::{Names, comparable, excerpt};
use super::recording::{Answer, RecordedAgent};
use crate::events::EventLog;
use crate::llm::{CallOutcome, LlmError, ModelRequest, Progress, ResolvedModel};
use crate::permission::Decision;
use crate::store::Purpose;
use crate::tools::ToolOutput;

/// Divergence events told per replay at most; the rest are counted.
const MAX_TOLD: u64 = 200;
/// Characters of each result a divergence event carries.
const EXCERPT: usize = 2_000;

/// Tools whose results come from the recording: what they reach (a web page, an MCP
/// server, a person) is not the replay's to ask again.
fn served_from_recording(tool: &str) -> bool {
    matches!(tool, "WebFetch" | "AskUserQuestion" | "ExitPlanMode") || tool.starts_with("mcp__")
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a replay counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub model_calls: u64,
    pub tool_calls: u64,
    pub divergences: u64,
}

/// One replay: its session, what it replays, the names both sides share, what it found.
pub struct Run {
    /// The replay's main session.
    pub session_id: String,
    pub recorded_session_id: String,
    /// Model answers the recording holds, over every agent.
    pub recorded_answers: u64,
    names: Mutex<Names>,
    stats: Mutex<Stats>,
    agents: Mutex<u32>,
    events: Arc<EventLog>,
    /// Cancelled with the replay's session (`session.cancel`): no message is sent after.
    pub cancel: CancellationToken,
}

impl Run {
    pub fn new(
        session_id: String,
        recorded_session_id: String,
        dir: &Path,
        recorded_root: &str,
        recorded_answers: u64,
        events: Arc<EventLog>,
    ) -> Run {
        let mut names = Names::new(recorded_root, &dir.display().to_string());
        names.add(&recorded_session_id, &session_id, "<agent 0>");
        Run {
            session_id,
            recorded_session_id,
            recorded_answers,
            names: Mutex::new(names),
            stats: Mutex::new(Stats::default()),
            agents: Mutex::new(0),
            events,
            cancel: CancellationToken::new(),
        }
    }

    pub fn stats(&self) -> Stats {
        *lock(&self.stats)
    }

    /// The recorded agent `recorded` is replayed as `replayed`.
    fn same_agent(&self, recorded: &str, replayed: &str) {
        let n = {
            let mut agents = lock(&self.agents);
            *agents += 1;
            *agents
        };
        lock(&self.names).add(recorded, replayed, &format!("<agent {n}>"));
    }

    /// Tells a divergence on the replay's stream, from the agent `agent_id`.
    pub async fn diverge(&self, agent_id: &str, payload: EventPayload) {
        let told = {
            let mut stats = lock(&self.stats);
            stats.divergences += 1;
            stats.divergences
        };
        if told > MAX_TOLD {
            return;
        }
        if let Err(e) = self
            .events
            .append(&self.session_id, agent_id, payload)
            .await
        {
            tracing::error!(session = %self.session_id, "cannot record a replay divergence: {e}");
        }
    }
}

/// A divergence event.
fn divergence(kind: &str, call: Option<(&str, &str)>, message: String) -> EventPayload {
    EventPayload::ReplayDivergence {
        kind: kind.to_string(),
        call_id: call.map(|(id, _)| id.to_string()),
        tool: call.map(|(_, tool)| tool.to_string()),
        message,
        expected: None,
        actual: None,
    }
}

/// What one replayed agent serves and checks.
pub struct AgentFeed {
    pub run: Arc<Run>,
    /// The replayed agent's session.
    pub session_id: String,
    recorded: Mutex<RecordedAgent>,
    /// Call ids the replay made.
    seen: Mutex<HashSet<String>>,
}

impl AgentFeed {
    pub fn new(run: Arc<Run>, session_id: String, recorded: RecordedAgent) -> AgentFeed {
        if recorded.session_id != run.recorded_session_id {
            run.same_agent(&recorded.session_id, &session_id);
        }
        AgentFeed {
            run,
            session_id,
            recorded: Mutex::new(recorded),
            seen: Mutex::new(HashSet::new()),
        }
    }

    /// The next recorded answer for a call made for `purpose`, its text reported as
    /// it would have streamed and its tool calls' paths moved into the scratch copy.
    /// With none left, the call fails and the replay says it diverged.
    pub async fn answer(
        &self,
        purpose: Purpose,
        model: &ResolvedModel,
        request: &ModelRequest<'_>,
        on_progress: &mut (dyn FnMut(Progress) + Send),
    ) -> Result<CallOutcome, LlmError> {
        // The next answer for this purpose: normally the first one left (one of
        // another purpose before it was not asked for: it stays, and is told of at
        // the end).
        let next: Option<Answer> = {
            let mut recorded = lock(&self.recorded);
            let at = recorded.answers.iter().position(|a| a.purpose == purpose);
            at.and_then(|at| recorded.answers.remove(at))
        };
        let Some(answer) = next else {
            let message = format!(
                "the agent asked the model for one more answer ({}) than the recording has",
                purpose.as_str()
            );
            self.run
                .diverge(
                    &self.session_id,
                    divergence("model_call_not_recorded", None, message.clone()),
                )
                .await;
            return Err(LlmError::Config(format!(
                "replay: {message}; nothing was sent to any model"
            )));
        };
        tracing::debug!(session = %self.session_id, recorded = %answer.id, "a recorded answer served");
        let mut response = answer.response;
        {
            let names = lock(&self.run.names);
            for block in &mut response.content {
                if let ContentBlock::ToolUse { input, .. } = block {
                    names.rewrite_input(input);
                }
            }
        }
        for block in &response.content {
            match block {
                ContentBlock::Text { text } => on_progress(Progress::TextDelta(text.clone())),
                ContentBlock::Thinking { thinking, .. } => {
                    on_progress(Progress::ThinkingDelta(thinking.clone()));
                }
                _ => {}
            }
        }
        lock(&self.run.stats).model_calls += 1;
        // The request as it would have gone out, for the replay's own recording.
        let body = model.provider.encode(request).unwrap_or_default();
        Ok(CallOutcome {
            response,
            attempts: 1,
            latency_ms: 0,
            request_bytes: body.len() as u64,
            ttft_ms: Some(0),
            request_body: body,
        })
    }

    /// Whether the recording compacted the context before the agent's next model call
    /// (a replay compacts where the recording did, not where its own estimate says).
    pub fn compaction_due(&self) -> bool {
        lock(&self.recorded)
            .answers
            .front()
            .is_some_and(|a| a.purpose == Purpose::Compaction)
    }

    /// The recorded result of `call_id` when the replay takes it from the recording
    /// instead of running the call: a tool that reaches outside (WebFetch, MCP, a
    /// person), a call that did not run in the recording (denied, cancelled), or a
    /// call the recording does not have (a divergence; it is not run).
    pub async fn recorded_result(&self, call_id: &str, tool: &str) -> Option<ToolOutput> {
        lock(&self.seen).insert(call_id.to_string());
        let found = lock(&self.recorded).results.get(call_id).cloned();
        let Some(recorded) = found else {
            self.run
                .diverge(
                    &self.session_id,
                    divergence(
                        "call_not_recorded",
                        Some((call_id, tool)),
                        "the recording has no result for this call: it was not run".into(),
                    ),
                )
                .await;
            return Some(ToolOutput::error(
                "This call is not in the recording being replayed; it was not run.",
            ));
        };
        if !(served_from_recording(tool) || recorded.did_not_run()) {
            return None;
        }
        Some(ToolOutput {
            is_error: recorded.is_error,
            ..ToolOutput::text(recorded.output)
        })
    }

    /// Whether a call the recording ran may run now: the recording answered whatever
    /// was asked, but a call the live gate denies stays denied (a divergence), and so
    /// does one that asks to run outside the OS sandbox (`unsandboxed`): a replay
    /// never leaves it, whoever allowed that once.
    pub async fn permit(
        &self,
        call_id: &str,
        tool: &str,
        decision: &Decision,
        unsandboxed: bool,
    ) -> Result<(), ToolOutput> {
        let reason = match decision {
            Decision::Allow | Decision::Ask { .. } if !unsandboxed => return Ok(()),
            Decision::Allow | Decision::Ask { .. } => {
                "a replay never runs a command outside the OS sandbox".to_string()
            }
            Decision::Deny { reason } => reason.clone(),
        };
        let message = format!("the recording ran this call; now it is denied: {reason}");
        self.run
            .diverge(
                &self.session_id,
                divergence("denied", Some((call_id, tool)), message),
            )
            .await;
        Err(ToolOutput::error(format!("Permission denied: {reason}")))
    }

    /// Compares the replayed result of a call with the recorded one.
    pub async fn compare(&self, call_id: &str, tool: &str, output: &str, is_error: bool) {
        let Some(recorded) = lock(&self.recorded).results.get(call_id).cloned() else {
            return;
        };
        lock(&self.run.stats).tool_calls += 1;
        let (expected, actual) = {
            let names = lock(&self.run.names);
            (
                comparable(&names, tool, &recorded.output),
                comparable(&names, tool, output),
            )
        };
        if expected == actual && recorded.is_error == is_error {
            return;
        }
        let message = match (recorded.is_error, is_error) {
            (false, true) => "the call failed; in the recording it succeeded",
            (true, false) => "the call succeeded; in the recording it failed",
            _ => "the result differs from the recording",
        };
        let payload = EventPayload::ReplayDivergence {
            kind: "tool_result".into(),
            call_id: Some(call_id.to_string()),
            tool: Some(tool.to_string()),
            message: message.into(),
            expected: Some(excerpt(&expected, EXCERPT)),
            actual: Some(excerpt(&actual, EXCERPT)),
        };
        self.run.diverge(&self.session_id, payload).await;
    }

    /// The next agent the recorded agent started: the one a child it starts now
    /// replays (`None` when the recording started no more).
    pub fn next_child(&self) -> Option<RecordedAgent> {
        let mut recorded = lock(&self.recorded);
        (!recorded.children.is_empty()).then(|| recorded.children.remove(0))
    }

    /// Once the replay is over: tells what the recorded agent did that the replay did
    /// not (answers not used, calls not made, agents not started).
    pub async fn tell_the_rest(&self) {
        let (left, not_made, not_started, name) = {
            let recorded = lock(&self.recorded);
            let seen = lock(&self.seen);
            let left = recorded.answers.len();
            let not_made: Vec<(String, String)> = recorded
                .calls
                .iter()
                .filter(|id| !seen.contains(*id))
                .map(|id| {
                    let tool = recorded
                        .results
                        .get(id)
                        .map(|r| r.tool.clone())
                        .unwrap_or_default();
                    (id.clone(), tool)
                })
                .collect();
            let not_started: Vec<String> =
                recorded.children.iter().map(|c| c.name.clone()).collect();
            (left, not_made, not_started, recorded.name.clone())
        };
        let who = if name.is_empty() {
            "the main agent".to_string()
        } else {
            format!("agent {name}")
        };
        for (id, tool) in &not_made {
            let message = format!("{who} made this call in the recording; the replay did not");
            self.run
                .diverge(
                    &self.session_id,
                    divergence("call_not_made", Some((id, tool)), message),
                )
                .await;
        }
        if left > 0 {
            let message = format!(
                "{left} recorded model answer(s) of {who} were not asked for by the replay"
            );
            self.run
                .diverge(
                    &self.session_id,
                    divergence("model_call_not_made", None, message),
                )
                .await;
        }
        for child in not_started {
            let message =
                format!("{who} started agent {child} in the recording; the replay did not");
            self.run
                .diverge(
                    &self.session_id,
                    divergence("agent_not_started", None, message),
                )
                .await;
        }
    }
}
