//! Slash commands handled by the daemon itself (`/help`, `/clear`, `/cost`, `/mode`,
//! `/model`). They never reach the model. Later features add prompt commands and
//! skills beside these. The `/cost` report is built in `cost.rs`.

mod cost;

use roocode_protocol::session::CommandInfo;

use roocode_protocol::Mode;

use crate::agent::{AgentError, Agents};
use crate::store::SessionRow;

struct Local {
    name: &'static str,
    usage: &'static str,
    description: &'static str,
}

const LOCAL: &[Local] = &[
    Local {
        name: "help",
        usage: "/help",
        description: "List the slash commands",
    },
    Local {
        name: "clear",
        usage: "/clear",
        description: "Start the conversation afresh (the transcript is kept)",
    },
    Local {
        name: "cost",
        usage: "/cost",
        description: "Tokens, cost and model time of the session and of each agent",
    },
    Local {
        name: "context",
        usage: "/context",
        description: "How the context window is used (system, tools, instructions, memory, messages)",
    },
    Local {
        name: "compact",
        usage: "/compact [focus]",
        description: "Replace older history with a summary (optionally focused on something)",
    },
    Local {
        name: "memory",
        usage: "/memory",
        description: "List the saved memories",
    },
    Local {
        name: "mode",
        usage: "/mode [default|acceptEdits|plan|bypassPermissions|dontAsk]",
        description: "Show or change the permission mode",
    },
    Local {
        name: "model",
        usage: "/model [provider/model]",
        description: "Show or change the model",
    },
];

/// Every command, for completion and `/help`.
pub fn list() -> Vec<CommandInfo> {
    LOCAL
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
pub async fn run(agents: &Agents, row: &SessionRow, line: &str) -> Result<String, AgentError> {
    let line = line.trim();
    let Some(rest) = line.strip_prefix('/') else {
        return Err(AgentError::Invalid(format!(
            "`{line}` is not a slash command: commands start with `/` (try /help)"
        )));
    };
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let args = args.trim();
    match name {
        "help" => Ok(help()),
        "clear" => {
            agents.clear_context(&row.id).await?;
            Ok("Context cleared: the model starts afresh. The transcript stays in the session's history.".into())
        }
        "cost" => cost::report(agents, row).await,
        "context" => agents.context_report(row).await,
        "compact" => {
            agents
                .compact_command(&row.id, Some(args).filter(|a| !a.is_empty()))
                .await
        }
        "memory" => agents.memory_report(row),
        "mode" if args.is_empty() => {
            Ok(format!("Mode: {}. Available: {}.", row.mode, Mode::names()))
        }
        "mode" => {
            let info = agents.set_mode(&row.id, args).await?;
            Ok(format!("Mode set to {}.", info.mode))
        }
        "model" if args.is_empty() => Ok(format!("Model: {}.", row.model)),
        "model" => {
            let info = agents.set_model(&row.id, args).await?;
            Ok(format!("Model set to {}.", info.model))
        }
        other => Err(AgentError::Invalid(format!(
            "unknown command /{other}: /help lists the commands"
        ))),
    }
}

fn help() -> String {
    let width = LOCAL.iter().map(|c| c.usage.len()).max().unwrap_or(0);
    LOCAL
        .iter()
        .map(|c| format!("{:width$}  {}", c.usage, c.description))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_command() {
        let h = help();
        for c in LOCAL {
            assert!(h.contains(c.usage), "{h}");
        }
        assert_eq!(list().len(), LOCAL.len());
    }
}
