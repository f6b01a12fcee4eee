//! Property test of chain validity: random histories, interrupted at any point (the tail
//! cut off mid-iteration, results lost) and compacted at any boundary, always come out
//! of repair — and of compaction — as histories a provider accepts.

#![cfg(test)]
#![allow(clippy::unwrap_used)]

use roocode_protocol::content::{ContentBlock, Message, Role};
use serde_json::json;

use super::chain::{repair, validate};
use super::compact::{boundaries, compacted};

/// A valid history of `turns` turns, each with 0–4 iterations of 0–3 tool calls.
fn history(rng: &mut fastrand::Rng, turns: usize) -> Vec<Message> {
    let mut h = Vec::new();
    let mut n = 0;
    for t in 0..turns {
        h.push(Message::user_text(format!("task {t}")));
        for _ in 0..rng.usize(0..5) {
            let calls: Vec<ContentBlock> = (0..rng.usize(1..4))
                .map(|_| {
                    n += 1;
                    ContentBlock::ToolUse {
                        id: format!("c{n}"),
                        name: "Read".into(),
                        input: json!({"file_path": "a"}),
                    }
                })
                .collect();
            let results: Vec<ContentBlock> = calls
                .iter()
                .map(|c| match c {
                    ContentBlock::ToolUse { id, .. } => ContentBlock::ToolResult {
                        tool_use_id: id.clone(),
                        content: "ok".into(),
                        is_error: false,
                    },
                    _ => unreachable!(),
                })
                .collect();
            let mut content = vec![ContentBlock::text("looking")];
            content.extend(calls);
            h.push(Message {
                role: Role::Assistant,
                content,
            });
            h.push(Message {
                role: Role::User,
                content: results,
            });
        }
        h.push(Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text(format!("done {t}"))],
        });
    }
    h
}

/// Damage a crash or an interrupt can do: cut the tail anywhere, and sometimes lose
/// some results of the last message.
fn interrupt(rng: &mut fastrand::Rng, mut h: Vec<Message>) -> Vec<Message> {
    let keep = rng.usize(0..=h.len());
    h.truncate(keep);
    if rng.bool()
        && let Some(last) = h.last_mut()
        && last.role == Role::User
        && last.content.len() > 1
    {
        let drop = rng.usize(0..last.content.len());
        last.content.remove(drop);
    }
    h
}

#[test]
fn no_unpaired_history_survives_repair_or_compaction() {
    for seed in 0..2_000u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let turns = rng.usize(1..6);
        let valid = history(&mut rng, turns);
        validate(&valid).unwrap();

        let mut damaged = interrupt(&mut rng, valid.clone());
        repair(&mut damaged, "interrupted");
        validate(&damaged).unwrap_or_else(|e| panic!("seed {seed}: repair left {e}"));

        // Compact the repaired history at every boundary it has.
        for cut in boundaries(&damaged) {
            let c = compacted("summary", &damaged[cut..]);
            validate(&c).unwrap_or_else(|e| panic!("seed {seed}, cut {cut}: compaction left {e}"));
        }
        // And the undamaged one, then interrupt the compacted history again.
        if let Some(&cut) = boundaries(&valid).last() {
            let mut again = interrupt(&mut rng, compacted("summary", &valid[cut..]));
            repair(&mut again, "interrupted");
            validate(&again).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
}
