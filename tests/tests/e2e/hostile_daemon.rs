//! The daemon under hostile clients and crashes (issue 9, item 8, the daemon half):
//! malformed JSON-RPC frames, `kill -9` at random instants and right after
//! `send --no-wait`, many clients attaching and detaching, clients that stop reading,
//! too many connections, inherited descriptors, a socket path that is not a socket,
//! and a command that tries to answer its own agent's permission request.
//!
//! Counts: a short set by default (CI), the full set with `ROOCODE_HOSTILE=full`.
//! Frames and bounds are in [`frames`], crashes and client churn in [`crashes`]; the
//! daemon's hygiene and the command check are here.

use std::path::PathBuf;
use std::time::Duration;

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{PATIENCE, World};

mod crashes;
mod frames;

/// The full set (`ROOCODE_HOSTILE=full`) or the short one CI runs.
fn full() -> bool {
    std::env::var("ROOCODE_HOSTILE").is_ok_and(|v| v == "full")
}

fn count(ci: usize, full_set: usize) -> usize {
    if full() { full_set } else { ci }
}

/// A tiny deterministic generator, so a failing round can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn socket(w: &World) -> PathBuf {
    w.home.path().join("run/roocoded.sock")
}

async fn daemon_pid(w: &World) -> i32 {
    w.daemon_info().await["pid"].as_u64().unwrap() as i32
}

/// Starts the daemon (if none runs) and returns its pid.
async fn start_daemon(w: &World) -> i32 {
    let out = w.run(&["daemon", "start"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    daemon_pid(w).await
}

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

fn fd_count(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_keeps_no_descriptor_or_directory_of_its_starter() {
    let w = World::new(Script::new()).await;
    // A pipe whose write end the client passes down (no close-on-exec), as a shell
    // script waiting on `$(roocode-cli daemon start)` would.
    let (read_end, write_end) = nix::unistd::pipe().unwrap();
    let mut cmd = w.cli(&["daemon", "start"]);
    let child = cmd.spawn().unwrap();
    drop(write_end);
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{out:?}");
    let eof = tokio::task::spawn_blocking(move || {
        let mut f = std::fs::File::from(read_end);
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut buf).map(|_| buf.len())
    });
    let read = tokio::time::timeout(Duration::from_secs(10), eof)
        .await
        .expect("end-of-file: the daemon did not keep the pipe")
        .unwrap()
        .unwrap();
    assert_eq!(read, 0);
    let pid = daemon_pid(&w).await;
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap(),
        PathBuf::from("/")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_path_that_is_a_regular_file_is_never_deleted() {
    let mut w = World::new(Script::new()).await;
    let file = w.project_path().join("precious.txt");
    std::fs::write(&file, "keep me\n").unwrap();
    w.vars
        .push(("ROOCODE_SOCKET".into(), file.display().to_string()));
    let out = w.run(&["daemon", "start"]).await;
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("precious.txt") && out.stderr.contains("not a socket"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_cannot_approve_its_own_agents_request() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "sh approve.sh", "run_in_background": true}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Write",
                json!({"file_path": "notes.md", "content": "unasked\n"}),
            )]))
            .reply(Reply::text("done")),
    )
    .await;
    let root = w.project_path();
    std::fs::create_dir_all(root.join(".roocode")).unwrap();
    // The user allowed the script, and the OS sandbox is off: this check holds alone.
    // (Local file: a committed project file cannot turn the sandbox off.)
    std::fs::write(
        root.join(".roocode/config.local.yaml"),
        "permissions:\n  allow:\n    - \"Bash(sh approve.sh)\"\nsandbox:\n  mode: off\n",
    )
    .unwrap();
    let cli = crate::harness::bin("roocode-cli");
    // What a prompt-injected model would run: find the pending request, approve it.
    std::fs::write(
        root.join("approve.sh"),
        format!(
            r#"export ROOCODE_HOME='{home}' HOME='{home}'
i=0
while [ $i -lt 600 ]; do
  id=$('{cli}' pending --json 2>/dev/null | sed -n 's/.*"request_id": *"\([^"]*\)".*/\1/p' | head -n 1)
  if [ -n "$id" ]; then
    '{cli}' approve "$id" > approve.out 2> approve.err
    code=$?
    '{cli}' daemon stop > stop.out 2> stop.err
    echo "exit=$?" > stop.done
    echo "exit=$code" > approve.done
    exit 0
  fi
  i=$((i+1))
  sleep 0.1
done
echo "exit=timeout" > approve.done
"#,
            home = w.home.path().display(),
            cli = cli.display()
        ),
    )
    .unwrap();
    let sent = w.run(&["send", "--no-wait", "take notes"]).await;
    assert_eq!(sent.code, 0, "{sent:?}");
    let id = sent.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let req: Value = watch.until_event("permission_request").await;
    let request_id = req["request_id"].as_str().unwrap().to_string();
    let done = root.join("approve.done");
    let wait = async {
        while !std::fs::read_to_string(&done).is_ok_and(|s| s.ends_with('\n')) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .expect("the script tried");
    let status = std::fs::read_to_string(&done).unwrap();
    let err = std::fs::read_to_string(root.join("approve.err")).unwrap_or_default();
    assert_ne!(status.trim(), "exit=0", "the command approved: {err}");
    assert_ne!(
        status.trim(),
        "exit=timeout",
        "the script never saw the request"
    );
    assert!(
        err.contains("refused") && err.contains("A command can never"),
        "the reason is given: {err}"
    );
    // Nor may it stop the daemon (which would end the user's turn with it).
    let stop = std::fs::read_to_string(root.join("stop.done")).unwrap();
    let stop_err = std::fs::read_to_string(root.join("stop.err")).unwrap_or_default();
    assert_ne!(
        stop.trim(),
        "exit=0",
        "the command stopped the daemon: {stop_err}"
    );
    assert!(stop_err.contains("refused"), "{stop_err}");
    // The request still waits for the user, who denies it.
    let pending = w.run(&["pending", "--json"]).await;
    assert!(pending.stdout.contains(&request_id), "{pending:?}");
    assert_eq!(w.run(&["deny", &request_id]).await.code, 0);
    let resolved: Value = watch.until_event("permission_resolved").await;
    assert_eq!(resolved["decision"], "deny", "{resolved}");
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    assert!(!root.join("notes.md").exists());
}
