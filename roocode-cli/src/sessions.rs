//! `roocode-cli sessions`: the main sessions, newest first, as a table (short id,
//! title, root, status, last activity, model) or with `--json` as the `SessionInfo`
//! array (full ids, with `short_id` beside them). `--all` adds the sub-agents'
//! sessions: in the table each under its parent, indented; in JSON in the daemon's
//! order, with their `kind` and `parent_session_id`.

use std::collections::HashSet;

use clap::Args;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::session::SessionInfo;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};
use crate::table::clip;
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
    /// Include the sub-agents' sessions (each under its parent).
    #[arg(long)]
    pub all: bool,
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
        .list(root, args.limit, args.all.then_some(true))
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

/// The table, one session a line under a header, columns padded to fit; a session
/// whose parent is listed comes right after it (and its siblings), indented.
pub fn table(sessions: &[SessionInfo], now: i64, home: Option<&str>) -> String {
    let header = ["ID", "TITLE", "ROOT", "STATUS", "LAST ACTIVITY", "MODEL"].map(String::from);
    let mut rows = vec![header.to_vec()];
    for (depth, s) in tree(sessions) {
        let indent = "  ".repeat(depth);
        rows.push(vec![
            format!("{indent}{}", s.shown_id()),
            clip(&s.title, MAX_TITLE),
            tilde(&s.root, home),
            s.status.as_str().to_owned(),
            age(&s.last_activity, now),
            s.model.clone(),
        ]);
    }
    crate::table::render(&rows)
}

/// The sessions in order, each listed parent followed by its children (in their own
/// order), with their depth; a child whose parent is not listed stays where it is.
fn tree(sessions: &[SessionInfo]) -> Vec<(usize, &SessionInfo)> {
    let listed: HashSet<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
    fn parent_of<'a>(s: &'a SessionInfo, listed: &HashSet<&str>) -> Option<&'a str> {
        s.parent_session_id
            .as_deref()
            .filter(|p| *p != s.id && listed.contains(p))
    }
    let mut out = Vec::with_capacity(sessions.len());
    let mut stack: Vec<(usize, &SessionInfo)> = sessions
        .iter()
        .rev()
        .filter(|s| parent_of(s, &listed).is_none())
        .map(|s| (0, s))
        .collect();
    let mut seen = HashSet::new();
    while let Some((depth, s)) = stack.pop() {
        if !seen.insert(s.id.as_str()) {
            continue;
        }
        out.push((depth, s));
        stack.extend(
            sessions
                .iter()
                .rev()
                .filter(|c| parent_of(c, &listed) == Some(s.id.as_str()))
                .map(|c| (depth + 1, c)),
        );
    }
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
    fn sub_agents_are_listed_under_their_parent() {
        let mut parent = session("/srv/x", SessionStatus::Idle, 3);
        parent.id = "P".into();
        parent.title = "parent".into();
        let mut other = parent.clone();
        other.id = "O".into();
        other.title = "other".into();
        let mut child = parent.clone();
        child.id = "C".into();
        child.title = "child".into();
        child.kind = roocode_protocol::session::SessionKind::SubAgent;
        child.parent_session_id = Some("P".into());
        let mut orphan = child.clone();
        orphan.id = "X".into();
        orphan.title = "orphan".into();
        orphan.parent_session_id = Some("gone".into());
        // Newest first, as the daemon lists them: the child is newer than its parent.
        let now = unix_secs("2026-11-30T10:07:00Z").unwrap();
        let t = table(&[child, other, parent, orphan], now, None);
        let ids: Vec<&str> = t
            .lines()
            .skip(1)
            .map(|l| l.split("  ").find(|c| !c.is_empty()).unwrap())
            .collect();
        assert_eq!(ids, ["O", "P", "C", "X"], "{t}");
        assert!(t.lines().nth(3).unwrap().starts_with("  C  "), "{t}");
    }

    #[test]
    fn home_is_shortened_only_at_a_boundary() {
        assert_eq!(tilde("/home/u", Some("/home/u")), "~");
        assert_eq!(tilde("/home/user2/x", Some("/home/u")), "/home/user2/x");
        assert_eq!(tilde("/x", None), "/x");
    }
}
