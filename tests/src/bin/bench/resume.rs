//! Long-session figures of issue 5, part one: loading, resuming and opening a
//! 10,000-message session, each beside a 2-message session so that the difference is
//! the cost of the history itself.
//!
//! - warm: `roocode-cli send --session <id> "continue"` with the daemon up;
//! - resume: the same right after `roocode-cli daemon stop`, so the client auto-starts
//!   the daemon, which loads the session and makes the model call;
//! - open: `roocode-cli attach <id> --until-idle`, what a user waits for when opening
//!   a session: connect, `session.subscribe` from seq 0 (snapshot, then the replay of
//!   the whole event log) and the rendered transcript, until caught up.
//!
//! Each `send` makes one model call, which goes through a [`TimingProxy`]: the figures
//! are given with and without that call, since sending a million-token history to the
//! model (and the mock parsing it) is not the cost of loading the session. Every `send`
//! adds two messages to the session; the output says how many it had at the end. Each
//! run gets a fresh mock LLM, so the multi-megabyte requests it records do not pile up
//! in the bench's memory.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use roocode_protocol::api::SessionApiClient;
use roocode_tests::mock_llm::{MockLlm, Reply, Script};

use crate::harness::{Bench, Sample, median};
use crate::history;
use crate::proxy::TimingProxy;

/// Messages of the long session.
pub const LONG_MESSAGES: usize = 10_000;
/// `context.window_tokens` of the bench's config: far above the long history's
/// estimate, so neither stale-result clearing (60%) nor compaction (85%) fires.
pub const WINDOW_TOKENS: u64 = 10_000_000;
/// Issue 5's target for loading and resuming a long session.
const TARGET_MS: f64 = 200.0;
/// Width of the labels of this section.
const LABEL: usize = 38;

/// Writes `config.yaml` under the bench's `ROOCODE_HOME`; returns its path.
pub fn write_config(b: &Bench) -> anyhow::Result<PathBuf> {
    let path = b.home.path().join("config.yaml");
    let yaml = format!(
        "# Written by roocode-bench: the 10,000-message session must fit the window.\ncontext:\n  window_tokens: {WINDOW_TOKENS}\n"
    );
    std::fs::write(&path, yaml).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// A fresh mock LLM answering "ok".
async fn fresh_mock() -> anyhow::Result<MockLlm> {
    MockLlm::start(Script::always(Reply::text("ok"))).await
}

/// The sessions under test.
struct Sessions {
    long: String,
    short: String,
}

/// Runs and prints the load, resume and open figures, `runs` runs each.
pub async fn run(b: &mut Bench, runs: usize) -> anyhow::Result<()> {
    let config = write_config(b)?;
    let long = history::long_session(LONG_MESSAGES)?;
    let short = history::short_session()?;
    println!();
    println!("── long sessions (issue 5): {LONG_MESSAGES}-message history, {runs} runs each ──");
    println!(
        "history: {} messages, {} tool calls (Read/Grep/Bash), {:.1} MB of JSONL, ~{} tokens (bytes/4)",
        long.lines.len(),
        long.tool_calls,
        long.bytes as f64 / 1e6,
        long.estimated_tokens()
    );
    println!(
        "config: context.window_tokens = {WINDOW_TOKENS} in {} (no automatic compaction: each send is checked to make exactly one model call)",
        config.display()
    );

    b.cli(&["daemon", "start"])?;
    // Importing makes no model call; each send below points the session at its mock.
    let (rpc, _) = b.connect().await?;
    let started = Instant::now();
    let long_info = b
        .import(&rpc, &long.lines, "bench: long session", &b.base_url)
        .await?;
    let import_ms = started.elapsed().as_secs_f64() * 1000.0;
    let short_info = b
        .import(&rpc, &short.lines, "bench: short session", &b.base_url)
        .await?;
    println!(
        "{:<LABEL$} {import_ms:>8.1} ms   ({} pages of {}, once)",
        "import (session.import, paged)",
        long.lines.len().div_ceil(crate::harness::IMPORT_PAGE),
        crate::harness::IMPORT_PAGE
    );
    let ids = Sessions {
        long: long_info.id,
        short: short_info.id,
    };

    let (warm_long, warm_short) = warm_sends(b, &ids, runs).await?;
    timed_pair("send \"continue\", warm daemon", &warm_long, &warm_short);
    let (resume_long, resume_short) = resumes(b, &ids, runs).await?;
    timed_pair(
        "send \"continue\" after daemon stop",
        &resume_long,
        &resume_short,
    );

    // The daemon restarted: a new connection.
    drop(rpc);
    let (rpc, _) = b.connect().await?;
    let mut open_long = Vec::with_capacity(runs);
    let mut open_short = Vec::with_capacity(runs);
    for _ in 0..runs {
        open_long.push(b.measured_cli(&["attach", &ids.long, "--until-idle"])?);
        open_short.push(b.measured_cli(&["attach", &ids.short, "--until-idle"])?);
    }
    let wall = |samples: &[Sample]| median(samples.iter().map(|s| s.wall * 1000.0).collect());
    let (l, s) = (wall(&open_long), wall(&open_short));
    println!(
        "{:<LABEL$} 10k msgs {l:>7.1} ms   2 msgs {s:>6.1} ms   load cost  {:>7.1} ms   {}",
        "open: attach --until-idle (CLI)",
        l - s,
        verdict(l - s)
    );
    let final_count = rpc.get(ids.long.clone()).await?.message_count;
    let mib = |kib: i64| kib as f64 / 1024.0;
    let send_rss = warm_long.iter().map(|t| mib(t.sample.rss_kib)).collect();
    let attach_rss = open_long.iter().map(|s| mib(s.rss_kib)).collect();
    println!(
        "  load cost = 10k − 2-message median; the long session had {final_count} messages at the end (each send adds 2);"
    );
    println!(
        "  CLI peak RSS p50: send {:.1} MiB, attach {:.1} MiB",
        median(send_rss),
        median(attach_rss)
    );
    for id in [&ids.long, &ids.short] {
        rpc.delete(id.clone()).await?;
    }
    Ok(())
}

/// A measured client run and the time of its one model call on the wire.
struct Timed {
    sample: Sample,
    model_ms: f64,
}

/// `roocode-cli args` under `measure`, its model call going to `mock` through a fresh
/// timing proxy.
async fn timed_cli(b: &mut Bench, mock: &MockLlm, args: &[&str]) -> anyhow::Result<Timed> {
    let proxy = TimingProxy::start(mock.addr()).await?;
    b.base_url = proxy.base_url();
    let calls = mock.request_count();
    // The proxy and the mock run on the other worker while this one waits.
    let sample = tokio::task::block_in_place(|| b.measured_cli(args))?;
    // A second call would be an automatic compaction: the window is too small.
    let made = mock.request_count() - calls;
    if made != 1 {
        bail!("roocode-cli {args:?} made {made} model calls, expected 1");
    }
    let model_ms = proxy
        .exchange()
        .with_context(|| format!("roocode-cli {args:?} made no model call"))?
        .as_secs_f64()
        * 1000.0;
    Ok(Timed { sample, model_ms })
}

/// Warm daemon: one untimed send each (the first turn of a session), then `runs`.
async fn warm_sends(
    b: &mut Bench,
    ids: &Sessions,
    runs: usize,
) -> anyhow::Result<(Vec<Timed>, Vec<Timed>)> {
    let mut long = Vec::with_capacity(runs);
    let mut short = Vec::with_capacity(runs);
    for run in 0..=runs {
        let mock = fresh_mock().await?;
        let l = timed_cli(b, &mock, &["send", "--session", &ids.long, "continue"]).await?;
        let s = timed_cli(b, &mock, &["send", "--session", &ids.short, "continue"]).await?;
        if run > 0 {
            long.push(l);
            short.push(s);
        }
    }
    Ok((long, short))
}

/// Each send right after `daemon stop`: auto-start, load, model call.
async fn resumes(
    b: &mut Bench,
    ids: &Sessions,
    runs: usize,
) -> anyhow::Result<(Vec<Timed>, Vec<Timed>)> {
    let mut long = Vec::with_capacity(runs);
    let mut short = Vec::with_capacity(runs);
    for _ in 0..runs {
        let mock = fresh_mock().await?;
        b.cli(&["daemon", "stop"])?;
        long.push(timed_cli(b, &mock, &["send", "--session", &ids.long, "continue"]).await?);
        b.cli(&["daemon", "stop"])?;
        short.push(timed_cli(b, &mock, &["send", "--session", &ids.short, "continue"]).await?);
    }
    b.cli(&["daemon", "start"])?;
    Ok((long, short))
}

/// Prints a 10k-vs-2-message pair: wall times and their difference, then the same
/// without the model call (the load cost, held against the target).
fn timed_pair(label: &str, long: &[Timed], short: &[Timed]) {
    let wall = |t: &[Timed]| median(t.iter().map(|t| t.sample.wall * 1000.0).collect());
    let own = |t: &[Timed]| {
        median(
            t.iter()
                .map(|t| t.sample.wall * 1000.0 - t.model_ms)
                .collect(),
        )
    };
    let (l, s) = (wall(long), wall(short));
    println!(
        "{label:<LABEL$} 10k msgs {l:>7.1} ms   2 msgs {s:>6.1} ms   difference {:>7.1} ms   (n={})",
        l - s,
        long.len()
    );
    let (l, s) = (own(long), own(short));
    println!(
        "{:<LABEL$} 10k msgs {l:>7.1} ms   2 msgs {s:>6.1} ms   load cost  {:>7.1} ms   {}",
        "  without the model call",
        l - s,
        verdict(l - s)
    );
}

fn verdict(load_ms: f64) -> String {
    let met = if load_ms < TARGET_MS { "met" } else { "MISSED" };
    format!("target < {TARGET_MS} ms: {met}")
}
