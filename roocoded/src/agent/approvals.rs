//! Human in the loop (DESIGN.md §8, layer 5): a permission request or question is a row
//! in the store and an event every attached client sees; the first answer — from any
//! client, `roocode-cli approve|deny|answer`, or a TUI — wins, and everyone sees who
//! decided. With nobody attached the request simply waits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::agents::AgentState;
use roocode_protocol::event::{DecidedBy, EventPayload};
use roocode_protocol::session::PermissionDecision;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::AgentError;
use super::human_time::HumanTime;
use crate::events::EventLog;
use crate::store::{NewPending, PendingKind, PendingStatus, Store};

/// The answer to a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    Allow,
    AllowAlways,
    Deny {
        feedback: Option<String>,
    },
    /// The turn was cancelled while the request waited.
    Cancelled,
}

enum Waiter {
    Permission(oneshot::Sender<PermissionAnswer>),
    Question {
        count: usize,
        tx: oneshot::Sender<Vec<String>>,
    },
}

/// Requests waiting for a human: each a stored row and an event, and a waiter here
/// (by request id) for the answer.
pub struct Approvals {
    store: Store,
    events: Arc<EventLog>,
    waiting: Mutex<HashMap<String, Waiter>>,
    /// How long each call waited: not part of its duration.
    pub human_time: HumanTime,
}

/// What a permission request is about.
pub struct PermissionAsk<'a> {
    pub session_id: &'a str,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub input: &'a Value,
    pub summary: &'a str,
    pub reason: &'a str,
}

impl Approvals {
    pub fn new(store: Store, events: Arc<EventLog>) -> Self {
        Self {
            store,
            events,
            waiting: Mutex::default(),
            human_time: HumanTime::default(),
        }
    }

    fn insert(&self, id: &str, waiter: Waiter) {
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), waiter);
    }

    /// Takes the waiter of `id` out: whoever takes it is the one answer.
    fn take(&self, id: &str) -> Option<Waiter> {
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
    }

    /// Raises a permission request and waits for its answer (or the turn's cancel).
    pub async fn ask_permission(
        &self,
        ask: PermissionAsk<'_>,
        cancel: &CancellationToken,
    ) -> Result<PermissionAnswer, AgentError> {
        let _waiting = self.human_time.clock(ask.session_id, ask.call_id);
        let id = uuid::Uuid::now_v7().to_string();
        let (tx, rx) = oneshot::channel();
        self.insert(&id, Waiter::Permission(tx));
        self.store
            .insert_pending(&NewPending {
                id: &id,
                session_id: ask.session_id,
                kind: PendingKind::Permission,
                call_id: ask.call_id,
                tool: ask.tool,
                summary: ask.summary,
                reason: ask.reason,
                input: ask.input,
            })
            .await?;
        self.announce(
            ask.session_id,
            EventPayload::PermissionRequest {
                request_id: id.clone(),
                call_id: ask.call_id.to_string(),
                tool: ask.tool.to_string(),
                input: ask.input.clone(),
                reason: ask.reason.to_string(),
            },
        )
        .await?;
        tracing::info!(request = %id, tool = ask.tool, "waiting for permission");
        let answer = tokio::select! {
            answer = rx => answer.unwrap_or(PermissionAnswer::Cancelled),
            _ = cancel.cancelled() => {
                self.abandon(ask.session_id, &id, false).await?;
                PermissionAnswer::Cancelled
            }
        };
        self.set_waiting(ask.session_id, false).await;
        Ok(answer)
    }

    /// Raises an `AskUserQuestion` and waits for one answer per question.
    pub async fn ask_question(
        &self,
        session_id: &str,
        call_id: &str,
        questions: &Value,
        cancel: &CancellationToken,
    ) -> Result<Option<Vec<String>>, AgentError> {
        let _waiting = self.human_time.clock(session_id, call_id);
        let id = uuid::Uuid::now_v7().to_string();
        let count = questions.as_array().map_or(0, Vec::len);
        let summary = questions[0]["question"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let (tx, rx) = oneshot::channel();
        self.insert(&id, Waiter::Question { count, tx });
        self.store
            .insert_pending(&NewPending {
                id: &id,
                session_id,
                kind: PendingKind::Question,
                call_id,
                tool: "AskUserQuestion",
                summary: &summary,
                reason: "",
                input: questions,
            })
            .await?;
        self.announce(
            session_id,
            EventPayload::Question {
                request_id: id.clone(),
                call_id: call_id.to_string(),
                questions: questions.clone(),
            },
        )
        .await?;
        let answers = tokio::select! {
            answers = rx => answers.ok(),
            _ = cancel.cancelled() => {
                self.abandon(session_id, &id, true).await?;
                None
            }
        };
        self.set_waiting(session_id, false).await;
        Ok(answers)
    }

    /// Withdraws a request whose turn was cancelled; clients close their prompts.
    async fn abandon(&self, session_id: &str, id: &str, question: bool) -> Result<(), AgentError> {
        if self.take(id).is_none() {
            return Ok(());
        }
        self.store
            .resolve_pending(id, PendingStatus::Cancelled, None)
            .await?;
        let decided_by = DecidedBy {
            kind: "daemon".into(),
            pid: Some(std::process::id()),
        };
        let payload = if question {
            EventPayload::QuestionResolved {
                request_id: id.to_string(),
                answers: Value::Null,
                decided_by,
            }
        } else {
            EventPayload::PermissionResolved {
                request_id: id.to_string(),
                decision: "cancelled".into(),
                decided_by,
            }
        };
        self.announce(session_id, payload).await?;
        Ok(())
    }

    /// Answers a permission request; the first answer wins.
    pub async fn respond_permission(
        &self,
        id: &str,
        decision: PermissionDecision,
        feedback: Option<String>,
        decided_by: DecidedBy,
    ) -> Result<(), AgentError> {
        let tx = match self.take(id) {
            Some(Waiter::Permission(tx)) => tx,
            Some(other) => {
                self.insert(id, other);
                return Err(AgentError::Invalid(format!(
                    "{id} is a question: it is answered with question.respond"
                )));
            }
            None => return Err(self.not_waiting(id).await),
        };
        let Some(session_id) = self.session_of_request(id).await? else {
            return Err(AgentError::RequestNotFound {
                id: id.to_string(),
                answered: false,
            });
        };
        self.store
            .resolve_pending(id, PendingStatus::Resolved, Some(decision.as_str()))
            .await?;
        self.announce(
            &session_id,
            EventPayload::PermissionResolved {
                request_id: id.to_string(),
                decision: decision.as_str().to_string(),
                decided_by,
            },
        )
        .await?;
        let answer = match decision {
            PermissionDecision::Allow => PermissionAnswer::Allow,
            PermissionDecision::AllowAlways => PermissionAnswer::AllowAlways,
            PermissionDecision::Deny => PermissionAnswer::Deny { feedback },
        };
        // The turn may have ended meanwhile; then nobody listens, which is fine.
        let _ = tx.send(answer);
        Ok(())
    }

    /// Answers a question; the first answer wins.
    pub async fn respond_question(
        &self,
        id: &str,
        answers: Vec<String>,
        decided_by: DecidedBy,
    ) -> Result<(), AgentError> {
        let (count, tx) = match self.take(id) {
            Some(Waiter::Question { count, tx }) => (count, tx),
            Some(other) => {
                self.insert(id, other);
                return Err(AgentError::Invalid(format!(
                    "{id} is a permission request: it is answered with permission.respond"
                )));
            }
            None => return Err(self.not_waiting(id).await),
        };
        if answers.len() != count {
            let n = answers.len();
            self.insert(id, Waiter::Question { count, tx });
            return Err(AgentError::Invalid(format!(
                "{id} asks {count} question(s) but {n} answer(s) were given: give one answer per question"
            )));
        }
        let Some(session_id) = self.session_of_request(id).await? else {
            return Err(AgentError::RequestNotFound {
                id: id.to_string(),
                answered: false,
            });
        };
        self.store
            .resolve_pending(id, PendingStatus::Resolved, Some("answered"))
            .await?;
        self.announce(
            &session_id,
            EventPayload::QuestionResolved {
                request_id: id.to_string(),
                answers: Value::from(answers.clone()),
                decided_by,
            },
        )
        .await?;
        let _ = tx.send(answers);
        Ok(())
    }

    /// Appends `payload` to the session's log and, when the session is a sub-agent, to
    /// its parent's too (with the child's agent id), so a child waiting for a human shows
    /// where its parent's watchers look; a request raised marks the child `waiting`.
    async fn announce(&self, session_id: &str, payload: EventPayload) -> Result<(), AgentError> {
        let raised = matches!(
            payload,
            EventPayload::PermissionRequest { .. } | EventPayload::Question { .. }
        );
        self.events
            .append(session_id, session_id, payload.clone())
            .await?;
        if let Some(agent) = self.store.agent(session_id).await? {
            self.events
                .append(&agent.parent_id, session_id, payload)
                .await?;
            if raised {
                self.set_waiting(session_id, true).await;
            }
        }
        Ok(())
    }

    /// A sub-agent's state while a request of its waits (`waiting`) and after.
    async fn set_waiting(&self, session_id: &str, waiting: bool) {
        let (from, to) = if waiting {
            (AgentState::Running, AgentState::Waiting)
        } else {
            (AgentState::Waiting, AgentState::Running)
        };
        // Only from `from`: a child that ended meanwhile keeps its final state.
        if let Err(e) = self.store.set_agent_state_from(session_id, from, to).await {
            tracing::warn!(agent = %session_id, "cannot record the agent's state: {e}");
        }
    }

    async fn session_of_request(&self, id: &str) -> Result<Option<String>, AgentError> {
        Ok(self.store.pending_session(id).await?)
    }

    async fn not_waiting(&self, id: &str) -> AgentError {
        AgentError::RequestNotFound {
            id: id.to_string(),
            answered: matches!(self.store.pending_exists(id).await, Ok(true)),
        }
    }
}
