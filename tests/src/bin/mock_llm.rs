//! `mock-llm`: runs the scripted mock LLM server (see `roocode_tests::mock_llm`) on
//! 127.0.0.1 until killed, for trying RooCode without a real model.
//!
//! ```text
//! mock-llm [--port N] [--script FILE.json] [--text "reply"]
//! ```
//!
//! Prints `listening http://127.0.0.1:PORT` on stdout once ready. Point the client at it
//! with `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` or
//! `OPENAI_BASE_URL=http://127.0.0.1:PORT/v1` (any API key).
//!
//! Without `--script`, every request is answered with the text of `--text` (default
//! "Hello from mock-llm."). With `--script`, the replies of the file are used in order;
//! once they run out, the script's `fallback`, else `--text` if given, else HTTP 500
//! "mock-llm: script exhausted".
//!
//! The script file is a JSON array of replies, or `{"replies": [...], "fallback": {...},
//! "rules": [{"system_contains": "...", "reply": {...}}], "max_input_tokens": N}`: a rule
//! answers every request whose system prompt contains its text without taking from the
//! queue (e.g. `"context compactor"` for the summary calls of compaction), and
//! `max_input_tokens` refuses larger requests as a provider refuses a prompt over its
//! window.
//! A reply has a `type` (`text`, `tool_calls`, `error`, `disconnect`,
//! `mid_stream_error`, `max_tokens`), its fields, and optional options (`thinking`,
//! `signature`, `delay_ms_per_chunk`, `gate`, `usage`, `repeat_ids`, `interleave`,
//! `chunk_chars`); see `roocode_tests::mock_llm::script` for the full table. Example:
//!
//! ```json
//! [
//!   {"type": "tool_calls", "text": "Let me look.",
//!    "calls": [{"name": "Read", "input": {"file_path": "README.md"}}]},
//!   {"type": "error", "status": 429, "retry_after": "0"},
//!   {"type": "text", "text": "The README says hello.", "delay_ms_per_chunk": 30}
//! ]
//! ```

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use roocode_tests::mock_llm::{MockLlm, Reply, Script, ScriptedReply};

const DEFAULT_TEXT: &str = "Hello from mock-llm.";

#[derive(Debug, Parser)]
#[command(
    name = "mock-llm",
    about = "Scripted mock LLM server (Anthropic + OpenAI SSE)"
)]
struct Args {
    /// Port on 127.0.0.1 (0 = pick a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// JSON script file (array of replies, or {"replies": [...], "fallback": {...}}).
    #[arg(long)]
    script: Option<PathBuf>,
    /// Text answered to every request (after the script, if one is given).
    #[arg(long)]
    text: Option<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Args::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("mock-llm: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let text_reply = |text: &str| ScriptedReply::new(Reply::text(text));
    let script = match &args.script {
        Some(path) => {
            let mut script = Script::load(path)?;
            if script.fallback.is_none() {
                script.fallback = args.text.as_deref().map(text_reply);
            }
            script
        }
        None => Script::always(text_reply(args.text.as_deref().unwrap_or(DEFAULT_TEXT))),
    };
    let mock = MockLlm::start_on_port(args.port, script).await?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {}", mock.base_url()).context("cannot write to stdout")?;
    stdout.flush().context("cannot flush stdout")?;
    drop(stdout);
    tokio::signal::ctrl_c()
        .await
        .context("cannot wait for Ctrl-C")?;
    mock.shutdown().await;
    Ok(())
}
