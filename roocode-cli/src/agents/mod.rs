//! `roocode-cli agents`: sub-agents. Bare `agents` lists every agent (of one session
//! tree with `--session`) as a table, `--json` as the `AgentInfo` array; `agents stop
//! ID` stops one, `agents show ID` prints one with its result, `--definitions` lists
//! the agent types ([`definitions`]). `roocode-cli background ID` (also here) moves a
//! running foreground agent to the background. Exit status 1 when the agent does not
//! exist or the action does not apply to it (it had ended, it was in the background).

mod definitions;
mod list;

use clap::{Args, Subcommand};
use roocode_protocol::agents::AgentInfo;
use roocode_protocol::api::{AgentApiClient, SessionApiClient};

use crate::connect;
use crate::failure::{Failure, UsageError};
use crate::output::{err_line, out, out_line};

/// Arguments of `agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    #[command(subcommand)]
    pub cmd: Option<AgentsCmd>,
    /// List the agent definitions (sub-agent types) of this project and user.
    #[arg(long)]
    pub definitions: bool,
    /// Only the agents of this session's tree (its short id, the full id, or a unique prefix).
    #[arg(long, short = 's', value_name = "ID")]
    pub session: Option<String>,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

/// What `agents` does besides listing.
#[derive(Debug, Subcommand)]
pub enum AgentsCmd {
    /// Stop a running, waiting or queued agent (it ends `cancelled`).
    Stop {
        /// The agent (its short id as `agents` shows it, the full id, or a unique prefix).
        id: String,
    },
    /// Print one agent with its result.
    #[command(alias = "get")]
    Show {
        /// The agent (its short id as `agents` shows it, the full id, or a unique prefix).
        id: String,
    },
}

/// Runs `agents`; returns the exit status.
pub async fn run(args: AgentsArgs) -> anyhow::Result<i32> {
    if args.definitions {
        if args.cmd.is_some() || args.session.is_some() {
            return Err(UsageError(
                "--definitions lists the agent types: it takes no agent or --session".into(),
            )
            .into());
        }
        return definitions::run(args.json).await;
    }
    match args.cmd {
        None => list(args.session, args.json).await,
        Some(AgentsCmd::Stop { id }) => stop(&id).await,
        Some(AgentsCmd::Show { id }) => show(&id, args.json).await,
    }
}

async fn list(session: Option<String>, json: bool) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let agents = AgentApiClient::list(&conn.rpc, session)
        .await
        .map_err(Failure::from)?;
    if json {
        out_line(&serde_json::to_string_pretty(&agents)?);
        return Ok(0);
    }
    if agents.is_empty() {
        err_line(
            "no sub-agents (agents start them with the `Agent` tool; `roocode-cli agents --definitions` lists the types)",
        );
        return Ok(0);
    }
    // The parents' short ids, as `sessions` shows them (a best effort: the full id
    // shortened otherwise).
    let sessions = SessionApiClient::list(&conn.rpc, None, None, Some(true))
        .await
        .unwrap_or_default();
    out(&list::table(&agents, &sessions));
    Ok(0)
}

async fn stop(id: &str) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let agent = find(&conn.rpc, id).await?;
    if agent.state.is_final() {
        err_line(&ended(&agent, "stop"));
        return Ok(1);
    }
    let stopped = AgentApiClient::stop(&conn.rpc, agent.id.clone())
        .await
        .map_err(Failure::from)?;
    if stopped {
        err_line(&format!("stopped agent {}", who(&agent)));
        Ok(0)
    } else {
        err_line(&ended(&agent, "stop"));
        Ok(1)
    }
}

async fn show(id: &str, json: bool) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let agent = find(&conn.rpc, id).await?;
    if json {
        out_line(&serde_json::to_string_pretty(&agent)?);
    } else {
        out(&list::details(&agent));
    }
    Ok(0)
}

/// `roocode-cli background ID`: moves a running foreground agent to the background.
pub async fn background(id: &str) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let agent = find(&conn.rpc, id).await?;
    if agent.state.is_final() {
        err_line(&ended(&agent, "move"));
        return Ok(1);
    }
    if agent.background {
        err_line(&format!(
            "agent {} is already in the background",
            who(&agent)
        ));
        return Ok(1);
    }
    let moved = AgentApiClient::background(&conn.rpc, agent.id.clone())
        .await
        .map_err(Failure::from)?;
    if moved {
        err_line(&format!(
            "agent {} moved to the background: its parent goes on and is notified when it ends",
            who(&agent)
        ));
        return Ok(0);
    }
    // It ended, or moved, meanwhile: say which.
    let now = AgentApiClient::get(&conn.rpc, agent.id.clone())
        .await
        .map_err(Failure::from)?;
    if now.state.is_final() {
        err_line(&ended(&now, "move"));
    } else {
        err_line(&format!(
            "agent {} is not running in the foreground (it is {}{})",
            who(&now),
            now.state,
            if now.background {
                ", in the background"
            } else {
                ""
            }
        ));
    }
    Ok(1)
}

/// The agent `id` names (a full id, its short id or a unique prefix).
async fn find(rpc: &roocode_client::RpcClient, id: &str) -> Result<AgentInfo, Failure> {
    AgentApiClient::get(rpc, id.to_owned())
        .await
        .map_err(|e| match Failure::from(e) {
            f if f.kind == "session_not_found" => Failure::new(
                "agent_not_found",
                format!("no agent has the id `{id}`: `roocode-cli agents` lists them"),
            ),
            f => f,
        })
}

/// `Explore (a1b2c3d4)`.
fn who(agent: &AgentInfo) -> String {
    let id = if agent.short_id.is_empty() {
        &agent.id
    } else {
        &agent.short_id
    };
    format!("{} ({id})", agent.name)
}

/// Why an action does not apply to an agent that has ended.
fn ended(agent: &AgentInfo, action: &str) -> String {
    format!(
        "cannot {action} agent {}: it had already ended ({}); `roocode-cli agents show {}` prints its result",
        who(agent),
        agent.state,
        if agent.short_id.is_empty() {
            &agent.id
        } else {
            &agent.short_id
        }
    )
}
