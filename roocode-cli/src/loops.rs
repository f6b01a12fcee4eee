//! `roocode-cli loops [--session S] [--json]`: the `|loop|`s, newest first — id, phase,
//! rounds completed of how many, mode, task, why it ended, and each round's state and
//! gist; `roocode-cli loop stop ID` stops one (and its running round's worker).

use clap::{Args, Subcommand};
use roocode_protocol::api::WorkflowApiClient;
use roocode_protocol::workflow::LoopInfo;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};

/// Arguments of `loops`.
#[derive(Debug, Args)]
pub struct LoopsArgs {
    /// Only the loops of this session (its short id, the full id, or a unique prefix).
    #[arg(long, short = 's', value_name = "SESSION")]
    pub session: Option<String>,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `loop …`.
#[derive(Debug, Subcommand)]
pub enum LoopCmd {
    /// Stop a running loop and its round's worker; its session is told.
    Stop {
        /// The loop (its id, or a unique prefix of it).
        id: String,
        /// Print the loop as it ended as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `loops`; returns the exit status.
pub async fn list(args: LoopsArgs) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let loops = WorkflowApiClient::loops(&conn.rpc, args.session)
        .await
        .map_err(Failure::from)?;
    if args.json {
        out_line(&serde_json::to_string_pretty(&loops)?);
    } else if loops.is_empty() {
        err_line("no loops");
    } else {
        out(&text(&loops));
    }
    Ok(0)
}

/// Runs `loop stop`; returns the exit status.
pub async fn run(cmd: LoopCmd) -> anyhow::Result<i32> {
    let LoopCmd::Stop { id, json } = cmd;
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let info = WorkflowApiClient::stop_loop(&conn.rpc, id)
        .await
        .map_err(Failure::from)?;
    if json {
        out_line(&serde_json::to_string_pretty(&info)?);
    } else {
        out(&text(std::slice::from_ref(&info)));
    }
    Ok(0)
}

/// Each loop's line, then its rounds.
fn text(loops: &[LoopInfo]) -> String {
    let mut out = String::new();
    for l in loops {
        out.push_str(&l.line());
        out.push('\n');
        for r in &l.rounds_run {
            let gist = r
                .summary
                .as_deref()
                .and_then(|s| s.lines().find(|l| !l.trim().is_empty()))
                .map(|s| format!("  {}", s.trim().chars().take(80).collect::<String>()))
                .unwrap_or_default();
            out.push_str(&format!("  round {:>2} {:<11}{gist}\n", r.round, r.state));
        }
    }
    out
}
