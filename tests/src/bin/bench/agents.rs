//! `roocode-bench agents`: many background sub-agents on one daemon (issue 11). One
//! parent turn starts `--agents` background children with one `Agent` call each; every
//! child runs a `--steps`-step scripted task (tool calls of `Glob` and `Read`, then an
//! answer) against the mock, which streams each reply in chunks with `--chunk-delay-ms`
//! between them. Run once with `agents.max_concurrent` = the number of agents and once
//! with the default 16.
//!
//! Reported: wall time from the parent's message to the last child's end; the daemon's
//! peak RSS (`VmHWM`) and CPU time over the run; each child's completion time measured
//! from its own start (its spawn: `elapsed_ms` of `agent.list`) as median and max, and
//! their ratio (targets: RSS under 300 MB, max/median under 2, i.e. nobody starved); and
//! for the limited run, each child's queueing delay (its spawn to its first model
//! request, seen by the mock) as median and max.

use std::time::Duration;

use anyhow::{Context, bail};
use roocode_protocol::agents::AgentState;
use roocode_protocol::api::AgentApiClient;
use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{Bench, Started, cpu_seconds, median, peak_rss_mib};

/// The marker of child `n`'s task: its replies are routed by it.
fn marker(n: usize) -> String {
    format!("BENCH-AGENT-{n:03}:")
}

/// Child `n`'s script: `steps - 1` tool calls, then its answer.
fn child_replies(n: usize, steps: usize, delay_ms: u64) -> Vec<ScriptedReply> {
    let mut replies: Vec<ScriptedReply> = (1..steps)
        .map(|step| {
            let call = if step % 2 == 0 {
                ToolCall::new("Read", json!({"file_path": "README.md"}))
            } else {
                ToolCall::new("Glob", json!({"pattern": "*.md"}))
            };
            ScriptedReply::from(Reply::tool_calls(vec![call])).with_delay_ms(delay_ms)
        })
        .collect();
    let answer = format!(
        "Agent {n} is done: it looked at the project's Markdown files and read the README, \
         which describes the benchmark project in a few lines."
    );
    replies.push(ScriptedReply::from(Reply::text(answer)).with_delay_ms(delay_ms));
    replies
}

/// Figures of one run.
struct Run {
    wall: f64,
    peak_rss_mib: f64,
    cpu_s: f64,
    completion_ms: Vec<f64>,
    queue_ms: Vec<f64>,
}

async fn one(
    b: &mut Bench,
    agents: usize,
    steps: usize,
    delay_ms: u64,
    limit: Option<usize>,
) -> anyhow::Result<Run> {
    let config = match limit {
        Some(n) => format!("agents: {{max_concurrent: {n}}}\n"),
        None => String::new(),
    };
    std::fs::write(b.home.path().join("config.yaml"), config)?;
    let mut script = Script::new();
    for n in 0..agents {
        script = script.route(
            RouteMatch::FirstUserContains(marker(n)),
            child_replies(n, steps, delay_ms),
        );
    }
    let calls = (0..agents)
        .map(|n| {
            ToolCall::new(
                "Agent",
                json!({"subagent_type": "general-purpose", "run_in_background": true,
                       "description": format!("bench task {n}"),
                       "prompt": format!("{} survey the project", marker(n))}),
            )
        })
        .collect();
    let script = script
        .reply(Reply::tool_calls(calls))
        .reply(Reply::text("Started them all."))
        .fallback(Reply::text("Noted."));
    let Started {
        mock,
        rpc,
        pid,
        cpu_before,
        at: started,
        session: parent,
    } = b.start_run(script, "start the agents").await?;
    let infos = loop {
        let infos = AgentApiClient::list(&rpc, Some(parent.clone())).await?;
        if infos.len() == agents && infos.iter().all(|a| a.state.is_final()) {
            break infos;
        }
        if started.elapsed() > Duration::from_secs(600) {
            let open: Vec<String> = infos
                .iter()
                .filter(|a| !a.state.is_final())
                .map(|a| format!("{} {}", a.name, a.state))
                .collect();
            bail!(
                "the agents did not finish within 10 minutes ({} of {agents} listed; not done: {open:?})",
                infos.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let wall = started.elapsed().as_secs_f64();
    let failed: Vec<_> = infos
        .iter()
        .filter(|a| a.state != AgentState::Completed)
        .collect();
    if !failed.is_empty() {
        bail!("{} agents did not complete: {:?}", failed.len(), failed[0]);
    }
    let cpu_s = cpu_seconds(pid)? - cpu_before;
    let peak_rss_mib = peak_rss_mib(pid)?;
    // Queueing delay: from the spawn to the child's first request, on the mock's clock.
    // Every child was spawned when the parent's second request (its reply to the Agent
    // results) arrived.
    let requests = mock.requests();
    let first = RouteMatch::FirstUserContains("start the agents".into());
    let spawned_at = requests
        .iter()
        .filter(|r| first.matches(&r.headers, &r.body))
        .nth(1)
        .map(|r| r.at)
        .context("the parent's second request")?;
    let queue_ms = (0..agents)
        .filter_map(|n| {
            let when = RouteMatch::FirstUserContains(marker(n));
            requests
                .iter()
                .find(|r| when.matches(&r.headers, &r.body))
                .map(|r| r.at.saturating_sub(spawned_at).as_secs_f64() * 1000.0)
        })
        .collect();
    let completion_ms = infos.iter().map(|a| a.elapsed_ms as f64).collect();
    mock.shutdown().await;
    Ok(Run {
        wall,
        peak_rss_mib,
        cpu_s,
        completion_ms,
        queue_ms,
    })
}

fn print(label: &str, run: &Run) {
    let median_ms = median(run.completion_ms.clone());
    let max_ms = run.completion_ms.iter().copied().fold(0.0, f64::max);
    println!("{label}");
    println!(
        "  wall {:.2} s   daemon peak RSS {:.1} MiB   daemon CPU {:.2} s ({:.0}% of one core)",
        run.wall,
        run.peak_rss_mib,
        run.cpu_s,
        run.cpu_s / run.wall * 100.0
    );
    println!(
        "  completion from each agent's start: median {:.0} ms, max {:.0} ms, max/median {:.2}",
        median_ms,
        max_ms,
        max_ms / median_ms
    );
    let queue_median = median(run.queue_ms.clone());
    let queue_max = run.queue_ms.iter().copied().fold(0.0, f64::max);
    println!(
        "  queueing delay (spawn to first request): median {queue_median:.0} ms, max {queue_max:.0} ms"
    );
}

pub async fn run(mut b: Bench, agents: usize, steps: usize, delay_ms: u64) -> anyhow::Result<()> {
    std::fs::write(
        b.project.path().join("README.md"),
        "# Bench project\n\nA few lines.\n",
    )?;
    let all = one(&mut b, agents, steps, delay_ms, Some(agents)).await?;
    print(
        &format!("{agents} background agents x {steps} steps, agents.max_concurrent: {agents}"),
        &all,
    );
    let limited = one(&mut b, agents, steps, delay_ms, None).await?;
    print(
        &format!("{agents} background agents x {steps} steps, default agents.max_concurrent (16)"),
        &limited,
    );
    b.cli(&["daemon", "stop"])?;
    Ok(())
}
