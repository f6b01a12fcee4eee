//! `roocode-cli attach`: replay a whole session (`since_seq = 0`), then follow it live.
//! Text output is the [`Transcript`]; `stream-json` prints each event as one line.
//! Exits 130 on Ctrl+C, 1 when the daemon goes away, and with `--until-idle` 0 once
//! caught up with no turn running and none of its sub-agents running.

use clap::{Args, ValueEnum};
use roocode_protocol::api::{AgentApiClient, SessionApiClient};
use roocode_protocol::event::{Event, EventPayload};
use tokio::signal::unix::{SignalKind, signal};

use crate::connect;
use crate::failure::Failure;
use crate::idle::IdleTracker;
use crate::output::{Sink, Stdio};
use crate::render::Transcript;
use crate::stream;

/// What `attach` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AttachOutput {
    Text,
    StreamJson,
}

/// Arguments of `attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    pub id: String,
    #[arg(long, value_enum, default_value_t = AttachOutput::Text)]
    pub output: AttachOutput,
    /// Exit once caught up, no turn is running and no sub-agent of the session is.
    #[arg(long)]
    pub until_idle: bool,
}

/// Turns events into output for one attach.
#[derive(Debug)]
pub struct AttachPrinter {
    output: AttachOutput,
    transcript: Transcript,
}

impl AttachPrinter {
    pub fn new(output: AttachOutput) -> Self {
        AttachPrinter {
            output,
            transcript: Transcript::default(),
        }
    }

    /// The text to print for `ev`.
    pub fn render(&mut self, ev: &Event) -> String {
        match self.output {
            AttachOutput::Text => self.transcript.render(ev),
            // An event this build cannot read would print without its fields.
            AttachOutput::StreamJson
                if ev.payload.is_per_subscription()
                    || matches!(ev.payload, EventPayload::Unknown) =>
            {
                String::new()
            }
            AttachOutput::StreamJson => match serde_json::to_string(ev) {
                Ok(line) => format!("{line}\n"),
                Err(_) => String::new(),
            },
        }
    }

    /// What ends the output when the client leaves (a newline if a line is open).
    pub fn closing(&self) -> &'static str {
        if self.output == AttachOutput::Text && self.transcript.mid_line() {
            "\n"
        } else {
            ""
        }
    }
}

/// Runs `attach`; returns the exit status.
pub async fn run(args: AttachArgs) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let session = SessionApiClient::get(&conn.rpc, args.id.clone())
        .await
        .map_err(Failure::from)?;
    let mut stream = stream::open(&conn.rpc, &session.id, 0).await?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut printer = AttachPrinter::new(args.output);
    let mut idle = IdleTracker::default();
    if args.until_idle {
        // Taken after subscribing, so an agent ending meanwhile shows on the stream.
        // An older daemon has no `agent.list`: then there are none.
        let agents = AgentApiClient::list(&conn.rpc, Some(session.id.clone()))
            .await
            .unwrap_or_default();
        idle.seed(&session.id, &agents);
    }
    let mut sink = Stdio::new();
    loop {
        tokio::select! {
            ev = stream.next() => match ev {
                Some(ev) => {
                    sink.out(&printer.render(&ev));
                    idle.observe(&ev);
                    if args.until_idle && idle.is_idle() {
                        sink.out(printer.closing());
                        return Ok(0);
                    }
                }
                None => {
                    sink.out(printer.closing());
                    sink.err_line(&format!(
                        "error: the daemon went away; its log is {}",
                        paths.log.display()
                    ));
                    return Ok(1);
                }
            },
            _ = sigint.recv() => {
                sink.out(printer.closing());
                return Ok(130);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use roocode_protocol::event::{EventPayload, StopReason};
    use roocode_protocol::session::SessionStatus;

    #[test]
    fn stream_json_prints_stored_events_only() {
        let events = [
            snapshot(0, "/w", SessionStatus::Idle, 2),
            ev(1, user("T", "I", "hi")),
            ev(2, completed("T", StopReason::EndTurn)),
            ev(3, EventPayload::Resync { last_seq: 2 }),
        ];
        let mut p = AttachPrinter::new(AttachOutput::StreamJson);
        let out: String = events.iter().map(|e| p.render(e)).collect();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], serde_json::to_string(&events[1]).unwrap());
        assert_eq!(p.closing(), "");
    }

    #[test]
    fn text_closes_an_open_line() {
        let mut p = AttachPrinter::new(AttachOutput::Text);
        assert_eq!(p.render(&ev(1, delta("M", "partial"))), "partial");
        assert_eq!(p.closing(), "\n");
    }
}
