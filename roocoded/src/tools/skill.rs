//! `Skill`: loads a skill's body on demand — the second stage of skill loading
//! (DESIGN.md §7). The model knows only the skills' names and descriptions (a system
//! reminder lists them); calling `Skill` with a name reads the skill's files again
//! (so an edit made mid-session counts) and returns its instructions, the arguments
//! substituted. An `inline` skill's instructions come back as the result and its
//! `allowed_tools` narrow the agent's tools for the rest of the turn; a `fork` skill
//! runs in an isolated sub-agent (it sees none of this conversation) and only its
//! result comes back.
//!
//! Claude Code's `allowed-tools` pre-approve permission rules while the skill runs —
//! but not when the model loads a skill of the project on its own: a cloned
//! repository's skill must not grant itself commands. Those apply when the user runs
//! it (`/name`, `|name|`).

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::turn_scope::{ScopedSkillTool, TurnScope};
use super::{
    AgentRequest, Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool,
};
use crate::skills::{self, Arguments, Skill, SkillMode, SkillSource};

#[derive(Debug, Clone, Copy, Default)]
pub struct SkillToolImpl;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillArgs {
    /// The skill's name, as the list of available skills gives it
    #[schemars(length(min = 1))]
    pub name: String,
    /// What the skill should work on (its arguments, e.g. "src/lib.rs" or "target=main")
    pub arguments: Option<String>,
}

const DESCRIPTION: &str = "\
Load a skill: a written procedure for a particular kind of task. The skills available \
are listed in a system reminder with their descriptions and when to use them; when a \
request matches one, call this tool with its name before doing the task yourself, then \
follow the instructions it returns exactly.

- arguments: what the skill should work on, as one string (positional values separated \
by spaces, or key=value).
- Some skills run on their own in an isolated agent and return only their result.
- While a skill runs, it may limit which tools you have until the end of the turn.
- Only the listed names exist; never guess one.";

impl TypedTool for SkillToolImpl {
    type Args = SkillArgs;

    fn spec(&self) -> Spec {
        Spec::new("Skill", DESCRIPTION, Effect::Nothing, ToolCategory::Agent)
    }

    fn run<'a>(
        &'a self,
        args: SkillArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let skill = find(ctx, args.name.trim()).await?;
            let arguments = args.arguments.unwrap_or_default();
            let body = render(&skill, &arguments).map_err(ToolError::Failed)?;
            match (skill.mode, &ctx.agents) {
                (SkillMode::Fork, Some(host)) => {
                    let request = AgentRequest {
                        prompt: body,
                        description: format!("skill {}", skill.name),
                        subagent_type: Some("general-purpose".into()),
                        model: skill.model.clone(),
                        name: Some(format!("skill-{}", skill.name)),
                        tools: skill.allowed_tools.as_ref().map(|t| tool_names(t)),
                        scope: Some(scope_of(
                            &skill,
                            &format!("skill {}", skill.name),
                            ctx.scopes.as_ref().is_some_and(|s| {
                                TurnScope::invoked(&s.current(), &skill.name)
                            }),
                        )),
                        ..AgentRequest::default()
                    };
                    let result = host.run_agent(request).await.map_err(ToolError::Failed)?;
                    Ok(ToolOutput::text(result))
                }
                (mode, _) => {
                    let origin = format!("skill {}", skill.name);
                    if let Some(scopes) = &ctx.scopes {
                        scopes.push(scope_of(&skill, &origin, false));
                    }
                    let mut text = format!("Skill `{}` loaded ({}).", skill.name, skill.origin());
                    if mode == SkillMode::Fork {
                        text.push_str(
                            " It is meant to run in an isolated agent, which this agent cannot start: follow it here.",
                        );
                    }
                    text.push_str(" Follow these instructions:\n\n");
                    text.push_str(&body);
                    Ok(ToolOutput::text(text))
                }
            }
        }
        .boxed()
    }
}

/// The skill `name` of the calling agent's project and user, read now.
async fn find(ctx: &ToolContext, name: &str) -> Result<Skill, ToolError> {
    let user = crate::project::UserDirs {
        roocode: ctx.user_dir.clone(),
        home: crate::project::client_home(&ctx.env, &ctx.data_dir),
    };
    let root = ctx.scope.root.clone();
    let set = tokio::task::spawn_blocking(move || skills::load(&user, &root))
        .await
        .map_err(|e| ToolError::Failed(format!("the skills could not be read: {e}")))?;
    let Some(skill) = set.get(name).filter(|s| s.model_invocable()) else {
        let names: Vec<&str> = set.model_invocable().map(|s| s.name.as_str()).collect();
        let close = roocode_protocol::command::closest(name, &names);
        let hint = match close.first() {
            Some(c) => format!(" Did you mean `{c}`?"),
            None => String::new(),
        };
        return Err(ToolError::Failed(if set.get(name).is_some() {
            format!("the skill `{name}` can only be run by the user (/{name}).")
        } else {
            format!(
                "there is no skill `{name}`.{hint} The skills are: {}.",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        }));
    };
    Ok(skill.clone())
}

/// A skill's instructions for `arguments`: its body with them substituted, then where
/// its files are (so the model can read its references).
pub fn render(skill: &Skill, arguments: &str) -> Result<String, String> {
    let args = Arguments::parse(arguments);
    let unknown = args.unknown_keys(&skill.params);
    if !unknown.is_empty() {
        let known: Vec<&str> = skill.params.iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "the skill `{}` has no parameter {}; its parameters are: {}",
            skill.name,
            unknown.join(", "),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    }
    let mut body = skills::substitute(&skill.body, &skill.params, &args);
    if let Some(dir) = &skill.dir {
        body.push_str(&format!(
            "\n\nBase directory of this skill: {}",
            dir.display()
        ));
        if let Some(references) = &skill.references {
            body.push_str(&format!(
                "\nIts reference files (read them with Read when the instructions point to them): {}",
                references.display()
            ));
        }
        if !skill.tools.is_empty() {
            let names: Vec<String> = skill
                .tools
                .iter()
                .map(|t| {
                    format!(
                        "`{}{}__{}`",
                        super::skill_command::PREFIX,
                        skill.name,
                        t.name
                    )
                })
                .collect();
            body.push_str(&format!(
                "\nIts own tools, yours until the end of this turn: {}",
                names.join(", ")
            ));
        }
    }
    Ok(body)
}

/// What `skill` sets for the rest of the turn: its `allowed_tools`, its model and —
/// when the user ran it, or it is the user's own or built in — its pre-approved rules,
/// with reading its own folder.
pub fn scope_of(skill: &Skill, origin: &str, by_user: bool) -> TurnScope {
    let trusted = by_user || !matches!(skill.source, SkillSource::Project { .. });
    let mut pre_approved = if trusted {
        skill.pre_approved.clone()
    } else {
        Vec::new()
    };
    if let Some(dir) = &skill.dir {
        // `//` anchors a rule at an absolute path.
        pre_approved.push(format!("Read(/{}/**)", dir.display()));
    }
    let skill_tools = match &skill.dir {
        Some(dir) => skill
            .tools
            .iter()
            .map(|tool| ScopedSkillTool {
                skill: skill.name.clone(),
                dir: dir.clone(),
                tool: tool.clone(),
            })
            .collect(),
        None => Vec::new(),
    };
    TurnScope {
        origin: origin.to_string(),
        allowed_tools: skill.allowed_tools.as_ref().map(|t| tool_names(t)),
        pre_approved,
        model: skill.model.clone(),
        skill_tools,
        invoked_skill: None,
    }
}

/// Tool names of a list that may spell them as Claude Code's rules (`Bash(git:*)`).
fn tool_names(list: &[String]) -> Vec<String> {
    list.iter()
        .map(|t| t.split('(').next().unwrap_or(t).trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}
