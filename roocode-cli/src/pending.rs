//! `roocode-cli pending`: every permission request and question waiting for a human,
//! across all sessions. Text: one line each,
//! `<request_id>  <kind>  <tool>  <summary>  (session <short id>, <age>)` (the short id
//! the daemon gives each session, as `sessions` shows it; a sub-agent's request says
//! `(agent <name>, session <its short id>, <age>)`); with `--json`
//! the `pending.list` array as is (`request_id`, `session_id`, `kind`, `tool`,
//! `summary`, `created_at`, plus `reason` and `input`).

use std::collections::HashMap;

use clap::Args;
use roocode_client::RpcClient;
use roocode_protocol::api::{PendingApiClient, SessionApiClient};
use roocode_protocol::session::PendingRequest;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};
use crate::timefmt::{age, now_secs};

/// Longest summary shown.
const MAX_SUMMARY: usize = 80;

/// Arguments of `pending`.
#[derive(Debug, Args)]
pub struct PendingArgs {
    /// Print the requests as a JSON array.
    #[arg(long)]
    pub json: bool,
}

/// Runs `pending`; returns the exit status.
pub async fn run(args: PendingArgs) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let pending = PendingApiClient::list(&conn.rpc)
        .await
        .map_err(Failure::from)?;
    if args.json {
        out_line(&serde_json::to_string_pretty(&pending)?);
    } else if pending.is_empty() {
        err_line("no pending requests");
    } else {
        let shown = short_ids(&conn.rpc, &pending).await;
        out(&lines(&pending, &shown, now_secs()));
    }
    Ok(0)
}

/// The short id of each session with a waiting request (the full id when the session
/// cannot be read, e.g. deleted meanwhile).
async fn short_ids(rpc: &RpcClient, pending: &[PendingRequest]) -> HashMap<String, String> {
    let mut shown = HashMap::new();
    for p in pending {
        if shown.contains_key(&p.session_id) {
            continue;
        }
        let short = match SessionApiClient::get(rpc, p.session_id.clone()).await {
            Ok(info) => info.shown_id().to_owned(),
            Err(_) => p.session_id.clone(),
        };
        shown.insert(p.session_id.clone(), short);
    }
    shown
}

/// The text listing, one request a line, the first three columns aligned; `shown`
/// maps session ids to the form to print.
pub fn lines(pending: &[PendingRequest], shown: &HashMap<String, String>, now: i64) -> String {
    let width = |f: fn(&PendingRequest) -> &str| {
        pending
            .iter()
            .map(|p| f(p).chars().count())
            .max()
            .unwrap_or(0)
    };
    let (w_id, w_kind, w_tool) = (
        width(|p| &p.request_id),
        width(|p| &p.kind),
        width(|p| &p.tool),
    );
    let mut out = String::new();
    for p in pending {
        let summary = one_line(&p.summary);
        let mut line = format!(
            "{:<w_id$}  {:<w_kind$}  {:<w_tool$}  ",
            p.request_id, p.kind, p.tool
        );
        if !summary.is_empty() {
            line.push_str(&summary);
            line.push_str("  ");
        }
        let agent = match (&p.agent_id, &p.agent_name) {
            (_, Some(name)) => format!("agent {name}, "),
            (Some(id), None) => format!("{}, ", roocode_client::agents::unnamed(id)),
            (None, None) => String::new(),
        };
        line.push_str(&format!(
            "({agent}session {}, {})",
            shown.get(&p.session_id).unwrap_or(&p.session_id),
            age(&p.created_at, now)
        ));
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The first line of `s`, cut to `MAX_SUMMARY` characters (`…` when cut).
fn one_line(s: &str) -> String {
    let first = s.trim().lines().next().unwrap_or_default();
    let more = first.len() < s.trim().len();
    if first.chars().count() <= MAX_SUMMARY && !more {
        return first.to_owned();
    }
    let mut out: String = first.chars().take(MAX_SUMMARY - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::pending;
    use crate::timefmt::unix_secs;

    fn list() -> Vec<PendingRequest> {
        let mut a = pending("019ad1e2-7b3c-7000-8000-000000000001", "permission");
        a.session_id = "019ad1e0-1111-7aaa-8000-0123456789ab".into();
        a.summary = "cargo test\n--quiet".into();
        let mut b = pending("019ad1e2-9999-7000-8000-000000000002", "question");
        b.created_at = "2026-11-30T09:00:00Z".into();
        vec![a, b]
    }

    #[test]
    fn one_line_per_request() {
        let now = unix_secs("2026-11-30T10:05:00Z").unwrap();
        let shown = HashMap::from([(
            "019ad1e0-1111-7aaa-8000-0123456789ab".to_owned(),
            "01234567".to_owned(),
        )]);
        assert_eq!(
            lines(&list(), &shown, now),
            "\
019ad1e2-7b3c-7000-8000-000000000001  permission  Bash             cargo test…  (session 01234567, 5m ago)
019ad1e2-9999-7000-8000-000000000002  question    AskUserQuestion  Which database?  (session S1, 1h ago)
"
        );
    }

    #[test]
    fn a_sub_agents_request_names_the_agent() {
        let mut p = list().remove(0);
        p.agent_id = Some(p.session_id.clone());
        p.agent_name = Some("scout".into());
        let now = unix_secs("2026-11-30T10:05:00Z").unwrap();
        let text = lines(&[p], &HashMap::new(), now);
        assert!(text.contains("(agent scout, session 019ad1e0-"), "{text}");
    }

    #[test]
    fn json_has_the_documented_fields() {
        let v = serde_json::to_value(list()).unwrap();
        let first = v[0].as_object().unwrap();
        for key in [
            "request_id",
            "session_id",
            "kind",
            "tool",
            "summary",
            "created_at",
        ] {
            assert!(first.contains_key(key), "{key}");
        }
        assert_eq!(v[1]["kind"], "question");
        assert_eq!(
            serde_json::to_string(&Vec::<PendingRequest>::new()).unwrap(),
            "[]"
        );
    }

    #[test]
    fn long_summaries_are_cut() {
        let s = one_line(&"x".repeat(200));
        assert_eq!(s.chars().count(), MAX_SUMMARY);
        assert!(s.ends_with('…'));
    }
}
