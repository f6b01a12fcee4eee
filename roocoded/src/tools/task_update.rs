//! `TaskUpdate(task_id, status?, owner?, add_blocks?, add_blocked_by?, subject?,
//! description?)`: changes a task of the caller's team's shared list — claims it
//! (status `in_progress`: atomic, a task another member has is refused naming who),
//! completes it (its dependents' owners are told they can start), assigns it (the
//! lead), or adds dependencies (a cycle is refused, named). Who may change what is the
//! engine's rule (`agent/team/tasks.rs`). Claude Code's spellings (`taskId`,
//! `addBlocks`, `addBlockedBy`, `activeForm`) are accepted (`task_id` and `taskId`
//! with different numbers is an error), and so is its `metadata` object (ignored).
//! Claude Code's `status: "deleted"` is refused: a team task is completed, never
//! deleted (the list is the team's record).

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::tasks::{TaskRef, one_task_number, task_numbers};
use super::{
    Effect, Spec, TaskChange, TaskStatusChange, ToolCategory, ToolContext, ToolError, ToolOutput,
    TypedTool,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct TaskUpdateTool;

/// The `status` a call may give: the statuses of [`TaskStatusChange`], and Claude
/// Code's `deleted`, which is accepted only to be refused with a reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusArg {
    Pending,
    InProgress,
    Completed,
    Deleted,
}

impl StatusArg {
    fn change(self) -> Result<TaskStatusChange, ToolError> {
        match self {
            StatusArg::Pending => Ok(TaskStatusChange::Pending),
            StatusArg::InProgress => Ok(TaskStatusChange::InProgress),
            StatusArg::Completed => Ok(TaskStatusChange::Completed),
            StatusArg::Deleted => Err(ToolError::Failed(
                "team tasks are completed, not deleted, in RooCode: set status \"completed\" \
                 (for a task no longer needed, say so in its description first)"
                    .into(),
            )),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdateArgs {
    /// The task's number (TaskCreate returned it; TaskList shows it)
    pub task_id: Option<TaskRef>,
    /// Same as task_id
    #[serde(rename = "taskId")]
    pub task_id_camel: Option<TaskRef>,
    /// pending, in_progress (claims it: you become its owner) or completed (deleted is refused: tasks are completed, not deleted)
    pub status: Option<StatusArg>,
    /// Who does it: your own name to claim it; the lead may name any teammate or "lead"; "" for nobody
    pub owner: Option<String>,
    /// Tasks that cannot start before this one is completed
    pub add_blocks: Option<Vec<TaskRef>>,
    /// Same as add_blocks
    #[serde(rename = "addBlocks")]
    pub add_blocks_camel: Option<Vec<TaskRef>>,
    /// Tasks this one waits for: it cannot start before they are completed
    pub add_blocked_by: Option<Vec<TaskRef>>,
    /// Same as add_blocked_by
    #[serde(rename = "addBlockedBy")]
    pub add_blocked_by_camel: Option<Vec<TaskRef>>,
    /// A new title
    #[schemars(length(max = 200))]
    pub subject: Option<String>,
    /// A new description
    #[schemars(length(max = 20000))]
    pub description: Option<String>,
    /// The task in the present continuous; accepted, not shown
    #[serde(rename = "activeForm")]
    pub active_form: Option<String>,
    /// Accepted for compatibility, not stored
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

const DESCRIPTION: &str = "\
Change a task of your agent team's shared list. Claim a task before you work on it: status \
\"in_progress\" makes you its owner, atomically — if a teammate has it already you are told \
who, so pick another. A task blocked by unfinished tasks cannot be started (you are told \
which); set owner to your own name to reserve it meanwhile, and you are told when it is \
unblocked. Set status \"completed\" when it is done (only its owner or the lead can): the \
owners of the tasks it unblocks are told they can start. add_blocks / add_blocked_by add \
dependencies (a cycle is refused, named). The lead assigns tasks by setting owner (the new \
owner is told); a teammate changes only its own or unowned tasks.";

impl TypedTool for TaskUpdateTool {
    type Args = TaskUpdateArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TaskUpdate",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        args: TaskUpdateArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(host) = &ctx.team else {
                return Err(ToolError::Failed(
                    "this agent is in no team: keep your own checklist with TodoWrite".into(),
                ));
            };
            let Some(task_id) =
                one_task_number(args.task_id.as_ref(), args.task_id_camel.as_ref())?
            else {
                return Err(ToolError::Failed(
                    "give the task's number as task_id (TaskList shows them)".into(),
                ));
            };
            let change = TaskChange {
                task_id,
                status: args.status.map(StatusArg::change).transpose()?,
                owner: args.owner.map(|o| o.trim().to_string()),
                add_blocks: task_numbers([&args.add_blocks, &args.add_blocks_camel])?,
                add_blocked_by: task_numbers([&args.add_blocked_by, &args.add_blocked_by_camel])?,
                subject: args
                    .subject
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
                description: args.description.map(|d| d.trim().to_string()),
            };
            let nothing = change.status.is_none()
                && change.owner.is_none()
                && change.add_blocks.is_empty()
                && change.add_blocked_by.is_empty()
                && change.subject.is_none()
                && change.description.is_none();
            if nothing {
                return Err(ToolError::Failed(
                    "nothing to change: give a status, an owner, dependencies, a subject or a description".into(),
                ));
            }
            let reply = host.update_task(change).await.map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(reply))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> TaskUpdateArgs {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn metadata_is_accepted_and_deleted_is_refused_with_the_reason() {
        let a = args(serde_json::json!({"taskId": 1, "status": "completed", "metadata": {"k": 1}}));
        assert_eq!(
            a.status.map(StatusArg::change).transpose().unwrap(),
            Some(TaskStatusChange::Completed)
        );
        let registry = crate::tools::Registry::with_builtins();
        let deleted = serde_json::json!({"task_id": 1, "status": "deleted"});
        assert!(registry.validate("TaskUpdate", &deleted).is_ok());
        let err = args(deleted)
            .status
            .map(StatusArg::change)
            .transpose()
            .unwrap_err();
        assert!(err.to_string().contains("completed, not deleted"), "{err}");
        assert!(
            registry
                .validate(
                    "TaskUpdate",
                    &serde_json::json!({"task_id": 1, "metadata": "x"})
                )
                .is_err()
        );
    }
}
