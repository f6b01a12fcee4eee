//! Keys to actions: sending, commands, cancel, exit, modes, the panel, dialogs,
//! completion, paste and scrolling.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use roocode_protocol::event::EventPayload;
use roocode_protocol::session::{PendingRequest, PermissionDecision};
use serde_json::json;

use super::tests::{delta, lines, permission_request};
use super::*;
use crate::test_support::{alt, app, ctrl, draw, ev, key, type_text};

fn running(a: &mut App) {
    a.on_event(&ev(
        a.last_seq() + 1,
        EventPayload::TurnStarted {
            turn_id: "T".into(),
        },
    ));
}

#[test]
fn enter_sends_and_known_slash_commands_are_commands() {
    let mut a = app();
    type_text(&mut a, "fix it");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Send("fix it".into())]
    );
    type_text(&mut a, "/mode plan");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Command("/mode plan".into())]
    );
    type_text(&mut a, "/usr/bin is broken");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Send("/usr/bin is broken".into())]
    );
}

#[test]
fn starting_a_command_reads_the_command_list_again() {
    let mut a = app();
    assert_eq!(a.on_key(key(KeyCode::Char('/'))), [Action::RefreshCommands]);
    assert!(a.on_key(key(KeyCode::Char('r'))).is_empty());
    a.on_key(key(KeyCode::Backspace));
    a.on_key(key(KeyCode::Backspace));
    type_text(&mut a, "a/");
    assert!(
        !a.on_key(key(KeyCode::Char('b')))
            .contains(&Action::RefreshCommands),
        "only a line that starts a command"
    );
}

#[test]
fn typing_while_working_is_allowed() {
    let mut a = app();
    running(&mut a);
    type_text(&mut a, "also the docs");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Send("also the docs".into())]
    );
}

#[test]
fn esc_cancels_a_running_turn_only() {
    let mut a = app();
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    running(&mut a);
    assert_eq!(a.on_key(key(KeyCode::Esc)), [Action::Cancel]);
}

#[test]
fn esc_closes_completion_then_cancels() {
    let mut a = app();
    running(&mut a);
    type_text(&mut a, "/co");
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    assert_eq!(a.on_key(key(KeyCode::Esc)), [Action::Cancel]);
}

#[test]
fn resume_leaves_for_the_picker_and_other_commands_go_to_the_daemon() {
    let mut a = app();
    type_text(&mut a, "/resume");
    assert_eq!(a.on_key(key(KeyCode::Enter)), [Action::Resume]);
    type_text(&mut a, "/cost");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Command("/cost".into())]
    );
}

#[test]
fn ctrl_c_exits_when_idle_and_empty() {
    let mut a = app();
    assert_eq!(a.on_key(ctrl('c')), [Action::Quit]);
    assert!(a.should_quit());
}

#[test]
fn ctrl_c_while_busy_clears_then_exits_on_the_second() {
    let mut a = app();
    running(&mut a);
    type_text(&mut a, "draft");
    assert!(a.on_key(ctrl('c')).is_empty());
    assert!(a.input.is_empty());
    assert_eq!(
        a.flash.as_ref().map(|f| f.text.as_str()),
        Some("press Ctrl+C again to exit")
    );
    assert_eq!(a.on_key(ctrl('c')), [Action::Quit]);
}

#[test]
fn the_second_ctrl_c_must_come_soon() {
    let mut a = app();
    running(&mut a);
    assert!(a.on_key(ctrl('c')).is_empty());
    for _ in 0..30 {
        a.on_tick();
    }
    assert!(a.flash.is_none());
    assert!(a.on_key(ctrl('c')).is_empty());
    assert!(!a.should_quit());
}

#[test]
fn shift_tab_cycles_modes() {
    let mut a = app();
    let back_tab = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(a.on_key(back_tab), [Action::SetMode("acceptEdits".into())]);
    assert_eq!(a.on_key(back_tab), [Action::SetMode("plan".into())]);
    assert_eq!(a.on_key(back_tab), [Action::SetMode("default".into())]);
    a.session.mode = roocode_protocol::Mode::BypassPermissions;
    assert_eq!(a.on_key(back_tab), [Action::SetMode("default".into())]);
}

#[test]
fn the_panel_refreshes_when_opened_and_opens_other_sessions_requests() {
    let mut a = app();
    assert_eq!(a.on_key(ctrl('p')), [Action::RefreshOverview]);
    let other = PendingRequest {
        request_id: "RX".into(),
        session_id: "OTHER".into(),
        kind: "permission".into(),
        tool: "Write".into(),
        summary: "notes.md".into(),
        reason: String::new(),
        input: json!({"file_path": "/w/notes.md", "content": "hi"}),
        created_at: String::new(),
        agent_id: None,
        agent_name: None,
    };
    a.set_overview(vec![other], vec![]);
    assert!(a.on_key(key(KeyCode::Enter)).is_empty());
    assert!(!a.panel.open);
    assert_eq!(
        a.on_key(key(KeyCode::Char('y'))),
        [Action::RespondPermission {
            request_id: "RX".into(),
            decision: PermissionDecision::Allow,
            feedback: None,
        }]
    );
    assert_eq!(a.on_key(ctrl('p')), [Action::RefreshOverview]);
    assert!(a.on_key(ctrl('p')).is_empty());
    assert!(!a.panel.open);
}

#[test]
fn deny_with_feedback_and_esc_hides_the_dialog() {
    let mut a = app();
    a.on_event(&permission_request(1, "R"));
    // Keys go to the dialog, not the input.
    assert!(a.on_key(key(KeyCode::Char('x'))).is_empty());
    assert!(a.input.is_empty());
    assert!(a.on_key(key(KeyCode::Esc)).is_empty());
    assert!(a.prompts.shown().is_none());
    assert_eq!(a.prompts.hidden(), 1);
    type_text(&mut a, "hm");
    assert_eq!(a.input.text(), "hm");
    // Reopened from the panel.
    a.on_key(ctrl('p'));
    a.set_overview(
        vec![PendingRequest {
            request_id: "R".into(),
            session_id: "S".into(),
            kind: "permission".into(),
            tool: "Bash".into(),
            summary: "cargo test".into(),
            reason: String::new(),
            input: json!({"command": "cargo test"}),
            created_at: String::new(),
            agent_id: None,
            agent_name: None,
        }],
        vec![],
    );
    a.on_key(key(KeyCode::Enter));
    a.on_key(key(KeyCode::Char('n')));
    a.on_paste("not now,\nuse nextest");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::RespondPermission {
            request_id: "R".into(),
            decision: PermissionDecision::Deny,
            feedback: Some("not now, use nextest".into()),
        }]
    );
}

#[test]
fn tab_completes_slash_commands() {
    let mut a = app();
    type_text(&mut a, "/co");
    assert!(a.on_key(key(KeyCode::Tab)).is_empty());
    assert_eq!(a.input.text(), "/cost ");
    let mut a = app();
    type_text(&mut a, "/mo");
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Tab));
    assert_eq!(a.input.text(), "/model ");
}

#[test]
fn enter_runs_the_selected_command() {
    let mut a = app();
    type_text(&mut a, "/co");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Command("/cost".into())]
    );
    assert!(a.input.is_empty());
    // A complete command line is sent as typed.
    type_text(&mut a, "/mode");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Command("/mode".into())]
    );
}

#[test]
fn with_nothing_waiting_the_panel_leaves_enter_to_the_input() {
    let mut a = app();
    a.on_key(ctrl('p'));
    a.set_overview(vec![], vec![]);
    type_text(&mut a, "hello");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Send("hello".into())]
    );
}

#[test]
fn paste_never_submits() {
    let mut a = app();
    a.on_paste("line one\nline two\n");
    assert_eq!(a.input.text(), "line one\nline two\n");
    assert_eq!(
        a.on_key(key(KeyCode::Enter)),
        [Action::Send("line one\nline two\n".into())]
    );
}

#[test]
fn alt_enter_inserts_a_newline() {
    let mut a = app();
    type_text(&mut a, "a");
    assert!(a.on_key(alt(KeyCode::Enter)).is_empty());
    type_text(&mut a, "b");
    assert_eq!(a.input.text(), "a\nb");
}

#[test]
fn scrolling_up_stops_following_until_end() {
    let mut a = app();
    for i in 0..40 {
        a.on_event(&ev(
            i + 1,
            EventPayload::UserMessage {
                turn_id: "T".into(),
                input_id: format!("I{i}"),
                text: format!("message {i}"),
            },
        ));
    }
    draw(&mut a, 60, 20);
    assert!(a.scroll.following());
    a.on_key(key(KeyCode::PageUp));
    assert!(!a.scroll.following());
    assert!(!a.scroll.new_output(&a.transcript));
    a.on_event(&delta(41, "more"));
    assert!(a.scroll.new_output(&a.transcript));
    // End with the cursor at the end of the (empty) input follows again.
    a.on_key(key(KeyCode::End));
    assert!(a.scroll.following());
    // The wheel scrolls up; scrolling down to the bottom follows again.
    let wheel = |kind| MouseEvent {
        kind,
        column: 0,
        row: 0,
        modifiers: KeyModifiers::NONE,
    };
    a.on_mouse(wheel(MouseEventKind::ScrollUp));
    assert!(!a.scroll.following());
    a.on_mouse(wheel(MouseEventKind::ScrollDown));
    assert!(a.scroll.following());
    a.on_key(key(KeyCode::PageUp));
    a.on_key(key(KeyCode::PageDown));
    assert!(a.scroll.following());
}

#[test]
fn ctrl_o_expands_every_tool_call() {
    let mut a = app();
    a.on_event(&super::tests::tool_call(1));
    assert_eq!(lines(&mut a).len(), 1);
    a.on_key(ctrl('o'));
    assert_eq!(lines(&mut a).len(), 2);
}

#[test]
fn key_releases_are_ignored() {
    let mut a = app();
    let mut k = key(KeyCode::Char('x'));
    k.kind = crossterm::event::KeyEventKind::Release;
    assert!(a.on_key(k).is_empty());
    assert!(a.input.is_empty());
}

/// Session `S` starts sub-agent `A1` (`scout`), in the foreground or background.
fn child_started(a: &mut App, background: bool) {
    let mut spawned = crate::bench_support::event(
        a.last_seq() + 1,
        EventPayload::AgentSpawned {
            name: "scout".into(),
            agent_type: "Explore".into(),
            description: "find tests".into(),
            background,
        },
    );
    spawned.agent_id = "A1".into();
    a.on_event(&spawned);
}

#[test]
fn ctrl_b_moves_the_foreground_agent_to_the_background_else_moves_the_cursor() {
    let mut a = app();
    running(&mut a);
    type_text(&mut a, "ab");
    // No sub-agent: Ctrl+B is cursor-left, as ever.
    assert!(a.on_key(ctrl('b')).is_empty());
    type_text(&mut a, "X");
    assert_eq!(a.input.text(), "aXb");

    child_started(&mut a, false);
    assert_eq!(a.on_key(ctrl('b')), [Action::BackgroundAgent("A1".into())]);
    assert_eq!(a.input.text(), "aXb", "the input is untouched");
    // Once it is in the background, Ctrl+B is the cursor's again.
    let mut moved = ev(a.last_seq() + 1, EventPayload::AgentBackgrounded);
    moved.agent_id = "A1".into();
    a.on_event(&moved);
    assert!(a.on_key(ctrl('b')).is_empty());
    type_text(&mut a, "Y");
    assert_eq!(a.input.text(), "aYXb");
    // Esc still cancels the turn.
    assert_eq!(a.on_key(key(KeyCode::Esc)), [Action::Cancel]);
}

#[test]
fn a_background_agent_does_not_take_ctrl_b() {
    let mut a = app();
    child_started(&mut a, true);
    type_text(&mut a, "ab");
    assert!(a.on_key(ctrl('b')).is_empty());
    type_text(&mut a, "X");
    assert_eq!(a.input.text(), "aXb");
}

#[test]
fn a_childs_permission_request_opens_the_dialog_labelled_with_its_name() {
    let mut a = app();
    child_started(&mut a, false);
    let mut req = ev(
        a.last_seq() + 1,
        EventPayload::PermissionRequest {
            request_id: "R1".into(),
            call_id: "CX".into(),
            tool: "Bash".into(),
            input: json!({"command": "rm -rf build"}),
            reason: "commands need approval".into(),
        },
    );
    req.agent_id = "A1".into();
    a.on_event(&req);
    let shown = a.prompts.shown().expect("the dialog shows the request");
    assert_eq!(shown.agent.as_deref(), Some("scout"));
    assert_eq!(shown.session_id, "S", "it belongs to the attached session");
    // Answered like the parent's own.
    assert_eq!(
        a.on_key(key(KeyCode::Char('y'))),
        [Action::RespondPermission {
            request_id: "R1".into(),
            decision: PermissionDecision::Allow,
            feedback: None
        }]
    );
    // The child waits meanwhile; Ctrl+B would still move it.
    assert_eq!(
        a.agents.rows()[0].state,
        roocode_protocol::agents::AgentState::Waiting
    );
}
