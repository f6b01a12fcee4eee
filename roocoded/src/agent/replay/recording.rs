//! What a replay serves back, read from the flight recorder's rows: per agent of the
//! recorded session (its main agent, then each sub-agent and teammate it started, in
//! the order they started), the model answers it got in the order it got them — its
//! conversation's, its compactions' and its recovery summaries', each with its purpose,
//! so that a replay compacts where the recording did — the tool results it saw and how
//! each call went through permission; and the user messages that started the main
//! agent's turns.
//!
//! A model call that failed has no answer to serve: it is counted, not replayed (its
//! retry's answer is). A successful call whose bodies are gone (`trace.bodies` off,
//! or dropped by `trace.max_body_mb`) makes the recording incomplete, which
//! [`Recording::check`] refuses with the numbers.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;

use roocode_protocol::event::EventPayload;

use crate::llm::{ModelResponse, ModelStopReason};
use crate::store::{Purpose, Store, StoreError};
use crate::trace::bodies::RecordedAnswer;

/// Agents nest this deep at most (rows that loop cannot recurse forever).
const MAX_DEPTH: u32 = 8;

/// One recorded model answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The recorded call's id.
    pub id: String,
    /// What the call was for.
    pub purpose: Purpose,
    pub response: ModelResponse,
}

/// What a recorded call's result was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedResult {
    pub tool: String,
    /// As the `tool_result` event has it (what clients showed, what the model read).
    pub output: String,
    pub is_error: bool,
    /// How it ended as the recorder saw it: `ok`, `error`, `denied`, `cancelled`
    /// (`None` when the recorder kept no row for it).
    pub outcome: Option<String>,
}

impl RecordedResult {
    /// The call did not run in the recording (refused by a rule, a hook or the user, or
    /// cancelled): the replay gives the same answer without running it.
    pub fn did_not_run(&self) -> bool {
        match self.outcome.as_deref() {
            Some("denied" | "cancelled") => true,
            Some(_) => false,
            // Without the recorder's row, the result says it.
            None => {
                self.is_error
                    && (self.output.starts_with("Permission denied")
                        || self.output == crate::agent::turn::INTERRUPTED_BY_USER)
            }
        }
    }
}

/// One agent of the recording.
#[derive(Debug, Clone, Default)]
pub struct RecordedAgent {
    /// Its session id in the recording.
    pub session_id: String,
    pub name: String,
    /// Its answers, in the order it got them.
    pub answers: VecDeque<Answer>,
    /// Calls that failed (their retries' answers are served instead).
    pub failed_calls: u64,
    /// Successful calls whose bodies were not kept.
    pub missing_bodies: u64,
    /// Tool results by call id.
    pub results: HashMap<String, RecordedResult>,
    /// Call ids in the order the calls were made.
    pub calls: Vec<String>,
    /// The agents it started, in the order they started.
    pub children: Vec<RecordedAgent>,
}

impl RecordedAgent {
    /// Model answers it holds (its own and its children's).
    pub fn answer_count(&self) -> u64 {
        self.answers.len() as u64
            + self
                .children
                .iter()
                .map(RecordedAgent::answer_count)
                .sum::<u64>()
    }

    fn sum(&self, f: &dyn Fn(&RecordedAgent) -> u64) -> u64 {
        f(self) + self.children.iter().map(|c| c.sum(f)).sum::<u64>()
    }
}

/// A recorded session: its agents and the messages its user sent.
#[derive(Debug, Clone)]
pub struct Recording {
    pub main: RecordedAgent,
    /// The texts of the user messages, in the order they were delivered.
    pub messages: Vec<String>,
}

impl Recording {
    /// Reads the recording of the main session `session_id`.
    pub async fn load(store: &Store, session_id: &str) -> Result<Recording, StoreError> {
        let main = agent(store, session_id.to_string(), String::new(), 0).await?;
        let messages = store
            .events_of_kinds(session_id, &["user_message"])
            .await?
            .into_iter()
            .filter_map(|ev| match ev.payload {
                EventPayload::UserMessage { text, .. } => Some(text),
                _ => None,
            })
            .collect();
        Ok(Recording { main, messages })
    }

    /// Why the recording cannot be replayed, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let missing = self.main.sum(&|a| a.missing_bodies);
        let answers = self.main.answer_count();
        if missing > 0 {
            return Err(format!(
                "the recording lacks the bodies of {missing} of its {} model calls (trace.bodies was off, or trace.max_body_mb dropped the oldest): a replay needs every answer",
                missing + answers
            ));
        }
        if answers == 0 {
            return Err(
                "the session has no recorded model answers (trace.bodies keeps them, on by default): there is nothing to replay"
                    .into(),
            );
        }
        if self.messages.is_empty() {
            return Err("the session has no user message to send again".into());
        }
        Ok(())
    }

    /// Recorded calls that failed, over every agent (not replayed).
    pub fn failed_calls(&self) -> u64 {
        self.main.sum(&|a| a.failed_calls)
    }
}

fn agent(
    store: &Store,
    session_id: String,
    name: String,
    depth: u32,
) -> Pin<Box<dyn Future<Output = Result<RecordedAgent, StoreError>> + Send + '_>> {
    Box::pin(async move {
        let mut found = RecordedAgent {
            session_id: session_id.clone(),
            name,
            ..RecordedAgent::default()
        };
        read_answers(store, &mut found).await?;
        read_results(store, &mut found).await?;
        if depth < MAX_DEPTH {
            for child in store.children(&session_id).await? {
                let child = agent(store, child.id, child.name, depth + 1).await?;
                found.children.push(child);
            }
        }
        Ok(found)
    })
}

async fn read_answers(store: &Store, agent: &mut RecordedAgent) -> Result<(), StoreError> {
    let calls = store.model_calls(&agent.session_id).await?;
    let mut bodies: HashMap<String, String> = store
        .responses(&agent.session_id)
        .await?
        .into_iter()
        .collect();
    for call in calls {
        let purpose = match call.purpose.as_deref() {
            Some("summarize") => Purpose::Summarize,
            Some(p) if p == Purpose::Compaction.as_str() => Purpose::Compaction,
            Some(p) if p == Purpose::WebFetch.as_str() => continue,
            // A graph's judge is not the agent's conversation.
            Some(p) if p == Purpose::Judge.as_str() => continue,
            Some(_) => Purpose::Conversation,
            // Rows older than the column: the turn id tells compaction and tools.
            None if call.turn_id == Purpose::Compaction.as_str() => Purpose::Compaction,
            None if call.turn_id.starts_with("tool:") => continue,
            None => Purpose::Conversation,
        };
        if call.error.is_some() {
            agent.failed_calls += 1;
            continue;
        }
        let Some(body) = bodies.remove(&call.id) else {
            agent.missing_bodies += 1;
            continue;
        };
        let recorded = match RecordedAnswer::parse(&body) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(call = %call.id, "a recorded answer cannot be read: {e}");
                agent.missing_bodies += 1;
                continue;
            }
        };
        agent.answers.push_back(Answer {
            id: call.id,
            purpose,
            response: ModelResponse {
                content: recorded.content,
                stop_reason: stop_reason(&recorded.stop_reason),
                usage: recorded.usage,
            },
        });
    }
    Ok(())
}

async fn read_results(store: &Store, agent: &mut RecordedAgent) -> Result<(), StoreError> {
    let outcomes: HashMap<String, String> = store
        .tool_calls(&agent.session_id)
        .await?
        .into_iter()
        .map(|row| (row.call_id, row.outcome))
        .collect();
    let mut names: HashMap<String, String> = HashMap::new();
    for ev in store
        .events_of_kinds(&agent.session_id, &["tool_call", "tool_result"])
        .await?
    {
        match ev.payload {
            EventPayload::ToolCall { call_id, name, .. } => {
                agent.calls.push(call_id.clone());
                names.insert(call_id, name);
            }
            EventPayload::ToolResult {
                call_id,
                output,
                is_error,
                ..
            } => {
                let result = RecordedResult {
                    tool: names.get(&call_id).cloned().unwrap_or_default(),
                    output,
                    is_error,
                    outcome: outcomes.get(&call_id).cloned(),
                };
                agent.results.insert(call_id, result);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The stop reason a recorded answer names.
pub fn stop_reason(text: &str) -> ModelStopReason {
    match text {
        "end_turn" => ModelStopReason::EndTurn,
        "tool_use" => ModelStopReason::ToolUse,
        "max_tokens" => ModelStopReason::MaxTokens,
        "stop_sequence" => ModelStopReason::StopSequence,
        "refusal" => ModelStopReason::Refusal,
        other => ModelStopReason::Other(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_reasons_read_back_as_written() {
        for reason in [
            ModelStopReason::EndTurn,
            ModelStopReason::ToolUse,
            ModelStopReason::MaxTokens,
            ModelStopReason::StopSequence,
            ModelStopReason::Refusal,
            ModelStopReason::Other("pause_turn".into()),
        ] {
            assert_eq!(stop_reason(reason.as_str()), reason);
        }
    }

    #[test]
    fn a_result_without_a_row_says_whether_it_ran() {
        let denied = RecordedResult {
            tool: "Bash".into(),
            output: "Permission denied: the rule Bash(rm:*) denies it".into(),
            is_error: true,
            outcome: None,
        };
        assert!(denied.did_not_run());
        let failed = RecordedResult {
            output: "exit status 1".into(),
            ..denied
        };
        assert!(!failed.did_not_run());
        let recorded = RecordedResult {
            outcome: Some("denied".into()),
            ..failed
        };
        assert!(recorded.did_not_run());
    }
}
