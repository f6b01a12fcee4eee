//! Property test of chain validity: random histories, interrupted at any point (the tail
//! cut off mid-iteration, results lost) and compacted at any boundary, always come out
//! of repair — and of compaction — as histories a provider accepts; and any history at
//! all, however mangled (a damaged or hand-edited import), comes out of repair valid.

#![cfg(test)]

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
                        images: Vec::new(),
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

/// Any message a damaged or hand-edited file could hold: random roles, and blocks of
/// every kind with ids from a small pool (so calls repeat ids and results answer
/// anything, in either role), empty messages included.
fn mangled(rng: &mut fastrand::Rng) -> Vec<Message> {
    let id = |rng: &mut fastrand::Rng| format!("c{}", rng.usize(0..4));
    (0..rng.usize(0..8))
        .map(|_| {
            let content = (0..rng.usize(0..5))
                .map(|_| match rng.usize(0..3) {
                    0 => ContentBlock::text("words"),
                    1 => ContentBlock::ToolUse {
                        id: id(rng),
                        name: "Read".into(),
                        input: json!({}),
                    },
                    _ => ContentBlock::ToolResult {
                        tool_use_id: id(rng),
                        content: "ok".into(),
                        is_error: rng.bool(),
                        images: Vec::new(),
                    },
                })
                .collect();
            let role = if rng.bool() {
                Role::User
            } else {
                Role::Assistant
            };
            Message { role, content }
        })
        .collect()
}

#[test]
fn repair_makes_any_history_at_all_valid() {
    for seed in 0..20_000u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut h = mangled(&mut rng);
        let before = h.clone();
        repair(&mut h, "lost");
        validate(&h).unwrap_or_else(|e| panic!("seed {seed}: {e} in {before:?} → {h:?}"));
        // and repairing a valid history changes nothing
        let again = h.clone();
        assert!(!repair(&mut h, "lost").changed(), "seed {seed}");
        assert_eq!(h, again);
    }
}
