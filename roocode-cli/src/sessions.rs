//! `roocode-cli sessions`: the sessions, newest first, as a table (short id, title,
//! root, status, last activity, model) or with `--json` as the `SessionInfo` array
//! (full ids, with `short_id` beside them).

use clap::Args;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::session::SessionInfo;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};
use crate::timefmt::{age, now_secs};

/// Longest title shown in the table.
const MAX_TITLE: usize = 40;

/// Arguments of `sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print the sessions as a JSON array.
    #[arg(long)]
    pub json: bool,
    /// Only the sessions of this directory's project.
    #[arg(long, value_name = "DIR")]
    pub root: Option<String>,
    /// At most this many sessions.
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<u32>,
}

/// Runs `sessions`; returns the exit status.
pub async fn run(args: SessionsArgs) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let root = args
        .root
        .map(|dir| std::fs::canonicalize(&dir).map_or(dir, |p| p.to_string_lossy().into_owned()));
    let sessions = conn
        .rpc
        .list(root, args.limit, None)
        .await
        .map_err(Failure::from)?;
    if args.json {
        out_line(&serde_json::to_string_pretty(&sessions)?);
    } else if sessions.is_empty() {
        err_line("no sessions");
    } else {
        let home = std::env::var("HOME").ok();
        out(&table(&sessions, now_secs(), home.as_deref()));
    }
    Ok(0)
}

/// The table, one session a line under a header, columns padded to fit.
pub fn table(sessions: &[SessionInfo], now: i64, home: Option<&str>) -> String {
    let header = ["ID", "TITLE", "ROOT", "STATUS", "LAST ACTIVITY", "MODEL"].map(String::from);
    let mut rows = vec![header];
    for s in sessions {
        rows.push([
            s.shown_id().to_owned(),
            clip(&s.title, MAX_TITLE),
            tilde(&s.root, home),
            s.status.as_str().to_owned(),
            age(&s.last_activity, now),
            s.model.clone(),
        ]);
    }
    let mut widths = [0usize; 6];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(w - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn clip(s: &str, max: usize) -> String {
    let one_line = s.lines().next().unwrap_or_default();
    if one_line.chars().count() <= max {
        return one_line.to_owned();
    }
    let mut out: String = one_line.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// `path` with the home directory written `~`.
fn tilde(path: &str, home: Option<&str>) -> String {
    match home.filter(|h| !h.is_empty() && *h != "/") {
        Some(h) if path == h => "~".to_owned(),
        Some(h) => match path.strip_prefix(h) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => path.to_owned(),
        },
        None => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::session;
    use crate::timefmt::unix_secs;
    use roocode_protocol::session::SessionStatus;

    #[test]
    fn a_table_of_sessions() {
        let mut a = session("/home/u/proj", SessionStatus::Running, 3);
        a.id = "019ad9f3-1c2e-7a10-8b00-aaaa12345678".into();
        a.short_id = "aaaa1234".into();
        let mut b = session("/srv/x", SessionStatus::Interrupted, 9);
        b.id = "019a-b".into();
        b.title = "a very long title that goes on and on and on and on".into();
        b.last_activity = "2026-11-29T10:05:00Z".into();
        let now = unix_secs("2026-11-30T10:07:00Z").unwrap();
        let t = table(&[a, b], now, Some("/home/u"));
        assert_eq!(
            t,
            "\
ID        TITLE                                     ROOT    STATUS       LAST ACTIVITY  MODEL
aaaa1234  fix the test                              ~/proj  running      2m ago         claude-x
019a-b    a very long title that goes on and on a…  /srv/x  interrupted  1d ago         claude-x
"
        );
    }

    #[test]
    fn home_is_shortened_only_at_a_boundary() {
        assert_eq!(tilde("/home/u", Some("/home/u")), "~");
        assert_eq!(tilde("/home/user2/x", Some("/home/u")), "/home/user2/x");
        assert_eq!(tilde("/x", None), "/x");
    }
}
