//! `roocode-bench team`: one team of `--teammates` in-process teammates exchanging
//! `--messages` messages on one daemon (issue 12). The lead creates the team and starts
//! every teammate in one response. Half of them send: each its share, in rounds of
//! `--batch` `SendMessage` calls per model response, to the readers in turn, then it
//! ends its turn. The other half read: each ends its first turn at once and then waits
//! for mail, answering every wake with a short text, as a teammate waiting on its
//! teammates does. `agents.max_concurrent` is raised to the team's size, and
//! `context.window_tokens` far past what the lead's context reaches.
//!
//! Reported: delivery latency of every message, from its commit (the mailbox row's
//! `created_at`) to the first model request of its (waiting) recipient that carries it
//! (the mock's wall clock), as p50, p99 and max; whether every message was delivered
//! exactly once (each read, and each in its recipient's final context once); wall
//! time; the daemon's peak RSS and CPU time. The mock records requests raw, and they
//! are read after the run.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::{Context, bail};
use roocode_protocol::api::{MailboxApiClient, TeamApiClient};
use roocode_protocol::teams::MemberState;
use roocode_tests::mock_llm::{Reply, Route, RouteMatch, Script, ScriptedReply, ToolCall};
use serde_json::json;

use crate::harness::{Bench, Started, cpu_seconds, median, peak_rss_mib, percentile};

/// Teammate `n`'s name.
fn name(n: usize) -> String {
    format!("mate{n:02}")
}

/// The marker of teammate `n`'s assignment: its replies are routed by it.
fn marker(n: usize) -> String {
    format!("BENCH-MATE-{n:02}:")
}

/// Message `round`/`i` of teammate `n`; `;` ends it (no token is a prefix of another).
fn token(n: usize, round: usize, i: usize) -> String {
    format!("BENCH-MSG-{n}-{round}-{i};")
}

/// To whom sender `n` (of `0..readers`) sends its `i`th message of a round: the readers
/// (`readers..2 * readers`) in turn.
fn recipient(n: usize, i: usize, readers: usize) -> usize {
    readers + (n + i) % readers
}

/// Sender `n`'s script: its share, then its answer.
fn sender_replies(n: usize, readers: usize, rounds: usize, batch: usize) -> Vec<Reply> {
    let mut replies: Vec<Reply> = (0..rounds)
        .map(|round| {
            let calls = (0..batch)
                .map(|i| {
                    ToolCall::new(
                        "SendMessage",
                        json!({"to": name(recipient(n, i, readers)),
                               "message": format!("{} progress note from {}", token(n, round, i), name(n)),
                               "summary": "a benchmark progress note for you"}),
                    )
                })
                .collect();
            Reply::tool_calls(calls)
        })
        .collect();
    replies.push(Reply::text(format!("{} sent its share.", name(n))));
    replies
}

/// Milliseconds since the epoch of an RFC 3339 UTC time with milliseconds
/// (`2026-12-01T18:48:17.123Z`, as the daemon writes them).
fn rfc3339_ms(s: &str) -> Option<i64> {
    let (date, time) = s.trim_end_matches('Z').split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let mut t = hms.split(':').map(|p| p.parse::<i64>());
    let (h, min, sec) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    let ms: i64 = format!("{frac:0<3}").get(..3)?.parse().ok()?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((((days * 24 + h) * 60 + min) * 60 + sec) * 1000 + ms)
}

/// Every `BENCH-MSG-…;` token in `text`.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("BENCH-MSG-").filter_map(|(at, _)| {
        let rest = &text[at..];
        rest.find(';').map(|end| &rest[..=end])
    })
}

pub async fn run(
    mut b: Bench,
    mates: usize,
    messages: usize,
    batch: usize,
    pace_ms: u64,
) -> anyhow::Result<()> {
    let readers = mates / 2;
    if mates < 2
        || !mates.is_multiple_of(2)
        || batch == 0
        || !messages.is_multiple_of(readers * batch)
    {
        bail!("--teammates must be even, and --messages a multiple of --teammates / 2 x --batch");
    }
    let rounds = messages / (readers * batch);
    std::fs::write(
        b.home.path().join("config.yaml"),
        // The lead reads every idle notice (about 700 KB of them by the end): a window
        // it never fills keeps it from compacting, whose request would quote every
        // teammate's marker and be answered from a teammate's script.
        format!("agents: {{max_concurrent: {mates}}}\ncontext: {{window_tokens: 2000000}}\n"),
    )?;
    let mut script = Script::new();
    for n in 0..mates {
        // A sender's share (a reader has none), then a short answer to every later wake.
        let replies = if n < readers {
            sender_replies(n, readers, rounds, batch)
                .into_iter()
                .map(|r| ScriptedReply::from(r).with_delay_ms(pace_ms))
                .collect()
        } else {
            vec![ScriptedReply::from(Reply::text(format!(
                "{} waits for mail.",
                name(n)
            )))]
        };
        script.routes.push(Route {
            when: RouteMatch::FirstUserContains(marker(n)),
            replies,
            fallback: Some(Reply::text("Noted.").into()),
        });
    }
    let spawn = |n: usize| {
        ToolCall::new(
            "Agent",
            json!({"team_name": "bench", "name": name(n), "description": format!("teammate {n}"),
                   "prompt": format!("{} your part of the notes", marker(n))}),
        )
    };
    // The readers join first, so that every sender's first message has its recipient.
    let script = script
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "TeamCreate",
            json!({"team_name": "bench", "description": "the mailbox benchmark"}),
        )]))
        .reply(Reply::tool_calls((readers..mates).map(spawn).collect()))
        .reply(Reply::tool_calls((0..readers).map(spawn).collect()))
        .reply(Reply::text("The team is at work."))
        .fallback(Reply::text("Noted."))
        .raw_records();
    let Started {
        mock,
        rpc,
        pid,
        cpu_before,
        at: started,
        session: lead,
    } = b.start_run(script, "start the team").await?;

    // Done when every teammate is idle again with nothing unread (read from the team,
    // not the whole mailbox, so that watching costs the daemon little).
    loop {
        let team = TeamApiClient::get(&rpc, lead.clone()).await?;
        let settled = team.members.len() == mates
            && team
                .members
                .iter()
                .all(|m| m.state == MemberState::Idle && m.unread_mail == 0);
        if settled {
            break;
        }
        if started.elapsed() > Duration::from_secs(900) {
            bail!("the team did not settle within 15 minutes");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let wall = started.elapsed().as_secs_f64();
    let mail = MailboxApiClient::list(&rpc, Some(lead.clone()), None).await?;
    let sent = mail.iter().filter(|m| m.kind == "message").count();
    if sent != messages {
        if std::env::var_os("ROOCODE_BENCH_KEEP").is_some() {
            b.cli(&["daemon", "stop"])?;
            eprintln!("kept {}", b.home.keep().display());
        }
        bail!(
            "{sent} of {messages} messages were sent: a SendMessage call failed (see the daemon's log)"
        );
    }
    let cpu_s = cpu_seconds(pid)? - cpu_before;
    let rss = peak_rss_mib(pid)?;

    // Each message: its commit, its recipient, and the recipient's first request with it.
    let mut sent_at: HashMap<String, (i64, String)> = HashMap::new();
    for m in mail.iter().filter(|m| m.kind == "message") {
        let token = tokens(&m.body)
            .next()
            .context("a message without its token")?;
        let at = rfc3339_ms(&m.created_at).context("an unreadable created_at")?;
        if sent_at
            .insert(token.to_string(), (at, m.to.clone()))
            .is_some()
        {
            bail!("{token} was stored twice");
        }
    }
    let requests = mock.requests();
    let mut first_seen: HashMap<String, i64> = HashMap::new();
    let mut last_context: HashMap<String, String> = HashMap::new();
    let routes: Vec<RouteMatch> = (0..mates)
        .map(|n| RouteMatch::FirstUserContains(marker(n)))
        .collect();
    for r in &requests {
        let body = r.parse();
        let Some(n) = routes.iter().position(|m| m.matches(&r.headers, &body)) else {
            continue;
        };
        let text = body["messages"].to_string();
        for t in tokens(&text) {
            if sent_at.get(t).is_some_and(|(_, to)| *to == name(n)) {
                first_seen.entry(t.to_string()).or_insert(r.wall_ms);
            }
        }
        last_context.insert(name(n), text);
    }
    let first = sent_at.values().map(|(at, _)| *at).min().unwrap_or(0);
    let last = sent_at.values().map(|(at, _)| *at).max().unwrap_or(0);
    let rate = messages as f64 * 1000.0 / ((last - first).max(1) as f64);
    let mut latencies = Vec::with_capacity(messages);
    // Token, recipient, commit and first request (ms since the epoch), one per line.
    let mut table = String::from("token\tto\tcommitted_ms\trequested_ms\n");
    for (t, (at, to)) in &sent_at {
        let seen = first_seen
            .get(t)
            .with_context(|| format!("{t} never reached {to}'s model"))?;
        latencies.push((seen - at) as f64);
        table.push_str(&format!("{t}\t{to}\t{at}\t{seen}\n"));
        let context = last_context.get(to).map(String::as_str).unwrap_or("");
        let copies = context.matches(t.as_str()).count();
        if copies != 1 {
            bail!("{t} is in {to}'s final context {copies} times");
        }
    }
    mock.shutdown().await;
    b.cli(&["daemon", "stop"])?;
    if std::env::var_os("ROOCODE_BENCH_KEEP").is_some() {
        // Its daemon log and database, and each message's times, to look into.
        std::fs::write(b.home.path().join("latencies.tsv"), table)?;
        eprintln!("kept {}", b.home.keep().display());
    }

    let mate_requests = requests.len();
    println!(
        "team of {mates} in-process teammates ({readers} sending, {readers} waiting for mail), {messages} messages ({rounds} rounds of {batch} SendMessage calls per sender, {pace_ms} ms before each streamed chunk of a sender's response), agents.max_concurrent: {mates}, context.window_tokens: 2000000"
    );
    println!("  sent at {rate:.0} messages/s (first to last commit)");
    println!(
        "  delivery latency (commit to the recipient's next model request): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        median(latencies.clone()),
        percentile(latencies.clone(), 0.99),
        latencies.iter().copied().fold(0.0, f64::max)
    );
    println!(
        "  every message stored once, read, and in its recipient's context exactly once: yes ({} checked)",
        latencies.len()
    );
    println!(
        "  wall {wall:.2} s   model requests {mate_requests}   daemon peak RSS {rss:.1} MiB   daemon CPU {cpu_s:.2} s"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_tokens_read_back() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            rfc3339_ms("2026-12-01T00:00:00.000Z"),
            Some(1_796_083_200_000)
        );
        let found: Vec<&str> = tokens("a BENCH-MSG-1-0-5; b BENCH-MSG-1-0-50; c").collect();
        assert_eq!(found, ["BENCH-MSG-1-0-5;", "BENCH-MSG-1-0-50;"]);
    }
}
