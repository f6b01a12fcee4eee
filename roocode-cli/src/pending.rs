//! `roocode-cli pending`: every permission request and question waiting for a human,
//! across all sessions. Text: one line each,
//! `<request_id>  <kind>  <tool>  <summary>  (session <short id>, <age>)`; with `--json`
//! the `pending.list` array as is (`request_id`, `session_id`, `kind`, `tool`,
//! `summary`, `created_at`, plus `reason` and `input`).

use clap::Args;
use roocode_protocol::api::PendingApiClient;
use roocode_protocol::session::PendingRequest;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};
use crate::timefmt::{age, now_secs};

/// Characters of a session id shown: a UUIDv7's whole millisecond timestamp, which
/// tells sessions apart and is a prefix that `send --session` accepts.
const SHORT_ID: usize = 13;
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
    let pending = conn.rpc.list().await.map_err(Failure::from)?;
    if args.json {
        out_line(&serde_json::to_string_pretty(&pending)?);
    } else if pending.is_empty() {
        err_line("no pending requests");
    } else {
        out(&lines(&pending, now_secs()));
    }
    Ok(0)
}

/// The text listing, one request a line, the first three columns aligned.
pub fn lines(pending: &[PendingRequest], now: i64) -> String {
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
        line.push_str(&format!(
            "(session {}, {})",
            short_id(&p.session_id),
            age(&p.created_at, now)
        ));
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The first `SHORT_ID` characters of a session id.
pub fn short_id(id: &str) -> &str {
    id.char_indices()
        .nth(SHORT_ID)
        .map_or(id, |(i, _)| &id[..i])
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
    #![allow(clippy::unwrap_used)]
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
        assert_eq!(
            lines(&list(), now),
            "\
019ad1e2-7b3c-7000-8000-000000000001  permission  Bash             cargo test…  (session 019ad1e0-1111, 5m ago)
019ad1e2-9999-7000-8000-000000000002  question    AskUserQuestion  Which database?  (session S1, 1h ago)
"
        );
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
        assert_eq!(short_id("S1"), "S1");
    }
}
