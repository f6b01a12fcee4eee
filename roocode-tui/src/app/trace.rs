//! The [`App`]'s side of the trace view (Ctrl+T): opening it (the binary fetches
//! `session.trace`), its keys while open, and the daemon's answers. The view itself
//! is [`crate::trace_view`]; drawing is `view::trace`.

use crossterm::event::KeyEvent;
use roocode_protocol::trace::SessionTrace;

use super::{Action, App};
use crate::trace_view::{TraceKey, TraceView};

impl App {
    /// Opens the trace view; the binary fetches the trace.
    pub(crate) fn open_trace(&mut self) -> Vec<Action> {
        self.trace = Some(TraceView::loading(self.session.cwd.clone()));
        vec![Action::Trace]
    }

    /// Whether the trace view is open.
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// A key while the trace view is open.
    pub(crate) fn trace_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(view) = self.trace.as_mut() else {
            return Vec::new();
        };
        match view.key(key) {
            TraceKey::Handled => Vec::new(),
            TraceKey::Close => {
                self.trace = None;
                Vec::new()
            }
            TraceKey::Refresh => vec![Action::Trace],
        }
    }

    /// `session.trace` answered; ignored once the view is closed.
    pub fn set_trace(&mut self, trace: SessionTrace) {
        if let Some(view) = self.trace.as_mut() {
            view.set_trace(trace);
        }
    }

    /// Fetching the trace failed: said in the view, or in the conversation once closed.
    pub fn trace_failed(&mut self, message: &str) {
        match self.trace.as_mut() {
            Some(view) => view.failed(message),
            None => self.show_error(message),
        }
    }
}
