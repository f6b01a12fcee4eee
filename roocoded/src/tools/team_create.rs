//! `TeamCreate(team_name, description?, isolation?)`: the calling agent becomes the lead
//! of a new team (one per lead session); teammates join it through `Agent` with
//! `team_name` and `name`. Claude Code's tool of the same name and parameters.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, NewTeam, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Default)]
pub struct TeamCreateTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamCreateArgs {
    /// The team's name (letters, digits, `-`, `_`)
    #[schemars(length(min = 1))]
    pub team_name: String,
    /// What the team is for
    pub description: Option<String>,
    /// "worktree": every teammate works in its own git worktree and branch
    pub isolation: Option<String>,
}

const DESCRIPTION: &str = "\
Create an agent team that you lead: long-lived teammates that work in parallel, each in its \
own context, talk to each other and to you with SendMessage, and share one task list \
(TaskCreate, TaskList, TaskGet, TaskUpdate). You have one team at a time.

Use a team for work that splits into parts several agents can do at once and that need to \
coordinate (a change across modules, a review by several specialists); for one self-contained \
task, Agent alone is enough. After creating it: add the tasks with their dependencies, then \
start each teammate with Agent (team_name and a name), telling it which tasks are its own. \
With isolation \"worktree\" each teammate gets its own git branch; merging them is a task like \
any other. TeamDelete ends the team when the work is done.";

impl TypedTool for TeamCreateTool {
    type Args = TeamCreateArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TeamCreate",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        args: TeamCreateArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(host) = &ctx.team else {
                return Err(ToolError::Failed(
                    "this agent cannot lead a team: do the work yourself".into(),
                ));
            };
            let team = NewTeam {
                team_name: args.team_name.trim().to_string(),
                description: args.description.unwrap_or_default().trim().to_string(),
                isolation: args.isolation.filter(|i| !i.trim().is_empty()),
            };
            let reply = host.create_team(team).await.map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(reply))
        }
        .boxed()
    }
}
