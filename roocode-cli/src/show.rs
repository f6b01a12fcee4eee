//! `roocode-cli show SESSION [--markdown]`: a session's transcript, readable — what
//! you said, what the agent answered, each tool call with its result (long results
//! cut), compactions, rewinds and errors — from the event log. `--markdown` writes it
//! as Markdown for a file or a pull request; the default is plain text for a terminal.
//! The transcript itself is the shared client library's
//! ([`roocode_client::transcript`]), which the TUI's `/export` writes too.

use clap::Args;
use roocode_client::transcript::{self, Format};

use crate::failure::Failure;
use crate::output::out;
use crate::session_cmds;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    pub id: String,
    /// Print it as Markdown.
    #[arg(long)]
    pub markdown: bool,
}

pub async fn run(args: &ShowArgs) -> anyhow::Result<i32> {
    let (conn, info) = session_cmds::resolve(&args.id).await?;
    let events = transcript::load(&conn.rpc, &info.id)
        .await
        .map_err(Failure::from)?;
    let format = if args.markdown {
        Format::Markdown
    } else {
        Format::Plain
    };
    out(&transcript::render(&info.title, &info.id, &events, format));
    Ok(0)
}
