//! `roocode-bench sandbox`: what the OS sandbox adds to a Bash call. One turn of
//! `runs` Bash calls of `true` (bypassPermissions, so nobody is asked), once with
//! `sandbox.mode: off` and once with `auto` (bubblewrap here), through the real
//! binaries. Reports the median of the calls' own `duration_ms` and the turn's wall time
//! per call, for both, and the difference (issue 9's target: under 5 ms).

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use roocode_tests::mock_llm::{MockLlm, Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Bench, median};

/// (median duration_ms of the calls, wall ms per call) for one configuration.
async fn one(b: &mut Bench, mode: &str, runs: usize) -> anyhow::Result<(f64, f64)> {
    std::fs::write(
        b.home.path().join("config.yaml"),
        format!("sandbox: {{mode: {mode}}}\n"),
    )?;
    let calls = (0..runs)
        .map(|_| ToolCall::new("Bash", json!({"command": "true"})))
        .collect();
    let mock = MockLlm::start(
        Script::new()
            .reply(Reply::tool_calls(calls))
            .reply(Reply::text("done")),
    )
    .await?;
    b.base_url = mock.base_url();
    let mut cmd = Command::new(b.bin("roocode-cli"));
    b.env(&mut cmd);
    let started = Instant::now();
    let out = cmd
        .args([
            "send",
            "--new",
            "--mode",
            "bypassPermissions",
            "--output",
            "stream-json",
            "go",
        ])
        .output()?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !out.status.success() {
        bail!("send failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let durations: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_result")
        .filter_map(|e| e["duration_ms"].as_f64())
        .collect();
    if durations.len() != runs {
        bail!("expected {runs} tool results, got {}", durations.len());
    }
    Ok((median(durations), wall_ms / runs as f64))
}

pub async fn run(mut b: Bench, runs: usize) -> anyhow::Result<()> {
    b.cli(&["daemon", "start"]).context("starting the daemon")?;
    // One warm-up turn each, so neither side pays for first use (probe, page cache).
    one(&mut b, "off", 5).await?;
    one(&mut b, "auto", 5).await?;
    let (off_median, off_wall) = one(&mut b, "off", runs).await?;
    let (on_median, on_wall) = one(&mut b, "auto", runs).await?;
    println!("Bash `true`, {runs} calls in one turn");
    println!("  sandbox off   call p50 {off_median:>6.1} ms   wall per call {off_wall:>6.2} ms");
    println!("  sandbox on    call p50 {on_median:>6.1} ms   wall per call {on_wall:>6.2} ms");
    println!(
        "  added by the sandbox: p50 {:+.1} ms, wall per call {:+.2} ms (target < 5 ms)",
        on_median - off_median,
        on_wall - off_wall
    );
    b.cli(&["daemon", "stop"])?;
    Ok(())
}
