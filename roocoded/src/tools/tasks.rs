//! The task tools over the caller's tasks: `TaskList`, `TaskGet(task_id)` and
//! `TaskStop(task_id)`. Outside a team the tasks are the session tree's background
//! agents (tasks of kind `agent`, through [`AgentHost`]); inside a team (its lead or a
//! member) `TaskList` and `TaskGet` show the team's shared list (through
//! [`TeamHost`](super::TeamHost)) — numbered tasks — and the lead's background agents
//! beside it. `TaskCreate` and `TaskUpdate` (their own files) change the team's list.
//! Parameters are snake_case; Claude Code's camelCase spellings (`taskId`) are
//! accepted too (both spellings with different values is an error, not a silent pick).
//! `TaskGet` never waits: a running agent's answer arrives as a
//! notification.

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

/// A team task as the model names it: its number, as a number or a string (`"3"`,
/// `"#3"`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TaskRef {
    Number(i64),
    Text(String),
}

impl TaskRef {
    /// The task's number; the error is the model's.
    pub fn number(&self) -> Result<i64, ToolError> {
        match self {
            TaskRef::Number(n) if *n > 0 => Ok(*n),
            TaskRef::Number(n) => Err(ToolError::Failed(format!(
                "{n} is not a task number: team tasks are numbered from 1 (TaskList shows them)"
            ))),
            TaskRef::Text(text) => task_number(text).ok_or_else(|| {
                ToolError::Failed(format!(
                    "`{text}` is not a task number: give the number TaskCreate returned or TaskList shows, such as 3"
                ))
            }),
        }
    }
}

/// `3` or `#3` as a team task's number.
fn task_number(text: &str) -> Option<i64> {
    let text = text.trim();
    let digits = text.strip_prefix('#').unwrap_or(text);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// The text of "both spellings of the task id, different values".
fn two_ids(a: &str, b: &str) -> ToolError {
    ToolError::Failed(format!(
        "`task_id` ({a}) and `taskId` ({b}) are the same parameter and were given different \
         values: give only `task_id`"
    ))
}

/// The task number of a `task_id` / `taskId` pair: `None` when neither is given; two
/// different numbers are an error.
pub fn one_task_number(
    snake: Option<&TaskRef>,
    camel: Option<&TaskRef>,
) -> Result<Option<i64>, ToolError> {
    match (
        snake.map(TaskRef::number).transpose()?,
        camel.map(TaskRef::number).transpose()?,
    ) {
        (Some(a), Some(b)) if a != b => Err(two_ids(&a.to_string(), &b.to_string())),
        (a, b) => Ok(a.or(b)),
    }
}

/// The numbers of `refs`, in either spelling's field (both may be given).
pub fn task_numbers(refs: [&Option<Vec<TaskRef>>; 2]) -> Result<Vec<i64>, ToolError> {
    let mut numbers = Vec::new();
    for r in refs.into_iter().flatten().flatten() {
        let n = r.number()?;
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    Ok(numbers)
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
description. In an agent team it lists the team's shared task list first: each task's \
number, status (pending, in_progress, completed), owner and the tasks still blocking it. \
Use it to see what is still running or unclaimed before you start more work or answer.",
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
        async move {
            let team = match &ctx.team {
                Some(team) => team.team_tasks().await.map_err(ToolError::Failed)?,
                None => None,
            };
            let Some(team) = team else {
                return answer(host(ctx)?.task_list().await);
            };
            // Beside the team's list, the caller's own background agents, if any.
            let agents = match ctx.agents.as_deref() {
                Some(agents) => agents.task_list().await.map_err(ToolError::Failed)?,
                None => String::new(),
            };
            if agents.is_empty() || agents.starts_with("No tasks") {
                return Ok(ToolOutput::text(team));
            }
            Ok(ToolOutput::text(format!("{}\n\n{agents}", team.trim_end())))
        }
        .boxed()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskIdArgs {
    /// The task's id: a team task's number, or a background agent's id (or a unique prefix of it)
    pub task_id: Option<String>,
    /// Same as task_id
    // Claude Code's spelling: a field of its own (as Bash's dangerouslyDisableSandbox),
    // so the schema lists it.
    #[serde(rename = "taskId")]
    pub task_id_camel: Option<String>,
}

impl TaskIdArgs {
    /// The id, in either spelling (`3` and `#3` are one id; two different ids are an
    /// error).
    fn id(&self) -> Result<&str, ToolError> {
        fn clean(v: Option<&str>) -> Option<&str> {
            v.map(str::trim).filter(|id| !id.is_empty())
        }
        match (
            clean(self.task_id.as_deref()),
            clean(self.task_id_camel.as_deref()),
        ) {
            (Some(a), Some(b))
                if a != b && (task_number(a).is_none() || task_number(a) != task_number(b)) =>
            {
                Err(two_ids(a, b))
            }
            (Some(id), _) | (None, Some(id)) => Ok(id),
            (None, None) => Err(ToolError::Failed(
                "give the task's id as task_id (TaskList shows them)".into(),
            )),
        }
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
returned or TaskList shows; a unique prefix is enough). In an agent team, a number names a \
task of the team's list: its subject, description, status, owner, what blocks it and what \
it blocks. It never waits: for a task still running it says so, and its result comes to \
you as a <task-notification> when it ends, so do not call it in a loop.",
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
        async move {
            let id = args.id()?;
            if let (Some(team), Some(number)) = (&ctx.team, task_number(id))
                && let Some(text) = team.team_task(number).await.map_err(ToolError::Failed)?
            {
                return Ok(ToolOutput::text(text));
            }
            answer(host(ctx)?.task_get(id).await)
        }
        .boxed()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_number_is_a_positive_number_or_its_text() {
        assert_eq!(TaskRef::Number(3).number().unwrap(), 3);
        assert_eq!(TaskRef::Text(" #12 ".into()).number().unwrap(), 12);
        for bad in ["", "#", "abc", "1.5", "-2", "0"] {
            assert!(TaskRef::Text(bad.into()).number().is_err(), "{bad}");
        }
        assert!(TaskRef::Number(0).number().is_err());
        let both = task_numbers([
            &Some(vec![TaskRef::Number(1), TaskRef::Text("2".into())]),
            &Some(vec![TaskRef::Number(2)]),
        ])
        .unwrap();
        assert_eq!(both, [1, 2]);
    }

    #[test]
    fn both_spellings_of_the_task_id_must_agree() {
        let ids = |a: Option<&str>, b: Option<&str>| TaskIdArgs {
            task_id: a.map(Into::into),
            task_id_camel: b.map(Into::into),
        };
        assert_eq!(ids(Some(" 3 "), None).id().unwrap(), "3");
        assert_eq!(ids(None, Some("abc")).id().unwrap(), "abc");
        assert_eq!(ids(Some("3"), Some("#3")).id().unwrap(), "3");
        assert_eq!(ids(Some("abc"), Some(" abc")).id().unwrap(), "abc");
        for (a, b) in [("3", "4"), ("abc", "abd"), ("3", "abc")] {
            let err = ids(Some(a), Some(b)).id().unwrap_err().to_string();
            assert!(err.contains("different values"), "{a} {b}: {err}");
        }
        assert!(ids(None, Some(" ")).id().is_err());

        let n = |v: i64| Some(TaskRef::Number(v));
        let t = |v: &str| Some(TaskRef::Text(v.into()));
        assert_eq!(
            one_task_number(n(2).as_ref(), t("#2").as_ref()).unwrap(),
            Some(2)
        );
        assert_eq!(one_task_number(None, n(5).as_ref()).unwrap(), Some(5));
        assert_eq!(one_task_number(None, None).unwrap(), None);
        let err = one_task_number(n(2).as_ref(), n(3).as_ref()).unwrap_err();
        assert!(err.to_string().contains("different values"), "{err}");
    }
}
