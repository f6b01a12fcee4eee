//! `Agent`: starts a sub-agent (DESIGN.md §9). Parameters are Claude Code's: `prompt`,
//! `description`, `subagent_type` (absent: a fork of the caller), `model`,
//! `run_in_background`, `name`, `isolation`, `resume`, and for a teammate
//! `team_name`, `mode` and `backend`. The work is done by the
//! calling agent's [`AgentHost`](super::AgentHost); the child's own calls go through
//! the permission gate like any agent's, so `Agent` itself asks for nothing.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    AgentRequest, Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct AgentTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentArgs {
    /// The task for the agent: everything it needs to know, since it does not see your conversation (a fork does)
    #[schemars(length(min = 1))]
    pub prompt: String,
    /// A short (3-5 word) description of the task
    #[schemars(length(min = 1))]
    pub description: String,
    /// The type of agent to start; leave it out to fork yourself (the fork sees this conversation)
    pub subagent_type: Option<String>,
    /// The model: inherit, sonnet, opus, haiku, or provider/model
    pub model: Option<String>,
    /// Run it in the background: you get its id now and a notification when it ends
    pub run_in_background: Option<bool>,
    /// A name for the agent, shown to the user
    pub name: Option<String>,
    /// "worktree": the agent works in its own git worktree and branch
    pub isolation: Option<String>,
    /// The id of a finished agent to continue with its history
    pub resume: Option<String>,
    /// Your team (TeamCreate): the agent joins it as a long-lived teammate called `name`
    pub team_name: Option<String>,
    /// A teammate's permission mode; "plan": it plans first and you approve its plan
    pub mode: Option<String>,
    /// Where a teammate is shown: "in-process", "tmux" (a pane of its own) or "auto"
    pub backend: Option<String>,
}

const DESCRIPTION: &str = "\
Start a sub-agent to work on a task with its own context, and get its final answer. \
Use it for work that needs many searches or steps and would fill your own context, and \
to run independent tasks in parallel (several Agent calls in one message run together).

- subagent_type picks a specialised agent (the available types and when to use them are \
listed below); without it you fork yourself: the fork sees this conversation and runs in \
the background.
- The agent does not see your conversation (a fork does): the prompt must say everything \
it needs, and what to report back.
- run_in_background: you get the agent's id at once and a <task-notification> when it \
ends; do not poll for it (TaskGet never waits). A foreground agent that runs long moves \
to the background on its own.
- Its result is for you, not the user: tell the user what matters.
- resume continues a finished agent (by id) with its history and your new prompt.
- team_name with name: the agent joins your team (TeamCreate) as a teammate that works \
alongside you until the team is deleted; talk to it with SendMessage.";

impl TypedTool for AgentTool {
    type Args = AgentArgs;

    fn spec(&self) -> Spec {
        Spec::new("Agent", DESCRIPTION, Effect::Nothing, ToolCategory::Agent)
    }

    /// Several agents of one response run together.
    fn is_concurrency_safe(&self, _args: &AgentArgs) -> bool {
        true
    }

    fn run<'a>(
        &'a self,
        args: AgentArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(host) = &ctx.agents else {
                return Err(ToolError::Failed(
                    "this agent cannot start sub-agents: do the task yourself".into(),
                ));
            };
            let request = AgentRequest {
                prompt: args.prompt,
                description: args.description,
                subagent_type: args.subagent_type.filter(|t| !t.trim().is_empty()),
                model: args.model.filter(|m| !m.trim().is_empty()),
                run_in_background: args.run_in_background.unwrap_or(false),
                name: args.name.filter(|n| !n.trim().is_empty()),
                isolation: args.isolation.filter(|i| !i.trim().is_empty()),
                resume: args.resume.filter(|r| !r.trim().is_empty()),
                team_name: args.team_name.filter(|t| !t.trim().is_empty()),
                mode: args.mode.filter(|m| !m.trim().is_empty()),
                backend: args.backend.filter(|b| !b.trim().is_empty()),
                tools: None,
                scope: None,
            };
            let result = host.run_agent(request).await.map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(result))
        }
        .boxed()
    }
}
