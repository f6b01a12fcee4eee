//! `TeamDelete(team_name?)`: the lead ends its team once no member is working — every
//! member stopped, each teammate's worktree removed (a branch with commits the lead's
//! branch lacks is kept, and said so; nothing is merged or forced), and the team's
//! members, tasks and mail deleted. Claude Code's tool of the same name, which takes no
//! argument: a lead has one team, so `team_name` is optional and, when given, must be
//! that team's name (a guard against deleting the wrong one).

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Default)]
pub struct TeamDeleteTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamDeleteArgs {
    /// The name of the team you lead (optional: you lead one team; if given, it must match)
    #[schemars(length(min = 1))]
    pub team_name: Option<String>,
}

impl TeamDeleteArgs {
    /// The name given, if any (blank counts as not given).
    fn team_name(&self) -> Option<&str> {
        self.team_name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
    }
}

const DESCRIPTION: &str = "\
Delete the agent team you lead, when its work is done. It is refused while any teammate is \
still working (active): ask them to shut down (SendMessage kind shutdown_request) or wait \
until they are idle. Otherwise every teammate is stopped, the team's task list and mail are \
deleted, and in a team created with isolation \"worktree\" each teammate's worktree is \
removed: a branch whose commits your branch already has is deleted, a branch with commits \
not merged yet is kept and named in the answer — RooCode never merges or force-deletes one. \
Merge what you want first (or have a teammate do it); the teammates' sessions stay readable.";

impl TypedTool for TeamDeleteTool {
    type Args = TeamDeleteArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "TeamDelete",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        args: TeamDeleteArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(host) = &ctx.team else {
                return Err(ToolError::Failed("this agent leads no team".into()));
            };
            let reply = host
                .delete_team(args.team_name())
                .await
                .map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(reply))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_team_name_is_optional_and_passed_on_when_given() {
        let registry = crate::tools::Registry::with_builtins();
        assert!(
            registry
                .validate("TeamDelete", &serde_json::json!({}))
                .is_ok()
        );
        let parse = |v| serde_json::from_value::<TeamDeleteArgs>(v).unwrap();
        assert_eq!(parse(serde_json::json!({})).team_name(), None);
        assert_eq!(
            parse(serde_json::json!({"team_name": "  "})).team_name(),
            None
        );
        assert_eq!(
            parse(serde_json::json!({"team_name": " alpha "})).team_name(),
            Some("alpha")
        );
    }
}
