//! `roocode-bench mcp [--calls 200] [--tools 100]`: the MCP host's figures (issue 13).
//!
//! - Per-call overhead: one turn of `calls` model responses, each one call of the
//!   fixture server's `echo` (stdio; allowed by a rule, so nobody is asked), through
//!   the real binaries. A call's time runs from its `tool_call` event to its
//!   `tool_result` event as `roocode-cli send --output stream-json` prints them (so it
//!   holds the gate, the MCP round trip, the event log's writes and the delivery to the
//!   client); against it, the same server called `calls` times directly with an rmcp
//!   client. Medians, p90 and the difference are reported.
//! - Request size: the first request of a session whose server has `tools` tools, with
//!   their schemas sent (`mcp.defer_threshold: 1`) and deferred (`0`).

use std::process::Stdio;
use std::time::Instant;

use anyhow::{Context, bail};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use roocode_tests::mock_llm::{MockLlm, Reply, Script, ToolCall};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::harness::{Bench, median, percentile};

pub async fn run(mut b: Bench, calls: usize, tools: usize) -> anyhow::Result<()> {
    println!(
        "roocode-bench mcp: {calls} calls, {tools} tools, release binaries in {}",
        b.dir.display()
    );
    let fixture = b.bin("mcp-fixture");
    if !fixture.exists() {
        bail!(
            "{} is missing: run `cargo build --release --workspace --bins`",
            fixture.display()
        );
    }
    let daemon = through_daemon(&mut b, calls).await?;
    let direct = direct(&b, calls).await?;
    let (d50, d90) = (median(daemon.clone()), percentile(daemon, 0.9));
    let (r50, r90) = (median(direct.clone()), percentile(direct, 0.9));
    println!(
        "MCP call through the daemon (tool_call → tool_result)  p50 {d50:>7.3} ms   p90 {d90:>7.3} ms"
    );
    println!(
        "MCP call, direct rmcp client                           p50 {r50:>7.3} ms   p90 {r90:>7.3} ms"
    );
    println!(
        "overhead of the daemon                                 p50 {:>7.3} ms   (ratio {:.1}x)",
        d50 - r50,
        d50 / r50
    );
    b.cli(&["daemon", "stop"])?;
    for (label, threshold) in [("schemas sent", "1"), ("deferred", "0")] {
        let (bytes, names) = first_request(&mut b, tools, threshold).await?;
        println!(
            "first request with {tools} MCP tools, {label:<13} {bytes:>9} bytes   {names} tools in its array"
        );
        b.cli(&["daemon", "stop"])?;
    }
    Ok(())
}

/// Each call's time from its `tool_call` to its `tool_result` event, in ms.
async fn through_daemon(b: &mut Bench, calls: usize) -> anyhow::Result<Vec<f64>> {
    std::fs::write(
        b.home.path().join("config.yaml"),
        format!(
            "max_turns: {}\nmcp_servers:\n  fixture:\n    command: {:?}\npermissions:\n  allow: [\"mcp__fixture__echo\"]\n",
            calls + 10,
            b.bin("mcp-fixture").display().to_string()
        ),
    )?;
    let mut script = Script::new();
    for i in 0..calls {
        script = script.reply(Reply::tool_calls(vec![ToolCall::new(
            "mcp__fixture__echo",
            json!({"text": format!("call {i}")}),
        )]));
    }
    let mock = MockLlm::start(script.reply(Reply::text("done"))).await?;
    b.base_url = mock.base_url();
    let mut std_cmd = std::process::Command::new(b.bin("roocode-cli"));
    b.env(&mut std_cmd);
    let mut cmd = tokio::process::Command::from(std_cmd);
    cmd.current_dir(b.project.path())
        .args(["send", "--new", "--output", "stream-json", "go"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().context("roocode-cli starts")?;
    let stdout = child.stdout.take().context("piped stdout")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let mut started = std::collections::HashMap::new();
    let mut times = Vec::new();
    while let Some(line) = lines.next_line().await? {
        let at = Instant::now();
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = event["tool_use_id"]
            .as_str()
            .or_else(|| event["id"].as_str())
            .unwrap_or_default()
            .to_string();
        match event["type"].as_str() {
            Some("tool_call") => {
                started.insert(id, at);
            }
            Some("tool_result") => {
                if event["is_error"] == true {
                    bail!("a call failed: {line}");
                }
                if let Some(from) = started.remove(&id) {
                    times.push(at.duration_since(from).as_secs_f64() * 1000.0);
                }
            }
            _ => {}
        }
    }
    let status = child.wait().await?;
    if !status.success() || times.len() != calls {
        bail!(
            "send ended with {status} after {} of {calls} calls",
            times.len()
        );
    }
    Ok(times)
}

/// Each of `calls` calls of the same server with an rmcp client, in ms.
async fn direct(b: &Bench, calls: usize) -> anyhow::Result<Vec<f64>> {
    let cmd = tokio::process::Command::new(b.bin("mcp-fixture"));
    let client = ().serve(TokioChildProcess::new(cmd)?).await?;
    let mut times = Vec::with_capacity(calls);
    for i in 0..calls {
        let args = json!({"text": format!("call {i}")});
        let params = CallToolRequestParams::new("echo")
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        let at = Instant::now();
        client.call_tool(params).await?;
        times.push(at.elapsed().as_secs_f64() * 1000.0);
    }
    client.cancel().await?;
    Ok(times)
}

/// The size of a session's first request and the number of tools in it, with a
/// server of `tools` tools and `defer_threshold`.
async fn first_request(
    b: &mut Bench,
    tools: usize,
    threshold: &str,
) -> anyhow::Result<(usize, usize)> {
    std::fs::write(
        b.home.path().join("config.yaml"),
        format!(
            "mcp_servers:\n  many:\n    command: {:?}\n    args: [\"--tools\", \"{tools}\"]\nmcp:\n  defer_threshold: {threshold}\n",
            b.bin("mcp-fixture").display().to_string()
        ),
    )?;
    let mock = MockLlm::start(Script::new().reply(Reply::text("ok"))).await?;
    b.base_url = mock.base_url();
    b.cli(&["send", "--new", "hello"])?;
    let requests = mock.requests();
    let first = requests.first().context("no request reached the mock")?;
    let names = first.body["tools"].as_array().map_or(0, Vec::len);
    Ok((first.raw.len(), names))
}
