//! `roocode-bench recorder`: what the flight recorder costs (issue 16). Three
//! configurations through the real binaries — recording off (`trace.record: false`),
//! on without bodies (`trace.bodies: false`), on with bodies (the default) — each
//! timed on a warm `send` and on a tool task of `iterations` model calls (one cheap
//! `Glob` each), with the database's growth per 100 iterations. Reports medians and
//! the ratios to "off" (target: under 5% wall time, under 1 MB per 100 iterations
//! without bodies).

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use roocode_tests::mock_llm::{MockLlm, Reply, Script};
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

/// One tool task of `iterations` calls; its wall time in ms.
async fn task(b: &mut Bench, iterations: usize) -> anyhow::Result<f64> {
    let mut script = Script::new();
    for _ in 0..iterations {
        script = script.reply(Reply::tool_call("Glob", json!({"pattern": "*.md"})));
    }
    let mock = MockLlm::start(script.reply(Reply::text("done"))).await?;
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

pub async fn run(mut b: Bench, iterations: usize, runs: usize) -> anyhow::Result<()> {
    std::fs::write(b.project.path().join("README.md"), "# bench\n")?;
    for i in 0..20 {
        std::fs::write(b.project.path().join(format!("f{i}.md")), "text\n")?;
    }
    let always = MockLlm::start(Script::always(Reply::text("ok"))).await?;
    b.cli(&["daemon", "start"]).context("starting the daemon")?;
    let mut rows = Vec::new();
    for (label, config) in CONFIGS {
        std::fs::write(b.home.path().join("config.yaml"), config)?;
        b.base_url = always.base_url();
        b.send()?; // warm-up
        let warm: Vec<f64> = (0..runs)
            .map(|_| b.send().map(|s| s.wall * 1000.0))
            .collect::<Result<_, _>>()?;
        task(&mut b, iterations).await?; // warm-up
        b.cli(&["daemon", "stop"])?;
        let before = db_bytes(&b);
        b.cli(&["daemon", "start"])?;
        let mut walls = Vec::with_capacity(runs);
        for _ in 0..runs {
            walls.push(task(&mut b, iterations).await?);
        }
        b.cli(&["daemon", "stop"])?;
        let grown = db_bytes(&b).saturating_sub(before);
        b.cli(&["daemon", "start"])?;
        let calls = (runs * (iterations + 1)) as f64;
        rows.push((
            label,
            median(warm),
            median(walls),
            grown as f64 / calls * 100.0,
        ));
    }
    b.cli(&["daemon", "stop"])?;
    let (_, warm_off, task_off, _) = rows[0];
    println!("flight recorder: {runs} runs per configuration, {iterations}-iteration tool task");
    for (label, warm, task, per100) in &rows {
        println!(
            "  {label:<16} warm send p50 {warm:>7.1} ms ({:>5.3}x)   task p50 {task:>8.1} ms ({:>5.3}x)   db {:>7.1} KB / 100 iterations",
            warm / warm_off,
            task / task_off,
            per100 / 1024.0
        );
    }
    Ok(())
}
