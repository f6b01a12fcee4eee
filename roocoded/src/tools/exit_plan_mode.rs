//! `ExitPlanMode`: in plan mode, presents the finished plan to the user for approval.
//! Approved, the session leaves plan mode (to `default`, or `acceptEdits` when the user
//! approves "always") and the agent starts working; rejected, the feedback comes back
//! and the agent stays in plan mode.
//!
//! A teammate's plan goes to its lead instead (one approval path, never the user's
//! dialog): it becomes a `plan_approval_request` in the lead's mailbox and the teammate
//! ends its turn; the lead's `plan_approval_response` arrives as mail and wakes it, out
//! of plan mode already when it was approved.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::human::PlanVerdict;
use super::{Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Default)]
pub struct ExitPlanModeTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitPlanModeArgs {
    /// The plan, in Markdown
    pub plan: String,
}

const DESCRIPTION: &str = "Use this in plan mode when your plan is complete and you are \
ready to implement it: it shows the plan to the user for approval. Pass the plan as \
concise Markdown (the steps, the files to change, how you will verify). Only use it \
for tasks that need code changes, not for research. If the user rejects the plan, \
revise it with their feedback and call this again. In an agent team a teammate's plan \
goes to its lead, who approves or rejects it by message.";

impl TypedTool for ExitPlanModeTool {
    type Args = ExitPlanModeArgs;

    /// It changes nothing itself: the approval it asks for is the permission.
    fn spec(&self) -> Spec {
        Spec::new(
            "ExitPlanMode",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        input: ExitPlanModeArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            if let Some(team) = ctx.team.as_ref().filter(|t| t.is_teammate()) {
                let reply = team.submit_plan(&input.plan).await.map_err(ToolError::Failed)?;
                return Ok(ToolOutput::text(reply));
            }
            let Some(human) = &ctx.human else {
                return Err(ToolError::Failed("no user can approve a plan here".into()));
            };
            if human.mode() != roocode_protocol::Mode::Plan {
                return Err(ToolError::InvalidInput(
                    "the session is not in plan mode: go ahead with the task".into(),
                ));
            }
            match human.approve_plan(&input.plan).await.map_err(ToolError::Failed)? {
                PlanVerdict::Approved { mode } => Ok(ToolOutput::text(format!(
                    "The user approved the plan. The session is now in {mode} mode: start implementing it."
                ))),
                PlanVerdict::Rejected { feedback } => Ok(ToolOutput::error(match feedback {
                    Some(f) => format!("The user rejected the plan and said: {f}\nRevise the plan and present it again."),
                    None => "The user rejected the plan. Ask what to change, or revise it and present it again.".into(),
                })),
            }
        }
        .boxed()
    }
}
