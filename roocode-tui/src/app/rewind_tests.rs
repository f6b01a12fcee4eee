//! Rewind in the app: `/rewind` and Esc Esc open the dialog (a single Esc keeps its
//! meaning), the dialog is modal, the daemon's answers move it on, an applied rewind
//! says what it did and gives the dropped prompt back, and the `rewound` event marks
//! the transcript.

use crossterm::event::KeyCode;
use roocode_protocol::event::EventPayload;
use roocode_protocol::rewind::RewindScope;

use super::tests::{lines, permission_request};
use super::*;
use crate::rewind::tests::{plan, turns};
use crate::rewind::{RewindRequest, Waiting};
use crate::test_support::{app, ev, key, type_text};

fn rewound(seq: u64, conversation: bool) -> roocode_protocol::event::Event {
    ev(
        seq,
        EventPayload::Rewound {
            turn: 2,
            files: true,
            conversation,
            restored: 1,
            removed: 1,
            kept: 0,
            messages_removed: if conversation { 8 } else { 0 },
        },
    )
}

#[test]
fn slash_rewind_opens_the_dialog_and_fetches_the_turns() {
    let mut a = app();
    type_text(&mut a, "/rewind");
    assert_eq!(a.on_key(key(KeyCode::Enter)), [Action::RewindTurns]);
    assert!(a.rewinding());
    assert!(a.input.is_empty());
    // Modal: typing goes to the dialog, not to the input.
    a.on_key(key(KeyCode::Char('x')));
    assert!(a.input.is_empty());
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    assert!(!a.rewinding());
}

#[test]
fn rewind_is_offered_by_completion_among_the_local_commands() {
    let mut a = app();
    type_text(&mut a, "/rew");
    let shown: Vec<&str> = a
        .completion
        .visible(a.input.text(), &a.commands)
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(shown, ["rewind"]);
    // Enter on the list runs the selection: the TUI's own command.
    assert_eq!(a.on_key(key(KeyCode::Enter)), [Action::RewindTurns]);
    // A daemon's list that has it already is left alone; a prompt command of the
    // same name is shadowed.
    let mut listed = a.commands.clone();
    a.set_commands(listed.clone());
    assert_eq!(a.commands.iter().filter(|c| c.name == "rewind").count(), 1);
    listed.retain(|c| c.name != "rewind");
    let mut prompt = listed[0].clone();
    prompt.name = "rewind".into();
    prompt.kind = "prompt".into();
    listed.push(prompt);
    a.set_commands(listed);
    let rewinds: Vec<(&str, bool)> = a
        .commands
        .iter()
        .filter(|c| c.name == "rewind")
        .map(|c| (c.kind.as_str(), c.shadowed_by.is_some()))
        .collect();
    assert_eq!(rewinds, [("local", false), ("prompt", true)]);
}

#[test]
fn esc_esc_when_idle_opens_rewind_and_one_esc_does_nothing_new() {
    let mut a = app();
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    assert!(!a.rewinding(), "one Esc");
    assert_eq!(a.on_key(key(KeyCode::Esc)), [Action::RewindTurns]);
    assert!(a.rewinding());
    a.on_key(key(KeyCode::Esc));
    assert!(!a.rewinding(), "Esc closes it");

    // Too slow, or another key between: no pair.
    let mut a = app();
    a.on_key(key(KeyCode::Esc));
    for _ in 0..=ESC_ESC_TICKS {
        a.on_tick();
    }
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    let mut a = app();
    a.on_key(key(KeyCode::Esc));
    a.on_key(key(KeyCode::Char('a')));
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
}

#[test]
fn esc_still_cancels_a_running_turn_and_hides_completion() {
    let mut a = app();
    a.on_event(&ev(
        1,
        EventPayload::TurnStarted {
            turn_id: "T".into(),
        },
    ));
    assert_eq!(a.on_key(key(KeyCode::Esc)), [Action::Cancel]);
    assert_eq!(a.on_key(key(KeyCode::Esc)), [Action::Cancel]);
    assert!(!a.rewinding());
    let mut a = app();
    type_text(&mut a, "/co");
    assert!(a.on_key(key(KeyCode::Esc)).is_empty(), "hides the list");
    assert!(
        a.on_key(key(KeyCode::Esc)).is_empty(),
        "the pair starts here"
    );
    assert!(!a.rewinding());
}

#[test]
fn a_turn_is_chosen_its_plan_shown_and_the_rewind_applied() {
    let mut a = app();
    a.open_rewind();
    a.set_turns(turns());
    let actions = a.on_key(key(KeyCode::Enter));
    assert_eq!(
        actions,
        [Action::Rewind(RewindRequest {
            to: 3,
            scope: RewindScope::Both,
            apply: false,
            workspace: None,
            overwrite_conflicts: false,
        })]
    );
    a.rewind_answer(plan(3, RewindScope::Both));
    let actions = a.on_key(key(KeyCode::Enter));
    assert!(matches!(
        &actions[..],
        [Action::Rewind(RewindRequest { apply: true, workspace: Some(w), .. })] if w == "W1"
    ));
    let mut done = plan(3, RewindScope::Both);
    done.applied = true;
    done.restored = vec!["src/parser.rs".into()];
    done.kept = vec!["tests/parse.rs".into()];
    a.rewind_answer(done);
    assert!(!a.rewinding());
    assert_eq!(
        a.input.text(),
        "fix the failing test",
        "the prompt comes back"
    );
    let text = lines(&mut a).join("\n");
    assert!(
        text.contains("restored src/parser.rs · kept tests/parse.rs"),
        "{text}"
    );
}

#[test]
fn a_draft_in_the_input_is_kept_and_the_prompt_shown_instead() {
    let mut a = app();
    type_text(&mut a, "my draft");
    let mut done = plan(3, RewindScope::Both);
    done.applied = true;
    a.rewind_answer(done);
    assert_eq!(a.input.text(), "my draft");
    let text = lines(&mut a).join("\n");
    assert!(
        text.contains("no longer holds the prompt of turn 3"),
        "{text}"
    );
}

#[test]
fn refusals_show_in_the_dialog_or_in_the_conversation() {
    let mut a = app();
    a.open_rewind();
    a.set_turns(turns());
    a.on_key(key(KeyCode::Enter));
    a.rewind_failed("cannot rewind while a turn is running");
    let d = a.rewind.as_ref().unwrap();
    assert_eq!(d.waiting, None);
    assert!(
        d.error
            .as_deref()
            .unwrap()
            .contains("while a turn is running")
    );
    a.rewind = None;
    a.rewind_failed("no turn to rewind");
    assert!(
        lines(&mut a)
            .join("\n")
            .contains("error: no turn to rewind")
    );
}

#[test]
fn a_request_dialog_takes_the_keys_over_the_rewind_dialog() {
    let mut a = app();
    a.open_rewind();
    a.on_event(&permission_request(1, "R1"));
    let actions = a.on_key(key(KeyCode::Char('y')));
    assert!(matches!(&actions[..], [Action::RespondPermission { .. }]));
    assert!(a.rewinding());
    assert_eq!(a.rewind.as_ref().unwrap().waiting, Some(Waiting::Turns));
}

#[test]
fn the_rewound_event_marks_the_transcript() {
    let mut a = app();
    a.status.context_tokens = Some(1000);
    a.on_event(&rewound(1, false));
    assert_eq!(a.status.context_tokens, Some(1000));
    a.on_event(&rewound(2, true));
    assert_eq!(a.status.context_tokens, None, "the context changed");
    let text = lines(&mut a);
    assert!(
        text.join(" ")
            .starts_with("rewound the files to before turn 2: 1 file restored, 1 removed"),
        "{text:?}"
    );
    // Too long for 60 columns: the text wraps between two full rules.
    let rule = "─".repeat(60);
    let at = text.iter().position(|l| *l == rule).expect("a rule");
    assert!(
        text[at + 1].starts_with("rewound to before turn 2:"),
        "{text:?}"
    );
    assert!(
        text[at + 1..]
            .join(" ")
            .contains("conversation cut by 8 messages"),
        "{text:?}"
    );
    assert!(text[at + 2..].contains(&rule), "{text:?}");
}
