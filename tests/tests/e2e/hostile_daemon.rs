//! The daemon under hostile clients and crashes (issue 9, item 8, the daemon half):
//! malformed JSON-RPC frames, `kill -9` at random instants and right after
//! `send --no-wait`, many clients attaching and detaching, clients that stop reading,
//! too many connections, inherited descriptors, a socket path that is not a socket,
//! and a command that tries to answer its own agent's permission request.
//!
//! Counts: a short set by default (CI), the full set with `ROOCODE_HOSTILE=full`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};
use soketto::connection::{Receiver, Sender};
use soketto::handshake::{Client, ServerResponse};
use tokio::net::UnixStream;
use tokio_util::compat::{Compat, TokioAsyncReadCompatExt};

use crate::harness::{PATIENCE, World};

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

type Ws = (Sender<Compat<UnixStream>>, Receiver<Compat<UnixStream>>);

/// A raw WebSocket connection to the daemon: frames go out exactly as written.
async fn raw(w: &World) -> Ws {
    let stream = UnixStream::connect(socket(w)).await.unwrap();
    let mut client = Client::new(stream.compat(), "localhost", "/");
    let response = tokio::time::timeout(PATIENCE, client.handshake())
        .await
        .expect("handshake in time")
        .unwrap();
    assert!(
        matches!(response, ServerResponse::Accepted { .. }),
        "{response:?}"
    );
    let mut builder = client.into_builder();
    builder.set_max_message_size(64 << 20);
    builder.finish()
}

async fn send_text(tx: &mut Sender<Compat<UnixStream>>, text: &str) {
    tx.send_text(text).await.unwrap();
    tx.flush().await.unwrap();
}

async fn recv_json(rx: &mut Receiver<Compat<UnixStream>>) -> Value {
    let mut buf = Vec::new();
    tokio::time::timeout(PATIENCE, rx.receive_data(&mut buf))
        .await
        .expect("a reply in time")
        .unwrap();
    serde_json::from_slice(&buf).unwrap()
}

/// One malformed (or oddly identified) frame and the reply it must get.
struct Case {
    frame: Vec<u8>,
    id: Value,
    /// Acceptable error codes.
    codes: &'static [i64],
}

const INVALID: &[i64] = &[-32600];
const PARSE: &[i64] = &[-32700];
const EITHER: &[i64] = &[-32600, -32700];
/// A well-formed call before `daemon.hello`: the handshake error, its id echoed.
const HANDSHAKE: &[i64] = &[-32005];

fn case(rng: &mut Rng, max_message: usize) -> Case {
    let text = |s: String, id: Value, codes| Case {
        frame: s.into_bytes(),
        id,
        codes,
    };
    let n = rng.below(1_000_000);
    match rng.below(12) {
        0 => {
            let odd = [
                "0.5",
                "1e30",
                "-2.5",
                "1E2",
                "true",
                "false",
                "{}",
                "[]",
                "[1]",
                "{\"a\":1}",
                "-0.0",
            ];
            let id = odd[rng.below(odd.len() as u64) as usize];
            text(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#),
                Value::Null,
                INVALID,
            )
        }
        1 => text(
            format!(
                r#"{{"jsonrpc":"2.0","id":{n},"id":{},"method":"daemon.info"}}"#,
                n + 1
            ),
            Value::Null,
            INVALID,
        ),
        2 => text(
            format!(r#"{{"jsonrpc":"2.0","method":"daemon.info","method":"x","id":{n}}}"#),
            Value::Null,
            INVALID,
        ),
        3 => {
            // A valid negative id: echoed exactly.
            let id = -(n as i64) - 1;
            text(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#),
                json!(id),
                HANDSHAKE,
            )
        }
        4 => {
            let whole =
                format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"daemon.info","params":{{}}}}"#);
            let cut = rng.below(whole.len() as u64 - 1) as usize;
            text(whole[..cut].to_string(), Value::Null, PARSE)
        }
        5 => {
            let junk: String = (0..1 + rng.below(64))
                .map(|_| (b' ' + rng.below(95) as u8) as char)
                .collect();
            // Random printable text is almost never JSON, but might be (`7`).
            text(junk, Value::Null, EITHER)
        }
        6 => {
            let shapes = [
                "[]",
                r#"[{"jsonrpc":"2.0","id":1,"method":"daemon.info"}]"#,
                r#""a string""#,
                "42",
                "null",
                r#"{"jsonrpc":"2.0"}"#,
                r#"{"id":1,"method":"daemon.info"}"#,
            ];
            let s = shapes[rng.below(shapes.len() as u64) as usize];
            let id = if s.starts_with("{\"id\":1") {
                json!(1)
            } else {
                Value::Null
            };
            text(s.to_string(), id, INVALID)
        }
        7 => text(
            format!(r#"{{"jsonrpc":"1.0","id":{n},"method":"daemon.info"}}"#),
            json!(n),
            INVALID,
        ),
        8 => text(
            format!(r#"{{"jsonrpc":"2.0","id":"s{n}","method":{n}}}"#),
            json!(format!("s{n}")),
            INVALID,
        ),
        9 => {
            let depth = 65 + rng.below(200) as usize;
            text(
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"session.get","params":{}{}}}"#,
                    "[".repeat(depth),
                    "]".repeat(depth)
                ),
                Value::Null,
                INVALID,
            )
        }
        10 => Case {
            // Not UTF-8.
            frame: vec![b'{', 0xff, 0xfe, b'}'],
            id: Value::Null,
            codes: PARSE,
        },
        _ => {
            if rng.below(8) == 0 {
                // Over the message bound.
                text(
                    format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":"daemon.info","params":["{}"]}}"#,
                        "x".repeat(max_message)
                    ),
                    Value::Null,
                    INVALID,
                )
            } else {
                // A huge integer id: valid JSON-RPC, echoed as written.
                let id = format!("{n}000000000000000000000");
                text(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#),
                    serde_json::from_str(&id).unwrap(),
                    HANDSHAKE,
                )
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_malformed_frame_gets_an_error_reply_and_the_daemon_stays_up_and_bounded() {
    let max_message = 256 << 10;
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_MAX_MESSAGE".into(), max_message.to_string()));
    let pid = start_daemon(&w).await;
    let (mut tx, mut rx) = raw(&w).await;
    let frames = count(200, 1000);
    let mut rng = Rng(0x00f7_a3e5);
    let mut rss_before = 0;
    for i in 0..frames {
        if i == frames / 10 {
            // After warm-up: the baseline the rest must not grow from.
            rss_before = rss_kib(pid);
        }
        let c = case(&mut rng, max_message);
        match std::str::from_utf8(&c.frame) {
            Ok(text) => send_text(&mut tx, text).await,
            Err(_) => {
                tx.send_binary(&c.frame).await.unwrap();
                tx.flush().await.unwrap();
            }
        }
        let reply = recv_json(&mut rx).await;
        let shown = String::from_utf8_lossy(&c.frame[..c.frame.len().min(200)]).into_owned();
        assert_eq!(reply["jsonrpc"], "2.0", "frame {i} {shown}: {reply}");
        assert_eq!(reply["id"], c.id, "frame {i} {shown}: {reply}");
        let code = reply["error"]["code"].as_i64().unwrap_or_default();
        assert!(
            c.codes.contains(&code),
            "frame {i} {shown}: code {code}, expected {:?}: {reply}",
            c.codes
        );
    }
    // The same connection still works for a well-formed call.
    send_text(
        &mut tx,
        r#"{"jsonrpc":"2.0","id":-1,"method":"daemon.hello","params":{"protocol":0,"client":{"kind":"test","name":"hostile","pid":1}}}"#,
    )
    .await;
    let hello = recv_json(&mut rx).await;
    assert_eq!(hello["id"], -1, "{hello}");
    let rss_after = rss_kib(pid);
    assert_eq!(daemon_pid(&w).await, pid, "the same daemon is up");
    eprintln!("{frames} malformed frames: daemon RSS {rss_before} KiB -> {rss_after} KiB");
    assert!(
        rss_after < rss_before + 32 * 1024,
        "memory grew from {rss_before} KiB to {rss_after} KiB"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_dropped_and_others_are_served() {
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_CLIENT_BUFFER".into(), "4".into()));
    w.vars
        .push(("ROOCODE_RPC_CLIENT_STALL_MS".into(), "300".into()));
    let pid = start_daemon(&w).await;
    let (mut tx, _rx) = raw(&w).await;
    // Ask and never read: once the buffers are full and the stall bound passes, the
    // daemon closes the connection and writing fails.
    let flood = async {
        for n in 0u64.. {
            let req = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"daemon.info"}}"#);
            if tx.send_text(&req).await.is_err() || tx.flush().await.is_err() {
                return n;
            }
        }
        unreachable!()
    };
    let sent = tokio::time::timeout(PATIENCE, flood)
        .await
        .expect("the daemon drops a client that does not read");
    eprintln!("dropped after {sent} unread requests");
    assert_eq!(daemon_pid(&w).await, pid, "others are still served");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_bounded_and_a_freed_slot_is_reused() {
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_MAX_CONNECTIONS".into(), "3".into()));
    let pid = start_daemon(&w).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(raw(&w).await);
    }
    // A fourth is closed at accept: its handshake fails.
    let stream = UnixStream::connect(socket(&w)).await.unwrap();
    let mut client = Client::new(stream.compat(), "localhost", "/");
    let fourth = tokio::time::timeout(PATIENCE, client.handshake())
        .await
        .expect("refused in time");
    assert!(fourth.is_err(), "{fourth:?}");
    held.pop();
    // The freed slot serves the next client (the CLI).
    let wait = async {
        loop {
            let out = w.run(&["daemon", "status", "--json"]).await;
            if out.code == 0 {
                return out.json();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let info = tokio::time::timeout(PATIENCE, wait).await.unwrap();
    assert_eq!(info["pid"].as_u64().unwrap() as i32, pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_per_connection_are_bounded() {
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_MAX_SUBSCRIPTIONS".into(), "2".into()));
    start_daemon(&w).await;
    let (mut tx, mut rx) = raw(&w).await;
    let hello = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"daemon.hello","params":{{"protocol":{},"build_id":"{}","client":{{"kind":"test","name":"hostile","pid":1}}}}}}"#,
        roocode_protocol::PROTOCOL_VERSION,
        roocode_protocol::BUILD_ID
    );
    send_text(&mut tx, &hello).await;
    let answer = recv_json(&mut rx).await;
    assert!(answer["result"].is_object(), "{answer}");
    let mut replies = Vec::new();
    for id in 1..=3 {
        let sub =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.subscribe","params":{{}}}}"#);
        send_text(&mut tx, &sub).await;
        // Skip notifications: only the reply to this call counts.
        loop {
            let v = recv_json(&mut rx).await;
            if v["id"] == id {
                replies.push(v);
                break;
            }
        }
    }
    assert!(
        replies[0]["result"].is_string() || replies[0]["result"].is_number(),
        "{replies:?}"
    );
    assert!(
        replies[1]["result"].is_string() || replies[1]["result"].is_number(),
        "{replies:?}"
    );
    assert!(
        replies[2]["error"].is_object(),
        "the third is refused: {replies:?}"
    );
}

/// Every tool_use of a recorded request has its tool_result in the next message.
fn chain_is_valid(body: &Value) -> Result<(), String> {
    let msgs = body["messages"].as_array().ok_or("no messages")?;
    for (i, m) in msgs.iter().enumerate() {
        let calls: Vec<&str> = m["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_use")
            .filter_map(|b| b["id"].as_str())
            .collect();
        if calls.is_empty() {
            continue;
        }
        let results: Vec<&str> = msgs
            .get(i + 1)
            .ok_or(format!("message {i} has calls and nothing after it"))?["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str())
            .collect();
        if results != calls {
            return Err(format!("message {i}: calls {calls:?}, results {results:?}"));
        }
    }
    Ok(())
}

fn kill9(pid: i32) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL).unwrap();
}

async fn gone(pid: i32) {
    let pid = nix::unistd::Pid::from_raw(pid);
    let wait = async {
        while nix::sys::signal::kill(pid, None).is_ok() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .expect("daemon exits");
}

/// Texts of the user's messages in the stored context, one entry per text block.
fn user_texts(w_export: &[Value]) -> Vec<String> {
    w_export
        .iter()
        .filter(|l| l["role"] == "user")
        .flat_map(|l| l["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_instants_loses_no_accepted_message_and_keeps_chains_valid() {
    let w = World::new(Script::new()).await;
    std::fs::write(w.project_path().join("a.txt"), "alpha\n").unwrap();
    let tools = || {
        Reply::tool_calls(vec![
            ToolCall::new("Read", json!({"file_path": "a.txt"})),
            ToolCall::new("Glob", json!({"pattern": "*.txt"})),
        ])
    };
    let rounds = count(6, 100);
    let mut rng = Rng(0xdead_5eed);
    let mut session: Option<String> = None;
    let mut accepted: Vec<String> = Vec::new();
    for round in 0..rounds {
        w.mock.set_fallback(Some(tools().into()));
        // The daemon is up before the sends, so the kill can follow the last at once.
        let pid = start_daemon(&w).await;
        let extra = rng.below(3) as usize;
        for m in 0..=extra {
            let text = format!("message r{round} m{m}");
            let mut args = vec!["send", "--no-wait"];
            let sid;
            if let Some(id) = &session {
                sid = id.clone();
                args.extend(["--session", sid.as_str()]);
            }
            args.push(&text);
            let sent = w.run(&args).await;
            assert_eq!(sent.code, 0, "round {round}: {sent:?}");
            session = Some(sent.session_id());
            accepted.push(text);
        }
        let id = session.clone().unwrap();
        if rng.below(2) == 1 {
            // Later in the turn: after some of its events.
            let wait_for = 1 + rng.below(12);
            let from = w.run(&["sessions", "--json"]).await.json()[0]["last_seq"]
                .as_u64()
                .unwrap();
            let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
            watch
                .until(|l| {
                    serde_json::from_str::<Value>(l)
                        .ok()
                        .and_then(|e| e["seq"].as_u64())
                        .is_some_and(|s| s >= from + wait_for)
                })
                .await;
            kill9(pid);
            gone(pid).await;
            watch.finish().await;
        } else {
            // Right after the last `send --no-wait` returned.
            kill9(pid);
            gone(pid).await;
        }
    }
    // One more message, answered in text: every accepted message must be in the
    // context exactly once, and the chain valid.
    w.mock.set_fallback(Some(Reply::text("ok").into()));
    let id = session.unwrap();
    let last = w.run(&["send", "--session", &id, "final message"]).await;
    assert_eq!(last.code, 0, "{last:?}");
    accepted.push("final message".into());
    let body = w.mock.requests().last().unwrap().body.clone();
    chain_is_valid(&body).unwrap();
    let export = w.run(&["export", &id]).await;
    assert_eq!(export.code, 0, "{export:?}");
    let texts = user_texts(&export.json_lines());
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for t in &texts {
        *seen.entry(t.as_str()).or_default() += 1;
    }
    for a in &accepted {
        assert_eq!(
            seen.get(a.as_str()).copied().unwrap_or(0),
            1,
            "`{a}` must be in the context exactly once; context texts: {texts:?}"
        );
    }
    // And each has exactly one user_message event.
    let replay = w
        .run(&["attach", &id, "--output", "stream-json", "--until-idle"])
        .await;
    let mut events: HashMap<String, usize> = HashMap::new();
    for e in replay.json_lines() {
        if e["type"] == "user_message" {
            *events
                .entry(e["text"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
    }
    for a in &accepted {
        assert_eq!(
            events.get(a).copied().unwrap_or(0),
            1,
            "user_message of `{a}`"
        );
    }
    eprintln!(
        "{rounds} kills, {} accepted messages, none lost",
        accepted.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_attaching_and_detaching_miss_nothing_and_leak_nothing() {
    let (clients, duration) = if full() {
        (50, Duration::from_secs(60))
    } else {
        (6, Duration::from_secs(4))
    };
    let w = World::new(Script::new()).await;
    w.mock.set_fallback(Some(ScriptedReply::new(Reply::text(
        "an answer with a few words in it",
    ))));
    let first = w.run(&["send", "first"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    let pid = daemon_pid(&w).await;
    let (fds_before, rss_before) = (fd_count(pid), rss_kib(pid));
    let deadline = Instant::now() + duration;
    let w = &w;
    let id = id.as_str();
    let driver = async {
        let mut n = 0;
        while Instant::now() < deadline {
            let out = w
                .run(&["send", "--session", id, &format!("more {n}")])
                .await;
            assert_eq!(out.code, 0, "{out:?}");
            n += 1;
        }
        n
    };
    let client = |k: u64| async move {
        let mut rng = Rng(k + 1);
        let mut attaches = 0;
        while Instant::now() < deadline {
            let mut watch = w.start(&["attach", id, "--output", "stream-json"]);
            let lines = 1 + rng.below(3);
            let got = std::cell::Cell::new(0);
            watch
                .until(|_| {
                    got.set(got.get() + 1);
                    got.get() >= lines
                })
                .await;
            tokio::time::sleep(Duration::from_millis(rng.below(200))).await;
            watch.signal(Signal::SIGINT);
            let out = watch.finish().await;
            // Replay then live: seqs from 1, each exactly once, none skipped.
            let seqs: Vec<u64> = out
                .stdout
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter_map(|e| e["seq"].as_u64())
                .collect();
            for (i, s) in seqs.iter().enumerate() {
                assert_eq!(*s, i as u64 + 1, "client {k}: seqs {seqs:?}");
            }
            attaches += 1;
        }
        attaches
    };
    let all = futures_util::future::join_all((0..clients).map(client));
    let (turns, attaches) = tokio::join!(driver, all);
    let attaches: u64 = attaches.iter().sum();
    // Connections close asynchronously: wait for the descriptors to come back.
    let settle = async {
        while fd_count(pid) > fds_before + 2 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(PATIENCE, settle)
        .await
        .unwrap_or_else(|_| panic!("descriptors: {fds_before} before, {} after", fd_count(pid)));
    let rss_after = rss_kib(pid);
    eprintln!(
        "{clients} clients, {attaches} attaches, {turns} turns: fds {fds_before} -> {}, RSS {rss_before} -> {rss_after} KiB",
        fd_count(pid)
    );
    assert!(
        rss_after < rss_before + 48 * 1024,
        "memory grew from {rss_before} KiB to {rss_after} KiB"
    );
    assert_eq!(daemon_pid(w).await, pid);
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
    std::fs::write(
        root.join(".roocode/config.yaml"),
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
    echo "exit=$?" > approve.done
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
