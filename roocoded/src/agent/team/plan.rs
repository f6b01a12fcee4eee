//! Plan approval (issue 12, item 7): a teammate in plan mode sends its plan to its lead
//! — `ExitPlanMode`, or `SendMessage` kind `plan_approval_request` to the lead — as a
//! `plan_approval_request` with a `request_id`, and ends its turn. The lead answers with
//! a `plan_approval_response` (that id, `approve`, feedback in the message). Approved,
//! the teammate leaves plan mode for the lead's own permission mode (never one that asks
//! less) before the answer is delivered, so the run it wakes into has its working tools
//! and mode; rejected, it stays in plan mode and revises. Only the lead answers, only the
//! newest plan of a teammate, once.

use std::sync::Arc;

use roocode_protocol::Mode;

use super::messages::{Answer, Caller};
use super::shutdown::new_request_id;
use crate::agent::Engine;
use crate::store::{MailKind, NewMail, SessionRow};
use crate::tools::Outgoing;

impl Engine {
    /// A teammate's `ExitPlanMode`: its plan goes to its lead.
    pub(crate) async fn submit_plan(
        self: &Arc<Self>,
        session: &SessionRow,
        plan: &str,
    ) -> Result<String, String> {
        let caller = self.team_caller(session).await?;
        self.request_plan_approval(&caller, plan).await
    }

    /// Sends the caller's `plan` to its lead for approval.
    pub(super) async fn request_plan_approval(
        self: &Arc<Self>,
        caller: &Caller,
        plan: &str,
    ) -> Result<String, String> {
        if caller.is_lead {
            return Err(
                "the lead's plan is approved by the user (ExitPlanMode), not by message".into(),
            );
        }
        let plan = plan.trim();
        if plan.is_empty() {
            return Err(
                "the plan is empty: write it (the steps, the files, how you will verify)".into(),
            );
        }
        if self.mode_of(&caller.id).await? != Mode::Plan {
            return Err(
                "you are not in plan mode (your plan was approved): go ahead with the task".into(),
            );
        }
        let request_id = new_request_id("plan");
        let mail = NewMail {
            team_id: &caller.team.id,
            sender: &caller.id,
            kind: MailKind::PlanApprovalRequest,
            summary: "plan for approval",
            body: plan,
            request_id: Some(&request_id),
            approve: None,
        };
        self.post_mail(&mail, &[&caller.team.lead_session_id])
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(team = %caller.team.name, member = %caller.name, %request_id, "plan sent for approval");
        Ok(format!(
            "Your plan was sent to the lead for approval (request_id \"{request_id}\"). End your turn now with a one-line message and wait; do not start on the plan. The lead's answer arrives as a message and wakes you: approved, you are out of plan mode and carry the plan out; rejected, revise the plan with the feedback and call ExitPlanMode again."
        ))
    }

    /// The lead answers a teammate's plan.
    pub(super) async fn answer_plan(
        self: &Arc<Self>,
        caller: &Caller,
        out: &Outgoing,
    ) -> Result<String, String> {
        if !caller.is_lead {
            return Err("only the lead approves or rejects plans".into());
        }
        let member = self
            .one_member(caller, out.to.as_deref(), MailKind::PlanApprovalResponse)
            .await?;
        let Some(request_id) = out.request_id.as_deref() else {
            return Err(format!(
                "give the request_id of {}'s plan_approval_request",
                member.name
            ));
        };
        let Some(approve) = out.approve else {
            return Err("say whether you approve the plan: approve true or false".into());
        };
        let mail = self
            .store
            .request_mail(&caller.team.id, request_id)
            .await
            .map_err(|e| e.to_string())?;
        let asked = mail.iter().any(|m| {
            m.kind == MailKind::PlanApprovalRequest
                && m.sender == member.id
                && m.recipient == caller.id
        });
        if !asked {
            return Err(format!(
                "{} sent you no plan \"{request_id}\": answer with the request_id of its plan_approval_request",
                member.name
            ));
        }
        if mail
            .iter()
            .any(|m| m.kind == MailKind::PlanApprovalResponse)
        {
            return Err(format!("you answered plan \"{request_id}\" already"));
        }
        let newest = self
            .store
            .last_sent(&member.id, MailKind::PlanApprovalRequest)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(newest) = newest.and_then(|m| m.request_id)
            && newest != request_id
        {
            return Err(format!(
                "{} sent a newer plan since (request_id \"{newest}\"): answer that one",
                member.name
            ));
        }
        if self.mode_of(&member.id).await? != Mode::Plan {
            return Err(format!("{} is not in plan mode any more", member.name));
        }
        let feedback = out.message.trim();
        if !approve && feedback.is_empty() {
            return Err("say in `message` what to change in the plan".into());
        }
        let mode = if approve {
            // Out of plan mode before the answer can wake it: the run it wakes into has
            // its working mode.
            let mode = self.mode_of(&caller.id).await?;
            if mode == Mode::Plan {
                return Err("you are in plan mode yourself, and an approved teammate takes your permission mode: leave plan mode first".into());
            }
            self.set_mode(&member.id, mode.as_str())
                .await
                .map_err(|e| e.to_string())?;
            Some(mode)
        } else {
            None
        };
        let answer = Answer {
            kind: MailKind::PlanApprovalResponse,
            request_id,
            approve,
            text: feedback,
            approved: "Plan approved: carry it out.",
            yes: "plan approved",
            no: "plan rejected, revise it",
        };
        self.post_answer(caller, out, &answer, &member.id).await?;
        tracing::info!(team = %caller.team.name, member = %member.name, %request_id, approve, "plan answered");
        Ok(match mode {
            Some(mode) => format!(
                "Plan of {name} approved: it left plan mode for {mode} (your mode) and carries the plan out now.",
                name = member.name,
                mode = mode.as_str()
            ),
            None => format!(
                "Plan of {} rejected: it stays in plan mode and revises the plan with your feedback.",
                member.name
            ),
        })
    }

    /// The permission mode session `id` runs in now.
    async fn mode_of(&self, id: &str) -> Result<Mode, String> {
        match self.store.session(id).await {
            Ok(Some(session)) => Ok(session.mode),
            Ok(None) => Err(format!("session {id} does not exist")),
            Err(e) => Err(e.to_string()),
        }
    }
}
