//! Teams as text: the table of `roocode-cli team` (one team a line), the page of
//! `team NAME` (the team, its members with state, current task and unread mail, its
//! task list) and the messages of `roocode-cli mailbox`. Every word the model chose
//! (names, subjects, summaries, bodies) goes through `roocode_client::teams::plain`:
//! no control sequence reaches the terminal.

use roocode_client::teams::{ids, plain, plain_lines, status_words};
use roocode_protocol::content::Usage;
use roocode_protocol::teams::{MailInfo, MemberInfo, TeamInfo, TeamTaskInfo};

use crate::table::{self, clip};

/// Longest name shown in a table.
const MAX_NAME: usize = 24;
/// Longest task subject shown in a table.
const MAX_SUBJECT: usize = 48;
/// Characters of an id shown when the daemon gave no short id.
const FALLBACK_ID: usize = 8;

/// The table of every team.
pub fn teams_table(teams: &[TeamInfo]) -> String {
    let header = [
        "NAME", "LEAD", "MEMBERS", "ACTIVE", "TASKS", "UNREAD", "COST",
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    for t in teams {
        let active = t
            .members
            .iter()
            .filter(|m| m.state == roocode_protocol::teams::MemberState::Active)
            .count();
        let c = t.task_counts;
        let unread: u64 = t.lead_unread_mail + t.members.iter().map(|m| m.unread_mail).sum::<u64>();
        rows.push(vec![
            clip(&plain(&t.name), MAX_NAME),
            shown(&t.lead_short_id, &t.lead_session_id),
            t.members.len().to_string(),
            active.to_string(),
            format!(
                "{}/{} done",
                c.completed,
                c.pending + c.in_progress + c.completed
            ),
            unread.to_string(),
            cost(&t.usage),
        ]);
    }
    table::render(&rows)
}

/// One team: a heading, its members, its tasks.
pub fn team_page(t: &TeamInfo) -> String {
    let mut out = format!(
        "team {} ({})  lead {}  created {}\n",
        plain(&t.name),
        t.id,
        shown(&t.lead_short_id, &t.lead_session_id),
        t.created_at
    );
    let description = plain(t.description.trim());
    if !description.is_empty() {
        out.push_str(&format!("{description}\n"));
    }
    out.push_str(&format!(
        "isolation {} · cost {} · {} tokens · unread mail for the lead: {}\n",
        t.isolation,
        cost(&t.usage),
        t.usage.input_tokens + t.usage.output_tokens,
        t.lead_unread_mail
    ));
    out.push('\n');
    if t.members.is_empty() {
        out.push_str(
            "no members yet (the lead adds them with the Agent tool, given team_name and name)\n",
        );
    } else {
        out.push_str(&members_table(&t.members));
    }
    out.push('\n');
    let c = t.task_counts;
    out.push_str(&format!(
        "tasks: {} pending, {} in progress, {} completed\n",
        c.pending, c.in_progress, c.completed
    ));
    if !t.tasks.is_empty() {
        out.push_str(&tasks_table(&t.tasks));
    }
    out
}

fn members_table(members: &[MemberInfo]) -> String {
    let header = [
        "MEMBER", "TYPE", "STATE", "TASK", "UNREAD", "BACKEND", "ID", "COST",
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    for m in members {
        let mut state = m.state.as_str().to_owned();
        if m.plan_mode_required {
            state.push_str(" (plan)");
        }
        rows.push(vec![
            clip(&plain(&m.name), MAX_NAME),
            clip(&plain(&m.agent_type), MAX_NAME),
            state,
            m.current_task
                .as_ref()
                .map(|t| clip(&format!("#{} {}", t.id, plain(&t.subject)), MAX_SUBJECT))
                .unwrap_or_else(|| "-".to_owned()),
            m.unread_mail.to_string(),
            m.backend.clone(),
            shown(&m.short_id, &m.agent_id),
            cost(&m.usage),
        ]);
    }
    table::render(&rows)
}

fn tasks_table(tasks: &[TeamTaskInfo]) -> String {
    let header = ["#", "STATUS", "OWNER", "SUBJECT", "BLOCKED BY"];
    let mut rows = vec![header.map(String::from).to_vec()];
    // Only what still blocks a task: a completed dependency no longer does.
    let open = |t: &TeamTaskInfo| -> Vec<i64> {
        t.blocked_by
            .iter()
            .copied()
            .filter(|b| {
                tasks
                    .iter()
                    .find(|d| d.id == *b)
                    .is_none_or(|d| d.status != "completed")
            })
            .collect()
    };
    for t in tasks {
        rows.push(vec![
            t.id.to_string(),
            status_words(&t.status),
            t.owner
                .as_deref()
                .map(|o| clip(&plain(o), MAX_NAME))
                .unwrap_or_else(|| "-".to_owned()),
            clip(&plain(&t.subject), MAX_SUBJECT),
            ids(&open(t)),
        ]);
    }
    table::render(&rows)
}

/// The messages, each a heading line and its body indented.
pub fn mail_text(mail: &[MailInfo]) -> String {
    let mut out = String::new();
    for m in mail {
        let mut head = format!("#{} {} → {}", m.id, plain(&m.from), plain(&m.to));
        if m.kind != "message" {
            head.push_str(&format!(" ({})", plain(&m.kind.replace('_', " "))));
        }
        let summary = plain(m.summary.trim());
        if !summary.is_empty() {
            head.push_str(&format!(": {summary}"));
        }
        if let Some(approve) = m.approve {
            head.push_str(if approve { " [approved]" } else { " [refused]" });
        }
        head.push_str(&format!(
            "  ({}, {}{})",
            plain(&m.team),
            m.created_at,
            if m.read { "" } else { ", unread" }
        ));
        out.push_str(&head);
        out.push('\n');
        for line in plain_lines(m.body.trim_end()).lines() {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out
}

/// The short id, else the start of the id's tail.
fn shown(short: &str, id: &str) -> String {
    if !short.is_empty() {
        return short.to_owned();
    }
    let tail = roocode_protocol::short_id::tail(id).unwrap_or(id);
    tail.chars().take(FALLBACK_ID).collect()
}

fn cost(usage: &Usage) -> String {
    match usage.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::teams::{MemberState, TaskCounts};

    fn task(id: i64, status: &str, owner: Option<&str>) -> TeamTaskInfo {
        TeamTaskInfo {
            id,
            subject: format!("task {id}"),
            description: String::new(),
            status: status.into(),
            owner: owner.map(String::from),
            blocked_by: vec![],
        }
    }

    fn team() -> TeamInfo {
        TeamInfo {
            id: "T1".into(),
            name: "alpha".into(),
            lead_session_id: "019ad9f3-1c2e-7a10-8b00-aaaa12345678".into(),
            lead_short_id: "aaaa1234".into(),
            description: "the parser\x1b[2J".into(),
            isolation: "none".into(),
            created_at: "2026-12-01T10:00:00.000Z".into(),
            members: vec![MemberInfo {
                name: "builder".into(),
                agent_id: "019ad9f3-2222-7a10-8b00-bbbb87654321".into(),
                short_id: "bbbb8765".into(),
                agent_type: "general-purpose".into(),
                model: "m".into(),
                state: MemberState::Active,
                backend: "in-process".into(),
                worktree: None,
                plan_mode_required: true,
                joined_at: String::new(),
                current_task: Some(task(2, "in_progress", Some("builder"))),
                unread_mail: 2,
                usage: Usage {
                    cost_usd: Some(0.01),
                    ..Usage::default()
                },
            }],
            lead_unread_mail: 1,
            task_counts: TaskCounts {
                pending: 1,
                in_progress: 1,
                completed: 0,
            },
            tasks: vec![
                TeamTaskInfo {
                    blocked_by: vec![2],
                    ..task(1, "pending", None)
                },
                task(2, "in_progress", Some("builder")),
            ],
            usage: Usage {
                input_tokens: 100,
                output_tokens: 20,
                cost_usd: Some(0.02),
                ..Usage::default()
            },
        }
    }

    #[test]
    fn a_table_of_teams() {
        assert_eq!(
            teams_table(&[team()]),
            "\
NAME   LEAD      MEMBERS  ACTIVE  TASKS     UNREAD  COST
alpha  aaaa1234  1        1       0/2 done  3       $0.0200
"
        );
    }

    #[test]
    fn a_team_page_shows_members_their_tasks_and_mail() {
        let page = team_page(&team());
        assert_eq!(
            page,
            "\
team alpha (T1)  lead aaaa1234  created 2026-12-01T10:00:00.000Z
the parser[2J
isolation none · cost $0.0200 · 120 tokens · unread mail for the lead: 1

MEMBER   TYPE             STATE          TASK       UNREAD  BACKEND     ID        COST
builder  general-purpose  active (plan)  #2 task 2  2       in-process  bbbb8765  $0.0100

tasks: 1 pending, 1 in progress, 0 completed
#  STATUS       OWNER    SUBJECT  BLOCKED BY
1  pending      -        task 1   #2
2  in progress  builder  task 2
"
        );
    }

    #[test]
    fn a_completed_dependency_no_longer_shows_as_blocking() {
        let task = |id: i64, status: &str, blocked_by: Vec<i64>| TeamTaskInfo {
            id,
            subject: format!("task {id}"),
            description: String::new(),
            status: status.into(),
            owner: None,
            blocked_by,
        };
        let table = tasks_table(&[
            task(1, "completed", vec![]),
            task(2, "pending", vec![1]),
            task(3, "pending", vec![1, 2]),
        ]);
        let rows: Vec<&str> = table.lines().map(str::trim_end).collect();
        assert!(rows[2].ends_with("task 2"), "{table}");
        assert!(rows[3].ends_with("task 3   #2"), "{table}");
    }

    #[test]
    fn messages_keep_their_lines_but_no_control_sequence() {
        let mail = MailInfo {
            id: 4,
            team: "alpha".into(),
            from: "builder".into(),
            to: "lead".into(),
            kind: "idle_notification".into(),
            summary: String::new(),
            body: "Built it.\n\x1b]52;c;cGF3bmVk\x07Tests pass.\r\n".into(),
            request_id: None,
            approve: None,
            created_at: "2026-12-01T10:00:00.000Z".into(),
            read: false,
        };
        let text = mail_text(&[mail]);
        assert_eq!(
            text,
            "#4 builder → lead (idle notification)  (alpha, 2026-12-01T10:00:00.000Z, unread)\n    Built it.\n    ]52;c;cGF3bmVkTests pass.\n"
        );
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'));
    }
}
