//! A session's MCP prompts: those of its connected servers, under the names its
//! configuration gives them ([`listed`]), and one of them filled in as text ([`text`]),
//! or why it cannot be: the server does not run (and its state), it has no such prompt
//! (and the ones it has), or it refused.

use std::collections::BTreeMap;

use super::client::McpError;
use super::prompt_text::to_text;
use super::prompts::McpPromptInfo;
use super::server::State;
use super::session::{Configured, Status};
use super::status::approve_command;

/// Why a prompt could not be had.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("the MCP server `{server}` is not running: {state}")]
    NotRunning { server: String, state: String },
    #[error("the MCP server `{server}` has no prompt `{prompt}`; {known}")]
    UnknownPrompt {
        server: String,
        prompt: String,
        /// What it has: its prompts' names, or that it has none.
        known: String,
    },
    #[error("the MCP server `{server}` could not give the prompt `{prompt}`: {error}")]
    Server {
        server: String,
        prompt: String,
        error: McpError,
    },
}

/// The prompts of the connected servers among `servers`, in their order.
pub fn listed(servers: &[Configured]) -> Vec<McpPromptInfo> {
    servers
        .iter()
        .filter_map(|c| match &c.status {
            Status::Active { server, .. } => match server.snapshot().state {
                State::Connected { prompts, .. } => Some(
                    prompts
                        .iter()
                        .map(|p| McpPromptInfo::new(&c.config.name, p))
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            },
            _ => None,
        })
        .flatten()
        .collect()
}

/// Prompt `prompt` of the server `c`, filled in with `arguments`, as one text (see
/// [`super::prompt_text`]); the server gets the server's tool timeout to answer.
pub async fn text(
    c: &Configured,
    prompt: &str,
    arguments: &BTreeMap<String, String>,
) -> Result<String, PromptError> {
    let server = &c.config.name;
    let not_running = |state: String| PromptError::NotRunning {
        server: server.clone(),
        state,
    };
    let (live, timeout) = match &c.status {
        Status::Disabled => {
            return Err(not_running(format!(
                "it is disabled (`enabled: false` in {})",
                c.config.source.display()
            )));
        }
        Status::NeedsApproval => {
            return Err(not_running(format!(
                "it needs the user's approval (`{}`)",
                approve_command(server)
            )));
        }
        Status::Unusable(reason) => {
            return Err(not_running(format!("it cannot be used: {reason}")));
        }
        Status::Active {
            server,
            tool_timeout,
        } => (server, *tool_timeout),
    };
    let (client, prompts) = match live.snapshot().state {
        State::Connected {
            client, prompts, ..
        } => (client, prompts),
        State::Starting => return Err(not_running("it is still starting".into())),
        State::Failed { reason, retrying } => {
            let again = if retrying {
                " (it is being started again)"
            } else {
                ""
            };
            return Err(not_running(format!("it failed: {reason}{again}")));
        }
    };
    if !prompts.iter().any(|p| p.name == prompt) {
        let known = if prompts.is_empty() {
            "it has none".to_string()
        } else {
            let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
            format!("its prompts: {}", names.join(", "))
        };
        return Err(PromptError::UnknownPrompt {
            server: server.clone(),
            prompt: prompt.to_string(),
            known,
        });
    }
    let messages = client
        .prompt(prompt, arguments, timeout)
        .await
        .map_err(|error| PromptError::Server {
            server: server.clone(),
            prompt: prompt.to_string(),
            error,
        })?;
    Ok(to_text(&messages))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use crate::config::McpServerEntry;
    use crate::mcp::config::{Launch, Scope, ServerConfig};
    use crate::mcp::server::Server;

    fn configured(status: Status) -> Configured {
        Configured {
            config: ServerConfig {
                name: "gh".into(),
                scope: Scope::Project,
                source: PathBuf::from("/p/.mcp.json"),
                entry: McpServerEntry::default(),
            },
            status,
        }
    }

    async fn error(status: Status) -> String {
        let c = configured(status);
        let err = text(&c, "p", &BTreeMap::new()).await.unwrap_err();
        assert!(listed(std::slice::from_ref(&c)).is_empty());
        err.to_string()
    }

    #[tokio::test]
    async fn a_server_that_does_not_run_says_why() {
        assert_eq!(
            error(Status::Disabled).await,
            "the MCP server `gh` is not running: it is disabled (`enabled: false` in /p/.mcp.json)"
        );
        assert_eq!(
            error(Status::NeedsApproval).await,
            "the MCP server `gh` is not running: it needs the user's approval (`roocode-cli mcp approve gh`)"
        );
        assert_eq!(
            error(Status::Unusable("no SSE".into())).await,
            "the MCP server `gh` is not running: it cannot be used: no SSE"
        );
        let launch = Launch::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Default::default(),
        };
        // Never spawned: it stays starting.
        let server = Server::new(
            "gh",
            launch,
            Duration::from_secs(1),
            Duration::from_secs(1),
            tokio_util::sync::CancellationToken::new(),
        );
        let status = Status::Active {
            server,
            tool_timeout: Duration::from_secs(1),
        };
        assert_eq!(
            error(status).await,
            "the MCP server `gh` is not running: it is still starting"
        );
    }
}
