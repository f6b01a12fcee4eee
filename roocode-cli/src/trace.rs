//! `roocode-cli trace SESSION [--turn N] [--agent ID] [--json] [--why CALL_ID]
//! [--otlp FILE] [--body MODEL_CALL_ID]`: the flight recorder's timeline of a session (`session.trace`).
//!
//! The default is text for a person: per turn its model calls with tokens, cache hits
//! and latencies, each tool call with its duration, decision and the layer that gave
//! it (and its call id, for `--why`), the compactions, recoveries, injections and
//! rewinds between them, sub-agents indented under the turn that started them, and a
//! totals line (the lines are `roocode_client::trace::timeline`'s, shared with the
//! TUI). `--json` prints the [`SessionTrace`] itself, a stable format (version 1,
//! additions only; README "Trace"). `--why CALL_ID` prints one paragraph on why that
//! call was allowed, denied or asked (exit 1 for an id no call has). `--otlp FILE`
//! writes the trace as an OTLP/JSON `ExportTraceServiceRequest` (see `otlp`), replacing
//! FILE atomically. `--turn` and `--agent` narrow all of these. `--body MODEL_CALL_ID`
//! prints the request and response bodies the recorder kept of one model call.

use std::path::{Path, PathBuf};

use clap::Args;
use roocode_client::trace::{self as traced, Filter, LineKind, TraceLine};
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::trace::SessionTrace;

use crate::failure::Failure;
use crate::output::{out, out_line};
use crate::{otlp, session_cmds};

/// Arguments of `trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    pub id: String,
    /// Only turn N of the main agent (numbered from 1, as `rewind --to`), with the
    /// sub-agents it started.
    #[arg(long, value_name = "N")]
    pub turn: Option<u32>,
    /// Only this agent and the agents it started: an agent id, a unique prefix of it
    /// or of its short id, or a sub-agent's name.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// Print the trace as JSON (a stable format: see the README's "Trace").
    #[arg(long, conflicts_with_all = ["why", "otlp"])]
    pub json: bool,
    /// Say why one tool call was allowed, denied or asked (its id or a unique prefix).
    #[arg(long, value_name = "CALL_ID", conflicts_with = "otlp")]
    pub why: Option<String>,
    /// Write the trace to FILE as OTLP/JSON (an ExportTraceServiceRequest, for Jaeger,
    /// Tempo and other trace viewers).
    #[arg(long, value_name = "FILE")]
    pub otlp: Option<PathBuf>,
    /// Print what one model call sent and got back, as kept (its model_call_id from
    /// `--json`, or a unique prefix), as JSON.
    #[arg(long, value_name = "MODEL_CALL_ID", conflicts_with_all = ["json", "why", "otlp", "turn", "agent"])]
    pub body: Option<String>,
}

/// Runs `trace`; returns the exit status.
pub async fn run(args: TraceArgs) -> anyhow::Result<i32> {
    let (conn, session) = session_cmds::resolve(&args.id).await?;
    if let Some(call) = &args.body {
        let body = conn
            .rpc
            .trace_body(session.id.clone(), call.clone())
            .await
            .map_err(Failure::from)?;
        out_line(&serde_json::to_string_pretty(&body)?);
        return Ok(0);
    }
    let whole = conn
        .rpc
        .trace(session.id.clone())
        .await
        .map_err(Failure::from)?;
    let filter = Filter {
        turn: args.turn,
        agent: args.agent.as_deref(),
    };
    let trace = traced::filter(&whole, &filter)?;
    if let Some(call) = &args.why {
        return match traced::find_call(&trace, call) {
            Ok(_) => {
                out_line(&traced::why(&trace, call).unwrap_or_default());
                Ok(0)
            }
            Err(e) => Err(Failure::new(
                "not_found",
                format!(
                    "{e} of session {}: `roocode-cli trace {}` lists each call with its id",
                    session.shown_id(),
                    session.shown_id()
                ),
            )
            .into()),
        };
    }
    if let Some(file) = &args.otlp {
        let request = otlp::export(&trace);
        let spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .map_or(0, Vec::len);
        write_atomically(file, &serde_json::to_string_pretty(&request)?)?;
        out_line(&format!(
            "wrote {spans} spans of session {} to {} (OTLP/JSON)",
            session.shown_id(),
            file.display()
        ));
        return Ok(0);
    }
    if args.json {
        out_line(&serde_json::to_string_pretty(&trace)?);
        return Ok(0);
    }
    let cwd = Path::new(&session.cwd);
    out(&text(&trace, session.shown_id(), &filter, Some(cwd)));
    Ok(0)
}

/// The timeline as the user reads it: a heading, then one line per
/// [`TraceLine`], indented by its depth; tool lines end with their call id.
fn text(trace: &SessionTrace, shown_id: &str, filter: &Filter<'_>, cwd: Option<&Path>) -> String {
    let mut heading = format!("Trace of session {shown_id}");
    if let Some(n) = filter.turn {
        heading.push_str(&format!(", turn {n}"));
    }
    if filter.agent.is_some() {
        heading.push_str(&format!(", {}", traced::agent_label(&trace.agent)));
    }
    let mut out = format!("{heading}\n\n");
    for line in traced::timeline(trace, cwd) {
        out.push_str(&line_text(&line));
        out.push('\n');
    }
    out
}

fn line_text(line: &TraceLine) -> String {
    let indent = "  ".repeat(line.depth);
    match (line.kind, &line.call_id) {
        (LineKind::Totals, _) => format!("\n{}", line.text),
        (LineKind::Tool, Some(id)) => format!("{indent}{}  [{id}]", line.text),
        _ => format!("{indent}{}", line.text),
    }
}

/// Replaces `path` with `text` and a newline (see `atomic`).
fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    crate::atomic::replace(path, format!("{text}\n").as_bytes()).map_err(|e| {
        anyhow::anyhow!(
            "cannot write {}: {e} (check that its directory exists and is writable)",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_client::trace::example;

    #[test]
    fn the_timeline_of_a_session() {
        let t = example::session();
        let text = text(
            &t,
            "7c5e01b2",
            &Filter::default(),
            Some(Path::new(example::CWD)),
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn one_turn_of_one_agent() {
        let t = example::session();
        let filter = Filter {
            turn: Some(1),
            agent: Some("scout"),
        };
        let kept = traced::filter(&t, &filter).unwrap();
        insta::assert_snapshot!(text(&kept, "7c5e01b2", &filter, None));
    }

    #[test]
    fn the_json_is_the_session_trace() {
        let t = example::session();
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["version"], 1);
        let denied = &json["agent"]["turns"][0]["iterations"][0]["tools"][1];
        assert_eq!(denied["decision"], "deny");
        assert_eq!(denied["layer"], "rule");
        assert_eq!(denied["decided_by"]["origin"]["line"], 2);
        let back: SessionTrace = serde_json::from_value(json).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn the_export_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trace.json");
        std::fs::write(&file, "old").unwrap();
        write_atomically(&file, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        let err = write_atomically(&dir.path().join("no/such/dir/t.json"), "{}").unwrap_err();
        assert!(
            err.to_string().contains("check that its directory exists"),
            "{err}"
        );
    }
}
