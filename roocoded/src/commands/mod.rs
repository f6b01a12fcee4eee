//! Slash commands handled by the daemon itself (`/help`, `/clear`, `/cost`, `/context`,
//! `/compact`, `/memory`, `/mode`, `/model`, `/coordinator`, `/mcp`): one table of handlers, run by the RPC
//! layer (`session.command`). They never reach the model, and the engine never calls
//! into them: a handler uses the engine's public methods only. Later features add
//! prompt commands and skills beside these. Reports that take more than a line are
//! built in their own files (`cost.rs` with `team_cost.rs`, `context.rs`, `memory.rs`,
//! `coordinator.rs`, `mcp.rs`).

mod context;
mod coordinator;
mod cost;
mod mcp;
mod memory;
mod team_cost;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::Mode;
use roocode_protocol::command::{self, SlashCommand};
use roocode_protocol::session::CommandInfo;

use crate::agent::{AgentError, Engine};
use crate::store::SessionRow;

/// What a command prints, or why it failed.
type Reply<'a> = BoxFuture<'a, Result<String, AgentError>>;

/// Runs a command on a session with its arguments (trimmed; empty when none).
type Handler = for<'a> fn(&'a Engine, &'a SessionRow, &'a str) -> Reply<'a>;

/// One slash command.
struct Command {
    name: &'static str,
    usage: &'static str,
    description: &'static str,
    run: Handler,
}

/// Every command, in the order `/help` lists them.
const COMMANDS: &[Command] = &[
    Command {
        name: "help",
        usage: "/help",
        description: "List the slash commands",
        run: help,
    },
    Command {
        name: "clear",
        usage: "/clear",
        description: "Start the conversation afresh (the transcript is kept)",
        run: clear,
    },
    Command {
        name: "cost",
        usage: "/cost",
        description: "Tokens, cost and model time of the session and of each agent",
        run: |engine, row, _| cost::report(engine, row).boxed(),
    },
    Command {
        name: "context",
        usage: "/context",
        description: "How the context window is used (system, tools, instructions, memory, messages)",
        run: |engine, row, _| context::report(engine, row).boxed(),
    },
    Command {
        name: "compact",
        usage: "/compact [focus]",
        description: "Replace older history with a summary (optionally focused on something)",
        run: compact,
    },
    Command {
        name: "memory",
        usage: "/memory",
        description: "List the saved memories",
        run: |engine, row, _| std::future::ready(memory::report(engine, row)).boxed(),
    },
    Command {
        name: "mcp",
        usage: "/mcp",
        description: "The MCP servers of this project: state, tools, and what to do about those that do not run",
        run: |engine, row, _| mcp::report(engine, row).boxed(),
    },
    Command {
        name: "mode",
        usage: "/mode [default|acceptEdits|plan|bypassPermissions|dontAsk]",
        description: "Show or change the permission mode",
        run: mode,
    },
    Command {
        name: "model",
        usage: "/model [provider/model]",
        description: "Show or change the model",
        run: model,
    },
    Command {
        name: "coordinator",
        usage: "/coordinator [on|off]",
        description: "Show or change coordinator mode (the lead keeps no code tool; teammates do the work)",
        run: |engine, row, args| coordinator::run(engine, row, args).boxed(),
    },
];

/// Every command, for completion and `/help`.
pub fn list() -> Vec<CommandInfo> {
    COMMANDS
        .iter()
        .map(|c| CommandInfo {
            name: c.name.to_string(),
            description: c.description.to_string(),
            kind: "local".to_string(),
            usage: Some(c.usage.to_string()),
        })
        .collect()
}

/// Runs `line` (`/name args`) on a session and returns the text to show.
pub async fn run(engine: &Engine, row: &SessionRow, line: &str) -> Result<String, AgentError> {
    let Some(SlashCommand { name, args }) = command::parse(line) else {
        return Err(AgentError::Invalid(format!(
            "`{}` is not a slash command: a command is `/` and a lowercase name (`/cost`, `/mode plan`); anything else is a message for the model (try /help)",
            line.trim()
        )));
    };
    match COMMANDS.iter().find(|c| c.name == name) {
        Some(command) => (command.run)(engine, row, args).await,
        None => Err(AgentError::Invalid(unknown(name))),
    }
}

/// The error for an unknown command `/name`, naming the closest ones.
fn unknown(name: &str) -> String {
    let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
    let close: Vec<String> = command::closest(name, &names)
        .into_iter()
        .take(3)
        .map(|n| format!("/{n}"))
        .collect();
    if close.is_empty() {
        format!("unknown command /{name}: /help lists the commands")
    } else {
        format!(
            "unknown command /{name}: did you mean {}? (/help lists the commands)",
            close.join(", ")
        )
    }
}

fn help<'a>(_: &'a Engine, _: &'a SessionRow, _: &'a str) -> Reply<'a> {
    std::future::ready(Ok(help_text())).boxed()
}

fn help_text() -> String {
    let width = COMMANDS.iter().map(|c| c.usage.len()).max().unwrap_or(0);
    COMMANDS
        .iter()
        .map(|c| format!("{:width$}  {}", c.usage, c.description))
        .collect::<Vec<_>>()
        .join("\n")
}

fn clear<'a>(engine: &'a Engine, row: &'a SessionRow, _: &'a str) -> Reply<'a> {
    async move {
        engine.clear_context(&row.id).await?;
        Ok("Context cleared: the model starts afresh. The transcript stays in the session's history.".into())
    }
    .boxed()
}

fn compact<'a>(engine: &'a Engine, row: &'a SessionRow, focus: &'a str) -> Reply<'a> {
    engine
        .compact_command(&row.id, Some(focus).filter(|f| !f.is_empty()))
        .boxed()
}

fn mode<'a>(engine: &'a Engine, row: &'a SessionRow, mode: &'a str) -> Reply<'a> {
    async move {
        if mode.is_empty() {
            return Ok(format!("Mode: {}. Available: {}.", row.mode, Mode::names()));
        }
        let info = engine.set_mode(&row.id, mode).await?;
        Ok(format!("Mode set to {}.", info.mode))
    }
    .boxed()
}

fn model<'a>(engine: &'a Engine, row: &'a SessionRow, model: &'a str) -> Reply<'a> {
    async move {
        if model.is_empty() {
            return Ok(format!("Model: {}.", row.model));
        }
        let info = engine.set_model(&row.id, model).await?;
        Ok(format!("Model set to {}.", info.model))
    }
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_command_names_the_closest() {
        assert_eq!(
            unknown("cots"),
            "unknown command /cots: did you mean /cost? (/help lists the commands)"
        );
        assert!(
            unknown("mod").contains("did you mean /mode, /model"),
            "{}",
            unknown("mod")
        );
        assert_eq!(
            unknown("deploy"),
            "unknown command /deploy: /help lists the commands"
        );
    }

    #[test]
    fn help_lists_every_command() {
        let h = help_text();
        for c in COMMANDS {
            assert!(h.contains(c.usage), "{h}");
        }
        assert_eq!(list().len(), COMMANDS.len());
    }

    #[test]
    fn names_are_unique_and_usages_start_with_them() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(
                COMMANDS[..i].iter().all(|o| o.name != c.name),
                "/{} twice",
                c.name
            );
            assert!(c.usage.starts_with(&format!("/{}", c.name)), "{}", c.usage);
        }
    }
}
