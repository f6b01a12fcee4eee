//! Answering a waiting request from any terminal: `approve REQ_ID [--always]`,
//! `deny REQ_ID [--feedback TEXT]` and `answer REQ_ID ANSWER...`. The id may be a
//! unique prefix among `pending.list`; the first answer wins, so a request already
//! answered elsewhere fails with the daemon's message (exit 1). The outcome is one
//! stderr line: `approved <id>`, `denied <id>`, `answered <id>`.

use clap::Args;
use roocode_protocol::api::{PendingApiClient, PermissionApiClient, QuestionApiClient};
use roocode_protocol::session::{PendingRequest, PermissionDecision};

use crate::connect;
use crate::failure::{Failure, UsageError};
use crate::output::err_line;
use crate::questions;
use crate::request_ids;

/// Arguments of `approve`.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The permission request (a unique id prefix is enough).
    pub request_id: String,
    /// Allow it from now on: append an allow rule to `.roocode/config.local.yaml`.
    #[arg(long)]
    pub always: bool,
}

/// Arguments of `deny`.
#[derive(Debug, Args)]
pub struct DenyArgs {
    /// The permission request (a unique id prefix is enough).
    pub request_id: String,
    /// Why, for the model (it gets the refusal with this text).
    #[arg(long, value_name = "TEXT")]
    pub feedback: Option<String>,
}

/// Arguments of `answer`.
#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The question request (a unique id prefix is enough).
    pub request_id: String,
    /// One answer per question, in order: an option's label, its number, or free
    /// text; for a multi-select question several labels or numbers separated by commas.
    pub answers: Vec<String>,
}

/// `approve`: allow once, or always.
pub async fn approve(args: ApproveArgs) -> anyhow::Result<i32> {
    let decision = if args.always {
        PermissionDecision::AllowAlways
    } else {
        PermissionDecision::Allow
    };
    permission(&args.request_id, decision, None).await?;
    Ok(0)
}

/// `deny`: refuse, with optional feedback for the model.
pub async fn deny(args: DenyArgs) -> anyhow::Result<i32> {
    let feedback = args.feedback.filter(|f| !f.trim().is_empty());
    permission(&args.request_id, PermissionDecision::Deny, feedback).await?;
    Ok(0)
}

async fn permission(
    given: &str,
    decision: PermissionDecision,
    feedback: Option<String>,
) -> anyhow::Result<()> {
    let (conn, pending) = waiting().await?;
    let id = match request_ids::find(&pending, given)? {
        Some(req) if req.kind != "permission" => {
            return Err(request_ids::wrong_kind(req, "permission").into());
        }
        Some(req) => req.request_id.clone(),
        None => given.trim().to_owned(),
    };
    PermissionApiClient::respond(&conn.rpc, id.clone(), decision, feedback)
        .await
        .map_err(Failure::from)?;
    err_line(&permission_done_line(decision, &id));
    Ok(())
}

/// `approved <id>` or `denied <id>`.
pub fn permission_done_line(decision: PermissionDecision, id: &str) -> String {
    match decision {
        PermissionDecision::Allow | PermissionDecision::AllowAlways => format!("approved {id}"),
        PermissionDecision::Deny => format!("denied {id}"),
    }
}

/// `answer`: one answer per question; numbers become the options' labels.
pub async fn answer(args: AnswerArgs) -> anyhow::Result<i32> {
    let (conn, pending) = waiting().await?;
    let (id, answers) = match request_ids::find(&pending, &args.request_id)? {
        Some(req) => (req.request_id.clone(), resolve_answers(req, &args.answers)?),
        // Unknown or already answered: the daemon says which.
        None => (args.request_id.trim().to_owned(), args.answers.clone()),
    };
    QuestionApiClient::respond(&conn.rpc, id.clone(), answers)
        .await
        .map_err(Failure::from)?;
    err_line(&format!("answered {id}"));
    Ok(0)
}

/// The answers to send to the question `req`.
fn resolve_answers(req: &PendingRequest, raw: &[String]) -> anyhow::Result<Vec<String>> {
    if req.kind != "question" {
        return Err(request_ids::wrong_kind(req, "question").into());
    }
    let qs = questions::parse(&req.input);
    if qs.is_empty() {
        // Nothing to check against: send what was given.
        return Ok(raw.to_vec());
    }
    Ok(questions::resolve_all(&req.request_id, &qs, raw).map_err(UsageError)?)
}

/// Connects and lists the waiting requests.
async fn waiting() -> Result<(connect::Conn, Vec<PendingRequest>), Failure> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let pending = PendingApiClient::list(&conn.rpc).await?;
    Ok((conn, pending))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::pending;

    #[test]
    fn outcome_lines() {
        assert_eq!(
            permission_done_line(PermissionDecision::Allow, "R1"),
            "approved R1"
        );
        assert_eq!(
            permission_done_line(PermissionDecision::AllowAlways, "R1"),
            "approved R1"
        );
        assert_eq!(
            permission_done_line(PermissionDecision::Deny, "R1"),
            "denied R1"
        );
    }

    #[test]
    fn answers_are_checked_against_the_request() {
        let q = pending("Q1", "question");
        let raw = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            resolve_answers(&q, &raw(&["2", "1,search"])).unwrap(),
            ["SQLite", "auth, search"]
        );
        let err = resolve_answers(&q, &raw(&["2"])).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "exit status 2");
        assert!(err.to_string().contains("1) Postgres — robust"));
        let p = pending("R1", "permission");
        assert!(
            resolve_answers(&p, &raw(&["y"]))
                .unwrap_err()
                .downcast_ref::<Failure>()
                .is_some()
        );
    }
}
