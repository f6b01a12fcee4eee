//! `TaskCreate(subject, description, add_blocked_by?)`: adds a pending task to the
//! caller's team's shared list (the lead's or a member's call); its number comes back.
//! Claude Code's spellings (`addBlockedBy`, `activeForm`) are accepted, and so is its
//! `metadata` object (ignored).

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::tasks::{TaskRef, task_numbers};
use super::{
    Effect, NewTeamTask, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct TaskCreateTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskCreateArgs {
    /// A short imperative title ("Add the parser's error type")
    #[schemars(length(min = 1, max = 200))]
    pub subject: String,
    /// What to do, which files it covers and how to tell it is done
    #[schemars(length(max = 20000))]
    pub description: String,
    /// The numbers of the tasks this one waits for: it cannot start before they are completed
    pub add_blocked_by: Option<Vec<TaskRef>>,
    /// Same as add_blocked_by
    #[serde(rename = "addBlockedBy")]
    pub add_blocked_by_camel: Option<Vec<TaskRef>>,
    /// The task in the present continuous ("Adding the error type"); accepted, not shown
    #[serde(rename = "activeForm")]
    pub active_form: Option<String>,
    /// Accepted for compatibility, not stored
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

const DESCRIPTION: &str = "\
Add a task to your agent team's shared task list (the lead and every teammate see the same \
list). It starts pending and unowned; the answer gives its number. Name what it waits for \
with add_blocked_by (task numbers): a blocked task cannot be started until those are \
completed, and its owner is told when it is unblocked.

Make tasks that one teammate can finish on its own: a few files each (split by file \
boundaries so two teammates never edit one file), with a description that says what done \
looks like. Assign or claim them with TaskUpdate (owner, status in_progress). Outside a team \
this tool does nothing: use TodoWrite for your own checklist.";

impl TypedTool for TaskCreateTool {
    type Args = TaskCreateArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TaskCreate",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        args: TaskCreateArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(host) = &ctx.team else {
                return Err(ToolError::Failed(
                    "this agent is in no team: keep your own checklist with TodoWrite".into(),
                ));
            };
            let subject = args.subject.trim().to_string();
            if subject.is_empty() {
                return Err(ToolError::Failed(
                    "give the task a subject: a short imperative title".into(),
                ));
            }
            let task = NewTeamTask {
                subject,
                description: args.description.trim().to_string(),
                blocked_by: task_numbers([&args.add_blocked_by, &args.add_blocked_by_camel])?,
            };
            let reply = host.create_task(task).await.map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(reply))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_s_metadata_object_is_accepted() {
        let input = serde_json::json!({"subject": "s", "description": "d", "metadata": {"k": [1]}});
        let registry = crate::tools::Registry::with_builtins();
        assert!(registry.validate("TaskCreate", &input).is_ok());
        assert!(serde_json::from_value::<TaskCreateArgs>(input).is_ok());
        let not_object = serde_json::json!({"subject": "s", "description": "d", "metadata": 3});
        assert!(registry.validate("TaskCreate", &not_object).is_err());
    }
}
