//! The test world: an isolated ROOCODE_HOME, a project directory, a mock LLM, and
//! helpers that run the real binaries against them.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use roocode_tests::mock_llm::{MockLlm, Script};
use serde_json::Value;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

mod agents;
mod requests;
mod stream;
pub use agents::{first_user, requests_of, team_world, tool_names};
pub use requests::{chain_is_valid, last_results};
pub use stream::{count, events_until, is_notification, notifications, notified, rpc};

/// Upper bound for anything a test waits on; reaching it is a failure, never a pass.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The directory holding the workspace's binaries (next to this test's `deps/`).
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target directory");
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --workspace --bins` before the tests",
        path.display()
    );
    path
}

/// Which protocol the session talks to the mock with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    OpenAi,
}

pub struct World {
    pub home: TempDir,
    pub project: TempDir,
    pub mock: MockLlm,
    pub api: Api,
    /// Extra variables for every command.
    pub vars: Vec<(String, String)>,
}

/// What a finished command printed.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// The full session id from the `session: <short> (<id>)` line on stderr.
    pub fn session_id(&self) -> String {
        let shown = self.session_line();
        match shown.split_once(" (") {
            Some((_, full)) => full.trim_end_matches(')').to_string(),
            None => shown,
        }
    }

    /// The short session id the `session:` line shows first.
    pub fn short_session_id(&self) -> String {
        let shown = self.session_line();
        shown.split(' ').next().unwrap_or_default().to_string()
    }

    fn session_line(&self) -> String {
        self.stderr
            .lines()
            .find_map(|l| l.strip_prefix("session: "))
            .unwrap_or_else(|| panic!("no `session:` line in stderr:\n{}", self.stderr))
            .trim()
            .to_string()
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// stdout as one JSON value per line.
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line ({e}): {l}")))
            .collect()
    }
}

impl World {
    pub async fn new(script: impl Into<Script>) -> World {
        Self::with_api(Api::Anthropic, script).await
    }

    pub async fn with_api(api: Api, script: impl Into<Script>) -> World {
        let mock = MockLlm::start(script).await.expect("mock LLM starts");
        World {
            home: tempfile::Builder::new()
                .prefix("rh")
                .tempdir()
                .expect("temp home"),
            project: tempfile::Builder::new()
                .prefix("proj")
                .tempdir()
                .expect("temp project"),
            mock,
            api,
            vars: Vec::new(),
        }
    }

    pub fn project_path(&self) -> PathBuf {
        self.project.path().canonicalize().expect("project path")
    }

    /// `roocode-cli` with the world's environment and the project as working directory.
    pub fn cli(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin("roocode-cli"));
        cmd.args(args)
            .current_dir(self.project.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("ROOCODE_HOME", self.home.path())
            .env("ROOCODE_DAEMON_BIN", bin("roocoded"))
            .env("ROOCODE_RETRY_BASE_MS", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        match self.api {
            Api::Anthropic => {
                cmd.env("ROOCODE_MODEL", "anthropic/claude-sonnet-4-5")
                    .env("ANTHROPIC_API_KEY", "test-key")
                    .env("ANTHROPIC_BASE_URL", self.mock.base_url());
            }
            Api::OpenAi => {
                cmd.env("ROOCODE_MODEL", "openai/gpt-4.1")
                    .env("OPENAI_API_KEY", "test-key")
                    .env("OPENAI_BASE_URL", self.mock.openai_base_url());
            }
        }
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `roocode-cli args…` to completion.
    pub async fn run(&self, args: &[&str]) -> Output {
        let child = self.cli(args).spawn().expect("roocode-cli starts");
        finish(child).await
    }

    /// Starts `roocode-cli args…` and returns it running, stdout as lines.
    pub fn start(&self, args: &[&str]) -> Running {
        Running::from_child(self.cli(args).spawn().expect("roocode-cli starts"))
    }

    /// `daemon status --json`.
    pub async fn daemon_info(&self) -> Value {
        let out = self.run(&["daemon", "status", "--json"]).await;
        assert_eq!(out.code, 0, "daemon status failed: {out:?}");
        out.json()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // Best effort; the daemon also exits by itself once ROOCODE_HOME is removed.
        let _ = std::process::Command::new(bin("roocode-cli"))
            .args(["daemon", "stop"])
            .env("ROOCODE_HOME", self.home.path())
            .env("HOME", self.home.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// A command still running, read line by line.
pub struct Running {
    pub child: Child,
    pub stdout: Lines<BufReader<ChildStdout>>,
    pub stderr: Lines<BufReader<ChildStderr>>,
    /// Every stdout line read so far.
    pub seen: Vec<String>,
    /// Every stderr line read so far.
    pub seen_err: Vec<String>,
}

/// Reads lines until one satisfies `pred` (bounded by [`PATIENCE`]).
async fn read_until<R: tokio::io::AsyncBufRead + Unpin>(
    lines: &mut Lines<R>,
    seen: &mut Vec<String>,
    what: &str,
    pred: impl Fn(&str) -> bool,
) -> String {
    let read = async {
        while let Some(line) = lines.next_line().await.expect("read output") {
            seen.push(line.clone());
            if pred(&line) {
                return Some(line);
            }
        }
        None
    };
    match tokio::time::timeout(PATIENCE, read).await {
        Ok(Some(line)) => line,
        Ok(None) => panic!(
            "{what} ended before the expected line; saw:\n{}",
            seen.join("\n")
        ),
        Err(_) => panic!("no expected {what} line in time; saw:\n{}", seen.join("\n")),
    }
}

/// Reads the rest of `lines` after `seen`, as one text.
async fn read_rest<R: tokio::io::AsyncBufRead + Unpin>(
    mut lines: Lines<R>,
    mut seen: Vec<String>,
) -> String {
    while let Some(line) = lines.next_line().await.expect("read output") {
        seen.push(line);
    }
    let mut text = seen.join("\n");
    if !seen.is_empty() {
        text.push('\n');
    }
    text
}

impl Running {
    /// A client started with piped stdout and stderr.
    pub fn from_child(mut child: Child) -> Running {
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let stderr = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        Running {
            child,
            stdout,
            stderr,
            seen: Vec::new(),
            seen_err: Vec::new(),
        }
    }

    /// Reads stdout lines until one satisfies `pred`; returns it.
    pub async fn until(&mut self, pred: impl Fn(&str) -> bool) -> String {
        read_until(&mut self.stdout, &mut self.seen, "stdout", pred).await
    }

    /// Reads stream-json lines until an event of type `kind`; returns it parsed.
    pub async fn until_event(&mut self, kind: &str) -> Value {
        let needle = format!("\"type\":\"{kind}\"");
        let line = self.until(|l| l.contains(&needle)).await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not an event ({e}): {line}"))
    }

    /// Reads stderr lines until one satisfies `pred`; returns it.
    pub async fn until_stderr(&mut self, pred: impl Fn(&str) -> bool) -> String {
        read_until(&mut self.stderr, &mut self.seen_err, "stderr", pred).await
    }

    /// Waits for the end; returns the exit code, all stdout and stderr.
    pub async fn finish(self) -> Output {
        let both = async {
            tokio::join!(
                read_rest(self.stdout, self.seen),
                read_rest(self.stderr, self.seen_err)
            )
        };
        let (stdout, stderr) = tokio::time::timeout(PATIENCE, both)
            .await
            .expect("output closes in time");
        let out = finish(self.child).await;
        Output {
            stdout,
            stderr,
            ..out
        }
    }

    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        let pid = self.child.id().expect("child still running") as i32;
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig).expect("signal child");
    }
}

pub async fn finish(child: Child) -> Output {
    let out = tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .expect("command finishes in time")
        .expect("command output");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `kill -9` of process `pid` (a daemon the world started).
pub fn kill9(pid: u64) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
}

/// Waits until the process `pid` no longer exists (bounded).
pub async fn gone(pid: u64) {
    let pid = nix::unistd::Pid::from_raw(pid as i32);
    let wait = async {
        // The daemon is not our child, so there is no wait(); ESRCH is the event.
        while nix::sys::signal::kill(pid, None).is_ok() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .expect("daemon exits");
}
