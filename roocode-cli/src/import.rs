//! `roocode-cli import [FILE|-] [--cwd DIR] [--title T]`: a session exported with
//! `roocode-cli export` (JSONL, one message per line) becomes a new session, sent in
//! pages so no JSON-RPC message is unbounded. Prints the new session's id on stdout.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::session::ImportParams;

use crate::connect;
use crate::failure::{Failure, UsageError};
use crate::output::{err_line, out};

/// Lines sent per `session.import` page.
const IMPORT_PAGE: usize = 500;

/// Arguments of `import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The JSONL file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// Working directory of the new session (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Title of the new session.
    #[arg(long)]
    pub title: Option<String>,
}

pub async fn run(args: ImportArgs) -> anyhow::Result<i32> {
    let text = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => std::fs::read_to_string(p)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", p.display())))?,
        _ => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s)?;
            s
        }
    };
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let cwd = match args.cwd {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    let cwd = cwd
        .canonicalize()
        .map_err(|e| UsageError(format!("--cwd {}: {e}", cwd.display())))?;
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let mut session_id: Option<String> = None;
    let mut shown = String::new();
    let mut pages = lines.chunks(IMPORT_PAGE).peekable();
    if pages.peek().is_none() {
        return Err(UsageError("nothing to import: the file has no messages".into()).into());
    }
    for page in pages {
        let info = conn
            .rpc
            .import(ImportParams {
                session_id: session_id.clone(),
                cwd: cwd.display().to_string(),
                title: args.title.clone(),
                lines: page.to_vec(),
                env: roocode_client::client_env(&cwd),
            })
            .await
            .map_err(Failure::from)?;
        shown = info.shown_id().to_owned();
        session_id = Some(info.id);
    }
    if let Some(id) = session_id {
        err_line(&format!(
            "imported {} messages into session {shown}",
            lines.len()
        ));
        out(&format!("{id}\n"));
    }
    Ok(0)
}
