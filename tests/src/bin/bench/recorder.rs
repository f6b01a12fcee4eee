//! `roocode-bench recorder`: what the flight recorder costs (issue 16). Three
//! configurations through the real binaries — recording off (`trace.record: false`),
//! on without bodies (`trace.bodies: false`), on with bodies (the default) — each
//! timed on a warm `send` and on a tool task of `iterations` model calls (one cheap
//! `Glob` each), with the database's growth per 100 iterations. Reports medians and
//! the ratios to "off" (target: under 5% wall time, under 1 MB per 100 iterations
//! without bodies). The mock answers at once unless `--pace-ms` spaces its chunks: the
//! recorder's cost per call is fixed, so its share shrinks as the model gets as slow as
//! real ones are.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use roocode_tests::mock_llm::{MockLlm, Reply, Script, ScriptedReply};
use serde_json::json;

use crate::harness::{Bench, median};

const CONFIGS: [(&str, &str); 3] = [
    ("recording off", "trace: {record: false}\n"),
    ("on, no bodies", "trace: {bodies: false}\n"),
    ("on, with bodies", ""),
];

/// Bytes of the database with its write-ahead log.
fn db_bytes(b: &Bench) -> u64 {
    let data = b.home.path().join("data");
    ["roocode.db", "roocode.db-wal"]
        .iter()
        .map(|f| std::fs::metadata(data.join(f)).map_or(0, |m| m.len()))
        .sum()
}

/// One tool task of `iterations` model calls (one `Glob` each, then the answer), each
/// answer streamed with `pace_ms` between its chunks; its wall time in ms.
async fn task(b: &mut Bench, iterations: usize, pace_ms: u64) -> anyhow::Result<f64> {
    let mut script = Script::new();
    for _ in 1..iterations {
        let call = Reply::tool_call("Glob", json!({"pattern": "*.md"}));
        script = script.reply(ScriptedReply::new(call).with_delay_ms(pace_ms));
    }
    let done = ScriptedReply::new(Reply::text("done")).with_delay_ms(pace_ms);
    let mock = MockLlm::start(script.reply(done)).await?;
    b.base_url = mock.base_url();
    let mut cmd = Command::new(b.bin("roocode-cli"));
    b.env(&mut cmd);
    let started = Instant::now();
    let out = cmd
        .args(["send", "--new", "--mode", "bypassPermissions", "go"])
        .output()?;
    let wall = started.elapsed().as_secs_f64() * 1000.0;
    if !out.status.success() {
        bail!("send failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(wall)
}

pub async fn run(mut b: Bench, iterations: usize, runs: usize, pace_ms: u64) -> anyhow::Result<()> {
    std::fs::write(b.project.path().join("README.md"), "# bench\n")?;
    for i in 0..20 {
        std::fs::write(b.project.path().join(format!("f{i}.md")), "text\n")?;
    }
    let always = MockLlm::start(Script::always(Reply::text("ok"))).await?;
    b.cli(&["daemon", "start"]).context("starting the daemon")?;
    // Timing: the configurations take turns, round after round (the config is read at
    // each turn), so a slower stretch of the machine falls on all of them alike.
    let mut warm: Vec<Vec<f64>> = vec![Vec::new(); CONFIGS.len()];
    let mut tasks: Vec<Vec<f64>> = vec![Vec::new(); CONFIGS.len()];
    for round in 0..=runs {
        for (i, (_, config)) in CONFIGS.iter().enumerate() {
            std::fs::write(b.home.path().join("config.yaml"), config)?;
            b.base_url = always.base_url();
            let sent = b.send()?.wall * 1000.0;
            let task = task(&mut b, iterations, pace_ms).await?;
            // Round 0 warms up.
            if round > 0 {
                warm[i].push(sent);
                tasks[i].push(task);
            }
        }
    }
    // Size: what each configuration adds to the database, measured across a restart
    // (the write-ahead log folded in).
    let size_runs = runs.clamp(1, 3);
    let mut per100 = Vec::new();
    for (_, config) in CONFIGS {
        std::fs::write(b.home.path().join("config.yaml"), config)?;
        b.cli(&["daemon", "stop"])?;
        let before = db_bytes(&b);
        b.cli(&["daemon", "start"])?;
        for _ in 0..size_runs {
            task(&mut b, iterations, pace_ms).await?;
        }
        b.cli(&["daemon", "stop"])?;
        let grown = db_bytes(&b).saturating_sub(before);
        b.cli(&["daemon", "start"])?;
        per100.push(grown as f64 / (size_runs * iterations) as f64 * 100.0);
    }
    b.cli(&["daemon", "stop"])?;
    let warm: Vec<f64> = warm.into_iter().map(median).collect();
    let tasks: Vec<f64> = tasks.into_iter().map(median).collect();
    println!(
        "flight recorder: {runs} interleaved rounds, {iterations}-iteration tool task ({:.1} ms a model call with recording off, {pace_ms} ms between streamed chunks), size over {size_runs} tasks",
        tasks[0] / iterations as f64
    );
    for (i, (label, _)) in CONFIGS.iter().enumerate() {
        // The session's own rows (messages, events) grow with recording off too: the
        // recorder's share is the difference.
        println!(
            "  {label:<16} warm send p50 {:>7.1} ms ({:>5.3}x)   task p50 {:>8.1} ms ({:>5.3}x)   db {:>7.1} KB / 100 iterations ({:+.1} KB the recorder's)",
            warm[i],
            warm[i] / warm[0],
            tasks[i],
            tasks[i] / tasks[0],
            per100[i] / 1024.0,
            (per100[i] - per100[0]) / 1024.0
        );
    }
    Ok(())
}
