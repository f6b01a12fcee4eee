//! The trace view of Ctrl+T: the flight recorder's timeline of the attached session
//! (`session.trace`), one line per turn, model call, tool call, step and sub-agent as
//! `roocode_client::trace::timeline` words them for the CLI too. A line is selected:
//! Up/Down (or k/j), PageUp/PageDown, Home/End move it; Enter on a tool line opens
//! the paragraph on why that call was allowed, denied or asked
//! (`roocode_client::trace::why`), Esc closes the paragraph, then the view; `r`
//! fetches the trace again (keeping the selected call when it is still there);
//! Ctrl+T closes the view.
//!
//! State only, as [`crate::app::App`] is: keys return [`TraceKey`]s, and the binary
//! fetches the trace and hands it back ([`TraceView::set_trace`]) or the failure
//! ([`TraceView::failed`]).

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use roocode_client::trace::{self as traced, LineKind, TraceLine};
use roocode_protocol::trace::SessionTrace;

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceKey {
    Handled,
    /// Esc (with no paragraph open) or Ctrl+T: close the view.
    Close,
    /// `r`: fetch the trace again.
    Refresh,
}

/// The view's state.
#[derive(Debug, Clone, Default)]
pub struct TraceView {
    /// The trace shown (`None` until the first answer).
    pub trace: Option<SessionTrace>,
    /// Its lines.
    pub lines: Vec<TraceLine>,
    /// The selected line (an index into `lines`).
    pub selected: usize,
    /// The first line drawn, and how many rows the last frame showed.
    pub offset: usize,
    pub page: usize,
    /// A request for the trace is on its way.
    pub loading: bool,
    /// The daemon's refusal of the last request.
    pub error: Option<String>,
    /// The "why" paragraph of the selected tool call, while open.
    pub why: Option<String>,
    /// The session's directory: paths under it are shown relative.
    pub cwd: PathBuf,
}

impl TraceView {
    /// A view waiting for the trace of a session working in `cwd`.
    pub fn loading(cwd: impl Into<PathBuf>) -> Self {
        TraceView {
            loading: true,
            page: 10,
            cwd: cwd.into(),
            ..TraceView::default()
        }
    }

    /// The trace arrived: its lines replace the old ones, and the selection stays on
    /// the same tool call when it is still there (else on the same row).
    pub fn set_trace(&mut self, trace: SessionTrace) {
        let kept = self
            .lines
            .get(self.selected)
            .and_then(|l| l.call_id.clone());
        self.lines = traced::timeline(&trace, Some(&self.cwd));
        self.trace = Some(trace);
        self.loading = false;
        self.error = None;
        let found = kept.and_then(|id| {
            self.lines
                .iter()
                .position(|l| l.call_id.as_deref() == Some(id.as_str()))
        });
        self.selected = found.unwrap_or(self.selected);
        self.clamp();
        if self.why.is_some() {
            self.why = self.selected_why();
        }
    }

    /// The request failed: said in the view, which keeps what it showed.
    pub fn failed(&mut self, message: &str) {
        self.loading = false;
        self.error = Some(message.to_owned());
    }

    /// The selected line.
    pub fn selected_line(&self) -> Option<&TraceLine> {
        self.lines.get(self.selected)
    }

    pub fn key(&mut self, key: KeyEvent) -> TraceKey {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('t' | 'T')) {
            return TraceKey::Close;
        }
        if !key.modifiers.difference(KeyModifiers::SHIFT).is_empty() {
            return TraceKey::Handled;
        }
        let page = self.page.max(1);
        match key.code {
            KeyCode::Esc if self.why.is_some() => self.why = None,
            KeyCode::Esc => return TraceKey::Close,
            KeyCode::Enter if self.why.is_some() => self.why = None,
            KeyCode::Enter => self.why = self.selected_why(),
            KeyCode::Char('r') if !self.loading => {
                self.loading = true;
                self.error = None;
                return TraceKey::Refresh;
            }
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::PageUp => self.move_by(-(page as isize)),
            KeyCode::PageDown | KeyCode::Char(' ') => self.move_by(page as isize),
            KeyCode::Home => self.move_by(-(self.lines.len() as isize)),
            KeyCode::End => self.move_by(self.lines.len() as isize),
            _ => {}
        }
        TraceKey::Handled
    }

    /// The paragraph of the selected line's tool call, if it is a tool line.
    fn selected_why(&self) -> Option<String> {
        let line = self.selected_line().filter(|l| l.kind == LineKind::Tool)?;
        let id = line.call_id.as_deref()?;
        traced::why(self.trace.as_ref()?, id)
    }

    /// Moves the selection `n` lines (negative: up), closing the paragraph.
    fn move_by(&mut self, n: isize) {
        self.why = None;
        self.selected = self.selected.saturating_add_signed(n);
        self.clamp();
    }

    fn clamp(&mut self) {
        self.selected = self.selected.min(self.lines.len().saturating_sub(1));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use roocode_client::trace::example;

    use crate::test_support::key;

    /// A view showing the example trace.
    pub fn shown() -> TraceView {
        let mut v = TraceView::loading(example::CWD);
        v.set_trace(example::session());
        v
    }

    #[test]
    fn it_waits_then_shows_the_timeline_from_the_top() {
        let mut v = TraceView::loading(example::CWD);
        assert!(v.loading && v.lines.is_empty());
        assert_eq!(v.key(key(KeyCode::Down)), TraceKey::Handled);
        assert_eq!(v.key(key(KeyCode::Char('r'))), TraceKey::Handled, "loading");
        v.set_trace(example::session());
        assert!(!v.loading);
        assert_eq!(v.selected, 0);
        assert_eq!(v.selected_line().map(|l| l.kind), Some(LineKind::Turn));
    }

    #[test]
    fn arrows_pages_home_and_end_move_the_selection_within_the_lines() {
        let mut v = shown();
        v.page = 5;
        v.key(key(KeyCode::Down));
        v.key(key(KeyCode::Char('j')));
        assert_eq!(v.selected, 2);
        v.key(key(KeyCode::PageDown));
        assert_eq!(v.selected, 7);
        v.key(key(KeyCode::Up));
        assert_eq!(v.selected, 6);
        v.key(key(KeyCode::End));
        assert_eq!(v.selected, v.lines.len() - 1);
        assert_eq!(v.selected_line().map(|l| l.kind), Some(LineKind::Totals));
        v.key(key(KeyCode::PageDown));
        assert_eq!(v.selected, v.lines.len() - 1, "stays on the last line");
        v.key(key(KeyCode::Home));
        assert_eq!(v.selected, 0);
        v.key(key(KeyCode::PageUp));
        assert_eq!(v.selected, 0);
    }

    #[test]
    fn enter_on_a_tool_line_opens_its_why_and_esc_closes_it_then_the_view() {
        let mut v = shown();
        v.key(key(KeyCode::Enter));
        assert!(v.why.is_none(), "a turn line has no why");
        let denied = v
            .lines
            .iter()
            .position(|l| l.call_id.as_deref() == Some(example::DENIED_CALL))
            .unwrap();
        v.selected = denied;
        v.key(key(KeyCode::Enter));
        let why = v.why.clone().unwrap();
        assert!(why.contains("the deny rule `Bash(rm:*)`"), "{why}");
        assert_eq!(v.key(key(KeyCode::Esc)), TraceKey::Handled);
        assert!(v.why.is_none());
        v.key(key(KeyCode::Enter));
        v.key(key(KeyCode::Down));
        assert!(v.why.is_none(), "moving closes it");
        assert_eq!(v.key(key(KeyCode::Esc)), TraceKey::Close);
        let ctrl_t = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL);
        assert_eq!(v.key(ctrl_t), TraceKey::Close);
    }

    #[test]
    fn a_refresh_keeps_the_selected_call_and_a_failure_keeps_the_lines() {
        let mut v = shown();
        let denied = v
            .lines
            .iter()
            .position(|l| l.call_id.as_deref() == Some(example::DENIED_CALL))
            .unwrap();
        v.selected = denied;
        v.key(key(KeyCode::Enter));
        assert_eq!(v.key(key(KeyCode::Char('r'))), TraceKey::Refresh);
        assert!(v.loading);
        // The new trace has a line more above the call: the selection follows it.
        let mut t = example::session();
        t.agent.turns[0]
            .steps
            .push(roocode_protocol::trace::StepTrace {
                kind: "compaction".into(),
                seq: 2,
                ts: "2026-11-30T12:00:00.050Z".into(),
                text: "compacted: 9000 → 3000 tokens".into(),
                detail: serde_json::Value::Null,
            });
        v.set_trace(t);
        assert_eq!(v.selected, denied + 1);
        assert!(v.why.as_deref().is_some_and(|w| w.contains("Bash(rm:*)")));
        v.key(key(KeyCode::Char('r')));
        v.failed("the connection to the daemon was lost");
        assert!(!v.loading && v.error.is_some());
        assert!(!v.lines.is_empty());
    }
}
