//! `roocode-cli mailbox [AGENT]`: the messages of agent teams, oldest first — of every
//! team, of one (`--team`), or only those addressed to AGENT (a member's name, `lead`,
//! or an agent id) — each with its sender, recipient, kind, summary, whether it was
//! read, and its body; `--json` prints the `MailInfo` array. Exit status 1 when the
//! team or the agent does not exist.

use clap::Args;
use roocode_protocol::api::MailboxApiClient;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out, out_line};
use crate::team_view;

/// Arguments of `mailbox`.
#[derive(Debug, Args)]
pub struct MailboxArgs {
    /// Only the mail addressed to this agent: a member's name, `lead`, or an agent id.
    pub agent: Option<String>,
    /// Only this team's mail (its name, its id, or a session of it).
    #[arg(long, short = 't', value_name = "TEAM")]
    pub team: Option<String>,
    /// Only the messages their recipient has not read yet.
    #[arg(long)]
    pub unread: bool,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `mailbox`; returns the exit status.
pub async fn run(args: MailboxArgs) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let mut mail = MailboxApiClient::list(&conn.rpc, args.team, args.agent)
        .await
        .map_err(Failure::from)?;
    if args.unread {
        mail.retain(|m| !m.read);
    }
    if args.json {
        out_line(&serde_json::to_string_pretty(&mail)?);
    } else if mail.is_empty() {
        err_line("no messages");
    } else {
        out(&team_view::mail_text(&mail));
    }
    Ok(0)
}
