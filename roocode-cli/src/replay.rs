//! `roocode-cli replay SESSION [--into DIR] [--prepare] [--output text|stream-json]`:
//! runs a recorded session again against its recorded model answers — no network, no
//! API key — in a scratch copy of its project (the daemon's `session.replay`), and
//! follows the replay as `attach` follows a session: its transcript on stdout, each
//! divergence from the recording as it is found, then the replay's summary.
//!
//! On stderr first: the recorded session, the scratch directory (a new temporary one
//! unless `--into`), the replay's own session id (a normal session: attach to it,
//! rewind it, trace it) and what the copy could not hold. `--prepare` only makes the
//! copy and prints its directory on stdout, so a file can be changed there before
//! `replay --into DIR` shows what the change does. Exits 0 when the replay matched the
//! recording to its end, 1 when it diverged, failed or stopped short, 130 on Ctrl+C (the
//! replay goes on in the daemon).

use std::path::Path;

use clap::Args;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::event::EventPayload;
use roocode_protocol::replay::{ReplayParams, ReplayStarted};
use tokio::signal::unix::{SignalKind, signal};

use crate::attach::{AttachOutput, AttachPrinter};
use crate::connect;
use crate::failure::{Failure, UsageError};
use crate::output::{Sink, Stdio};
use crate::stream;

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recorded session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    pub id: String,
    /// The scratch directory: a new or empty one gets the project as the session
    /// started; one an earlier `--prepare` (or replay) of this session made is used as
    /// it is. Default: a new temporary directory.
    #[arg(long, value_name = "DIR")]
    pub into: Option<String>,
    /// Only make the scratch copy and print its directory; run nothing.
    #[arg(long)]
    pub prepare: bool,
    #[arg(long, value_enum, default_value_t = AttachOutput::Text)]
    pub output: AttachOutput,
}

/// Runs `replay`; returns the exit status.
pub async fn run(args: ReplayArgs) -> anyhow::Result<i32> {
    let cwd = std::env::current_dir()?;
    let into = match &args.into {
        Some(dir) if dir.trim().is_empty() => {
            return Err(UsageError("--into needs a directory".into()).into());
        }
        Some(dir) => Some(absolute(&cwd, dir)),
        None => None,
    };
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let recorded = SessionApiClient::get(&conn.rpc, args.id.clone())
        .await
        .map_err(Failure::from)?;
    let params = ReplayParams {
        session_id: recorded.id.clone(),
        into,
        prepare_only: args.prepare,
        env: roocode_client::client_env(&cwd),
    };
    let started = SessionApiClient::replay(&conn.rpc, params)
        .await
        .map_err(Failure::from)?;
    let mut sink = Stdio::new();
    for line in header(&started) {
        sink.err_line(&line);
    }
    let Some(session_id) = started.session_id.clone() else {
        sink.out(&format!("{}\n", started.dir));
        return Ok(0);
    };
    let mut events = stream::open(&conn.rpc, &session_id, 0).await?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut printer = AttachPrinter::new(args.output);
    loop {
        tokio::select! {
            ev = events.next() => match ev {
                Some(ev) => {
                    sink.out(&printer.render(&ev));
                    if let EventPayload::ReplayFinished { divergences, stopped, .. } = &ev.payload {
                        sink.out(printer.closing());
                        return Ok(if *divergences == 0 && stopped.is_none() { 0 } else { 1 });
                    }
                }
                None => {
                    sink.out(printer.closing());
                    sink.err_line(&format!(
                        "error: the daemon went away during the replay; its log is {}",
                        paths.log.display()
                    ));
                    return Ok(1);
                }
            },
            _ = sigint.recv() => {
                sink.out(printer.closing());
                sink.err_line(&format!(
                    "the replay goes on in the daemon: roocode-cli attach {session_id}"
                ));
                return Ok(130);
            }
        }
    }
}

/// `dir` as an absolute path (relative to `cwd`).
fn absolute(cwd: &Path, dir: &str) -> String {
    let path = Path::new(dir);
    if path.is_absolute() {
        dir.to_string()
    } else {
        cwd.join(path).display().to_string()
    }
}

/// The lines that open a replay, for stderr.
fn header(started: &ReplayStarted) -> Vec<String> {
    let source = match started.source.as_str() {
        "snapshot" => "the project as the session started (its first turn's snapshot)",
        "current" => "the project as it is now (no snapshot was taken)",
        "reused" => "the copy already there",
        other => other,
    };
    let mut lines = vec![format!(
        "replay of {} in {} — {source}",
        started.recorded_session_id, started.dir
    )];
    if let Some(id) = &started.session_id {
        lines.push(format!(
            "session: {id} ({} message(s), {} recorded model answer(s))",
            started.messages, started.model_calls
        ));
    }
    lines.extend(started.notes.iter().map(|n| format!("note: {n}")));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_says_where_and_from_what() {
        let started = ReplayStarted {
            session_id: Some("S2".into()),
            recorded_session_id: "S1".into(),
            dir: "/tmp/roocode-replay-x".into(),
            source: "snapshot".into(),
            messages: 2,
            model_calls: 5,
            notes: vec!["the copy has no .git".into()],
        };
        assert_eq!(
            header(&started),
            [
                "replay of S1 in /tmp/roocode-replay-x — the project as the session started (its first turn's snapshot)",
                "session: S2 (2 message(s), 5 recorded model answer(s))",
                "note: the copy has no .git",
            ]
        );
    }

    #[test]
    fn a_relative_directory_is_the_callers() {
        assert_eq!(absolute(Path::new("/home/u"), "r"), "/home/u/r");
        assert_eq!(absolute(Path::new("/home/u"), "/tmp/r"), "/tmp/r");
    }
}
