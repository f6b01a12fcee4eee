//! `roocode-cli prune [--older-than 30d] [--yes]`: what RooCode's data holds of old
//! work — sessions idle for longer than the cutoff (with their spilled results,
//! snapshots and recorded bodies), and the recorded bodies of the sessions kept — and
//! removing it. Without `--yes` it is a dry run that says what would go; a running
//! session, or one whose agents work, is never pruned (it is listed as kept).

use clap::Args;
use roocode_protocol::api::DaemonApiClient;
use roocode_protocol::prune::{PruneParams, PruneReport};

use crate::connect;
use crate::failure::Failure;
use crate::output::out;

#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Sessions idle for longer than this go: a number with `d`, `h` or `m` (default
    /// 30d).
    #[arg(long, value_name = "AGE", default_value = "30d", value_parser = parse_age)]
    pub older_than: u64,
    /// Remove them (without it: only say what would go).
    #[arg(long)]
    pub yes: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `30d`, `12h`, `90m` as milliseconds.
fn parse_age(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let unit = text.chars().last();
    let number = &text[..text.len() - unit.map_or(0, char::len_utf8)];
    let per = match unit {
        Some('d') => 24 * 3_600_000,
        Some('h') => 3_600_000,
        Some('m') => 60_000,
        _ => {
            return Err(format!(
                "`{text}` is not an age: write a number with d, h or m (30d)"
            ));
        }
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not an age: write a number with d, h or m (30d)"))?;
    n.checked_mul(per)
        .ok_or_else(|| format!("`{text}` is too long an age"))
}

pub async fn run(args: &PruneArgs) -> anyhow::Result<i32> {
    let conn = connect::connect(&connect::paths()?).await?;
    let params = PruneParams {
        older_than_ms: Some(args.older_than),
        apply: args.yes,
        snapshot_grace_ms: std::env::var("ROOCODE_SNAPSHOT_GRACE_S")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| s.saturating_mul(1000)),
    };
    let report = conn.rpc.prune(params).await.map_err(Failure::from)?;
    if args.json {
        out(&format!("{}\n", serde_json::to_string_pretty(&report)?));
    } else {
        out(&render(&report));
    }
    Ok(0)
}

/// Bytes for a person: `812 B`, `4.2 KB`, `31.0 MB`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

fn render(r: &PruneReport) -> String {
    let mut s = String::new();
    let verb = if r.applied { "removed" } else { "would remove" };
    if r.sessions.is_empty() {
        s.push_str("no session is old enough to prune\n");
    } else {
        s.push_str(&format!("{verb} {} session(s):\n", r.sessions.len()));
        for session in &r.sessions {
            let id = if session.short_id.is_empty() {
                &session.session_id
            } else {
                &session.short_id
            };
            let title = if session.title.is_empty() {
                "(untitled)"
            } else {
                &session.title
            };
            s.push_str(&format!("  {id}  {title}  ({})\n", session.root));
        }
    }
    for (id, why) in &r.kept {
        s.push_str(&format!("kept {id}: {why}\n"));
    }
    s.push_str(&format!(
        "{verb}: {} of spilled tool results, {} of recorded request bodies",
        bytes(r.tool_result_bytes),
        bytes(r.body_bytes)
    ));
    if r.applied {
        s.push_str(&format!(", {} of snapshots", bytes(r.snapshot_bytes)));
    }
    s.push('\n');
    if !r.applied {
        s.push_str("dry run: pass --yes to remove them\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::prune::PrunedSession;

    #[test]
    fn ages_parse_with_their_unit() {
        assert_eq!(parse_age("30d"), Ok(30 * 24 * 3_600_000));
        assert_eq!(parse_age("2h"), Ok(7_200_000));
        assert_eq!(parse_age("5m"), Ok(300_000));
        assert!(parse_age("30").is_err());
        assert!(parse_age("xd").is_err());
        for odd in ["30д", "3µ", "", "d"] {
            assert!(parse_age(odd).is_err(), "{odd}");
        }
    }

    #[test]
    fn a_dry_run_says_what_would_go_and_how_to_do_it() {
        let report = PruneReport {
            applied: false,
            cutoff: 0,
            sessions: vec![PrunedSession {
                session_id: "0191-full".into(),
                short_id: "k3f".into(),
                title: "fix the parser".into(),
                root: "/p".into(),
                last_activity: 1,
            }],
            kept: vec![("0192".into(), "a turn is running".into())],
            tool_result_bytes: 4300,
            body_bytes: 2 * 1024 * 1024,
            snapshot_bytes: 0,
        };
        assert_eq!(
            render(&report),
            "would remove 1 session(s):\n  k3f  fix the parser  (/p)\nkept 0192: a turn is running\n\
             would remove: 4.2 KB of spilled tool results, 2.0 MB of recorded request bodies\n\
             dry run: pass --yes to remove them\n"
        );
    }
}
