//! The shutdown handshake: the lead asks a teammate to stop (`shutdown_request`, its
//! `request_id` made here), the teammate answers (`shutdown_response` to the lead, with
//! that id and `approve`). Approved, the teammate stops once its current turn ends (its
//! member `stopped`, no idle notice); refused, the lead reads the reason and the
//! teammate goes on. Only the lead asks and only the asked teammate answers, once. The
//! agreement is read back from the mailbox when the run ends, so a daemon crash before
//! the turn's end does not turn it into an idle teammate.

use std::sync::Arc;

use super::messages::{Answer, Caller, Recipient};
use crate::agent::Engine;
use crate::agent::children::StopCause;
use crate::store::{MailKind, MemberState, NewMail};
use crate::tools::Outgoing;

/// A fresh request id: `prefix-` and the twelve random hex digits that end a v7 uuid.
pub(super) fn new_request_id(prefix: &str) -> String {
    let id = uuid::Uuid::now_v7().simple().to_string();
    format!("{prefix}-{}", &id[id.len() - 12..])
}

impl Engine {
    /// The one member `to` names, for the requests and answers a lead sends.
    pub(super) async fn one_member(
        &self,
        caller: &Caller,
        to: Option<&str>,
        kind: MailKind,
    ) -> Result<Recipient, String> {
        let Some(to) = to else {
            return Err(format!(
                "say which teammate the {} is for in `to`",
                kind.as_str()
            ));
        };
        if to.trim() == "*" {
            return Err(format!(
                "a {} goes to one teammate, not to everyone",
                kind.as_str()
            ));
        }
        let mut found = self.recipients(caller, to).await?;
        match found.pop() {
            Some(r) if r.is_member => Ok(r),
            _ => Err(format!("a {} goes to a teammate", kind.as_str())),
        }
    }

    /// The lead asks a teammate to shut down.
    pub(super) async fn request_shutdown(
        self: &Arc<Self>,
        caller: &Caller,
        out: &Outgoing,
    ) -> Result<String, String> {
        if !caller.is_lead {
            return Err("only the lead asks a teammate to shut down: if your work is done, tell the lead with a status_update and end your turn".into());
        }
        let member = self
            .one_member(caller, out.to.as_deref(), MailKind::ShutdownRequest)
            .await?;
        let state = self
            .store
            .member(&member.id)
            .await
            .map_err(|e| e.to_string())?
            .map(|m| m.state);
        if state == Some(MemberState::Stopped) {
            return Err(format!("{} has stopped already", member.name));
        }
        let request_id = new_request_id("shutdown");
        let body = match out.message.trim() {
            "" => "The lead asks you to shut down.",
            reason => reason,
        };
        let summary = out
            .summary
            .clone()
            .unwrap_or_else(|| "please shut down".into());
        let mail = NewMail {
            team_id: &caller.team.id,
            sender: &caller.id,
            kind: MailKind::ShutdownRequest,
            summary: &summary,
            body,
            request_id: Some(&request_id),
            approve: None,
        };
        self.post_mail(&mail, &[&member.id])
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(team = %caller.team.name, member = %member.name, %request_id, "shutdown requested");
        Ok(format!(
            "Shutdown request sent to {name} (request_id \"{request_id}\"). {name} answers with a shutdown_response carrying this id: approved, it stops when its current turn ends; refused, you read its reason. Do not wait for it: the answer comes to you as a message.",
            name = member.name
        ))
    }

    /// A teammate answers the lead's shutdown request.
    pub(super) async fn answer_shutdown(
        self: &Arc<Self>,
        caller: &Caller,
        out: &Outgoing,
    ) -> Result<String, String> {
        if caller.is_lead {
            return Err("the lead does not answer shutdown requests: to stop a teammate, send it a shutdown_request".into());
        }
        if let Some(to) = &out.to {
            let to = self.recipients(caller, to).await?;
            if to.len() != 1 || to[0].is_member {
                return Err("a shutdown_response goes to the lead only".into());
            }
        }
        let Some(request_id) = out.request_id.as_deref() else {
            return Err("give the request_id of the shutdown_request you answer (it is in the request's <teammate-message>)".into());
        };
        let Some(approve) = out.approve else {
            return Err("say whether you agree to shut down: approve true or false".into());
        };
        let lead = caller.team.lead_session_id.as_str();
        let mail = self
            .store
            .request_mail(&caller.team.id, request_id)
            .await
            .map_err(|e| e.to_string())?;
        let asked = mail.iter().any(|m| {
            m.kind == MailKind::ShutdownRequest && m.recipient == caller.id && m.sender == lead
        });
        if !asked {
            return Err(format!(
                "the lead sent you no shutdown request \"{request_id}\": answer with the request_id of the shutdown_request you received"
            ));
        }
        if mail
            .iter()
            .any(|m| m.kind == MailKind::ShutdownResponse && m.sender == caller.id)
        {
            return Err(format!(
                "you answered shutdown request \"{request_id}\" already"
            ));
        }
        let reason = out.message.trim();
        if !approve && reason.is_empty() {
            return Err(
                "say in `message` why you do not shut down (what you still have to finish)".into(),
            );
        }
        let answer = Answer {
            kind: MailKind::ShutdownResponse,
            request_id,
            approve,
            text: reason,
            approved: "I agree to shut down: I stop when this turn ends.",
            yes: "shutdown approved",
            no: "shutdown refused",
        };
        self.post_answer(caller, out, &answer, lead).await?;
        tracing::info!(team = %caller.team.name, member = %caller.name, %request_id, approve, "shutdown answered");
        if !approve {
            return Ok(
                "You refused to shut down; the lead reads your reason. Go on with your work."
                    .into(),
            );
        }
        self.stop_after_turn(&caller.id).await;
        Ok("You agreed to shut down and the lead is told. End your turn now with a one-line final message and start nothing new: you stop when this turn ends.".into())
    }

    /// Whether teammate `id` agreed to shut down in its current run: its newest
    /// shutdown answer approves and came after the run started (a run resumed after a
    /// daemon restart keeps its start; a run a message starts later begins after it).
    /// Read from the mailbox, so an agreement survives a crash before the turn ended.
    pub(crate) async fn shutdown_agreed(&self, id: &str) -> bool {
        let Ok(Some(agent)) = self.store.agent(id).await else {
            return false;
        };
        match self.store.last_sent(id, MailKind::ShutdownResponse).await {
            Ok(Some(answer)) => {
                answer.approve == Some(true) && answer.created_at > agent.started_at
            }
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(agent = %id, "cannot read the teammate's shutdown answer: {e}");
                false
            }
        }
    }

    /// Teammate `id` stops when its running turn ends (at once when none runs).
    async fn stop_after_turn(self: &Arc<Self>, id: &str) {
        match self.children.get(id) {
            // Its run's end sees the cause and records it stopped instead of idle.
            Some(entry) => entry.set_stop(StopCause::Stopped),
            None => {
                if let Err(e) = self.stop_agent(id).await {
                    tracing::error!(agent = %id, "cannot stop the teammate: {e}");
                }
            }
        }
    }
}
