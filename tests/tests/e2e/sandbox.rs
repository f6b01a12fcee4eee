//! The OS sandbox of commands through the real binaries: what a Bash command may write
//! and see, its environment, the network switch, the project file that cannot loosen
//! it, `dangerously_disable_sandbox` (asked even in bypassPermissions), the Landlock
//! fallback and `roocode-cli doctor`. Need bubblewrap (`.ci/run` installs it); where it
//! cannot run, the bubblewrap tests say so and stop.

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::World;

/// (content, is_error) of each tool_result in the last request's last message.
fn results(w: &World) -> Vec<(String, bool)> {
    let requests = w.mock.requests();
    let body = &requests.last().expect("a model request").body;
    crate::harness::last_results(body)
        .into_iter()
        .map(|r| (r.content, r.is_error))
        .collect()
}

fn bash_calls(commands: &[&str]) -> Reply {
    Reply::tool_calls(
        commands
            .iter()
            .map(|c| ToolCall::new("Bash", json!({"command": c})))
            .collect(),
    )
}

/// True (and a message) when bubblewrap cannot run here.
fn no_bwrap() -> bool {
    let ok = std::process::Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--unshare-pid",
        ])
        .args(["--", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: bubblewrap cannot run here (apt-get install bubblewrap)");
    }
    !ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_cannot_write_outside_see_secrets_or_the_keys_even_in_bypass() {
    if no_bwrap() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let write_outside = format!("echo pwned > '{}'", target.display());
    let w_home_probe = "ls -AR ~; echo ---; ls -A ~/.ssh | wc -l; cat ~/.ssh/id_rsa";
    let w = World::new(
        Script::new()
            .reply(bash_calls(&[
                &write_outside,
                "printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' >> .git/config",
                w_home_probe,
                "env",
                "echo fine > made.txt && cat made.txt",
            ]))
            .reply(Reply::text("Done.")),
    )
    .await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".git")).unwrap();
    std::fs::write(p.join(".git/config"), "[core]\n").unwrap();
    std::fs::create_dir_all(w.home.path().join(".ssh")).unwrap();
    std::fs::write(w.home.path().join(".ssh/id_rsa"), "SECRET-KEY-MATERIAL").unwrap();
    std::fs::write(w.home.path().join("config.yaml"), "max_turns: 50\n").unwrap();

    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "json",
            "go",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let r = results(&w);
    assert_eq!(r.len(), 5, "{r:?}");
    assert!(
        r[0].1 && r[0].0.contains("Read-only file system"),
        "{:?}",
        r[0]
    );
    assert!(
        r[0].0
            .contains("The OS sandbox probably stopped this command"),
        "{:?}",
        r[0]
    );
    assert!(!target.exists(), "a command wrote outside the workspace");
    assert!(r[1].1, "{:?}", r[1]);
    assert_eq!(
        std::fs::read_to_string(p.join(".git/config")).unwrap(),
        "[core]\n"
    );
    // The test's HOME is also ROOCODE_HOME: all of it is hidden (config, database,
    // socket), keys included; only empty mount points of deeper mounts show.
    let (listing, rest) = r[2].0.split_once("---").unwrap();
    assert!(!listing.contains("config.yaml"), "{listing}");
    assert!(!listing.contains(".db"), "{listing}");
    assert!(!listing.contains(".sock"), "{listing}");
    assert!(!rest.contains("SECRET-KEY-MATERIAL"), "{rest}");
    assert!(rest.trim_start().starts_with("0\n"), "{rest}");
    assert!(!r[3].0.contains("test-key"), "{:?}", r[3]);
    assert!(!r[3].0.contains("ROOCODE_"), "{:?}", r[3]);
    assert!(!r[3].0.contains("ANTHROPIC_"), "{:?}", r[3]);
    assert!(r[3].0.contains("TMPDIR="), "{:?}", r[3]);
    assert_eq!(r[4], ("fine".to_string(), false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_deny_cuts_loopback_and_a_project_file_cannot_loosen_it() {
    if no_bwrap() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe =
        format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo open || echo closed");
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let write_outside = format!("echo pwned > '{}'", target.display());
    let w = World::new(
        Script::new()
            .reply(bash_calls(&[&probe, &write_outside]))
            .reply(Reply::text("Done.")),
    )
    .await;
    std::fs::write(
        w.home.path().join("config.yaml"),
        "sandbox: {network: deny}\n",
    )
    .unwrap();
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        format!(
            "sandbox: {{mode: off, network: allow, allow_write: [\"{}\"]}}\n",
            outside.path().display()
        ),
    )
    .unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "stream-json",
            "go",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let r = results(&w);
    assert_eq!(r[0].0, "closed", "{r:?}");
    assert!(r[1].1 && !target.exists(), "{r:?}");
    // The session says what it ignored.
    let warning = out
        .json_lines()
        .into_iter()
        .find(|e| e["type"] == "error" && e["kind"] == "sandbox")
        .unwrap_or_else(|| panic!("no sandbox warning in:\n{}", out.stdout));
    let message = warning["message"].as_str().unwrap();
    assert!(message.contains("sandbox.mode: off"), "{message}");
    assert!(message.contains("sandbox.allow_write"), "{message}");
    drop(listener);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_the_sandbox_asks_even_in_bypass_permissions() {
    if no_bwrap() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("allowed.txt");
    let command = format!("echo ok > '{}'", target.display());
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": command, "dangerouslyDisableSandbox": true}),
            )]))
            .reply(Reply::text("Written.")),
    )
    .await;
    let first = w
        .run(&[
            "send",
            "--no-wait",
            "--mode",
            "bypassPermissions",
            "write it",
        ])
        .await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let request: Value = watch.until_event("permission_request").await;
    let text = request.to_string();
    assert!(text.contains("WITHOUT the OS sandbox"), "{text}");
    assert!(text.contains("allowed.txt"), "{text}");
    let req = request["request_id"].as_str().unwrap().to_string();
    assert_eq!(w.run(&["approve", &req]).await.code, 0);
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ok\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_bubblewrap_landlock_confines_writes_and_the_session_is_warned() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let write_outside = format!("echo pwned > '{}'", target.display());
    let mut w = World::new(
        Script::new()
            .reply(bash_calls(&[
                &write_outside,
                "echo fine > made.txt && cat made.txt",
            ]))
            .reply(Reply::text("Done.")),
    )
    .await;
    w.vars
        .push(("ROOCODE_SANDBOX_PROBE".into(), "no-bwrap".into()));
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "stream-json",
            "go",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let warning = out
        .json_lines()
        .into_iter()
        .find(|e| e["type"] == "error" && e["kind"] == "sandbox")
        .unwrap_or_else(|| panic!("no sandbox warning in:\n{}", out.stdout));
    let message = warning["message"].as_str().unwrap().to_string();
    let r = results(&w);
    if message.contains("WITHOUT an OS sandbox") {
        eprintln!("skipped: no Landlock ABI 6 on this kernel: {message}");
        return;
    }
    assert!(message.contains("Landlock only"), "{message}");
    assert!(message.contains("cannot hide files"), "{message}");
    assert!(r[0].1 && r[0].0.contains("Permission denied"), "{r:?}");
    assert!(r[0].0.contains("The OS sandbox probably stopped"), "{r:?}");
    assert!(!target.exists());
    assert_eq!(r[1], ("fine".to_string(), false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_reports_daemon_sandbox_config_and_keys_without_printing_them() {
    let w = World::new(Script::new()).await;
    let out = w.run(&["doctor"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let text = &out.stdout;
    assert!(text.starts_with("ok    daemon: reachable"), "{text}");
    assert!(
        text.contains("ok    build: client and daemon are"),
        "{text}"
    );
    assert!(text.contains("sandbox: bubblewrap:"), "{text}");
    assert!(text.contains("sandbox: landlock:"), "{text}");
    assert!(
        text.contains("provider: anthropic: ANTHROPIC_API_KEY is set"),
        "{text}"
    );
    assert!(text.contains("config: "), "{text}");
    assert!(!text.contains("test-key"), "a key was printed:\n{text}");

    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        "model: x\nsandbox: [oops\n",
    )
    .unwrap();
    let out = w.run(&["doctor"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("FAIL") && l.contains("config.local.yaml"))
        .unwrap_or_else(|| panic!("no failing config line:\n{}", out.stdout));
    assert!(line.contains("line 2") || line.contains(":2"), "{line}");

    // Every problem of a file, each with its line, under the file's check.
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        "permisions: {deny: [\"Bash(rm *)\"]}\nmax_turns: many\n",
    )
    .unwrap();
    let out = w.run(&["doctor"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("FAIL") && l.contains("config.local.yaml"))
        .unwrap_or_else(|| panic!("no failing config line:\n{}", out.stdout));
    assert!(lines[at].ends_with(": 2 problems:"), "{}", out.stdout);
    assert!(
        lines[at + 1]
            .contains("line 1 column 1: unknown key `permisions` (did you mean `permissions`?)"),
        "{}",
        out.stdout
    );
    assert!(
        lines[at + 2].contains("line 2 column 12: max_turns: invalid type"),
        "{}",
        out.stdout
    );
}

/// Live (non-zombie) processes whose command line contains `needle`.
fn running(needle: &str) -> usize {
    running_as(needle, None)
}

/// [`running`], counting only processes whose name is `comm` when given.
fn running_as(needle: &str, comm: Option<&str>) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            let named = comm.is_none_or(|c| {
                std::fs::read_to_string(e.path().join("comm")).is_ok_and(|n| n.trim() == c)
            });
            !zombie
                && named
                && String::from_utf8_lossy(&cmd)
                    .replace('\0', " ")
                    .contains(needle)
        })
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_command_dies_with_a_killed_daemon() {
    if no_bwrap() {
        return;
    }
    // A duration no other test uses, so the process can be found by its command line.
    let needle = "sleep 302.3";
    let w = World::new(
        Script::new()
            .reply(bash_calls(&[needle]))
            .reply(Reply::text("done")),
    )
    .await;
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "--no-wait", "wait"])
        .await;
    let id = out.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    watch.until(|l| l.contains("\"tool_call\"")).await;
    // The command itself runs (not only bwrap, whose arguments hold the needle too: a
    // daemon killed while bwrap still sets up the sandbox is left to the restart's
    // clean-up of recorded groups, see the note in sandbox/bwrap.rs).
    let started = async {
        while running_as(needle, Some("sleep")) == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(crate::harness::PATIENCE, started)
        .await
        .expect("the command starts");
    let wait_for = |want_running: bool| async move {
        while (running(needle) > 0) != want_running {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    let pid = w.daemon_info().await["pid"].as_i64().unwrap();
    // Our own daemon, started by this test.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    // bwrap, its init, the shell and the sleep: all of it goes with the daemon.
    tokio::time::timeout(crate::harness::PATIENCE, wait_for(false))
        .await
        .expect("the sandboxed command dies with the daemon");
    watch.finish().await;
}
