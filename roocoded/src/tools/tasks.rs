//! The task tools over the session tree's task list (background agents are tasks of
//! kind `agent`): `TaskList`, `TaskGet(task_id)` and `TaskStop(task_id)`. Parameters
//! are snake_case; Claude Code's camelCase spellings (`taskId`) are accepted too.
//! `TaskGet` never waits: a running agent's answer arrives as a notification.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{AgentHost, Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

/// The host's answer as the call's output (its error is the model's error result).
fn answer(reply: Result<String, String>) -> Result<ToolOutput, ToolError> {
    reply.map(ToolOutput::text).map_err(ToolError::Failed)
}

fn host(ctx: &ToolContext) -> Result<&dyn AgentHost, ToolError> {
    ctx.agents
        .as_deref()
        .ok_or_else(|| ToolError::Failed("this agent has no task list".into()))
}

#[derive(Debug, Clone, Copy, Default)]
pub struct TaskListTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskListArgs {}

impl TypedTool for TaskListTool {
    type Args = TaskListArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TaskList",
            "List every task of this session: the background agents started with Agent \
(run_in_background, forks, agents moved to the background), grouped by kind, each with its \
id, state (queued, running, waiting, completed, failed, cancelled), name, type and \
description. Use it to see what is still running before you start more work or answer.",
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn is_concurrency_safe(&self, _args: &TaskListArgs) -> bool {
        true
    }

    fn run<'a>(
        &'a self,
        _args: TaskListArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move { answer(host(ctx)?.task_list().await) }.boxed()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskIdArgs {
    /// The task's id (a background agent's id, or a unique prefix of it)
    pub task_id: Option<String>,
    /// Same as task_id
    // Claude Code's spelling: a field of its own (as Bash's dangerouslyDisableSandbox),
    // so the schema lists it.
    #[serde(rename = "taskId")]
    pub task_id_camel: Option<String>,
}

impl TaskIdArgs {
    /// The id, in either spelling.
    fn id(&self) -> Result<&str, ToolError> {
        self.task_id
            .as_deref()
            .or(self.task_id_camel.as_deref())
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| ToolError::Failed("give the task's id as task_id".into()))
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct TaskGetTool;

impl TypedTool for TaskGetTool {
    type Args = TaskIdArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TaskGet",
            "Get a task's status and, once it has ended, its result, by its id (the id Agent \
returned or TaskList shows; a unique prefix is enough). It never waits: for a task still \
running it says so, and its result comes to you as a <task-notification> when it ends, so \
do not call it in a loop.",
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn is_concurrency_safe(&self, _args: &TaskIdArgs) -> bool {
        true
    }

    fn run<'a>(
        &'a self,
        args: TaskIdArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move { answer(host(ctx)?.task_get(args.id()?).await) }.boxed()
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct TaskStopTool;

impl TypedTool for TaskStopTool {
    type Args = TaskIdArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TaskStop",
            "Stop a running task (a background agent) by its id: its running turn is \
cancelled and it ends as cancelled, keeping what it wrote so far (its last words are its \
result). Use it when the task is no longer needed or went wrong; a task that has ended \
already is left as it is.",
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        args: TaskIdArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move { answer(host(ctx)?.task_stop(args.id()?).await) }.boxed()
    }
}
