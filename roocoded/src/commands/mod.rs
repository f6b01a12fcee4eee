//! Slash commands handled by the daemon itself (`/help`, `/clear`, `/cost`, `/context`,
//! `/compact`, `/memory`, `/mode`, `/model`, `/coordinator`, `/mcp`): one table of handlers, run by the RPC
//! layer (`session.command`). They never reach the model, and the engine never calls
//! into them: a handler uses the engine's public methods only. Later features add
//! prompt commands and skills beside these. Reports that take more than a line are
//! built in their own files (`cost.rs` with `team_cost.rs`, `context.rs`, `memory.rs`,
//! `coordinator.rs`, `mcp.rs`).

mod catalog;
mod context;
mod coordinator;
mod cost;
mod invoke;
mod listings;
mod mcp;
mod memory;
pub mod prompt;
mod team_cost;

use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::Mode;
use roocode_protocol::command::{self, SlashCommand};
use roocode_protocol::session::{ClientEnv, CommandInfo, CommandOutput};

use catalog::Catalog;

use crate::agent::{AgentError, Engine};
use crate::store::SessionRow;

/// What a command prints, or why it failed.
type Reply<'a> = BoxFuture<'a, Result<String, AgentError>>;

/// Runs a command on a session with its arguments (trimmed; empty when none) and the
/// client's environment (its `HOME` finds the user's files).
type Handler = for<'a> fn(&'a Arc<Engine>, &'a SessionRow, &'a str, &'a ClientEnv) -> Reply<'a>;

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
        run: |engine, row, _, _| cost::report(engine, row).boxed(),
    },
    Command {
        name: "context",
        usage: "/context",
        description: "How the context window is used (system, tools, instructions, memory, messages)",
        run: |engine, row, _, _| context::report(engine, row).boxed(),
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
        run: |engine, row, _, _| std::future::ready(memory::report(engine, row)).boxed(),
    },
    Command {
        name: "mcp",
        usage: "/mcp",
        description: "The MCP servers of this project: state, tools, and what to do about those that do not run",
        run: |engine, row, _, _| mcp::report(engine, row).boxed(),
    },
    Command {
        name: "skills",
        usage: "/skills",
        description: "The skills of this session: where each is defined, which are shadowed or broken",
        run: |engine, row, _, env| listings::skills(engine, row, env).boxed(),
    },
    Command {
        name: "agents",
        usage: "/agents",
        description: "The sub-agent types this session can start, and their files",
        run: |engine, row, _, env| listings::agents(engine, row, env).boxed(),
    },
    Command {
        name: "permissions",
        usage: "/permissions",
        description: "The permission mode and the allow, ask and deny rules in effect",
        run: |engine, row, _, _| listings::permissions(engine, row).boxed(),
    },
    Command {
        name: "hooks",
        usage: "/hooks",
        description: "The configured hooks: event, what runs, from which file",
        run: |engine, row, _, env| listings::hooks(engine, row, env).boxed(),
    },
    Command {
        name: "workflow",
        usage: "/workflow",
        description: "The workflow functions of this agent: phase, what they wait for, evidence, artifacts",
        run: |engine, row, _, _| {
            async move { Ok(engine.workflow_info(&row.id).await?.report()) }.boxed()
        },
    },
    Command {
        name: "artifacts",
        usage: "/artifacts",
        description: "The artifacts workflow functions captured in this session, and their files",
        run: |engine, row, _, _| {
            async move { Ok(engine.workflow_info(&row.id).await?.artifacts_report()) }.boxed()
        },
    },
    Command {
        name: "stop-loop",
        usage: "/stop-loop",
        description: "Stop this session's running |loop| and its round's worker",
        run: |engine, row, _, _| async move { engine.stop_session_loop(&row.id).await }.boxed(),
    },
    Command {
        name: "resume",
        usage: "/resume",
        description: "How to resume another session (the TUI opens its picker)",
        run: |_, _, _, _| std::future::ready(Ok(listings::resume())).boxed(),
    },
    Command {
        name: "rewind",
        usage: "/rewind",
        description: "How to undo turns: files and conversation (the TUI opens its picker)",
        run: |_, row, _, _| {
            let text = format!(
                "To undo turns: roocode-cli rewind {} shows the diff of the last turn and asks; --to N undoes turn N and every later one, --files or --conversation only one side. In the TUI /rewind (or Esc Esc) opens the picker.",
                row.id
            );
            std::future::ready(Ok(text)).boxed()
        },
    },
    Command {
        name: "export",
        usage: "/export [FILE]",
        description: "Save the transcript as Markdown (the TUI writes FILE; the CLI says how)",
        run: |_, row, _, _| std::future::ready(Ok(export_hint(&row.id))).boxed(),
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
        run: |engine, row, args, _| coordinator::run(engine, row, args).boxed(),
    },
];

/// Where the user's own skills, commands and definitions are for a client: RooCode's
/// user directory, and the client's home for Claude Code's (a home that cannot exist
/// when the client sent none: then only RooCode's, the project's and the built-ins).
pub(crate) fn user_dirs(engine: &Engine, env: &ClientEnv) -> crate::project::UserDirs {
    let paths = engine.paths();
    crate::project::UserDirs {
        roocode: paths.user_dir.clone(),
        home: crate::project::client_home(&env.vars, &paths.data_dir),
    }
}

/// The daemon's own commands, for completion and `/help`.
pub fn local() -> Vec<CommandInfo> {
    COMMANDS
        .iter()
        .map(|c| CommandInfo {
            name: c.name.to_string(),
            description: c.description.to_string(),
            kind: "local".to_string(),
            usage: Some(c.usage.to_string()),
            source: Some("built-in".to_string()),
            shadowed_by: None,
        })
        .collect()
}

/// Every command of a session: the local ones, then its skills, prompt commands and
/// MCP prompts, each shadowed one listed after the one that wins.
pub async fn list(engine: &Arc<Engine>, row: &SessionRow, env: &ClientEnv) -> Vec<CommandInfo> {
    Catalog::load(engine, row, env).await.infos()
}

/// Runs `line` (`/name args`) on a session: a local command's text, or the turn a
/// skill, a prompt command or an MCP prompt started (`env`: the client's, for it).
pub async fn run(
    engine: &Arc<Engine>,
    row: &SessionRow,
    line: &str,
    env: ClientEnv,
) -> Result<CommandOutput, AgentError> {
    let Some(SlashCommand { name, args }) = command::parse(line) else {
        return Err(AgentError::Invalid(format!(
            "`{}` is not a slash command: a command is `/` and a lowercase name (`/cost`, `/mode plan`); anything else is a message for the model (try /help)",
            line.trim()
        )));
    };
    if let Some(command) = COMMANDS.iter().find(|c| c.name == name) {
        let output = (command.run)(engine, row, args, &env).await?;
        return Ok(CommandOutput { output, sent: None });
    }
    let catalog = Catalog::load(engine, row, &env).await;
    match catalog.find(name) {
        Some(entry) => invoke::run(engine, row, entry, args, env).await,
        None => Err(AgentError::Invalid(unknown(name, &catalog.names()))),
    }
}

/// The error for an unknown command `/name`, naming the closest of `names` (the
/// session's commands).
fn unknown(name: &str, names: &[&str]) -> String {
    let close: Vec<String> = command::closest(name, names)
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

fn help<'a>(
    engine: &'a Arc<Engine>,
    row: &'a SessionRow,
    _: &'a str,
    env: &'a ClientEnv,
) -> Reply<'a> {
    async move { Ok(help_text(&Catalog::load(engine, row, env).await.infos())) }.boxed()
}

/// The widest usage column of `/help`; longer usages push their own line only.
const HELP_USAGE_WIDTH: usize = 36;

/// Every usable command with its usage and description, by kind; shadowed ones last.
fn help_text(infos: &[CommandInfo]) -> String {
    let usage = |c: &CommandInfo| c.usage.clone().unwrap_or_else(|| format!("/{}", c.name));
    // Long argument hints do not push every description far to the right.
    let width = infos
        .iter()
        .map(|c| usage(c).len())
        .max()
        .unwrap_or(0)
        .min(HELP_USAGE_WIDTH);
    let mut lines = Vec::new();
    for (kind, title) in [
        ("local", ""),
        ("skill", "Skills:"),
        ("prompt", "Prompt commands:"),
        ("mcp", "MCP prompts:"),
    ] {
        let of_kind: Vec<&CommandInfo> = infos
            .iter()
            .filter(|c| c.kind == kind && c.shadowed_by.is_none())
            .collect();
        if of_kind.is_empty() {
            continue;
        }
        if !title.is_empty() {
            lines.push(String::new());
            lines.push(title.to_string());
        }
        for c in of_kind {
            lines.push(format!("{:width$}  {}", usage(c), c.description));
        }
    }
    let shadowed: Vec<String> = infos
        .iter()
        .filter_map(|c| {
            let by = c.shadowed_by.as_ref()?;
            let from = c.source.clone().unwrap_or_default();
            Some(format!("/{} ({from}) is shadowed by {by}", c.name))
        })
        .collect();
    if !shadowed.is_empty() {
        lines.push(String::new());
        lines.extend(shadowed);
    }
    lines.join("\n")
}

fn clear<'a>(
    engine: &'a Arc<Engine>,
    row: &'a SessionRow,
    _: &'a str,
    _: &'a ClientEnv,
) -> Reply<'a> {
    async move {
        engine.clear_context(&row.id).await?;
        Ok("Context cleared: the model starts afresh. The transcript stays in the session's history.".into())
    }
    .boxed()
}

fn compact<'a>(
    engine: &'a Arc<Engine>,
    row: &'a SessionRow,
    focus: &'a str,
    _: &'a ClientEnv,
) -> Reply<'a> {
    engine
        .compact_command(&row.id, Some(focus).filter(|f| !f.is_empty()))
        .boxed()
}

fn mode<'a>(
    engine: &'a Arc<Engine>,
    row: &'a SessionRow,
    mode: &'a str,
    _: &'a ClientEnv,
) -> Reply<'a> {
    async move {
        if mode.is_empty() {
            return Ok(format!("Mode: {}. Available: {}.", row.mode, Mode::names()));
        }
        let info = engine.set_mode(&row.id, mode).await?;
        Ok(format!("Mode set to {}.", info.mode))
    }
    .boxed()
}

fn model<'a>(
    engine: &'a Arc<Engine>,
    row: &'a SessionRow,
    model: &'a str,
    _: &'a ClientEnv,
) -> Reply<'a> {
    async move {
        if model.is_empty() {
            return Ok(format!("Model: {}.", row.model));
        }
        let info = engine.set_model(&row.id, model).await?;
        Ok(format!("Model set to {}.", info.model))
    }
    .boxed()
}

/// `/export`'s answer where the client does not write the file itself (the CLI).
fn export_hint(id: &str) -> String {
    format!(
        "To save the transcript as Markdown: roocode-cli show {id} --markdown > transcript.md (without --markdown: plain text). In the TUI /export [FILE] writes it to FILE, by default roocode-<id>-<date>-<time>.md in the session's directory."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_command_names_the_closest() {
        let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
        assert_eq!(
            unknown("cots", &names),
            "unknown command /cots: did you mean /cost? (/help lists the commands)"
        );
        assert!(
            unknown("mod", &names).contains("did you mean /mode, /model"),
            "{}",
            unknown("mod", &names)
        );
        assert_eq!(
            unknown("deploy", &names),
            "unknown command /deploy: /help lists the commands"
        );
        let with_skills = [names.as_slice(), &["review", "release"]].concat();
        assert!(unknown("reviw", &with_skills).contains("did you mean /review"));
    }

    #[test]
    fn help_lists_every_command() {
        let h = help_text(&local());
        for c in COMMANDS {
            assert!(h.contains(c.usage), "{h}");
        }
        assert_eq!(local().len(), COMMANDS.len());
    }

    #[test]
    fn export_says_how_to_save_the_transcript() {
        let text = export_hint("019a2b");
        assert!(
            text.contains("roocode-cli show 019a2b --markdown > "),
            "{text}"
        );
        assert!(text.contains("/export [FILE]"), "{text}");
        assert!(COMMANDS.iter().any(|c| c.name == "export"));
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
