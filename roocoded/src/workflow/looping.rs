//! The pure rules of `|loop|`: reading `|loop:3,fresh| task` into a [`LoopSpec`]
//! ([`spec`]), the prompt each round's worker gets ([`round_prompt`], [`seed`]), the
//! progress line shown after a round ([`progress_line`]), and when the loop ends early:
//! the worker says `LOOP_DONE` ([`done`]) or it has stalled ([`stalled`]). The engine
//! runs the rounds; nothing here does.
//!
//! | written | rounds | mode |
//! | --- | --- | --- |
//! | `\|loop\| task` | 5 | inherit |
//! | `\|loop:3\| task`, `\|loop iterations=3\| task` | 3 | inherit |
//! | `\|loop:3,fresh\| task`, `\|loop:fresh,3\| task` | 3 | fresh |
//! | `\|loop iterations=10 mode=inherit objective="all tests pass"\| task` | 10 | inherit |
//!
//! In `inherit` mode (the default) a round's worker is shown the previous round's
//! summary; in `fresh` mode it starts from the task alone and finds earlier rounds'
//! work only in the workspace.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::skills::Activation;

/// Rounds when none are written.
pub const DEFAULT_ROUNDS: u32 = 5;
/// The most rounds a loop runs; more are clamped with a notice.
pub const MAX_ROUNDS: u32 = 50;
/// The most characters of a round's summary handed to the next round ([`seed`]).
pub const SEED_CHARS: usize = 8_000;
/// How many rounds in a row that changed nothing stall the loop ([`stalled`]).
pub const STALL_ROUNDS: u32 = 2;
/// The most live loop agents under one root session (enforced by the engine).
pub const MAX_LIVE_PER_ROOT: usize = 30;

/// The marker a worker writes on a line of its own when the objective is met.
const DONE_MARKER: &str = "LOOP_DONE";
/// The longest gist in a [`progress_line`], in characters.
const GIST_CHARS: usize = 200;
/// The named arguments `|loop|` accepts.
const KEYS: [&str; 3] = ["iterations", "mode", "objective"];

/// How a round starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The round is shown the previous round's summary.
    Inherit,
    /// The round starts from the task alone.
    Fresh,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Inherit => "inherit",
            Mode::Fresh => "fresh",
        }
    }

    /// `inherit` or `fresh`, exactly.
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "inherit" => Some(Mode::Inherit),
            "fresh" => Some(Mode::Fresh),
            _ => None,
        }
    }
}

/// One loop, as the user asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopSpec {
    /// 1..=[`MAX_ROUNDS`].
    pub rounds: u32,
    pub mode: Mode,
    /// `objective=...`, trimmed and non-empty.
    pub objective: Option<String>,
    /// The message after the activation, trimmed and non-empty.
    pub task: String,
}

/// A [`LoopSpec`] and what the user should be told about how it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub spec: LoopSpec,
    /// E.g. "iterations=80 is more than 50: the loop runs 50 rounds".
    pub notices: Vec<String>,
}

/// Why `|loop|` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoopError {
    #[error("write the task after |loop|, e.g. |loop:3| make the tests pass")]
    EmptyTask,
    #[error(
        "|loop| has no argument `{key}`{}; it accepts iterations=N, mode=inherit|fresh \
         and objective=\"...\"",
        did_you_mean(.closest)
    )]
    UnknownKey {
        key: String,
        closest: Option<&'static str>,
    },
    #[error(
        "|loop| does not understand `{word}`: write a number of rounds (1 to {}) and/or \
         fresh or inherit, e.g. |loop:3,fresh|",
        MAX_ROUNDS
    )]
    UnknownWord { word: String },
    #[error(
        "{written} is not a number of rounds: write a whole number from 1 to {}",
        MAX_ROUNDS
    )]
    NotANumber { written: String },
    #[error("mode={value}: the mode is inherit or fresh")]
    BadMode { value: String },
    #[error("objective is empty: write objective=\"...\" or leave it out")]
    EmptyObjective,
    #[error("|loop| is given {what} twice, as {first} and {second}: write it once")]
    Conflict {
        what: &'static str,
        first: String,
        second: String,
    },
}

fn did_you_mean(closest: &Option<&'static str>) -> String {
    closest
        .map(|best| format!(" (did you mean `{best}`?)"))
        .unwrap_or_default()
}

/// A value given at most once: a second, different one is a [`LoopError::Conflict`].
struct Once<T> {
    what: &'static str,
    value: Option<(T, String)>,
}

impl<T: PartialEq> Once<T> {
    fn new(what: &'static str) -> Self {
        Once { what, value: None }
    }

    fn set(&mut self, value: T, written: String) -> Result<(), LoopError> {
        match &self.value {
            Some((old, _)) if *old == value => Ok(()),
            Some((_, first)) => Err(LoopError::Conflict {
                what: self.what,
                first: first.clone(),
                second: written,
            }),
            None => {
                self.value = Some((value, written));
                Ok(())
            }
        }
    }
}

/// The loop `activation` asks for, over `task` (the message after the activation).
///
/// Positional arguments are a round count and/or `fresh`/`inherit`, in any order;
/// named ones are `iterations=N`, `mode=inherit|fresh` and `objective=...`. A setting
/// given twice with different values (`|loop:3,4|`, `|loop:fresh,inherit|`, a named
/// key repeated, or a positional and a named count) is an error; given twice alike,
/// it is accepted. A count outside 1..=[`MAX_ROUNDS`] is clamped with a notice; one that is
/// not a whole number is an error. Empty positional arguments are skipped.
pub fn spec(activation: &Activation, task: &str) -> Result<Parsed, LoopError> {
    let mut count: Once<u64> = Once::new("the number of rounds");
    let mut mode: Once<Mode> = Once::new("the mode");
    let mut objective: Once<String> = Once::new("the objective");
    for word in activation.positional.iter().map(|w| w.trim()) {
        if word.is_empty() {
            continue;
        }
        if let Some(m) = Mode::parse(word) {
            mode.set(m, word.to_string())?;
        } else if let Some(n) = whole_number(word) {
            count.set(n, word.to_string())?;
        } else {
            return Err(LoopError::UnknownWord {
                word: word.to_string(),
            });
        }
    }
    for (key, value) in &activation.named {
        let value = value.trim();
        let written = format!("{key}={value}");
        match key.as_str() {
            "iterations" => {
                let n = whole_number(value).ok_or(LoopError::NotANumber {
                    written: written.clone(),
                })?;
                count.set(n, written)?;
            }
            "mode" => {
                let m = Mode::parse(value).ok_or_else(|| LoopError::BadMode {
                    value: value.to_string(),
                })?;
                mode.set(m, written)?;
            }
            "objective" if value.is_empty() => return Err(LoopError::EmptyObjective),
            "objective" => objective.set(value.to_string(), written)?,
            _ => {
                return Err(LoopError::UnknownKey {
                    key: key.clone(),
                    closest: roocode_protocol::command::closest(key, &KEYS)
                        .first()
                        .copied(),
                });
            }
        }
    }
    let task = task.trim();
    if task.is_empty() {
        return Err(LoopError::EmptyTask);
    }
    let mut notices = Vec::new();
    let rounds = match count.value {
        None => DEFAULT_ROUNDS,
        Some((0, written)) => {
            notices.push(format!("{written} is not a loop: the loop runs 1 round"));
            1
        }
        Some((n, written)) if n > u64::from(MAX_ROUNDS) => {
            notices.push(format!(
                "{written} is more than {MAX_ROUNDS}: the loop runs {MAX_ROUNDS} rounds"
            ));
            MAX_ROUNDS
        }
        Some((n, _)) => u32::try_from(n).unwrap_or(MAX_ROUNDS),
    };
    Ok(Parsed {
        spec: LoopSpec {
            rounds,
            mode: mode.value.map_or(Mode::Inherit, |(m, _)| m),
            objective: objective.value.map(|(o, _)| o),
            task: task.to_string(),
        },
        notices,
    })
}

/// `word` as a whole number of ASCII digits (one too large for u64 reads as u64::MAX,
/// which is clamped like any count over the maximum).
fn whole_number(word: &str) -> Option<u64> {
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().unwrap_or(u64::MAX))
}

/// The part of a round's summary handed to the next round: the summary, trimmed,
/// cut to its first [`SEED_CHARS`] characters (not bytes) with a note appended when
/// longer. Pass the result to [`round_prompt`] as it is.
pub fn seed(previous_summary: &str) -> String {
    let summary = previous_summary.trim();
    match summary.char_indices().nth(SEED_CHARS) {
        None => summary.to_string(),
        Some((cut, _)) => format!(
            "{}\n[… summary cut at {},{:03} characters]",
            &summary[..cut],
            SEED_CHARS / 1000,
            SEED_CHARS % 1000
        ),
    }
}

/// The task a round's worker gets: the task, the objective if any, which round this
/// is, in `inherit` mode the previous round's [`seed`] in a `<previous-round>` block
/// (ignored in `fresh` mode, and absent in the first round), and how to end: a short
/// summary of what changed and what is left, and `LOOP_DONE` on a line of its own
/// once the objective (or, without one, the task) is met.
pub fn round_prompt(spec: &LoopSpec, round: u32, seed: Option<&str>) -> String {
    let mut prompt = format!("{}\n\n", spec.task);
    if let Some(objective) = &spec.objective {
        prompt.push_str(&format!("Objective: {objective}\n\n"));
    }
    prompt.push_str(&format!(
        "This is round {round} of {} of a loop working on this task.",
        spec.rounds
    ));
    match (spec.mode, seed.map(str::trim).filter(|s| !s.is_empty())) {
        (Mode::Inherit, Some(previous)) => prompt.push_str(&format!(
            " The previous round ended with this summary:\n\n\
             <previous-round>\n{previous}\n</previous-round>\n\n"
        )),
        (Mode::Inherit, None) => prompt.push_str("\n\n"),
        (Mode::Fresh, _) => prompt
            .push_str(" Earlier rounds' work, if any, is in the workspace: look there first.\n\n"),
    }
    let goal = if spec.objective.is_some() {
        "the objective is met"
    } else {
        "the task is complete"
    };
    prompt.push_str(&format!(
        "End your answer with a short summary of what you changed and what is left to do. \
         When {goal}, also write {DONE_MARKER} on a line of its own."
    ));
    prompt
}

/// `[loop round i/N] gist`: the gist is the summary's first non-blank line, trimmed,
/// cut to 200 characters (with `…`); `(no summary)` when there is none.
pub fn progress_line(round: u32, rounds: u32, summary: &str) -> String {
    let line = summary
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("(no summary)");
    let gist = match line.char_indices().nth(GIST_CHARS) {
        None => line.to_string(),
        Some(_) => {
            let keep: String = line.chars().take(GIST_CHARS - 1).collect();
            format!("{keep}…")
        }
    };
    format!("[loop round {round}/{rounds}] {gist}")
}

/// What a finished round left behind, to tell a stalled loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundFingerprint {
    /// [`fnv`] of the round's summary.
    pub summary_hash: u64,
    /// A digest of the files the round changed; `None` when unknown.
    pub workspace: Option<String>,
}

/// Whether the loop has stalled: the last [`STALL_ROUNDS`] rounds each changed nothing
/// relative to the round before, i.e. the last `STALL_ROUNDS + 1` fingerprints (three)
/// are equal in both fields. An unknown workspace (`None`) equals only another unknown
/// one, so rounds whose workspace is unknown stall on their summaries alone. Fewer
/// than three rounds never stall.
pub fn stalled(history: &[RoundFingerprint]) -> bool {
    let window = STALL_ROUNDS as usize + 1;
    history.len() >= window
        && history[history.len() - window..]
            .windows(2)
            .all(|pair| pair[0] == pair[1])
}

/// Whether the worker declared the objective met: a line of `summary` that is exactly
/// `LOOP_DONE` once trimmed.
pub fn done(summary: &str) -> bool {
    summary.lines().any(|line| line.trim() == DONE_MARKER)
}

pub use super::fnv;

#[cfg(test)]
#[path = "looping_tests.rs"]
mod tests;
