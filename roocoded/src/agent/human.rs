//! The agent's side of the [`Human`] seam: questions and plan approvals of one tool call
//! become requests through [`super::approvals`]. As each starts waiting, the session's
//! `notification` hooks hear of it without the call waiting for them: a question as
//! `elicitation_dialog` with its text, a plan or another approval as
//! `permission_prompt` (see `super::tool_hooks::notify_with`).

use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::Mode;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::Engine;
use super::approvals::{PermissionAnswer, PermissionAsk};
use super::hooks::SessionHooks;
use super::tool_hooks::{notify_with, permission_message, question_message};
use crate::hooks::HookInput;
use crate::tools::{Approval, Human, PlanVerdict};

/// The human behind one tool call of a session.
pub struct CallHuman {
    pub engine: Arc<Engine>,
    pub session_id: String,
    pub call_id: String,
    pub mode: Mode,
    pub cancel: CancellationToken,
    /// The turn's hooks: `notification` fires as a question or an approval waits.
    pub hooks: Option<Arc<SessionHooks>>,
}

impl CallHuman {
    /// Tells the `notification` hooks that this call waits for the user.
    fn notify(&self, message: &str, kind: &str) {
        notify_with(&self.engine, self.hooks.as_ref(), message, kind);
    }
}

impl std::fmt::Debug for CallHuman {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallHuman")
            .field("session_id", &self.session_id)
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}

impl Human for CallHuman {
    fn ask_questions<'a>(
        &'a self,
        questions: &'a Value,
    ) -> BoxFuture<'a, Result<Vec<String>, String>> {
        async move {
            if self.mode == Mode::DontAsk {
                return Err("the session runs unattended (dontAsk mode), so nobody can answer: decide yourself and say what you assumed".into());
            }
            self.notify(&question_message(questions), HookInput::ELICITATION_DIALOG);
            match self
                .engine
                .approvals
                .ask_question(&self.session_id, &self.call_id, questions, &self.cancel)
                .await
            {
                Ok(Some(answers)) => Ok(answers),
                Ok(None) => Err("the question was withdrawn: the turn was cancelled".into()),
                Err(e) => Err(e.to_string()),
            }
        }
        .boxed()
    }

    fn approve_plan<'a>(&'a self, plan: &'a str) -> BoxFuture<'a, Result<PlanVerdict, String>> {
        async move {
            if self.mode == Mode::DontAsk {
                return Err("nobody can approve a plan in dontAsk mode".into());
            }
            let input = json!({ "plan": plan });
            let summary = plan.lines().find(|l| !l.trim().is_empty()).unwrap_or("the plan");
            let ask = PermissionAsk {
                session_id: &self.session_id,
                call_id: &self.call_id,
                tool: "ExitPlanMode",
                input: &input,
                summary,
                reason: "approve this plan to leave plan mode (always: also accept edits without asking)",
            };
            self.notify(
                &format!("RooCode needs your approval of its plan: {summary}"),
                HookInput::PERMISSION_PROMPT,
            );
            let answer = self
                .engine
                .approvals
                .ask_permission(ask, &self.cancel)
                .await
                .map_err(|e| e.to_string())?;
            let mode = match answer {
                PermissionAnswer::Allow => Mode::Default,
                PermissionAnswer::AllowAlways => Mode::AcceptEdits,
                PermissionAnswer::Deny { feedback } => return Ok(PlanVerdict::Rejected { feedback }),
                PermissionAnswer::Cancelled => return Err("the turn was cancelled".into()),
            };
            self.engine
                .set_mode(&self.session_id, mode.as_str())
                .await
                .map_err(|e| e.to_string())?;
            Ok(PlanVerdict::Approved { mode })
        }
        .boxed()
    }

    fn mode(&self) -> roocode_protocol::Mode {
        self.mode
    }

    fn approve<'a>(
        &'a self,
        tool: &'a str,
        input: &'a Value,
        summary: &'a str,
        reason: &'a str,
    ) -> BoxFuture<'a, Result<Approval, String>> {
        async move {
            if self.mode == Mode::DontAsk {
                return Err("this needs approval and the session is in dontAsk mode, which denies whatever would be asked".into());
            }
            let ask = PermissionAsk {
                session_id: &self.session_id,
                call_id: &self.call_id,
                tool,
                input,
                summary,
                reason,
            };
            self.notify(
                &permission_message(tool, summary),
                HookInput::PERMISSION_PROMPT,
            );
            match self.engine.approvals.ask_permission(ask, &self.cancel).await {
                Ok(PermissionAnswer::Allow) => Ok(Approval::Once),
                Ok(PermissionAnswer::AllowAlways) => Ok(Approval::Always),
                Ok(PermissionAnswer::Deny { feedback }) => Ok(Approval::Denied { feedback }),
                Ok(PermissionAnswer::Cancelled) => Err("the turn was cancelled".into()),
                Err(e) => Err(format!("the approval could not be asked for ({e})")),
            }
        }
        .boxed()
    }
}
