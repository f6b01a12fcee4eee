//! The [`App`]'s side of rewind: opening the dialog (`/rewind`, Esc Esc when idle),
//! its keys, the daemon's answers, and the outcome of an applied rewind in the
//! conversation — which files came back, what could not, and the dropped prompt put
//! back in the input box (when it is empty) so that Enter sends it again. The
//! `rewound` event itself, which every attached terminal gets, is reduced in `events`.

use crossterm::event::KeyEvent;
use roocode_client::rewind as shown;
use roocode_protocol::rewind::{RewindPlan, TurnSummary};
use roocode_protocol::session::CommandInfo;

use super::{Action, App};
use crate::rewind::{RewindDialog, RewindKey};
use crate::theme;

/// The name of the TUI's own command.
pub const REWIND_COMMAND: &str = "rewind";

/// `/rewind` as completion offers it (the daemon's list does not hold it: the TUI
/// runs it).
fn rewind_command() -> CommandInfo {
    CommandInfo {
        name: REWIND_COMMAND.to_owned(),
        description:
            "Undo turns: put the files and the conversation back as they were before one (Esc Esc)"
                .to_owned(),
        kind: "local".to_owned(),
        usage: Some("/rewind".to_owned()),
        source: Some("roocode-tui".to_owned()),
        shadowed_by: None,
    }
}

/// `commands` with `/rewind` among the local ones, unless the daemon lists it; another
/// command of that name is shadowed by it, since the TUI runs `/rewind`.
pub(crate) fn with_rewind(commands: Vec<CommandInfo>) -> Vec<CommandInfo> {
    super::own_commands::with_own(commands, rewind_command())
}

impl App {
    /// Opens the rewind dialog; the binary fetches the turns.
    pub(crate) fn open_rewind(&mut self) -> Vec<Action> {
        self.rewind = Some(RewindDialog::loading());
        vec![Action::RewindTurns]
    }

    /// Whether the rewind dialog is open.
    pub fn rewinding(&self) -> bool {
        self.rewind.is_some()
    }

    /// A key while the rewind dialog is open.
    pub(crate) fn rewind_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(dialog) = self.rewind.as_mut() else {
            return Vec::new();
        };
        match dialog.key(key) {
            RewindKey::Handled => Vec::new(),
            RewindKey::Close => {
                self.rewind = None;
                Vec::new()
            }
            RewindKey::Request(r) => vec![Action::Rewind(r)],
        }
    }

    /// The session's turns (`session.turns`), for the open dialog.
    pub fn set_turns(&mut self, turns: Vec<TurnSummary>) {
        if let Some(d) = self.rewind.as_mut() {
            d.set_turns(turns);
        }
    }

    /// `session.rewind` answered: a plan for the dialog, or what an applied rewind did.
    pub fn rewind_answer(&mut self, plan: RewindPlan) {
        if plan.applied {
            self.rewind = None;
            self.rewound(&plan);
        } else if let Some(d) = self.rewind.as_mut() {
            d.set_plan(plan);
        }
    }

    /// A rewind request failed: said in the dialog, or in the conversation once closed.
    pub fn rewind_failed(&mut self, message: &str) {
        match self.rewind.as_mut() {
            Some(d) => d.failed(message),
            None => self.show_error(message),
        }
    }

    /// What an applied rewind did, beyond the `rewound` event's counts.
    fn rewound(&mut self, plan: &RewindPlan) {
        let mut done: Vec<String> = Vec::new();
        done.extend(plan.restored.iter().map(|p| format!("restored {p}")));
        done.extend(plan.removed.iter().map(|p| format!("removed {p}")));
        done.extend(
            plan.kept
                .iter()
                .map(|p| format!("kept {p} (changed since by someone else)")),
        );
        if !done.is_empty() {
            self.transcript.notice(done.join(" · "), theme::DIM);
        }
        for r in &plan.refused {
            self.transcript.notice(
                format!("could not put back {}: {}", r.path, r.why),
                theme::ERROR,
            );
        }
        if !shown::prompt_dropped(plan) {
            self.flash(shown::Rewound::of_plan(plan).line(), theme::OK);
            return;
        }
        if self.input.is_empty() {
            self.input.set(plan.prompt.trim_end());
            self.completion.edited();
            self.flash(
                format!(
                    "the prompt of turn {} is back in the input: Enter sends it again",
                    plan.turn
                ),
                theme::OK,
            );
        } else {
            self.transcript.notice(
                format!(
                    "the conversation no longer holds the prompt of turn {}:\n{}",
                    plan.turn,
                    plan.prompt.trim_end()
                ),
                theme::DIM,
            );
        }
    }
}
