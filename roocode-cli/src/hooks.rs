//! `roocode-cli hooks list|approve`: the hooks a session started here would run. `list`
//! shows each hook's event, what it runs, its file and line, whether it runs and what
//! it did last; `approve [ID…]` approves the project's hooks as they are written now
//! (all of those waiting when no id is given). A project's hooks, shared or local, come
//! with a cloned repository or an agent's write, so they run only once approved; the
//! user's own need no approval. Refused to the model's commands (the daemon checks the caller).

use clap::{Args, Subcommand};
use roocode_protocol::api::HooksApiClient;

use crate::connect;
use crate::failure::Failure;
use crate::output::out;

/// Arguments of `hooks`.
#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub cmd: HooksCommand,
}

/// What `hooks` does.
#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// List this project's and your hooks: event, action, file:line, approved, last result.
    List {
        /// Print the answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Approve the project's hooks as they are written now (every one waiting, or the
    /// ids `list` shows); an edit to one asks again.
    Approve {
        /// Hook ids (default: all that wait for approval).
        ids: Vec<String>,
    },
}

/// Runs `hooks …`; returns the exit status.
pub async fn run(args: HooksArgs) -> anyhow::Result<i32> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::new("config", format!("cannot read the current directory: {e}")))?;
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let env = roocode_client::client_env(&cwd);
    let dir = cwd.display().to_string();
    match args.cmd {
        HooksCommand::List { json } => {
            let list = HooksApiClient::list(&conn.rpc, dir, env)
                .await
                .map_err(|e| failed("cannot list the hooks", e))?;
            if json {
                out(&format!("{}\n", serde_json::to_string_pretty(&list)?));
            } else {
                out(&format!("{}\n", list.table()));
            }
        }
        HooksCommand::Approve { ids } => {
            let approved = HooksApiClient::approve(&conn.rpc, dir, env, ids)
                .await
                .map_err(|e| failed("cannot approve the hooks", e))?;
            if approved.is_empty() {
                out("No project hook waits for approval.\n");
            }
            for h in &approved {
                out(&format!(
                    "Approved {} {}: {} — {}:{}\n",
                    h.id, h.event, h.action, h.file, h.line
                ));
            }
        }
    }
    Ok(0)
}

/// A daemon's error, saying what could not be done.
fn failed(what: &str, e: jsonrpsee::core::client::Error) -> Failure {
    let f = Failure::from(e);
    Failure::new(f.kind, format!("{what}: {}", f.message))
}
