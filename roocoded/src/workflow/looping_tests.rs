//! The tests of `looping`.

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
