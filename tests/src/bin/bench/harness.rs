//! What every figure of the bench shares: the isolated installation ([`Bench`]: its
//! `ROOCODE_HOME`, project directory and release binaries), running `roocode-cli`
//! plainly or under the `measure` wrapper, an RPC connection of the bench's own,
//! importing a JSONL history, and the statistics (medians, percentiles, RSS).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use roocode_client::RpcClient;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::daemon::{ClientInfo, HelloResponse};
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, ImportParams, SessionInfo};
use roocode_tests::mock_llm::{MockLlm, Script};

/// Model every session of the bench uses (answered by the mock LLM).
pub const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// Lines per `session.import` page, as `roocode-cli import` sends them.
pub const IMPORT_PAGE: usize = 500;

/// One isolated installation: binaries, a private `ROOCODE_HOME` and a project.
pub struct Bench {
    /// Directory of the release binaries (the bench's own).
    pub dir: PathBuf,
    pub home: tempfile::TempDir,
    pub project: tempfile::TempDir,
    /// `ANTHROPIC_BASE_URL` given to the clients: the mock LLM the next runs talk to.
    pub base_url: String,
}

/// A scenario [`Bench::start_run`] started.
pub struct Started {
    pub mock: MockLlm,
    pub rpc: RpcClient,
    /// The daemon's.
    pub pid: u32,
    /// The daemon's CPU seconds before the prompt was sent.
    pub cpu_before: f64,
    /// When the prompt was sent.
    pub at: Instant,
    /// The session the prompt started.
    pub session: String,
}

/// Wall time and peak RSS of one measured client run.
pub struct Sample {
    pub wall: f64,
    pub rss_kib: i64,
}

impl Bench {
    pub fn bin(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The clients' environment: nothing of the caller's but `PATH` (and `ROOCODE_LOG`,
    /// the daemon's log filter, to look into a run).
    pub fn env(&self, cmd: &mut Command) {
        cmd.env_clear();
        if let Some(filter) = std::env::var_os("ROOCODE_LOG") {
            cmd.env("ROOCODE_LOG", filter);
        }
        cmd.env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("ROOCODE_HOME", self.home.path())
            .env("ROOCODE_DAEMON_BIN", self.bin("roocoded"))
            .env("ROOCODE_MODEL", MODEL)
            .env("ANTHROPIC_API_KEY", "bench")
            .env("ANTHROPIC_BASE_URL", &self.base_url)
            .current_dir(self.project.path());
    }

    /// The same environment as sent over RPC by a client, for `base_url`.
    pub fn client_env(&self, base_url: &str) -> ClientEnv {
        let vars = [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", self.home.path().display().to_string()),
            ("ROOCODE_HOME", self.home.path().display().to_string()),
            ("ROOCODE_MODEL", MODEL.to_string()),
            ("ANTHROPIC_API_KEY", "bench".to_string()),
            ("ANTHROPIC_BASE_URL", base_url.to_string()),
        ];
        ClientEnv {
            vars: vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }

    /// Runs `roocode-cli args`, failing with its stderr when it fails.
    pub fn cli(&self, args: &[&str]) -> anyhow::Result<()> {
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

    /// One `roocode-cli args` under the `measure` wrapper (output discarded).
    pub fn measured_cli(&self, args: &[&str]) -> anyhow::Result<Sample> {
        let mut cmd = Command::new(std::env::current_exe()?);
        self.env(&mut cmd);
        let out = cmd
            .arg("measure")
            .arg(self.bin("roocode-cli"))
            .args(args)
            .output()?;
        let line = String::from_utf8_lossy(&out.stdout);
        let mut parts = line.split_whitespace();
        let wall: f64 = parts.next().context("no wall time")?.parse()?;
        let rss_kib: i64 = parts.next().context("no rss")?.parse()?;
        let code: i32 = parts.next().context("no exit code")?.parse()?;
        if code != 0 {
            bail!("roocode-cli {args:?} exited {code}");
        }
        Ok(Sample { wall, rss_kib })
    }

    /// One `roocode-cli send --new "say ok"` under the `measure` wrapper.
    pub fn send(&self) -> anyhow::Result<Sample> {
        self.measured_cli(&["send", "--new", "say ok"])
    }

    pub fn paths(&self) -> anyhow::Result<Paths> {
        let home = self.home.path().display().to_string();
        Ok(Paths::resolve(|k| {
            (k == "ROOCODE_HOME").then(|| home.clone())
        })?)
    }

    /// A connection of the bench's own to the running daemon.
    pub async fn connect(&self) -> anyhow::Result<(RpcClient, HelloResponse)> {
        let client = ClientInfo {
            kind: "bench".into(),
            name: "roocode-bench".into(),
            pid: std::process::id(),
        };
        Ok(roocode_client::connect(&self.paths()?.socket, client).await?)
    }

    /// Starts one scenario: the mock answering `script`, a fresh daemon (so that its
    /// peak RSS is this run's), and `prompt` sent as a new session in
    /// `bypassPermissions` mode.
    pub async fn start_run(&mut self, script: Script, prompt: &str) -> anyhow::Result<Started> {
        let mock = MockLlm::start(script).await?;
        self.base_url = mock.base_url();
        self.cli(&["daemon", "stop"])?;
        self.cli(&["daemon", "start"])?;
        let (rpc, hello) = self.connect().await?;
        let pid = hello.pid;
        let cpu_before = cpu_seconds(pid)?;
        let at = Instant::now();
        self.cli(&["send", "--new", "--mode", "bypassPermissions", prompt])?;
        let session = SessionApiClient::list(&rpc, None, Some(1), None)
            .await?
            .pop()
            .context("the session the prompt started")?
            .id;
        Ok(Started {
            mock,
            rpc,
            pid,
            cpu_before,
            at,
            session,
        })
    }

    /// Imports `lines` (JSONL messages) as a new session in pages, like
    /// `roocode-cli import`; the session's model calls go to `base_url`.
    pub async fn import(
        &self,
        rpc: &RpcClient,
        lines: &[String],
        title: &str,
        base_url: &str,
    ) -> anyhow::Result<SessionInfo> {
        let mut session: Option<SessionInfo> = None;
        for page in lines.chunks(IMPORT_PAGE) {
            let info = rpc
                .import(ImportParams {
                    session_id: session.as_ref().map(|s| s.id.clone()),
                    cwd: self.project.path().display().to_string(),
                    title: Some(title.to_string()),
                    lines: page.to_vec(),
                    env: self.client_env(base_url),
                })
                .await
                .context("session.import")?;
            session = Some(info);
        }
        session.context("nothing to import")
    }
}

pub fn median(mut v: Vec<f64>) -> f64 {
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

pub fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let idx = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(idx).copied().unwrap_or(f64::NAN)
}

/// Resident memory of process `pid`, in MiB.
pub fn rss_mib(pid: u64) -> anyhow::Result<f64> {
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

/// CPU seconds (user + system) the process has used.
pub fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command name (which may hold spaces) in parentheses.
    let after = stat.rsplit_once(')').context("odd /proc stat")?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11).context("no utime")?.parse::<f64>()?
        + fields.get(12).context("no stime")?.parse::<f64>()?;
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)?.unwrap_or(100) as f64;
    Ok(ticks / hz)
}

pub fn peak_rss_mib(pid: u32) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .context("no VmHWM")?
        .split_whitespace()
        .next()
        .context("empty VmHWM")?
        .parse()?;
    Ok(kib / 1024.0)
}
