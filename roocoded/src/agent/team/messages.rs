//! `SendMessage` on the engine's side: who the caller is in its team (never what the
//! input says), who `to` names (a member's name, `lead`/`team-lead`, an agent id, a
//! unique prefix of one or its short id, `*` for everyone else), and the rules of each kind. Plain kinds
//! are handled here; the shutdown handshake is in `shutdown`, plan approval in `plan`.

use std::sync::Arc;

use roocode_protocol::short_id;

use crate::agent::Engine;
use crate::store::{MailKind, MemberState, NewMail, SessionRow, TeamRow};
use crate::tools::Outgoing;

/// The calling agent as its team knows it.
pub(super) struct Caller {
    pub team: TeamRow,
    /// Its session's id: the sender of whatever it sends.
    pub id: String,
    /// `lead`, or its member name.
    pub name: String,
    pub is_lead: bool,
}

/// An answer to a request (a plan approval, a shutdown): what it says when the caller
/// wrote nothing, and its summary when the caller gave none.
pub(super) struct Answer<'a> {
    pub kind: MailKind,
    pub request_id: &'a str,
    pub approve: bool,
    /// What the caller wrote (a reason, feedback); may be empty for an approval.
    pub text: &'a str,
    /// The body of an approval the caller wrote nothing for.
    pub approved: &'static str,
    /// The summary of an approval, and of a refusal.
    pub yes: &'static str,
    pub no: &'static str,
}

/// Someone a message goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recipient {
    pub id: String,
    pub name: String,
    /// False for the lead.
    pub is_member: bool,
}

/// The shortest id prefix `to` may be.
const MIN_PREFIX: usize = 4;

/// The kind a `SendMessage` call asks for; the daemon's own kind is refused.
pub(super) fn parse_kind(kind: Option<&str>) -> Result<MailKind, String> {
    let Some(kind) = kind else {
        return Ok(MailKind::Message);
    };
    let wanted = kind.trim().to_ascii_lowercase().replace('-', "_");
    match MailKind::parse(&wanted) {
        Some(MailKind::IdleNotification) => Err(
            "idle_notification is the daemon's: it sends one for you when your turn ends".into(),
        ),
        Some(kind) => Ok(kind),
        None => Err(format!(
            "unknown kind `{kind}`: the kinds are {}",
            MailKind::ALL
                .iter()
                .filter(|k| **k != MailKind::IdleNotification)
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The first words of `text`, as a summary for a kind that does not need one given.
pub(super) fn summary_from(text: &str, fallback: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().take(10).collect();
    if words.is_empty() {
        fallback.to_string()
    } else {
        words.join(" ")
    }
}

/// Names of `recipients`, comma separated.
pub(super) fn names(recipients: &[Recipient]) -> String {
    recipients
        .iter()
        .map(|r| r.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Engine {
    /// Posts the caller's `answer` to `to`.
    pub(super) async fn post_answer(
        self: &Arc<Self>,
        caller: &Caller,
        out: &Outgoing,
        answer: &Answer<'_>,
        to: &str,
    ) -> Result<(), String> {
        let body = match (answer.approve, answer.text) {
            (true, "") => answer.approved,
            (_, text) => text,
        };
        let summary = out.summary.clone().unwrap_or_else(|| {
            let default = if answer.approve {
                answer.yes
            } else {
                answer.no
            };
            default.to_string()
        });
        let mail = NewMail {
            team_id: &caller.team.id,
            sender: &caller.id,
            kind: answer.kind,
            summary: &summary,
            body,
            request_id: Some(answer.request_id),
            approve: Some(answer.approve),
        };
        self.post_mail(&mail, &[to])
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// A `SendMessage` call of the agent whose session is `caller`; the answer (or the
    /// error) is what its model reads.
    pub(crate) async fn send_team_message(
        self: &Arc<Self>,
        caller: &SessionRow,
        out: Outgoing,
    ) -> Result<String, String> {
        let caller = self.team_caller(caller).await?;
        match parse_kind(out.kind.as_deref())? {
            MailKind::ShutdownRequest => self.request_shutdown(&caller, &out).await,
            MailKind::ShutdownResponse => self.answer_shutdown(&caller, &out).await,
            MailKind::PlanApprovalRequest => {
                if let Some(to) = &out.to {
                    let to = self.recipients(&caller, to).await?;
                    if to.len() != 1 || to[0].is_member {
                        return Err("a plan_approval_request goes to the lead only".into());
                    }
                }
                self.request_plan_approval(&caller, &out.message).await
            }
            MailKind::PlanApprovalResponse => self.answer_plan(&caller, &out).await,
            kind => self.send_plain(&caller, kind, &out).await,
        }
    }

    /// Who the agent of `session` is in its team; an error if it is in none.
    pub(super) async fn team_caller(&self, session: &SessionRow) -> Result<Caller, String> {
        let team = self
            .store
            .team_of(&session.id)
            .await
            .map_err(|e| e.to_string())?;
        let Some(team) = team else {
            return Err(match session.kind {
                roocode_protocol::session::SessionKind::Teammate => {
                    "your team no longer exists (it was deleted): there is nobody to message; finish with a final answer".into()
                }
                _ => "you are in no team, so there is nobody to message: create one with TeamCreate and add teammates with Agent (team_name and name) first".into(),
            });
        };
        if team.lead_session_id == session.id {
            return Ok(Caller {
                team,
                id: session.id.clone(),
                name: "lead".into(),
                is_lead: true,
            });
        }
        let member = self
            .store
            .membership(&session.id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "you are not a member of a team".to_string())?;
        Ok(Caller {
            team,
            id: session.id.clone(),
            name: member.name,
            is_lead: false,
        })
    }

    /// Who `to` names in the caller's team: one agent, or for `*` every other member
    /// (stopped ones left out: they shut down, a broadcast does not restart them) and
    /// the lead.
    pub(super) async fn recipients(
        &self,
        caller: &Caller,
        to: &str,
    ) -> Result<Vec<Recipient>, String> {
        let to = to.trim();
        let lead = Recipient {
            id: caller.team.lead_session_id.clone(),
            name: "lead".into(),
            is_member: false,
        };
        let mut everyone = vec![lead];
        if to == "*" {
            // Their states too: a broadcast leaves out the stopped.
            let members = self
                .store
                .members(&caller.team.id)
                .await
                .map_err(|e| e.to_string())?;
            everyone.extend(
                members
                    .into_iter()
                    .filter(|m| m.state != MemberState::Stopped)
                    .map(|m| Recipient {
                        id: m.agent_id,
                        name: m.name,
                        is_member: true,
                    }),
            );
            let others: Vec<Recipient> =
                everyone.into_iter().filter(|r| r.id != caller.id).collect();
            if others.is_empty() {
                return Err("nobody else in the team can read a broadcast yet: add teammates with Agent first".into());
            }
            return Ok(others);
        }
        // Names and ids never change: from memory (every message takes this path).
        let roster = self
            .store
            .roster(&caller.team.id)
            .await
            .map_err(|e| e.to_string())?;
        everyone.extend(roster.into_iter().map(|m| Recipient {
            id: m.agent_id,
            name: m.name,
            is_member: true,
        }));
        let wanted = if to.eq_ignore_ascii_case("team-lead") || to.eq_ignore_ascii_case("lead") {
            "lead"
        } else {
            to
        };
        let found = everyone
            .iter()
            .find(|r| r.name == wanted || r.id == wanted)
            .cloned()
            .or_else(|| {
                // A unique start of the id, or of its tail (the short id people see).
                let by_prefix: Vec<&Recipient> = everyone
                    .iter()
                    .filter(|r| {
                        (wanted.len() >= MIN_PREFIX && r.id.starts_with(wanted))
                            || (short_id::is_tail_prefix(wanted)
                                && short_id::tail(&r.id).is_some_and(|t| t.starts_with(wanted)))
                    })
                    .collect();
                (by_prefix.len() == 1).then(|| by_prefix[0].clone())
            });
        let Some(found) = found else {
            return Err(format!(
                "nobody in team \"{}\" is called \"{to}\": send to one of {} (or \"*\" for everyone)",
                caller.team.name,
                names(&everyone)
            ));
        };
        if found.id == caller.id {
            return Err("that is you: send it to someone else".into());
        }
        Ok(vec![found])
    }

    /// `message`, `status_update` and `task_assignment`.
    async fn send_plain(
        self: &Arc<Self>,
        caller: &Caller,
        kind: MailKind,
        out: &Outgoing,
    ) -> Result<String, String> {
        let Some(to) = &out.to else {
            return Err(
                "say who gets it in `to`: a teammate's name, \"lead\", or \"*\" for everyone"
                    .into(),
            );
        };
        if out.message.trim().is_empty() {
            return Err("the message is empty: say what you want to tell them in `message`".into());
        }
        if kind == MailKind::TaskAssignment && !caller.is_lead {
            return Err("only the lead assigns work: to ask for help or hand something over, send a plain message (or a status_update to report progress)".into());
        }
        if out.request_id.is_some() || out.approve.is_some() {
            return Err(format!(
                "request_id and approve belong to shutdown and plan answers, not to a {}",
                kind.as_str()
            ));
        }
        let summary = match (&out.summary, kind) {
            (Some(summary), _) => summary.clone(),
            (None, MailKind::Message) => {
                return Err("a message needs a `summary`: 5-10 words saying what it is about (the recipient's mailbox list shows it)".into());
            }
            (None, _) => summary_from(&out.message, kind.as_str()),
        };
        let recipients = self.recipients(caller, to).await?;
        let ids: Vec<&str> = recipients.iter().map(|r| r.id.as_str()).collect();
        let mail = NewMail {
            team_id: &caller.team.id,
            sender: &caller.id,
            kind,
            summary: &summary,
            body: out.message.trim(),
            request_id: None,
            approve: None,
        };
        let posted = self
            .post_mail(&mail, &ids)
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(team = %caller.team.name, from = %caller.name, kind = kind.as_str(), recipients = ids.len(), "team message sent");
        let what = match kind {
            MailKind::StatusUpdate => "Status update",
            MailKind::TaskAssignment => "Task assignment",
            _ => "Message",
        };
        let sent = if to.trim() == "*" {
            format!(
                "{what} sent to {} recipient(s): {}. Their answers, if any, come to you as messages: do not wait for them.",
                recipients.len(),
                names(&recipients)
            )
        } else {
            format!(
                "{what} sent to {}. An answer, if any, comes to you as a message: do not wait for it.",
                recipients[0].name
            )
        };
        Ok(sent + &not_woken_note(&recipients, &posted.not_woken))
    }
}

/// What the sender learns of recipients that got the message but could not be woken
/// (empty when every one was): it is sent, so sending it again would duplicate it.
fn not_woken_note(recipients: &[Recipient], not_woken: &[String]) -> String {
    if not_woken.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = recipients
        .iter()
        .filter(|r| not_woken.contains(&r.id))
        .map(|r| r.name.as_str())
        .collect();
    format!(
        " It is stored for {}, but they could not be woken now (the daemon's log says why): they read it when they next run. Do not send it again.",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_daemon_s_own_kind_and_unknown_kinds_are_refused() {
        assert_eq!(parse_kind(None), Ok(MailKind::Message));
        assert_eq!(
            parse_kind(Some("Status-Update")),
            Ok(MailKind::StatusUpdate)
        );
        let idle = parse_kind(Some("idle_notification")).unwrap_err();
        assert!(idle.contains("daemon"), "{idle}");
        let unknown = parse_kind(Some("order")).unwrap_err();
        assert!(
            unknown.contains("status_update") && !unknown.contains("idle"),
            "{unknown}"
        );
    }

    #[test]
    fn the_sender_learns_who_got_the_message_but_was_not_woken() {
        let r = |id: &str, name: &str| Recipient {
            id: id.into(),
            name: name.into(),
            is_member: true,
        };
        let to = [r("id-a", "alice"), r("id-b", "bob")];
        assert_eq!(not_woken_note(&to, &[]), "");
        let note = not_woken_note(&to, &["id-b".to_string()]);
        assert!(note.contains("stored for bob,"), "{note}");
        assert!(!note.contains("alice"), "{note}");
        assert!(note.contains("Do not send it again"), "{note}");
    }

    #[test]
    fn a_derived_summary_is_the_first_ten_words() {
        assert_eq!(summary_from("  ", "status_update"), "status_update");
        assert_eq!(
            summary_from(
                "one two three four five six seven eight nine ten eleven",
                "x"
            ),
            "one two three four five six seven eight nine ten"
        );
    }
}
