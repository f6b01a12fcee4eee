//! The rewind dialog of `/rewind` (and of Esc Esc when idle): undo a turn of the
//! session with every later one. Two views, with a request to the daemon between them:
//!
//! 1. the session's turns (`session.turns`), oldest first, the last one that can be
//!    rewound selected; turns undone by an earlier rewind, and those without a
//!    snapshot, are shown dimmed and skipped. Enter asks for the plan of the selected
//!    turn;
//! 2. the plan (`session.rewind` with `apply: false`): each file with its action and
//!    diff, the conflicts (files someone else changed since: kept unless `o` says to
//!    overwrite them), what the snapshots cannot restore, the messages the
//!    conversation loses and the prompt that began the turn. `f`, `c`, `b` choose the
//!    scope (files, conversation, both: the default) and ask for the plan again, `r`
//!    refreshes it, Enter applies it (with the plan's workspace id, so that a tree
//!    changed meanwhile is refused), Esc goes back to the turns.
//!
//! State only, as [`crate::app::App`] is: keys return [`RewindKey`]s, and the binary
//! performs the [`RewindRequest`]s and hands back the turns, the plan or the failure.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use roocode_protocol::rewind::{RewindPlan, RewindScope, TurnSummary};

/// What the dialog asks the daemon (`session.rewind` of the attached session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindRequest {
    pub to: u32,
    pub scope: RewindScope,
    /// `false`: the plan only.
    pub apply: bool,
    /// With `apply`: the plan's workspace id.
    pub workspace: Option<String>,
    pub overwrite_conflicts: bool,
}

/// What the dialog waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    Turns,
    Plan,
    Apply,
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewindKey {
    Handled,
    /// Esc on the turns (or Enter on a plan that changes nothing): close the dialog.
    Close,
    /// Ask the daemon this.
    Request(RewindRequest),
}

/// The dialog's state.
#[derive(Debug, Clone, Default)]
pub struct RewindDialog {
    /// The session's turns, oldest first (empty while loading).
    pub turns: Vec<TurnSummary>,
    /// The selected turn (an index into `turns`).
    pub selected: usize,
    /// The first turn row drawn, and how many rows the last frame showed.
    pub offset: usize,
    pub page: usize,
    pub scope: RewindScope,
    /// The plan shown (the second view), if any.
    pub plan: Option<RewindPlan>,
    /// Overwrite the conflicts too (`o`).
    pub overwrite: bool,
    /// The first line of the plan drawn, and how many lines the last frame showed.
    pub scroll: usize,
    pub plan_page: usize,
    pub waiting: Option<Waiting>,
    /// The daemon's refusal of the last request.
    pub error: Option<String>,
}

/// Whether a turn can be chosen: it has a snapshot and no rewind undid it yet.
pub fn selectable(turn: &TurnSummary) -> bool {
    turn.rewindable && !turn.rewound
}

impl RewindDialog {
    /// A dialog waiting for the session's turns.
    pub fn loading() -> Self {
        RewindDialog {
            waiting: Some(Waiting::Turns),
            page: 10,
            plan_page: 10,
            ..RewindDialog::default()
        }
    }

    /// The session's turns arrived: the last one that can be rewound is selected.
    pub fn set_turns(&mut self, turns: Vec<TurnSummary>) {
        self.selected = turns
            .iter()
            .rposition(selectable)
            .unwrap_or(turns.len().saturating_sub(1));
        self.turns = turns;
        self.offset = 0;
        if self.waiting == Some(Waiting::Turns) {
            self.waiting = None;
        }
    }

    /// A plan arrived (`apply: false`); ignored unless one was asked for.
    pub fn set_plan(&mut self, plan: RewindPlan) {
        if self.waiting != Some(Waiting::Plan) {
            return;
        }
        self.waiting = None;
        self.scope = plan.scope;
        if roocode_client::rewind::conflicts(&plan) == 0 {
            self.overwrite = false;
        }
        let same_turn = self.plan.as_ref().is_some_and(|p| p.turn == plan.turn);
        if !same_turn {
            self.scroll = 0;
        }
        self.plan = Some(plan);
    }

    /// The daemon refused the last request (a turn runs, the tree changed…).
    pub fn failed(&mut self, message: &str) {
        self.waiting = None;
        self.error = Some(message.to_owned());
        // The scope shown is the plan's again: Enter applies that plan.
        if let Some(plan) = &self.plan {
            self.scope = plan.scope;
        }
    }

    /// The selected turn, if it can be chosen.
    pub fn chosen(&self) -> Option<&TurnSummary> {
        self.turns.get(self.selected).filter(|t| selectable(t))
    }

    pub fn key(&mut self, key: KeyEvent) -> RewindKey {
        if !key.modifiers.difference(KeyModifiers::SHIFT).is_empty() {
            return RewindKey::Handled;
        }
        if let KeyCode::Char(c @ ('f' | 'c' | 'b')) = key.code {
            // One request at a time: the scope shown is always the plan's or the one
            // asked for.
            if self.waiting.is_some() {
                return RewindKey::Handled;
            }
            let scope = match c {
                'f' => RewindScope::Files,
                'c' => RewindScope::Conversation,
                _ => RewindScope::Both,
            };
            let changed = scope != self.scope;
            self.scope = scope;
            return match &self.plan {
                Some(p) if changed => self.ask_plan(p.turn),
                _ => RewindKey::Handled,
            };
        }
        match &self.plan {
            None => self.turns_key(key),
            Some(_) => self.plan_key(key),
        }
    }

    fn turns_key(&mut self, key: KeyEvent) -> RewindKey {
        match key.code {
            KeyCode::Esc => return RewindKey::Close,
            KeyCode::Up | KeyCode::Char('k') => self.step(-1, 1),
            KeyCode::Down | KeyCode::Char('j') => self.step(1, 1),
            KeyCode::PageUp => self.step(-1, self.page.max(1)),
            KeyCode::PageDown => self.step(1, self.page.max(1)),
            KeyCode::Home => self.step(-1, self.turns.len()),
            KeyCode::End => self.step(1, self.turns.len()),
            KeyCode::Enter if self.waiting.is_none() => {
                if let Some(turn) = self.chosen().map(|t| t.number) {
                    return self.ask_plan(turn);
                }
            }
            _ => {}
        }
        RewindKey::Handled
    }

    fn plan_key(&mut self, key: KeyEvent) -> RewindKey {
        let Some(plan) = &self.plan else {
            return RewindKey::Handled;
        };
        let page = self.plan_page.max(1);
        match key.code {
            KeyCode::Esc => {
                self.plan = None;
                self.waiting = None;
                self.error = None;
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll += 1,
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll += page,
            KeyCode::Home => self.scroll = 0,
            KeyCode::End => self.scroll = usize::MAX / 2,
            KeyCode::Char('o') if roocode_client::rewind::conflicts(plan) > 0 => {
                self.overwrite = !self.overwrite;
            }
            KeyCode::Char('r') if self.waiting.is_none() => return self.ask_plan(plan.turn),
            KeyCode::Enter | KeyCode::Char('y') if self.waiting.is_none() => {
                if roocode_client::rewind::is_noop(plan) {
                    return RewindKey::Close;
                }
                let request = RewindRequest {
                    to: plan.turn,
                    scope: plan.scope,
                    apply: true,
                    workspace: Some(plan.workspace.clone()),
                    overwrite_conflicts: self.overwrite,
                };
                self.waiting = Some(Waiting::Apply);
                self.error = None;
                return RewindKey::Request(request);
            }
            _ => {}
        }
        RewindKey::Handled
    }

    /// Asks for the plan of `turn` in the dialog's scope.
    fn ask_plan(&mut self, turn: u32) -> RewindKey {
        self.waiting = Some(Waiting::Plan);
        self.error = None;
        RewindKey::Request(RewindRequest {
            to: turn,
            scope: self.scope,
            apply: false,
            workspace: None,
            overwrite_conflicts: false,
        })
    }

    /// Moves the selection `n` selectable turns in `dir` (-1 up, 1 down), stopping at
    /// the last selectable one in that direction.
    fn step(&mut self, dir: isize, n: usize) {
        let mut at = self.selected;
        for _ in 0..n {
            let next = (1..=self.turns.len()).find_map(|k| {
                let i = at.checked_add_signed(dir * k as isize)?;
                self.turns.get(i).filter(|t| selectable(t)).map(|_| i)
            });
            match next {
                Some(i) => at = i,
                None => break,
            }
        }
        self.selected = at;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use roocode_protocol::rewind::{FileAction, FileRewind};

    pub fn turn(number: u32, prompt: &str, files: &[&str]) -> TurnSummary {
        TurnSummary {
            number,
            turn_id: format!("T{number}"),
            started_at: 1_796_040_000_000 + i64::from(number) * 60_000,
            prompt: prompt.to_owned(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            rewindable: true,
            rewound: false,
        }
    }

    /// Five turns: 1 without a snapshot, 2 and 3 rewindable, 4 and 5 undone already.
    pub fn turns() -> Vec<TurnSummary> {
        let mut t = vec![
            turn(1, "explain the parser", &[]),
            turn(
                2,
                "fix the failing test",
                &["src/parser.rs", "tests/parse.rs"],
            ),
            turn(3, "and add a test for empty input", &["tests/parse.rs"]),
            turn(4, "rename Lexer to Scanner", &["src/lexer.rs"]),
            turn(5, "run cargo fmt", &[]),
        ];
        t[0].rewindable = false;
        t[3].rewound = true;
        t[4].rewound = true;
        t
    }

    pub fn plan(turn: u32, scope: RewindScope) -> RewindPlan {
        RewindPlan {
            session_id: "S".into(),
            turn,
            last_turn: 5,
            scope,
            workspace: "W1".into(),
            files: vec![
                FileRewind {
                    path: "src/parser.rs".into(),
                    action: FileAction::Restore,
                    conflict: None,
                    diff: Some(
                        "--- a/src/parser.rs\n+++ b/src/parser.rs\n@@ -1,2 +1,2 @@\n fn parse() {\n-    let input = ensure_newline(input);\n+    let lexer = Lexer::new(input);\n"
                            .into(),
                    ),
                },
                FileRewind {
                    path: "tests/parse.rs".into(),
                    action: FileAction::Remove,
                    conflict: Some(
                        "changed after turn 3 by someone else (you, or another session)".into(),
                    ),
                    diff: None,
                },
            ],
            not_restorable: vec![roocode_protocol::rewind::NotRestorable {
                path: ".env".into(),
                why: "usually holds credentials: never copied".into(),
            }],
            notes: Vec::new(),
            messages_removed: 8,
            prompt: "fix the failing test".into(),
            applied: false,
            restored: vec![],
            removed: vec![],
            kept: vec![],
            refused: vec![],
        }
    }

    use crate::test_support::key;

    fn request(k: RewindKey) -> RewindRequest {
        match k {
            RewindKey::Request(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_last_turn_that_can_be_rewound_is_selected_and_others_are_skipped() {
        let mut d = RewindDialog::loading();
        assert_eq!(d.key(key(KeyCode::Enter)), RewindKey::Handled, "loading");
        d.set_turns(turns());
        assert_eq!(d.waiting, None);
        assert_eq!(d.chosen().map(|t| t.number), Some(3));
        d.key(key(KeyCode::Down));
        assert_eq!(d.selected, 2, "4 and 5 were rewound");
        d.key(key(KeyCode::Up));
        assert_eq!(d.selected, 1);
        d.key(key(KeyCode::Up));
        assert_eq!(d.selected, 1, "turn 1 has no snapshot");
        d.key(key(KeyCode::End));
        assert_eq!(d.selected, 2);
        assert_eq!(d.key(key(KeyCode::Esc)), RewindKey::Close);
    }

    #[test]
    fn enter_asks_for_the_plan_and_enter_again_applies_it_with_its_workspace() {
        let mut d = RewindDialog::loading();
        d.set_turns(turns());
        d.key(key(KeyCode::Up));
        let r = request(d.key(key(KeyCode::Enter)));
        assert_eq!(
            r,
            RewindRequest {
                to: 2,
                scope: RewindScope::Both,
                apply: false,
                workspace: None,
                overwrite_conflicts: false
            }
        );
        assert_eq!(d.key(key(KeyCode::Enter)), RewindKey::Handled, "waiting");
        d.set_plan(plan(2, RewindScope::Both));
        let r = request(d.key(key(KeyCode::Enter)));
        assert!(r.apply && r.to == 2 && !r.overwrite_conflicts);
        assert_eq!(r.workspace.as_deref(), Some("W1"));
        assert_eq!(d.waiting, Some(Waiting::Apply));
    }

    #[test]
    fn the_scope_asks_again_and_conflicts_are_kept_unless_o() {
        let mut d = RewindDialog::loading();
        d.set_turns(turns());
        d.key(key(KeyCode::Enter));
        d.set_plan(plan(3, RewindScope::Both));
        let r = request(d.key(key(KeyCode::Char('f'))));
        assert!(!r.apply && r.scope == RewindScope::Files && r.to == 3);
        assert_eq!(d.key(key(KeyCode::Char('f'))), RewindKey::Handled);
        d.set_plan(plan(3, RewindScope::Files));
        d.key(key(KeyCode::Char('o')));
        let r = request(d.key(key(KeyCode::Enter)));
        assert!(r.apply && r.overwrite_conflicts && r.scope == RewindScope::Files);
    }

    #[test]
    fn the_scope_shown_is_the_plan_enter_applies() {
        let mut d = RewindDialog::loading();
        d.set_turns(turns());
        d.key(key(KeyCode::Enter));
        d.set_plan(plan(3, RewindScope::Both));
        request(d.key(key(KeyCode::Char('f'))));
        // One request at a time: another scope waits for the answer.
        assert_eq!(d.key(key(KeyCode::Char('c'))), RewindKey::Handled);
        assert_eq!(d.scope, RewindScope::Files);
        // The files-only plan could not be made: the plan shown is still both.
        d.failed("the tree changed");
        assert_eq!(d.scope, RewindScope::Both);
        let r = request(d.key(key(KeyCode::Enter)));
        assert_eq!(r.scope, RewindScope::Both);
    }

    #[test]
    fn a_refusal_is_shown_and_esc_goes_back_to_the_turns() {
        let mut d = RewindDialog::loading();
        d.set_turns(turns());
        d.key(key(KeyCode::Enter));
        d.set_plan(plan(3, RewindScope::Both));
        d.key(key(KeyCode::Enter));
        d.failed("cannot rewind while a turn is running");
        assert_eq!(d.waiting, None);
        assert!(d.error.is_some() && d.plan.is_some());
        assert!(matches!(
            d.key(key(KeyCode::Char('r'))),
            RewindKey::Request(_)
        ));
        d.key(key(KeyCode::Esc));
        assert!(d.plan.is_none() && d.error.is_none());
        // A plan nobody waits for any more is dropped.
        d.set_plan(plan(3, RewindScope::Both));
        assert!(d.plan.is_none());
    }

    #[test]
    fn a_plan_that_changes_nothing_closes_on_enter() {
        let mut d = RewindDialog::loading();
        d.set_turns(turns());
        d.key(key(KeyCode::Enter));
        let mut p = plan(3, RewindScope::Files);
        p.files.clear();
        d.set_plan(p);
        assert_eq!(d.key(key(KeyCode::Enter)), RewindKey::Close);
    }

    #[test]
    fn no_turn_to_choose() {
        let mut d = RewindDialog::loading();
        let mut t = turns();
        t.truncate(1);
        d.set_turns(t);
        assert!(d.chosen().is_none());
        assert_eq!(d.key(key(KeyCode::Enter)), RewindKey::Handled);
        d.set_turns(Vec::new());
        assert_eq!(d.key(key(KeyCode::Down)), RewindKey::Handled);
    }
}
