//! The team's shared task list (`team_tasks`, `team_task_deps`): tasks with a status,
//! an owner and the tasks that block them. Claiming is atomic (one `UPDATE` that only
//! succeeds for an unowned, pending, unblocked task), so is reserving a task for its
//! owner, a dependency that would close a cycle is refused with the cycle named, and
//! completing a task (once: a second completion is refused) says whose tasks it
//! unblocked. Who may do what is the engine's rule (`agent/team/tasks.rs`); this file
//! only keeps the list consistent.

use std::collections::{HashMap, HashSet};

use sqlx::Connection as _;

use super::{Store, StoreError};
use crate::clock;

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Pending,
    InProgress,
    Completed,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Completed => "completed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(TaskStatus::Pending),
            "in_progress" => Some(TaskStatus::InProgress),
            "completed" => Some(TaskStatus::Completed),
            _ => None,
        }
    }
}

/// A task as stored, with the ids of the tasks it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamTask {
    pub id: i64,
    pub subject: String,
    pub description: String,
    pub status: TaskStatus,
    /// The member's name (or `lead`).
    pub owner: Option<String>,
    pub blocked_by: Vec<i64>,
}

/// Why a task operation was refused (what the model reads).
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("no task #{0} in this team: TaskList lists them")]
    NoSuchTask(i64),
    #[error("task #{task} is {owner}'s already")]
    Taken { task: i64, owner: String },
    #[error("task #{task} is blocked by {}: it can start once those are completed", list(.open))]
    Blocked { task: i64, open: Vec<i64> },
    #[error("task #{0} is completed already")]
    Done(i64),
    #[error("that dependency would make a cycle: {}", cycle(.0))]
    Cycle(Vec<i64>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for TaskError {
    fn from(e: sqlx::Error) -> Self {
        TaskError::Store(StoreError::Sqlx(e))
    }
}

fn list(ids: &[i64]) -> String {
    ids.iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cycle(ids: &[i64]) -> String {
    ids.iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// Inserts a pending task; its id.
async fn insert_task(
    conn: &mut sqlx::SqliteConnection,
    team_id: &str,
    subject: &str,
    description: &str,
) -> Result<i64, StoreError> {
    let now = clock::now_ms();
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO team_tasks (team_id, subject, description, status, created_at, updated_at)
         VALUES (?, ?, ?, 'pending', ?, ?) RETURNING id",
    )
    .bind(team_id)
    .bind(subject)
    .bind(description)
    .bind(now)
    .bind(now)
    .fetch_one(conn)
    .await?;
    Ok(id)
}

impl Store {
    /// Adds a pending task to the team's list; its id.
    pub async fn create_task(
        &self,
        team_id: &str,
        subject: &str,
        description: &str,
    ) -> Result<i64, StoreError> {
        insert_task(&mut *self.conn().await?, team_id, subject, description).await
    }

    /// Adds a pending task waiting for `blocked_by` (tasks of the same team), in one
    /// transaction: an unknown blocker refuses the whole task. A new task blocks
    /// nothing yet, so it cannot close a cycle.
    pub async fn create_task_blocked_by(
        &self,
        team_id: &str,
        subject: &str,
        description: &str,
        blocked_by: &[i64],
    ) -> Result<i64, TaskError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        for blocker in blocked_by {
            let known: Option<(i64,)> =
                sqlx::query_as("SELECT id FROM team_tasks WHERE id = ? AND team_id = ?")
                    .bind(blocker)
                    .bind(team_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            if known.is_none() {
                return Err(TaskError::NoSuchTask(*blocker));
            }
        }
        let id = insert_task(&mut tx, team_id, subject, description).await?;
        for blocker in blocked_by {
            sqlx::query("INSERT OR IGNORE INTO team_task_deps (task_id, blocked_by) VALUES (?, ?)")
                .bind(id)
                .bind(blocker)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// The team's tasks, oldest first.
    pub async fn tasks(&self, team_id: &str) -> Result<Vec<TeamTask>, StoreError> {
        let rows: Vec<(i64, String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT id, subject, description, status, owner FROM team_tasks WHERE team_id = ? ORDER BY id",
        )
        .bind(team_id)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        let deps = self.dependencies(team_id).await?;
        Ok(rows
            .into_iter()
            .map(|(id, subject, description, status, owner)| TeamTask {
                id,
                subject,
                description,
                status: TaskStatus::parse(&status).unwrap_or(TaskStatus::Pending),
                owner,
                blocked_by: deps.get(&id).cloned().unwrap_or_default(),
            })
            .collect())
    }

    pub async fn task(&self, team_id: &str, id: i64) -> Result<Option<TeamTask>, StoreError> {
        Ok(self.tasks(team_id).await?.into_iter().find(|t| t.id == id))
    }

    /// task → the tasks blocking it.
    async fn dependencies(&self, team_id: &str) -> Result<HashMap<i64, Vec<i64>>, StoreError> {
        dependencies_on(&mut *self.conn().await?, team_id).await
    }

    /// `task` cannot start before `blocked_by` is completed; refused (with the cycle)
    /// when `blocked_by` already waits for `task`, directly or not. The check and the
    /// insert are one `BEGIN IMMEDIATE` transaction: two dependencies added at once
    /// cannot each pass the check and close a cycle together.
    pub async fn add_dependency(
        &self,
        team_id: &str,
        task: i64,
        blocked_by: i64,
    ) -> Result<(), TaskError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        let ids: Vec<(i64,)> = sqlx::query_as("SELECT id FROM team_tasks WHERE team_id = ?")
            .bind(team_id)
            .fetch_all(&mut *tx)
            .await?;
        for id in [task, blocked_by] {
            if !ids.iter().any(|(known,)| *known == id) {
                return Err(TaskError::NoSuchTask(id));
            }
        }
        let deps = dependencies_on(&mut *tx, team_id).await?;
        if let Some(path) = path_between(&deps, blocked_by, task) {
            // blocked_by waits for task already: task → blocked_by → … → task.
            let mut cycle = vec![task];
            cycle.extend(path);
            return Err(TaskError::Cycle(cycle));
        }
        sqlx::query("INSERT OR IGNORE INTO team_task_deps (task_id, blocked_by) VALUES (?, ?)")
            .bind(task)
            .bind(blocked_by)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Makes `owner` the owner of `task` and starts it, atomically: of two members
    /// racing for one task exactly one wins, and the other is told who has it.
    pub async fn claim_task(&self, team_id: &str, task: i64, owner: &str) -> Result<(), TaskError> {
        let claimed = sqlx::query(
            "UPDATE team_tasks SET owner = ?1, status = 'in_progress', updated_at = ?2
             WHERE id = ?3 AND team_id = ?4 AND status = 'pending' AND (owner IS NULL OR owner = ?1)
               AND NOT EXISTS (SELECT 1 FROM team_task_deps d JOIN team_tasks b ON b.id = d.blocked_by
                               WHERE d.task_id = ?3 AND b.status != 'completed')",
        )
        .bind(owner)
        .bind(clock::now_ms())
        .bind(task)
        .bind(team_id)
        .execute(&mut *self.conn().await?)
        .await?
        .rows_affected();
        if claimed == 1 {
            return Ok(());
        }
        // Why not, as the list says now.
        let tasks = self.tasks(team_id).await?;
        let Some(t) = tasks.iter().find(|t| t.id == task) else {
            return Err(TaskError::NoSuchTask(task));
        };
        if t.status == TaskStatus::Completed {
            return Err(TaskError::Done(task));
        }
        if let Some(other) = t.owner.as_ref().filter(|o| *o != owner) {
            return Err(TaskError::Taken {
                task,
                owner: other.clone(),
            });
        }
        if t.status == TaskStatus::InProgress {
            // Started by `owner` already: claiming it again changes nothing.
            return Ok(());
        }
        let done: HashSet<i64> = tasks
            .iter()
            .filter(|t| t.status == TaskStatus::Completed)
            .map(|t| t.id)
            .collect();
        let open: Vec<i64> = t
            .blocked_by
            .iter()
            .copied()
            .filter(|b| !done.contains(b))
            .collect();
        Err(TaskError::Blocked { task, open })
    }

    /// Completes `task`, once (completing it again is [`TaskError::Done`], so its
    /// dependents are told once); the tasks this unblocked (all their blockers
    /// completed now), with their owners, to notify.
    pub async fn complete_task(
        &self,
        team_id: &str,
        task: i64,
    ) -> Result<Vec<TeamTask>, TaskError> {
        let done = sqlx::query(
            "UPDATE team_tasks SET status = 'completed', updated_at = ?
             WHERE id = ? AND team_id = ? AND status != 'completed'",
        )
        .bind(clock::now_ms())
        .bind(task)
        .bind(team_id)
        .execute(&mut *self.conn().await?)
        .await?
        .rows_affected();
        if done == 0 {
            return match self.task(team_id, task).await? {
                Some(_) => Err(TaskError::Done(task)),
                None => Err(TaskError::NoSuchTask(task)),
            };
        }
        let tasks = self.tasks(team_id).await?;
        let completed: HashSet<i64> = tasks
            .iter()
            .filter(|t| t.status == TaskStatus::Completed)
            .map(|t| t.id)
            .collect();
        Ok(tasks
            .into_iter()
            .filter(|t| {
                t.status != TaskStatus::Completed
                    && t.blocked_by.contains(&task)
                    && t.blocked_by.iter().all(|b| completed.contains(b))
            })
            .collect())
    }
}

impl Store {
    /// Makes `owner` the owner of `task` if it has none (or has `owner` already),
    /// atomically: of two members reserving one task exactly one gets it, and the
    /// other is told who has it. The status stays as it is (a blocked task can be
    /// reserved; it is started with [`Store::claim_task`] once unblocked).
    pub async fn reserve_task(
        &self,
        team_id: &str,
        task: i64,
        owner: &str,
    ) -> Result<(), TaskError> {
        let reserved = sqlx::query(
            "UPDATE team_tasks SET owner = ?1, updated_at = ?2
             WHERE id = ?3 AND team_id = ?4 AND status != 'completed' AND (owner IS NULL OR owner = ?1)",
        )
        .bind(owner)
        .bind(clock::now_ms())
        .bind(task)
        .bind(team_id)
        .execute(&mut *self.conn().await?)
        .await?
        .rows_affected();
        if reserved == 1 {
            return Ok(());
        }
        match self.task(team_id, task).await? {
            None => Err(TaskError::NoSuchTask(task)),
            Some(t) if t.status == TaskStatus::Completed => Err(TaskError::Done(task)),
            Some(t) => Err(TaskError::Taken {
                task,
                owner: t.owner.unwrap_or_default(),
            }),
        }
    }

    /// Sets (or, with `None`, clears) the owner of `task`, whoever had it; an
    /// in-progress task that loses its owner goes back to pending.
    pub async fn set_task_owner(
        &self,
        team_id: &str,
        task: i64,
        owner: Option<&str>,
    ) -> Result<(), TaskError> {
        let changed = sqlx::query(
            "UPDATE team_tasks SET owner = ?1,
                 status = CASE WHEN ?1 IS NULL AND status = 'in_progress' THEN 'pending' ELSE status END,
                 updated_at = ?2
             WHERE id = ?3 AND team_id = ?4",
        )
        .bind(owner)
        .bind(clock::now_ms())
        .bind(task)
        .bind(team_id)
        .execute(&mut *self.conn().await?)
        .await?
        .rows_affected();
        found(changed, task)
    }

    /// Puts `task` back to pending (not started, or reopened), its owner kept.
    pub async fn reset_task(&self, team_id: &str, task: i64) -> Result<(), TaskError> {
        let changed = sqlx::query(
            "UPDATE team_tasks SET status = 'pending', updated_at = ? WHERE id = ? AND team_id = ?",
        )
        .bind(clock::now_ms())
        .bind(task)
        .bind(team_id)
        .execute(&mut *self.conn().await?)
        .await?
        .rows_affected();
        found(changed, task)
    }

    /// Changes the subject and/or the description of `task`.
    pub async fn edit_task(
        &self,
        team_id: &str,
        task: i64,
        subject: Option<&str>,
        description: Option<&str>,
    ) -> Result<(), TaskError> {
        let changed = sqlx::query(
            "UPDATE team_tasks SET subject = COALESCE(?, subject), description = COALESCE(?, description),
                 updated_at = ? WHERE id = ? AND team_id = ?",
        )
        .bind(subject)
        .bind(description)
        .bind(clock::now_ms())
        .bind(task)
        .bind(team_id)
        .execute(&mut *self.conn().await?)
        .await?
        .rows_affected();
        found(changed, task)
    }
}

/// `Ok` when an update of `task` changed its row, else the task does not exist.
fn found(changed: u64, task: i64) -> Result<(), TaskError> {
    if changed == 0 {
        return Err(TaskError::NoSuchTask(task));
    }
    Ok(())
}

/// The blockers of `task` that are not completed yet, as `tasks` (the team's list)
/// says.
pub fn open_blockers(tasks: &[TeamTask], task: &TeamTask) -> Vec<i64> {
    task.blocked_by
        .iter()
        .copied()
        .filter(|b| {
            tasks
                .iter()
                .find(|t| t.id == *b)
                .is_none_or(|t| t.status != TaskStatus::Completed)
        })
        .collect()
}

/// A path `from → … → to` following "waits for" edges, if there is one.
/// task → the tasks blocking it, for the tasks of `team_id`, read on `conn` (the pool,
/// or a transaction that goes on to change them).
async fn dependencies_on<'e, E>(
    conn: E,
    team_id: &str,
) -> Result<HashMap<i64, Vec<i64>>, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Sqlite>,
{
    let rows: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT d.task_id, d.blocked_by FROM team_task_deps d JOIN team_tasks t ON t.id = d.task_id
         WHERE t.team_id = ? ORDER BY d.task_id, d.blocked_by",
    )
    .bind(team_id)
    .fetch_all(conn)
    .await?;
    let mut deps: HashMap<i64, Vec<i64>> = HashMap::new();
    for (task, blocker) in rows {
        deps.entry(task).or_default().push(blocker);
    }
    Ok(deps)
}

fn path_between(deps: &HashMap<i64, Vec<i64>>, from: i64, to: i64) -> Option<Vec<i64>> {
    let mut stack = vec![vec![from]];
    let mut seen = HashSet::new();
    while let Some(path) = stack.pop() {
        let Some(&last) = path.last() else { continue };
        if last == to {
            return Some(path);
        }
        if !seen.insert(last) {
            continue;
        }
        for next in deps.get(&last).into_iter().flatten() {
            let mut longer = path.clone();
            longer.push(*next);
            stack.push(longer);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::teams::tests::team;

    #[tokio::test]
    async fn dependencies_block_until_completed_and_cycles_are_named() {
        let store = team().await;
        let design = store.create_task("t1", "design", "").await.unwrap();
        let build = store.create_task("t1", "build", "").await.unwrap();
        let verify = store.create_task("t1", "verify", "").await.unwrap();
        store.add_dependency("t1", build, design).await.unwrap();
        store.add_dependency("t1", verify, build).await.unwrap();
        let err = store
            .add_dependency("t1", design, verify)
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&format!("#{design} → #{verify} → #{build} → #{design}")),
            "{text}"
        );
        let blocked = store.claim_task("t1", build, "a").await.unwrap_err();
        assert!(matches!(blocked, TaskError::Blocked { .. }), "{blocked}");
        assert!(
            blocked.to_string().contains(&format!("#{design}")),
            "{blocked}"
        );

        store.claim_task("t1", design, "a").await.unwrap();
        let unblocked = store.complete_task("t1", design).await.unwrap();
        assert_eq!(unblocked.iter().map(|t| t.id).collect::<Vec<_>>(), [build]);
        store.claim_task("t1", build, "b").await.unwrap();
        let t = store.task("t1", build).await.unwrap().unwrap();
        assert_eq!(
            (t.status, t.owner.as_deref()),
            (TaskStatus::InProgress, Some("b"))
        );
    }

    #[tokio::test]
    async fn two_dependencies_added_at_once_cannot_close_a_cycle_together() {
        let store = team().await;
        let a = store.create_task("t1", "a", "").await.unwrap();
        let b = store.create_task("t1", "b", "").await.unwrap();
        let (ab, ba) = tokio::join!(
            store.add_dependency("t1", a, b),
            store.add_dependency("t1", b, a)
        );
        let results = [ab, ba];
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        let refused = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert!(matches!(refused, TaskError::Cycle(_)), "{refused}");
        let unknown = store.add_dependency("t1", a, 999).await.unwrap_err();
        assert!(matches!(unknown, TaskError::NoSuchTask(999)), "{unknown}");
    }

    #[tokio::test]
    async fn of_two_members_racing_for_a_task_exactly_one_wins() {
        let store = team().await;
        let task = store.create_task("t1", "the one", "").await.unwrap();
        let (a, b) = tokio::join!(
            store.claim_task("t1", task, "a"),
            store.claim_task("t1", task, "b")
        );
        let results = [a, b];
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        let loser = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert!(matches!(loser, TaskError::Taken { .. }), "{loser}");
        let winner = store
            .task("t1", task)
            .await
            .unwrap()
            .unwrap()
            .owner
            .unwrap();
        assert!(loser.to_string().contains(&winner), "{loser}");
    }

    #[tokio::test]
    async fn a_task_is_created_with_its_blockers_reserved_by_one_and_completed_once() {
        let store = team().await;
        let design = store.create_task("t1", "design", "").await.unwrap();
        let unknown = store
            .create_task_blocked_by("t1", "build", "", &[design, 999])
            .await
            .unwrap_err();
        assert!(matches!(unknown, TaskError::NoSuchTask(999)), "{unknown}");
        assert_eq!(
            store.tasks("t1").await.unwrap().len(),
            1,
            "nothing half made"
        );
        let build = store
            .create_task_blocked_by("t1", "build", "the parser", &[design])
            .await
            .unwrap();
        let tasks = store.tasks("t1").await.unwrap();
        let t = tasks.iter().find(|t| t.id == build).unwrap();
        assert_eq!(t.blocked_by, [design]);
        assert_eq!(open_blockers(&tasks, t), [design]);

        // A blocked task can be reserved, by one member only.
        store.reserve_task("t1", build, "b").await.unwrap();
        store.reserve_task("t1", build, "b").await.unwrap();
        let taken = store.reserve_task("t1", build, "a").await.unwrap_err();
        assert!(taken.to_string().contains("is b's already"), "{taken}");

        store.claim_task("t1", design, "a").await.unwrap();
        store.claim_task("t1", design, "a").await.unwrap();
        assert_eq!(store.complete_task("t1", design).await.unwrap().len(), 1);
        let again = store.complete_task("t1", design).await.unwrap_err();
        assert!(matches!(again, TaskError::Done(_)), "{again}");

        store
            .edit_task("t1", build, Some("build it"), None)
            .await
            .unwrap();
        store.claim_task("t1", build, "b").await.unwrap();
        store.set_task_owner("t1", build, None).await.unwrap();
        let t = store.task("t1", build).await.unwrap().unwrap();
        assert_eq!(
            (
                t.subject.as_str(),
                t.description.as_str(),
                t.status,
                t.owner
            ),
            ("build it", "the parser", TaskStatus::Pending, None)
        );
    }
}
