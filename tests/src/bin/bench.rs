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

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use roocode_protocol::api::{DaemonApiClient, SessionApiClient};
use roocode_protocol::daemon::ClientInfo;
use roocode_protocol::session::{ClientEnv, CreateParams};
use roocode_tests::mock_llm::{MockLlm, Reply, Script};

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
}

#[derive(Subcommand)]
enum Cmd {
    /// Runs a command and prints `<wall seconds> <peak RSS KiB> <exit code>`.
    Measure {
        #[arg(trailing_var_arg = true, required = true)]
        argv: Vec<String>,
    },
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Some(Cmd::Measure { argv }) = args.cmd {
        return measure(&argv);
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

struct Sample {
    wall: f64,
    rss_kib: i64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    }
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let idx = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(idx).copied().unwrap_or(f64::NAN)
}

struct Bench {
    dir: PathBuf,
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    base_url: String,
}

impl Bench {
    fn bin(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("ROOCODE_HOME", self.home.path())
            .env("ROOCODE_DAEMON_BIN", self.bin("roocoded"))
            .env("ROOCODE_MODEL", "anthropic/claude-sonnet-4-5")
            .env("ANTHROPIC_API_KEY", "bench")
            .env("ANTHROPIC_BASE_URL", &self.base_url)
            .current_dir(self.project.path());
    }

    fn cli(&self, args: &[&str]) -> anyhow::Result<()> {
        let mut cmd = Command::new(self.bin("roocode-cli"));
        self.env(&mut cmd);
        let out = cmd.args(args).output()?;
        if !out.status.success() {
            bail!(
                "roocode-cli {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    }

    /// One `roocode-cli send` under the `measure` wrapper.
    fn send(&self) -> anyhow::Result<Sample> {
        let mut cmd = Command::new(std::env::current_exe()?);
        self.env(&mut cmd);
        let cli = self.bin("roocode-cli");
        let out = cmd
            .arg("measure")
            .arg(&cli)
            .args(["send", "--new", "say ok"])
            .output()?;
        let line = String::from_utf8_lossy(&out.stdout);
        let mut parts = line.split_whitespace();
        let wall: f64 = parts.next().context("no wall time")?.parse()?;
        let rss_kib: i64 = parts.next().context("no rss")?.parse()?;
        let code: i32 = parts.next().context("no exit code")?.parse()?;
        if code != 0 {
            bail!("send exited {code}");
        }
        Ok(Sample { wall, rss_kib })
    }
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

fn rss_mib(pid: u64) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .context("no VmRSS")?
        .split_whitespace()
        .next()
        .context("empty VmRSS")?
        .parse()?;
    Ok(kib / 1024.0)
}

/// RSS of a freshly started, idle daemon, and after 100 idle sessions were created.
async fn daemon_memory(b: &Bench) -> anyhow::Result<(f64, f64)> {
    b.cli(&["daemon", "stop"])?;
    b.cli(&["daemon", "start"])?;
    let paths = paths_of(b)?;
    let client = ClientInfo {
        kind: "bench".into(),
        name: "roocode-bench".into(),
        pid: std::process::id(),
    };
    let (rpc, hello) = roocode_protocol::client::connect(&paths.socket, client).await?;
    let idle = rss_mib(u64::from(hello.pid))?;
    let vars = [
        ("ROOCODE_MODEL", "anthropic/claude-sonnet-4-5"),
        ("ANTHROPIC_API_KEY", "bench"),
    ];
    for _ in 0..100 {
        rpc.create(CreateParams {
            cwd: b.project.path().display().to_string(),
            env: ClientEnv {
                vars: vars
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            },
            ..CreateParams::default()
        })
        .await?;
    }
    let with_sessions = rss_mib(u64::from(hello.pid))?;
    Ok((idle, with_sessions))
}

fn paths_of(b: &Bench) -> anyhow::Result<roocode_protocol::paths::Paths> {
    let home = b.home.path().display().to_string();
    Ok(roocode_protocol::paths::Paths::resolve(|k| {
        (k == "ROOCODE_HOME").then(|| home.clone())
    })?)
}

async fn bench(args: Args) -> anyhow::Result<()> {
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
    let b = Bench {
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
    let paths = paths_of(&b)?;
    let client = ClientInfo {
        kind: "bench".into(),
        name: "roocode-bench".into(),
        pid: std::process::id(),
    };
    let (rpc, hello) = roocode_protocol::client::connect(&paths.socket, client.clone()).await?;
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
    b.cli(&["daemon", "stop"])?;
    Ok(())
}
