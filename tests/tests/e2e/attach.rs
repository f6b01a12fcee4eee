//! The attach guarantee (DESIGN.md §3): a client attached from the start and one that
//! attaches mid-stream with `since_seq = 0` reconstruct byte-identical transcripts,
//! including an answer that is still streaming.

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply};

use crate::harness::World;

const LONG: &str = "This answer streams in many small pieces so that a second client can attach while it is only partly written, and must still see every piece exactly once.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_and_late_clients_see_identical_transcripts() {
    let w = World::new(
        Script::new().reply(Reply::text("First answer.")).reply(
            ScriptedReply::new(Reply::text(LONG))
                .with_gate("g")
                .with_chunk_chars(5),
        ),
    )
    .await;
    let first = w.run(&["send", "warm up"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();

    // Attached from the start (replays turn 1, then follows live).
    let mut early_json = w.start(&["attach", &id, "--output", "stream-json"]);
    let mut early_text = w.start(&["attach", &id, "--output", "text"]);
    early_json.until(|l| l.contains("\"turn_completed\"")).await;

    let sent = w
        .run(&["send", "--no-wait", "--session", &id, "tell me more"])
        .await;
    assert_eq!(sent.code, 0, "{sent:?}");
    w.mock.wait_for_gate_reached("g").await;
    early_json.until(|l| l.contains("\"text_delta\"")).await;

    // Attached mid-stream, replaying from seq 0.
    let mut late_json = w.start(&["attach", &id, "--output", "stream-json", "--until-idle"]);
    let late_text = w.start(&["attach", &id, "--output", "text", "--until-idle"]);
    late_json
        .until(|l| l.contains("\"text_delta\"") && l.contains("This "))
        .await;

    w.mock.open_gate("g");
    let late_json = late_json.finish().await;
    let late_text = late_text.finish().await;
    assert_eq!(late_json.code, 0, "{late_json:?}");
    assert_eq!(late_text.code, 0, "{late_text:?}");

    early_json.until(|l| l.contains("\"turn_completed\"")).await;
    early_json.signal(Signal::SIGINT);
    let early_json = early_json.finish().await;
    assert_eq!(early_json.code, 130, "{early_json:?}");
    assert_eq!(
        early_json.stdout, late_json.stdout,
        "stream-json transcripts differ"
    );

    // The text client attached from the start has printed everything once the JSON
    // one has (same events, same order); a client attached after the end agrees too.
    let after = w
        .run(&["attach", &id, "--output", "text", "--until-idle"])
        .await;
    assert_eq!(after.code, 0);
    assert_eq!(late_text.stdout, after.stdout, "text transcripts differ");
    assert!(late_text.stdout.contains(LONG), "{}", late_text.stdout);
    early_text
        .until(|l| l.contains("Answer") || l.contains(&LONG[LONG.len() - 20..]))
        .await;
    early_text.signal(Signal::SIGINT);
    let early_text = early_text.finish().await;
    assert!(
        early_text.stdout.starts_with(after.stdout.trim_end()),
        "early text client:\n{}\nafter:\n{}",
        early_text.stdout,
        after.stdout
    );

    // The stream-json transcript is the stored log, seq 1..N without gaps.
    let seqs: Vec<u64> = late_json
        .json_lines()
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
}
