//! Keys to actions. In order: Ctrl+C (exit rules), the rewind dialog and the trace
//! view while open (unless a request's dialog shows over them), scrolling
//! (PageUp/PageDown, Ctrl+Home/Ctrl+End), the open dialog, the open panel, the global
//! keys (Ctrl+P panel, Ctrl+O expand tool calls, Ctrl+T trace view, Shift+Tab mode,
//! Esc, and Ctrl+B while a foreground sub-agent runs: move it to the background),
//! slash completion (Tab, Up/Down), then
//! the input box (Enter sends, `/resume`, `/rewind` and `/export` are the TUI's own; End at the
//! end of a line follows the bottom; Ctrl+B with no foreground sub-agent is
//! cursor-left). Esc hides the completion list, else cancels the running turn; when
//! idle, a second Esc within [`ESC_ESC_TICKS`] (any other key between breaks the pair)
//! opens the rewind dialog. Inside tmux, whose prefix is Ctrl+B, the key
//! reaches the UI when pressed twice (tmux sends the prefix on): one Ctrl+B received is
//! one press here, and the hints say "twice".

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use roocode_protocol::Mode;

use super::export::EXPORT_COMMAND;
use super::rewind::REWIND_COMMAND;
use super::{Action, App, CTRL_C_TICKS, ESC_ESC_TICKS};
use crate::completion;
use crate::dialog::{DialogKey, Prompt};
use crate::input::InputKey;
use crate::panel::PanelKey;
use crate::theme;

/// The modes Shift+Tab cycles through.
pub const MODES: [Mode; 3] = [Mode::Default, Mode::AcceptEdits, Mode::Plan];

/// The mode after `mode` in the Shift+Tab cycle (`default` after any other mode).
pub fn next_mode(mode: Mode) -> Mode {
    match MODES.iter().position(|m| *m == mode) {
        Some(i) => MODES[(i + 1) % MODES.len()],
        None => MODES[0],
    }
}

impl App {
    /// A key press; returns what the binary must do.
    pub fn on_key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        if key.code != KeyCode::Esc {
            self.esc_until = None;
        }
        if self.rewind.is_some() && self.prompts.shown().is_none() {
            return self.rewind_key(key);
        }
        if self.trace.is_some() && self.prompts.shown().is_none() {
            return self.trace_key(key);
        }
        if self.scroll_key(key) {
            return Vec::new();
        }
        if self.prompts.shown().is_some() {
            match self.prompts.key(key) {
                DialogKey::Action(a) => return vec![a],
                DialogKey::Handled => return Vec::new(),
                DialogKey::Ignored => {}
            }
        }
        if self.panel.open {
            match self.panel.key(key) {
                PanelKey::Open(p) => {
                    self.prompts.show(Prompt::from_pending(&p));
                    return Vec::new();
                }
                PanelKey::Close | PanelKey::Handled => return Vec::new(),
                PanelKey::Ignored => {}
            }
        }
        if let Some(actions) = self.global_key(key) {
            return actions;
        }
        if self.prompts.shown().is_some() {
            // The dialog is modal: nothing reaches the input behind it.
            return Vec::new();
        }
        if let Some(actions) = self.completion_key(key) {
            return actions;
        }
        if key.code == KeyCode::End && !ctrl && self.input.editor.at_line_end() {
            self.scroll.follow();
            return Vec::new();
        }
        match self.input.key(key) {
            InputKey::Submit(text) => {
                self.completion.edited();
                self.scroll.follow();
                let line = text.trim();
                if completion::is_command(line) {
                    self.command(line)
                } else {
                    vec![Action::Send(text)]
                }
            }
            InputKey::Edited => {
                self.completion.edited();
                // A command is being typed: read the list again, so a skill or command
                // file added since the last turn is completed too.
                if self.input.text() == "/" {
                    vec![Action::RefreshCommands]
                } else {
                    Vec::new()
                }
            }
            InputKey::Moved | InputKey::Ignored => Vec::new(),
        }
    }

    /// A slash command line: the TUI's own (`/resume`, `/rewind`, `/export`), or the
    /// daemon's.
    fn command(&mut self, line: &str) -> Vec<Action> {
        match line.strip_prefix('/') {
            Some("resume") => vec![Action::Resume],
            Some(REWIND_COMMAND) => self.open_rewind(),
            _ => match roocode_protocol::command::parse(line) {
                Some(c) if c.name == EXPORT_COMMAND => self.export(c.args),
                _ => vec![Action::Command(line.to_owned())],
            },
        }
    }

    /// Ctrl+C exits when idle with an empty input, or when pressed twice within about
    /// two seconds; otherwise it clears the input and says how to exit.
    fn ctrl_c(&mut self) -> Vec<Action> {
        let again = self.ctrl_c_until.is_some_and(|t| self.tick <= t);
        if again || (!self.status.running && self.input.is_empty()) {
            self.quit = true;
            return vec![Action::Quit];
        }
        self.input.clear();
        self.completion.edited();
        self.ctrl_c_until = Some(self.tick + CTRL_C_TICKS);
        self.flash("press Ctrl+C again to exit", theme::WARN);
        if let Some(f) = &mut self.flash {
            f.until = self.tick + CTRL_C_TICKS;
        }
        Vec::new()
    }

    fn scroll_key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let ctx = self.render_ctx();
        let page = self.scroll.height.saturating_sub(2).max(1);
        match key.code {
            KeyCode::PageUp => self.scroll.up(&mut self.transcript, &ctx, page),
            KeyCode::PageDown => self.scroll.down(&mut self.transcript, &ctx, page),
            KeyCode::End if ctrl => self.scroll.follow(),
            KeyCode::Home if ctrl => self.scroll.to_top(&self.transcript),
            _ => return false,
        }
        true
    }

    fn global_key(&mut self, key: KeyEvent) -> Option<Vec<Action>> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('p') if ctrl => {
                if self.panel.toggle() {
                    return Some(vec![Action::RefreshOverview]);
                }
            }
            KeyCode::Char('b') if ctrl => {
                let (id, name) = self
                    .agents
                    .foreground_running()
                    .map(|r| (r.id.clone(), r.name.clone()))?;
                self.flash(format!("moving {name} to the background…"), theme::DIM);
                return Some(vec![Action::BackgroundAgent(id)]);
            }
            KeyCode::Char('o') if ctrl => {
                self.expand_all = !self.expand_all;
                self.transcript.reset_expansion();
            }
            KeyCode::Char('t') if ctrl => return Some(self.open_trace()),
            KeyCode::BackTab => {
                let mode = next_mode(self.session.mode);
                self.session.mode = mode;
                return Some(vec![Action::SetMode(mode.as_str().to_string())]);
            }
            KeyCode::Esc => {
                let text = self.input.text().to_owned();
                if !self.completion.visible(&text, &self.commands).is_empty() {
                    self.completion.dismiss(&text);
                } else if self.status.running {
                    return Some(vec![Action::Cancel]);
                } else if self.esc_until.take().is_some_and(|t| self.tick <= t) {
                    return Some(self.open_rewind());
                } else {
                    self.esc_until = Some(self.tick + ESC_ESC_TICKS);
                }
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    /// Tab completes the selected command, Up/Down select, Enter runs the selected
    /// command unless the input already names one.
    fn completion_key(&mut self, key: KeyEvent) -> Option<Vec<Action>> {
        let text = self.input.text().to_owned();
        let count = self.completion.visible(&text, &self.commands).len();
        if count == 0 || !key.modifiers.is_empty() {
            return None;
        }
        match key.code {
            KeyCode::Tab => {
                if let Some(done) = self.completion.complete(&text, &self.commands) {
                    self.input.set(&done);
                }
            }
            KeyCode::Up => self.completion.up(count),
            KeyCode::Down => self.completion.down(count),
            KeyCode::Enter if !completion::is_known(&text, &self.commands) => {
                let done = self.completion.complete(&text, &self.commands)?;
                let line = done.trim().to_owned();
                self.input.clear();
                self.input.history.push(&line);
                self.scroll.follow();
                return Some(self.command(&line));
            }
            _ => return None,
        }
        Some(Vec::new())
    }
}
