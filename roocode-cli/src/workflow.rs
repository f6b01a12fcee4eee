//! `roocode-cli workflow SESSION`: one agent's workflow functions — phase, what a gated
//! one waits for, evidence, key-value state, continuations — and its session's
//! artifacts with their files; `--json` prints the `WorkflowInfo`. Exit status 1 when
//! the session does not exist.

use clap::Args;
use roocode_protocol::api::WorkflowApiClient;

use crate::connect;
use crate::failure::Failure;
use crate::output::{out, out_line};

/// Arguments of `workflow`.
#[derive(Debug, Args)]
pub struct WorkflowArgs {
    /// The session or agent (its short id, the full id, or a unique prefix of it).
    pub session: String,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `workflow`; returns the exit status.
pub async fn run(args: WorkflowArgs) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let info = WorkflowApiClient::get(&conn.rpc, args.session)
        .await
        .map_err(Failure::from)?;
    if args.json {
        out_line(&serde_json::to_string_pretty(&info)?);
    } else {
        out(&info.report());
    }
    Ok(0)
}
