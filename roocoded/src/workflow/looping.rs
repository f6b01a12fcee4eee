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
mod tests {
    use super::*;

    fn activation(positional: &[&str], named: &[(&str, &str)]) -> Activation {
        Activation {
            name: "loop".to_string(),
            positional: positional.iter().map(|s| s.to_string()).collect(),
            named: named
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            raw: String::new(),
        }
    }

    fn loop_spec(rounds: u32, mode: Mode, objective: Option<&str>) -> LoopSpec {
        LoopSpec {
            rounds,
            mode,
            objective: objective.map(str::to_string),
            task: "fix it".to_string(),
        }
    }

    #[test]
    fn activations_read_into_specs() {
        let cases: Vec<(Activation, LoopSpec, Vec<&str>)> = vec![
            (
                activation(&[], &[]),
                loop_spec(5, Mode::Inherit, None),
                vec![],
            ),
            (
                activation(&["3"], &[]),
                loop_spec(3, Mode::Inherit, None),
                vec![],
            ),
            (
                activation(&["3", "fresh"], &[]),
                loop_spec(3, Mode::Fresh, None),
                vec![],
            ),
            (
                activation(&["fresh", "3"], &[]),
                loop_spec(3, Mode::Fresh, None),
                vec![],
            ),
            (
                activation(&["fresh"], &[]),
                loop_spec(5, Mode::Fresh, None),
                vec![],
            ),
            (
                activation(&["", "inherit"], &[]),
                loop_spec(5, Mode::Inherit, None),
                vec![],
            ),
            (
                activation(&["50"], &[]),
                loop_spec(50, Mode::Inherit, None),
                vec![],
            ),
            (
                activation(
                    &[],
                    &[
                        ("iterations", "10"),
                        ("mode", "inherit"),
                        ("objective", " all tests pass "),
                    ],
                ),
                loop_spec(10, Mode::Inherit, Some("all tests pass")),
                vec![],
            ),
            (
                activation(&["3", "3"], &[("iterations", "3"), ("mode", "fresh")]),
                loop_spec(3, Mode::Fresh, None),
                vec![],
            ),
            (
                activation(&[], &[("iterations", "80")]),
                loop_spec(50, Mode::Inherit, None),
                vec!["iterations=80 is more than 50: the loop runs 50 rounds"],
            ),
            (
                activation(&["99999999999999999999999"], &[]),
                loop_spec(50, Mode::Inherit, None),
                vec!["99999999999999999999999 is more than 50: the loop runs 50 rounds"],
            ),
            (
                activation(&["0"], &[]),
                loop_spec(1, Mode::Inherit, None),
                vec!["0 is not a loop: the loop runs 1 round"],
            ),
        ];
        for (activation, expected, notices) in cases {
            let parsed = spec(&activation, "  fix it \n").expect("reads");
            assert_eq!(parsed.spec, expected, "{activation:?}");
            assert_eq!(parsed.notices, notices, "{activation:?}");
        }
    }

    #[test]
    fn bad_activations_are_explained() {
        let cases = [
            (
                activation(&[], &[]),
                "  ",
                "write the task after |loop|, e.g. |loop:3| make the tests pass",
            ),
            (activation(&["3"], &[]), "", "write the task after |loop|"),
            (
                activation(&["three"], &[]),
                "t",
                "does not understand `three`",
            ),
            (activation(&["-3"], &[]), "t", "does not understand `-3`"),
            (
                activation(&["Fresh"], &[]),
                "t",
                "does not understand `Fresh`",
            ),
            (
                activation(&[], &[("iterations", "ten")]),
                "t",
                "iterations=ten is not a number of rounds",
            ),
            (
                activation(&[], &[("iterations", "")]),
                "t",
                "iterations= is not a number",
            ),
            (
                activation(&[], &[("mode", "stale")]),
                "t",
                "mode=stale: the mode is inherit or fresh",
            ),
            (
                activation(&[], &[("objective", "  ")]),
                "t",
                "objective is empty",
            ),
            (
                activation(&[], &[("iteration", "3")]),
                "t",
                "no argument `iteration` (did you mean `iterations`?); \
                 it accepts iterations=N, mode=inherit|fresh and objective=",
            ),
            (
                activation(&[], &[("rounds", "3")]),
                "t",
                "no argument `rounds`; it accepts",
            ),
            (
                activation(&["3"], &[("iterations", "4")]),
                "t",
                "given the number of rounds twice, as 3 and iterations=4",
            ),
            (
                activation(&["3", "4"], &[]),
                "t",
                "the number of rounds twice",
            ),
            (
                activation(&["fresh"], &[("mode", "inherit")]),
                "t",
                "the mode twice, as fresh and mode=inherit",
            ),
            (
                activation(&[], &[("objective", "a"), ("objective", "b")]),
                "t",
                "the objective twice",
            ),
        ];
        for (activation, task, fragment) in cases {
            let message = spec(&activation, task).expect_err(fragment).to_string();
            assert!(message.contains(fragment), "{message}");
        }
    }

    #[test]
    fn modes_round_trip() {
        for mode in [Mode::Inherit, Mode::Fresh] {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
            let json = serde_json::to_string(&mode).expect("serializes");
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
        }
        assert_eq!(Mode::parse("other"), None);
    }

    #[test]
    fn seeds_are_capped_in_characters() {
        assert_eq!(seed("  short \n"), "short");
        let exact = "é".repeat(SEED_CHARS);
        assert_eq!(seed(&exact), exact);
        let long = format!("{}{}", "é".repeat(SEED_CHARS), "tail");
        let cut = seed(&long);
        assert_eq!(
            cut,
            format!(
                "{}\n[… summary cut at 8,000 characters]",
                "é".repeat(SEED_CHARS)
            )
        );
        assert!(!cut.contains("tail"));
    }

    #[test]
    fn round_prompts_say_what_the_round_needs() {
        let inherit = LoopSpec {
            objective: Some("all tests pass".to_string()),
            ..loop_spec(3, Mode::Inherit, None)
        };
        let prompt = round_prompt(&inherit, 2, Some("changed a.rs\nleft: b.rs"));
        for fragment in [
            "fix it\n",
            "Objective: all tests pass",
            "This is round 2 of 3",
            "<previous-round>\nchanged a.rs\nleft: b.rs\n</previous-round>",
            "short summary of what you changed and what is left",
            "When the objective is met, also write LOOP_DONE on a line of its own",
        ] {
            assert!(prompt.contains(fragment), "{fragment}: {prompt}");
        }
        assert!(prompt.starts_with("fix it"));

        let first = round_prompt(&inherit, 1, None);
        assert!(!first.contains("<previous-round>"), "{first}");
        assert!(!round_prompt(&inherit, 2, Some("  ")).contains("<previous-round>"));

        let fresh = loop_spec(4, Mode::Fresh, None);
        let prompt = round_prompt(&fresh, 4, Some("ignored summary"));
        assert!(!prompt.contains("ignored summary"), "{prompt}");
        assert!(!prompt.contains("Objective:"), "{prompt}");
        assert!(prompt.contains("This is round 4 of 4"), "{prompt}");
        assert!(
            prompt.contains("When the task is complete, also write LOOP_DONE"),
            "{prompt}"
        );
    }

    #[test]
    fn progress_lines_carry_a_one_line_gist() {
        let long = "x".repeat(300);
        let cases = [
            (
                1,
                5,
                "Fixed the parser.\nLeft: tests",
                "[loop round 1/5] Fixed the parser.",
            ),
            (
                2,
                5,
                "\n\n   indented first  \nsecond",
                "[loop round 2/5] indented first",
            ),
            (3, 3, "", "[loop round 3/3] (no summary)"),
        ];
        for (round, rounds, summary, expected) in cases {
            assert_eq!(progress_line(round, rounds, summary), expected);
        }
        let line = progress_line(1, 2, &long);
        let gist = line.strip_prefix("[loop round 1/2] ").expect("prefix");
        assert_eq!(gist.chars().count(), 200);
        assert!(gist.ends_with('…'));
        let exact = "y".repeat(200);
        assert_eq!(
            progress_line(1, 2, &exact),
            format!("[loop round 1/2] {exact}")
        );
    }

    fn print(summary_hash: u64, workspace: Option<&str>) -> RoundFingerprint {
        RoundFingerprint {
            summary_hash,
            workspace: workspace.map(str::to_string),
        }
    }

    #[test]
    fn stalls_after_two_rounds_that_changed_nothing() {
        let cases: Vec<(Vec<RoundFingerprint>, bool)> = vec![
            (vec![], false),
            (vec![print(1, Some("a")), print(1, Some("a"))], false),
            (vec![print(1, Some("a")); 3], true),
            (vec![print(1, None); 3], true),
            (
                vec![
                    print(9, Some("z")),
                    print(1, Some("a")),
                    print(1, Some("a")),
                    print(1, Some("a")),
                ],
                true,
            ),
            (
                vec![
                    print(1, Some("a")),
                    print(1, Some("a")),
                    print(2, Some("a")),
                ],
                false,
            ),
            (
                vec![
                    print(1, Some("a")),
                    print(1, Some("b")),
                    print(1, Some("b")),
                ],
                false,
            ),
            (
                vec![print(1, Some("a")), print(1, None), print(1, None)],
                false,
            ),
            (
                vec![print(1, None), print(1, Some("a")), print(1, Some("a"))],
                false,
            ),
            (
                vec![
                    print(1, Some("a")),
                    print(1, Some("a")),
                    print(1, Some("a")),
                    print(2, Some("a")),
                ],
                false,
            ),
        ];
        for (history, expected) in cases {
            assert_eq!(stalled(&history), expected, "{history:?}");
        }
    }

    #[test]
    fn done_needs_the_marker_on_its_own_line() {
        let cases = [
            ("All green.\nLOOP_DONE", true),
            ("LOOP_DONE", true),
            ("summary\n   LOOP_DONE  \nmore", true),
            ("summary\r\nLOOP_DONE\r\n", true),
            ("not yet LOOP_DONE", false),
            ("`LOOP_DONE`", false),
            ("loop_done", false),
            ("", false),
        ];
        for (summary, expected) in cases {
            assert_eq!(done(summary), expected, "{summary:?}");
        }
    }

    #[test]
    fn fnv_is_fnv1a_64() {
        let cases = [
            ("", 0xcbf2_9ce4_8422_2325),
            ("a", 0xaf63_dc4c_8601_ec8c),
            ("foobar", 0x8594_4171_f739_67e8),
        ];
        for (text, expected) in cases {
            assert_eq!(fnv(text), expected, "{text:?}");
        }
        assert_ne!(fnv("round one"), fnv("round two"));
    }
}
