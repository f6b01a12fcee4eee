//! Running a skill, a prompt command or an MCP prompt as a slash command: its text is
//! built now (arguments substituted, a prompt command's `@path` and `` !`cmd` ``
//! inlined through the permission gate, an MCP prompt fetched from its server) and
//! sent as the user's message, with what the command sets for its turn (tools,
//! pre-approved rules, model: [`TurnScope`]). The turn is the engine's; the client
//! follows it as after `session.send`.

use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::session::{ClientEnv, CommandOutput, SendParams};
use serde_json::json;

use super::catalog::{Entry, Target};
use super::prompt::{self as prompt_files, Inliner, PromptCommand};
use crate::agent::inline_call::InlineCalls;
use crate::agent::{AgentError, Engine};
use crate::mcp::McpPromptInfo;
use crate::skills::{Skill, SkillMode};
use crate::store::SessionRow;
use crate::tools::turn_scope::TurnScope;

/// Runs `entry` with `args` in `row`'s session.
pub(super) async fn run(
    engine: &Arc<Engine>,
    row: &SessionRow,
    entry: &Entry,
    args: &str,
    env: ClientEnv,
) -> Result<CommandOutput, AgentError> {
    // A workflow function (or the built-in loop) keeps state: `/name args` is its
    // activation, `|name| args`, through the engine's own send.
    if let Target::Skill(skill) = &entry.target
        && (skill.function.is_some()
            || (skill.name == crate::agent::workflow::LOOP_SKILL
                && skill.source == crate::skills::SkillSource::BuiltIn))
    {
        let params = SendParams {
            session_id: row.id.clone(),
            text: format!("|{}| {args}", skill.name),
            env,
            model: None,
            mode: None,
        };
        let sent = engine.send(params).await?;
        return Ok(CommandOutput {
            output: format!("/{}: activated (|{}|)", entry.name, skill.name),
            sent: Some(sent),
        });
    }
    let (text, scope, what) = match &entry.target {
        Target::Skill(skill) => {
            let (text, scope) = skill_message(skill, args)?;
            (text, scope, format!("skill {}", skill.name))
        }
        Target::Prompt(command) => {
            let (text, scope) = prompt_message(engine, row, &env, command, args).await?;
            (
                text,
                scope,
                format!("prompt command {}", command.path.display()),
            )
        }
        Target::Mcp(prompt) => {
            let text = mcp_message(engine, row, &env, prompt, args).await?;
            (text, None, format!("MCP prompt of {}", prompt.server))
        }
    };
    let params = SendParams {
        session_id: row.id.clone(),
        text,
        env,
        model: None,
        mode: None,
    };
    let sent = engine.send_scoped(params, scope).await?;
    let output = if sent.queued {
        format!("/{}: {what}, queued behind the running turn", entry.name)
    } else {
        format!("/{}: {what}", entry.name)
    };
    Ok(CommandOutput {
        output,
        sent: Some(sent),
    })
}

/// A skill the user invoked: an inline one's body as the message (its tools, rules and
/// model for the turn); a fork one asks the model to run it through the `Skill` tool,
/// which starts the isolated sub-agent. The message's scope then only says the user ran
/// it (its origin `/name`), so the fork gets the rules a user's invocation grants.
fn skill_message(skill: &Skill, args: &str) -> Result<(String, Option<TurnScope>), AgentError> {
    let origin = format!("/{}", skill.name);
    let header = format!("<command-name>{origin}</command-name>");
    if skill.mode == SkillMode::Fork {
        let text = format!(
            "{header}\nRun the `{}` skill: call the Skill tool with name \"{}\" and arguments {}, then report its result to me.",
            skill.name,
            skill.name,
            serde_json::Value::String(args.to_string())
        );
        let scope = TurnScope {
            origin,
            invoked_skill: Some(skill.name.clone()),
            ..TurnScope::default()
        };
        return Ok((text, Some(scope)));
    }
    let body = crate::tools::skill::render(skill, args).map_err(AgentError::Invalid)?;
    let scope = crate::tools::skill::scope_of(skill, &origin, true);
    Ok((format!("{header}\n{body}"), Some(scope)))
}

/// A prompt command's message: its body with the arguments, files and command outputs.
async fn prompt_message(
    engine: &Arc<Engine>,
    row: &SessionRow,
    env: &ClientEnv,
    command: &PromptCommand,
    args: &str,
) -> Result<(String, Option<TurnScope>), AgentError> {
    let scope = TurnScope {
        origin: format!("/{}", command.name),
        allowed_tools: command.allowed_tools.clone(),
        pre_approved: command.pre_approved.clone(),
        model: command.model.clone(),
        ..TurnScope::default()
    };
    let calls = InlineCalls::new(engine, row, env, &scope)?;
    let inliner = GateInliner {
        calls,
        cwd: row.cwd.clone(),
    };
    let text = prompt_files::expand(command, args, &inliner)
        .await
        .map_err(|e| AgentError::Invalid(e.to_string()))?;
    Ok((text, Some(scope)))
}

/// An MCP prompt's messages, its arguments mapped onto the ones it declares.
async fn mcp_message(
    engine: &Arc<Engine>,
    row: &SessionRow,
    env: &ClientEnv,
    prompt: &McpPromptInfo,
    args: &str,
) -> Result<String, AgentError> {
    let arguments =
        crate::mcp::map_arguments(&prompt.arguments, args).map_err(AgentError::Invalid)?;
    engine
        .mcp_prompt_text(row, env, &prompt.server, &prompt.name, arguments)
        .await
}

/// `@path` and `` !`cmd` `` of a prompt command, through `Read`'s and `Bash`'s gate.
struct GateInliner {
    calls: InlineCalls,
    cwd: String,
}

impl Inliner for GateInliner {
    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<String, String>> {
        async move {
            let path = std::path::Path::new(&self.cwd).join(path);
            let input = json!({"file_path": path.display().to_string()});
            self.calls.call("Read", input).await
        }
        .boxed()
    }

    fn run<'a>(&'a self, command: &'a str) -> BoxFuture<'a, Result<String, String>> {
        async move {
            let input = json!({"command": command, "description": "prompt command inline"});
            self.calls.call("Bash", input).await
        }
        .boxed()
    }
}
