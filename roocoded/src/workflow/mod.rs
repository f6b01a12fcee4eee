//! Workflow functions (DESIGN.md §7, rolebox's pipeline): the pure rules behind skills
//! with state — the closed [`condition`] vocabulary their gates, transitions and
//! `continue_until` are written in, the [`looping`] rounds of `|loop|`, and the
//! [`graph`] of agents a `collaboration:` routes work through. Nothing here touches
//! the store or runs an agent: the engine (`crate::agent::workflow`) does.

pub mod condition;
pub mod graph;
pub mod looping;

/// A stable 64-bit fingerprint of a text (FNV-1a): what the model was last told of a
/// function, an artifact's version, a loop round's summary.
pub fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
