//! `roocode-bench`: the figures of the backbone issue, measured on the real binaries
//! against the scripted mock LLM, reported as medians.
//!
//! Build in release mode first, then run the bench from the same directory:
//! ```text
//! cargo build --release --workspace --bins
//! target/release/roocode-bench --runs 30
//! ```
//! It measures: the round trip of a trivial RPC (`daemon.hello`); `roocode-cli send`
//! wall time and peak RSS for a one-turn text answer with a warm daemon and with a cold
//! auto-start; the daemon's RSS idle and with 100 idle sessions. Peak RSS of one CLI
//! run is read by re-running this binary as a wrapper (`measure`) around it, so
//! `getrusage(RUSAGE_CHILDREN)` sees exactly one child.
//!
//! Then the long-session figures of issue 5 (`--resume-runs` runs each), on a
//! generated 10,000-message history imported with `session.import` ([`resume`],
//! [`compaction`]):
//! - `send --session <id> "continue"` with a warm daemon, 10,000 messages vs 2 (the
//!   difference is the cost of loading the history);
//! - the same right after `daemon stop` (auto-start, load, model call): resume;
//! - opening the session: `attach --until-idle` (snapshot, replay of the whole event
//!   log, rendered transcript);
//! - `/compact` on a fresh 10,000-message import: wall time, the model call's time
//!   (request and response on the wire, seen by a timing proxy in front of the mock),
//!   the difference (compaction overhead) and the before/after token counts.
//!
//! `roocode-bench agents [--agents 100] [--steps 10] [--chunk-delay-ms 20]` measures
//! many background sub-agents on one daemon ([`agents`]).
//! `roocode-bench team [--teammates 20] [--messages 10000] [--batch 50] [--pace-ms 0]` measures team
//! mail: delivery latency and RSS ([`team`]).
//!
//! `roocode-bench mcp [--calls 200] [--tools 100]` measures the MCP host: a call's
//! overhead through the daemon against a direct rmcp call, and the request size with
//! many MCP tools sent and deferred ([`mcp`]).
//!
//! `roocode-bench sandbox [--calls 100]` measures instead the OS sandbox's added cost per
//! Bash call ([`sandbox_cost`]).
//!
//! The bench's `config.yaml` raises `context.window_tokens` so that the long history
//! fits the window and no automatic compaction fires during the measured sends.

mod agents;
mod compaction;
mod harness;
mod history;
mod mcp;
mod proxy;
mod recorder;
mod resume;
mod sandbox_cost;
mod team;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use roocode_protocol::api::{DaemonApiClient, SessionApiClient};
use roocode_protocol::daemon::ClientInfo;
use roocode_protocol::session::CreateParams;
use roocode_tests::mock_llm::{MockLlm, Reply, Script};

use harness::{Bench, Sample, median, percentile, rss_mib};

#[derive(Parser)]
struct Args {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// Runs of `send` per configuration.
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Timed RPC round trips (after 1,000 warm-up calls).
    #[arg(long, default_value_t = 10_000)]
    rpc_calls: usize,
    /// Runs per configuration of the long-session figures (0 skips them).
    #[arg(long, default_value_t = 5)]
    resume_runs: usize,
}

#[derive(Subcommand)]
enum Cmd {
    /// Runs a command and prints `<wall seconds> <peak RSS KiB> <exit code>`.
    Measure {
        #[arg(trailing_var_arg = true, required = true)]
        argv: Vec<String>,
    },
    /// The OS sandbox's added cost per Bash call (`true`, sandbox off vs on).
    Sandbox {
        #[arg(long, default_value_t = 100)]
        calls: usize,
    },
    /// Many background sub-agents on one daemon: wall time, RSS, CPU, fairness.
    Agents {
        #[arg(long, default_value_t = 100)]
        agents: usize,
        /// Model calls of each agent's task (the last one answers).
        #[arg(long, default_value_t = 10)]
        steps: usize,
        /// The mock's delay before each streamed chunk of a reply.
        #[arg(long, default_value_t = 20)]
        chunk_delay_ms: u64,
    },
    /// A team of in-process teammates exchanging messages: delivery latency, RSS.
    Team {
        #[arg(long, default_value_t = 20)]
        teammates: usize,
        #[arg(long, default_value_t = 10_000)]
        messages: usize,
        /// SendMessage calls per teammate response.
        #[arg(long, default_value_t = 50)]
        batch: usize,
        /// Milliseconds before each streamed chunk of a sender's response, as a model
        /// takes time to answer (0: senders send as fast as the daemon lets them).
        #[arg(long, default_value_t = 0)]
        pace_ms: u64,
    },
    /// An MCP call through the daemon vs a direct rmcp call; request size deferred.
    Mcp {
        #[arg(long, default_value_t = 200)]
        calls: usize,
        #[arg(long, default_value_t = 100)]
        tools: usize,
    },
    /// What the flight recorder costs: recording off vs on, without and with bodies.
    Recorder {
        #[arg(long, default_value_t = 50)]
        iterations: usize,
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// Milliseconds between the chunks the mock model streams (0: at once).
        #[arg(long, default_value_t = 0)]
        pace_ms: u64,
    },
    /// Prints the generated long history as JSONL (for `roocode-cli import`).
    History {
        #[arg(long, default_value_t = resume::LONG_MESSAGES)]
        messages: usize,
    },
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    match args.cmd {
        Some(Cmd::Measure { argv }) => return measure(&argv),
        Some(Cmd::History { messages }) => return print_history(messages),
        Some(
            Cmd::Sandbox { .. }
            | Cmd::Agents { .. }
            | Cmd::Team { .. }
            | Cmd::Mcp { .. }
            | Cmd::Recorder { .. },
        )
        | None => {}
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(bench(args))
}

fn measure(argv: &[String]) -> anyhow::Result<()> {
    let (prog, rest) = argv.split_first().context("nothing to run")?;
    let start = Instant::now();
    let status = Command::new(prog)
        .args(rest)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {prog}"))?;
    let wall = start.elapsed().as_secs_f64();
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)?;
    println!("{wall} {} {}", usage.max_rss(), status.code().unwrap_or(-1));
    Ok(())
}

fn print_history(messages: usize) -> anyhow::Result<()> {
    let history = history::long_session(messages)?;
    let mut out = std::io::stdout().lock();
    for line in &history.lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn report(label: &str, samples: &[Sample]) -> (f64, f64) {
    let wall = median(samples.iter().map(|s| s.wall).collect());
    let rss = median(samples.iter().map(|s| s.rss_kib as f64 / 1024.0).collect());
    println!(
        "{label:<34} wall p50 {:>8.2} ms   peak RSS p50 {:>6.1} MiB   (n={})",
        wall * 1000.0,
        rss,
        samples.len()
    );
    (wall, rss)
}

/// RSS of a freshly started, idle daemon, and after 100 idle sessions were created.
async fn daemon_memory(b: &Bench) -> anyhow::Result<(f64, f64)> {
    b.cli(&["daemon", "stop"])?;
    b.cli(&["daemon", "start"])?;
    let (rpc, hello) = b.connect().await?;
    let idle = rss_mib(u64::from(hello.pid))?;
    for _ in 0..100 {
        rpc.create(CreateParams {
            cwd: b.project.path().display().to_string(),
            env: b.client_env(&b.base_url),
            ..CreateParams::default()
        })
        .await?;
    }
    let with_sessions = rss_mib(u64::from(hello.pid))?;
    Ok((idle, with_sessions))
}

async fn bench(args: Args) -> anyhow::Result<()> {
    if let Some(
        cmd @ (Cmd::Sandbox { .. }
        | Cmd::Agents { .. }
        | Cmd::Team { .. }
        | Cmd::Mcp { .. }
        | Cmd::Recorder { .. }),
    ) = &args.cmd
    {
        let b = Bench {
            dir: std::env::current_exe()?
                .parent()
                .context("bench directory")?
                .to_path_buf(),
            home: tempfile::Builder::new().prefix("rb").tempdir()?,
            project: tempfile::tempdir()?,
            base_url: String::new(),
        };
        return match *cmd {
            Cmd::Sandbox { calls } => sandbox_cost::run(b, calls).await,
            Cmd::Agents {
                agents,
                steps,
                chunk_delay_ms,
            } => agents::run(b, agents, steps, chunk_delay_ms).await,
            Cmd::Team {
                teammates,
                messages,
                batch,
                pace_ms,
            } => team::run(b, teammates, messages, batch, pace_ms).await,
            Cmd::Mcp { calls, tools } => mcp::run(b, calls, tools).await,
            Cmd::Recorder {
                iterations,
                runs,
                pace_ms,
            } => recorder::run(b, iterations, runs, pace_ms).await,
            _ => Ok(()),
        };
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().context("bench directory")?.to_path_buf();
    for name in ["roocoded", "roocode-cli"] {
        if !dir.join(name).exists() {
            bail!(
                "{} is missing: run `cargo build --release --workspace --bins`",
                dir.join(name).display()
            );
        }
    }
    let mock = MockLlm::start(Script::always(Reply::text("ok"))).await?;
    let mut b = Bench {
        dir,
        home: tempfile::Builder::new().prefix("rb").tempdir()?,
        project: tempfile::tempdir()?,
        base_url: mock.base_url(),
    };
    println!(
        "roocode-bench: {} runs per configuration, release binaries in {}",
        args.runs,
        b.dir.display()
    );

    // Cold: the client starts the daemon.
    let mut cold = Vec::new();
    for _ in 0..args.runs.clamp(3, 10) {
        b.cli(&["daemon", "stop"])?;
        cold.push(b.send()?);
    }
    // Memory of a fresh idle daemon, then with 100 more idle sessions.
    let (idle, with_sessions) = daemon_memory(&b).await?;

    // Warm: the daemon is up.
    let mut warm = Vec::new();
    for _ in 0..args.runs {
        warm.push(b.send()?);
    }
    let (warm_wall, warm_rss) = report("send, warm daemon", &warm);
    let (cold_wall, cold_rss) = report("send, cold auto-start", &cold);

    // Trivial RPC round trip.
    let client = ClientInfo {
        kind: "bench".into(),
        name: "roocode-bench".into(),
        pid: std::process::id(),
    };
    let (rpc, hello) = b.connect().await?;
    for _ in 0..1000 {
        rpc.hello(
            roocode_protocol::PROTOCOL_VERSION,
            roocode_protocol::BUILD_ID.into(),
            client.clone(),
        )
        .await?;
    }
    let mut rtts = Vec::with_capacity(args.rpc_calls);
    for _ in 0..args.rpc_calls {
        let t = Instant::now();
        rpc.hello(
            roocode_protocol::PROTOCOL_VERSION,
            roocode_protocol::BUILD_ID.into(),
            client.clone(),
        )
        .await?;
        rtts.push(t.elapsed().as_secs_f64() * 1e6);
    }
    println!(
        "{:<34} p50 {:>8.1} µs   p99 {:>8.1} µs   (n={})",
        "trivial RPC (daemon.hello)",
        median(rtts.clone()),
        percentile(rtts, 0.99),
        args.rpc_calls
    );

    let after = rss_mib(u64::from(hello.pid))?;
    println!("{:<34} {idle:>8.1} MiB", "daemon RSS, fresh and idle");
    println!(
        "{:<34} {with_sessions:>8.1} MiB",
        "daemon RSS, +100 idle sessions"
    );
    println!(
        "{:<34} {after:>8.1} MiB",
        "daemon RSS, after this whole bench"
    );

    println!();
    println!("for scale (same kind of machine, local scripted server):");
    println!(
        "  codex exec --remote 100 ms / 38 MiB: warm send is {:.2}x the time, {:.2}x the memory",
        warm_wall / 0.10,
        warm_rss / 38.0
    );
    println!(
        "  claude -p 620 ms / 200 MiB:          warm send is {:.2}x the time, {:.2}x the memory",
        warm_wall / 0.62,
        warm_rss / 200.0
    );
    println!(
        "  cold send: {:.1} ms, {:.1} MiB",
        cold_wall * 1000.0,
        cold_rss
    );
    drop(rpc);
    drop(mock);

    if args.resume_runs > 0 {
        resume::run(&mut b, args.resume_runs).await?;
        compaction::run(&b, args.resume_runs).await?;
    }
    b.cli(&["daemon", "stop"])?;
    Ok(())
}
