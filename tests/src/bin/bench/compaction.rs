//! Long-session figures of issue 5, part two: the overhead of `/compact` on a
//! 10,000-message session, excluding the model call.
//!
//! Each run imports a fresh copy of the long history (compaction rewrites the context),
//! then times `session.command "/compact"` over the bench's own RPC connection. The
//! model call is timed by a [`TimingProxy`] between the daemon and the mock LLM: from
//! the first byte of the summary request to the last byte of the answer. Overhead =
//! wall − model call: loading the context, planning the cut, building and encoding the
//! summary request, assembling the answer, rewriting the context and recording the
//! call and the `compaction` event. The token counts come from that event.

use std::time::Instant;

use anyhow::{Context, bail};
use roocode_client::RpcClient;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::event::EventPayload;
use roocode_tests::mock_llm::{MockLlm, Reply, Script};

use crate::harness::{Bench, median};
use crate::history;
use crate::proxy::TimingProxy;
use crate::resume::LONG_MESSAGES;

/// What the mock answers to the summary request: the shape the summary prompt asks for.
const SUMMARY: &str = "## Goal\nMake long sessions load fast: find where the time goes when a 10,000-message session is opened or resumed, and fix it.\n\n## Decisions\n- Load the context in one query ordered by idx; keep the event replay paged by 500.\n- Keep compaction on iteration boundaries; never split a tool_use from its result.\n\n## Files touched\n- roocoded/src/store/messages.rs: context loading\n- roocoded/src/agent/turn.rs: when the context is reloaded\n- roocoded/src/rpc/subscribe.rs: replay pages\n\n## Open tasks\n- Measure the import path, which rewrites the whole context per page.\n- Re-run the store tests and clippy.\n\n## User preferences\n- Run the tests as you go; report figures as medians.";

/// One `/compact` run.
struct Run {
    wall_ms: f64,
    model_ms: f64,
    import_ms: f64,
    before: u64,
    after: u64,
}

/// Runs and prints the compaction figures, `runs` runs.
pub async fn run(b: &Bench, runs: usize) -> anyhow::Result<()> {
    let long = history::long_session(LONG_MESSAGES)?;
    b.cli(&["daemon", "start"])?;
    let (rpc, _) = b.connect().await?;
    let mut results = Vec::with_capacity(runs);
    for _ in 0..runs {
        results.push(compact_once(b, &rpc, &long.lines).await?);
    }
    let wall = median(results.iter().map(|r| r.wall_ms).collect());
    let model = median(results.iter().map(|r| r.model_ms).collect());
    let overhead = median(results.iter().map(|r| r.wall_ms - r.model_ms).collect());
    let import = median(results.iter().map(|r| r.import_ms).collect());
    println!(
        "{:<38} wall p50 {wall:>7.1} ms   model call p50 {model:>7.1} ms   overhead p50 {overhead:>7.1} ms   (n={runs})",
        "/compact on a fresh 10k import"
    );
    // Every run compacts the same history, so the counts repeat: print each once.
    let mut tokens: Vec<String> = results
        .iter()
        .map(|r| format!("{} → {}", r.before, r.after))
        .collect();
    tokens.dedup();
    println!(
        "  tokens before → after (compaction event): {}; fresh import p50 {import:.1} ms",
        tokens.join(", ")
    );
    println!(
        "  model call (here and above) = first request byte to last response byte, at a proxy in front of the mock"
    );
    Ok(())
}

async fn compact_once(b: &Bench, rpc: &RpcClient, lines: &[String]) -> anyhow::Result<Run> {
    let mock = MockLlm::start(Script::always(Reply::text(SUMMARY))).await?;
    let proxy = TimingProxy::start(mock.addr()).await?;
    let started = Instant::now();
    let session = b
        .import(rpc, lines, "bench: compaction", &proxy.base_url())
        .await?;
    let import_ms = started.elapsed().as_secs_f64() * 1000.0;

    let started = Instant::now();
    let out = rpc
        .command(session.id.clone(), "/compact".into(), None)
        .await
        .context("/compact")?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let model_ms = proxy
        .exchange()
        .with_context(|| format!("/compact made no model call: {}", out.output))?
        .as_secs_f64()
        * 1000.0;
    if mock.request_count() != 1 {
        bail!(
            "/compact made {} model calls, expected 1",
            mock.request_count()
        );
    }

    let last = rpc
        .history(session.id.clone(), None, None, Some(1))
        .await?
        .events
        .pop();
    let Some(EventPayload::Compaction {
        before_tokens,
        after_tokens,
        ..
    }) = last.map(|ev| ev.payload)
    else {
        bail!(
            "the last event after /compact is not `compaction` ({})",
            out.output
        );
    };
    rpc.delete(session.id).await?;
    Ok(Run {
        wall_ms,
        model_ms,
        import_ms,
        before: before_tokens,
        after: after_tokens,
    })
}
