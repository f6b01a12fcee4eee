//! How the team's task list reads to the model: `TaskList` (one line a task),
//! `TaskGet` (one task in full) and the notices the task list mails (a task assigned,
//! a task unblocked).

use crate::store::{TaskStatus, TeamTask, open_blockers};

/// `#1, #2`.
pub fn numbers(ids: &[i64]) -> String {
    ids.iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The team's list, one line a task.
pub fn list(team: &str, tasks: &[TeamTask]) -> String {
    if tasks.is_empty() {
        return format!(
            "Team \"{team}\" has no tasks yet: add them with TaskCreate (the lead usually does)."
        );
    }
    let count = |s: TaskStatus| tasks.iter().filter(|t| t.status == s).count();
    let mut out = format!(
        "Team \"{team}\" tasks ({} completed, {} in progress, {} pending):\n",
        count(TaskStatus::Completed),
        count(TaskStatus::InProgress),
        count(TaskStatus::Pending)
    );
    for task in tasks {
        let owner = task.owner.as_deref().unwrap_or("unowned");
        let open = open_blockers(tasks, task);
        let blocked = if open.is_empty() || task.status == TaskStatus::Completed {
            String::new()
        } else {
            format!("; blocked by {}", numbers(&open))
        };
        out.push_str(&format!(
            "- #{} [{}] {} ({owner}{blocked})\n",
            task.id,
            task.status.as_str(),
            task.subject
        ));
    }
    out
}

/// One task in full: what it is, who has it, what it waits for and what waits for it.
pub fn detail(tasks: &[TeamTask], task: &TeamTask) -> String {
    let mut out = format!(
        "Task #{}: {}\nStatus: {}\nOwner: {}\n",
        task.id,
        task.subject,
        task.status.as_str(),
        task.owner
            .as_deref()
            .unwrap_or("nobody (claim it with TaskUpdate)")
    );
    if !task.blocked_by.is_empty() {
        let blockers: Vec<String> = task
            .blocked_by
            .iter()
            .map(|b| match tasks.iter().find(|t| t.id == *b) {
                Some(t) => format!(
                    "#{b} ({}{})",
                    t.status.as_str(),
                    t.owner
                        .as_deref()
                        .map(|o| format!(", {o}"))
                        .unwrap_or_default()
                ),
                None => format!("#{b}"),
            })
            .collect();
        out.push_str(&format!("Waits for: {}\n", blockers.join(", ")));
        let open = open_blockers(tasks, task);
        if !open.is_empty() && task.status != TaskStatus::Completed {
            out.push_str(&format!(
                "Blocked: it cannot start before {} completed.\n",
                if open.len() == 1 {
                    format!("{} is", numbers(&open))
                } else {
                    format!("{} are", numbers(&open))
                }
            ));
        }
    }
    let blocks: Vec<i64> = tasks
        .iter()
        .filter(|t| t.blocked_by.contains(&task.id))
        .map(|t| t.id)
        .collect();
    if !blocks.is_empty() {
        out.push_str(&format!("Blocks: {}\n", numbers(&blocks)));
    }
    if !task.description.is_empty() {
        out.push_str(&format!("Description:\n{}\n", task.description));
    }
    out
}

/// What a member reads when the lead assigns it `task`.
pub fn assignment(task: &TeamTask) -> String {
    let mut text = format!(
        "The lead assigned you task #{} \"{}\" of the team's task list.",
        task.id, task.subject
    );
    if !task.description.is_empty() {
        text.push_str(&format!("\n{}\n", task.description));
    }
    text.push_str(&format!(
        " Start it with TaskUpdate (task_id {}, status in_progress) — if it is still blocked you are told by what, and told again when it can start — and set status completed when it is done.",
        task.id
    ));
    text
}

/// What the owner of `next` reads when `done` (completed by `by`) unblocked it.
pub fn unblocked(next: &TeamTask, done: &TeamTask, by: &str) -> String {
    format!(
        "Task #{} \"{}\" is yours and can start now: #{} \"{}\" was completed by {by}, and every task it waited for is completed. Start it with TaskUpdate (task_id {}, status in_progress), do it, then set status completed.",
        next.id, next.subject, done.id, done.subject, next.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: i64, status: TaskStatus, owner: Option<&str>, blocked_by: &[i64]) -> TeamTask {
        TeamTask {
            id,
            subject: format!("task {id}"),
            description: String::new(),
            status,
            owner: owner.map(str::to_string),
            blocked_by: blocked_by.to_vec(),
        }
    }

    #[test]
    fn the_list_shows_status_owner_and_what_still_blocks() {
        let tasks = [
            task(1, TaskStatus::Completed, Some("alice"), &[]),
            task(2, TaskStatus::Pending, Some("bob"), &[1]),
            task(3, TaskStatus::Pending, None, &[1, 2]),
        ];
        let text = list("alpha", &tasks);
        assert_eq!(
            text,
            "Team \"alpha\" tasks (1 completed, 0 in progress, 2 pending):\n\
             - #1 [completed] task 1 (alice)\n\
             - #2 [pending] task 2 (bob)\n\
             - #3 [pending] task 3 (unowned; blocked by #2)\n"
        );
        let three = detail(&tasks, &tasks[2]);
        assert!(
            three.contains("Waits for: #1 (completed, alice), #2 (pending, bob)"),
            "{three}"
        );
        assert!(
            three.contains("cannot start before #2 is completed"),
            "{three}"
        );
        assert!(detail(&tasks, &tasks[0]).contains("Blocks: #2, #3"));
        assert!(list("alpha", &[]).contains("no tasks yet"));
    }
}
