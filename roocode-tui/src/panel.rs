//! The side panel (Ctrl+P): what waits on a human in every session, the other
//! sessions with their status, and the background agents (none yet). Up/Down select a
//! waiting request and Enter opens its dialog, whichever session it belongs to (with
//! nothing waiting, those keys go to the input).

use crossterm::event::{KeyCode, KeyEvent};
use roocode_protocol::session::{PendingRequest, SessionInfo};

/// The panel's state and data.
#[derive(Debug, Clone, Default)]
pub struct Panel {
    pub open: bool,
    /// The selected waiting request.
    pub selected: usize,
    pub pending: Vec<PendingRequest>,
    pub sessions: Vec<SessionInfo>,
    /// `set_overview` answered since the panel opened.
    pub loaded: bool,
}

/// What a key did to the panel.
#[derive(Debug, Clone, PartialEq)]
pub enum PanelKey {
    /// Enter on a waiting request: open its dialog.
    Open(Box<PendingRequest>),
    Close,
    Handled,
    Ignored,
}

impl Panel {
    /// Opens or closes the panel; true when it opened.
    pub fn toggle(&mut self) -> bool {
        self.open = !self.open;
        if self.open {
            self.loaded = false;
        }
        self.open
    }

    pub fn set(&mut self, pending: Vec<PendingRequest>, sessions: Vec<SessionInfo>) {
        self.pending = pending;
        self.sessions = sessions;
        self.loaded = true;
        self.selected = self.selected.min(self.pending.len().saturating_sub(1));
    }

    pub fn key(&mut self, key: KeyEvent) -> PanelKey {
        match key.code {
            KeyCode::Esc => {
                self.open = false;
                PanelKey::Close
            }
            // Without waiting requests, the arrows and Enter belong to the input.
            KeyCode::Up | KeyCode::Down | KeyCode::Enter if self.pending.is_empty() => {
                PanelKey::Ignored
            }
            KeyCode::Up => {
                self.selected = self.selected.saturating_sub(1);
                PanelKey::Handled
            }
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.pending.len().saturating_sub(1));
                PanelKey::Handled
            }
            KeyCode::Enter => match self.pending.get(self.selected) {
                Some(p) => {
                    self.open = false;
                    PanelKey::Open(Box::new(p.clone()))
                }
                None => PanelKey::Handled,
            },
            _ => PanelKey::Ignored,
        }
    }
}
