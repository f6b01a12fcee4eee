//! The session picker, the start screen when no session is given: "new session" on
//! top, then the sessions, most recently active first, with title, directory, status
//! and last activity. Up/Down (PageUp/PageDown, Home/End) select, Enter opens, typing
//! filters, Esc clears the filter or quits. Main sessions only: a sub-agent's session
//! is followed from its parent (or with `roocode-cli attach`).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Frame;
use roocode_protocol::session::{SessionInfo, SessionKind};

/// What the user picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerChoice {
    /// Attach to the session with this id.
    Session(String),
    /// Create a session.
    New,
    Quit,
}

/// The picker's state.
#[derive(Debug, Clone)]
pub struct Picker {
    pub(crate) sessions: Vec<SessionInfo>,
    pub(crate) filter: String,
    /// The selected row: 0 is "new session", then the shown sessions.
    pub(crate) selected: usize,
    /// The first row drawn.
    pub(crate) offset: usize,
    /// Rows drawn last (for PageUp/PageDown).
    pub(crate) page: usize,
}

impl Picker {
    pub fn new(mut sessions: Vec<SessionInfo>) -> Self {
        // The daemon lists main sessions only; an older one listed them all.
        sessions.retain(|s| s.kind == SessionKind::Main);
        sessions.sort_by(|a, b| b.last_activity.cmp(&a.last_activity));
        Picker {
            sessions,
            filter: String::new(),
            selected: 0,
            offset: 0,
            page: 10,
        }
    }

    /// The sessions matching the filter, in order.
    pub(crate) fn shown(&self) -> Vec<&SessionInfo> {
        let f = self.filter.to_lowercase();
        self.sessions
            .iter()
            .filter(|s| {
                f.is_empty()
                    || [&s.title, &s.root, &s.cwd, &s.id]
                        .iter()
                        .any(|v| v.to_lowercase().contains(&f))
            })
            .collect()
    }

    /// Rows: "new session" and the shown sessions.
    pub(crate) fn rows(&self) -> usize {
        self.shown().len() + 1
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Option<PickerChoice> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let last = self.rows() - 1;
        match key.code {
            KeyCode::Char('c') if ctrl => return Some(PickerChoice::Quit),
            KeyCode::Esc if self.filter.is_empty() => return Some(PickerChoice::Quit),
            KeyCode::Esc => {
                self.filter.clear();
                self.selected = 0;
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(self.page),
            KeyCode::PageDown => self.selected = (self.selected + self.page).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                return Some(match self.selected {
                    0 => PickerChoice::New,
                    i => match self.shown().get(i - 1) {
                        Some(s) => PickerChoice::Session(s.id.clone()),
                        None => PickerChoice::New,
                    },
                });
            }
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = self.selected.min(self.rows() - 1);
            }
            KeyCode::Char(c) if !ctrl => {
                self.filter.push(c);
                self.selected = if self.rows() > 1 { 1 } else { 0 };
            }
            _ => {}
        }
        None
    }

    pub fn draw(&mut self, frame: &mut Frame) {
        crate::view::picker::draw(self, frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::session;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn picker() -> Picker {
        let mut a = session("A", "fix tests");
        a.last_activity = "2026-11-30T10:00:00Z".into();
        let mut b = session("B", "write docs");
        b.last_activity = "2026-11-30T12:00:00Z".into();
        Picker::new(vec![a, b])
    }

    #[test]
    fn most_recent_first_and_new_on_top() {
        let mut p = picker();
        assert_eq!(p.on_key(key(KeyCode::Enter)), Some(PickerChoice::New));
        p.on_key(key(KeyCode::Down));
        assert_eq!(
            p.on_key(key(KeyCode::Enter)),
            Some(PickerChoice::Session("B".into()))
        );
        p.on_key(key(KeyCode::Down));
        p.on_key(key(KeyCode::Down));
        assert_eq!(
            p.on_key(key(KeyCode::Enter)),
            Some(PickerChoice::Session("A".into()))
        );
    }

    #[test]
    fn sub_agent_sessions_are_not_listed() {
        let mut child = session("C", "count files");
        child.kind = SessionKind::SubAgent;
        child.parent_session_id = Some("A".into());
        let p = Picker::new(vec![session("A", "fix tests"), child]);
        let ids: Vec<&str> = p.shown().iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["A"]);
    }

    #[test]
    fn typing_filters_and_esc_clears_then_quits() {
        let mut p = picker();
        for c in "fix".chars() {
            p.on_key(key(KeyCode::Char(c)));
        }
        assert_eq!(p.shown().len(), 1);
        assert_eq!(
            p.on_key(key(KeyCode::Enter)),
            Some(PickerChoice::Session("A".into()))
        );
        assert_eq!(p.on_key(key(KeyCode::Esc)), None);
        assert_eq!(p.shown().len(), 2);
        assert_eq!(p.on_key(key(KeyCode::Esc)), Some(PickerChoice::Quit));
    }
}
