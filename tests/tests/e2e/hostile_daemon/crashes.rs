//! `kill -9` at random instants and right after `send --no-wait`, and many clients
//! attaching and detaching: nothing accepted is lost, nothing missed or repeated,
//! nothing leaked.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use super::{Rng, count, daemon_pid, fd_count, full, rss_kib, start_daemon};
use crate::harness::chain_is_valid;
use crate::harness::{PATIENCE, World};

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
