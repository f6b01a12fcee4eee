//! The state of the TUI attached to one session, with no I/O: the binary feeds it
//! daemon events ([`App::on_event`]), terminal input ([`App::on_key`],
//! [`App::on_paste`], [`App::on_mouse`]) and ticks, performs the [`Action`]s it returns,
//! and calls [`App::draw`]. Reduction of events lives in `events`, keys in `keys`, the
//! rewind dialog's requests and answers in `rewind`, the trace view's (Ctrl+T) in
//! `trace`, drawing in [`crate::view`].

mod action;
mod events;
mod export;
mod keys;
mod own_commands;
mod rewind;
mod scroll;
mod status;
mod trace;

use std::collections::HashMap;

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use roocode_protocol::session::{CommandInfo, PendingRequest, SessionInfo, SessionStatus};

pub use action::{Action, Connection};
pub use scroll::{Pos, Scroll};
pub use status::Status;
pub(crate) use status::tokens;

use crate::agents::Agents;
use crate::completion::Completion;
use crate::dialog::Prompts;
use crate::input::Input;
use crate::panel::Panel;
use crate::rewind::RewindDialog;
use crate::trace_view::TraceView;
use crate::transcript::{RenderCtx, Transcript};

/// Lines scrolled by one mouse wheel notch.
const WHEEL_LINES: usize = 3;
/// Ticks (about 10 a second) a notice stays in the input box's title.
const FLASH_TICKS: u64 = 50;
/// Ticks within which a second Ctrl+C exits.
const CTRL_C_TICKS: u64 = 20;
/// Ticks (about 0.8 s) within which a second Esc, when idle, opens the rewind dialog.
pub const ESC_ESC_TICKS: u64 = 8;

/// A short message shown in the input box's title.
#[derive(Debug, Clone, PartialEq)]
pub struct Flash {
    pub text: String,
    pub style: Style,
    /// The tick after which it disappears.
    pub until: u64,
}

/// Where the last frame put the conversation, for mouse clicks.
#[derive(Debug, Clone, Default)]
pub struct DrawnLayout {
    pub conversation: Rect,
    /// The block and line shown on each row of the conversation.
    pub rows: Vec<(usize, usize)>,
}

/// All UI state of a terminal attached to one session.
#[derive(Debug)]
pub struct App {
    pub(crate) session: SessionInfo,
    pub(crate) commands: Vec<CommandInfo>,
    pub(crate) transcript: Transcript,
    pub(crate) input: Input,
    pub(crate) completion: Completion,
    pub(crate) prompts: Prompts,
    pub(crate) panel: Panel,
    pub(crate) scroll: Scroll,
    pub(crate) status: Status,
    pub(crate) connection: Connection,
    /// The seq of the last stored event applied.
    pub(crate) last_seq: u64,
    /// Events up to this seq were stored before the last snapshot: requests among them
    /// that the snapshot does not list were answered already.
    pub(crate) historic_until: u64,
    pub(crate) tick: u64,
    /// Ctrl+O: every tool call expanded.
    pub(crate) expand_all: bool,
    pub(crate) flash: Option<Flash>,
    /// A first Ctrl+C was pressed; a second one before this tick exits.
    pub(crate) ctrl_c_until: Option<u64>,
    /// A first Esc was pressed when idle; a second one before this tick opens rewind.
    pub(crate) esc_until: Option<u64>,
    /// The rewind dialog (`/rewind`, Esc Esc), while open.
    pub(crate) rewind: Option<RewindDialog>,
    /// The trace view (Ctrl+T), while open.
    pub(crate) trace: Option<TraceView>,
    pub(crate) quit: bool,
    pub(crate) drawn: DrawnLayout,
    /// The tool call of each permission request and question seen.
    pub(crate) calls_of_requests: HashMap<String, String>,
    /// The session's sub-agents, live.
    pub(crate) agents: Agents,
    /// Inside tmux, whose prefix is Ctrl+B: the hint says to press it twice.
    pub(crate) tmux: bool,
    /// The session's team, live (the side panel's team section).
    pub(crate) team: roocode_client::teams::TeamBoard,
}

impl App {
    /// A UI for `session`, with `commands` for slash completion.
    pub fn new(session: SessionInfo, commands: Vec<CommandInfo>) -> Self {
        let mut app = App {
            status: Status::default(),
            session: session.clone(),
            commands: export::with_export(rewind::with_rewind(commands)),
            transcript: Transcript::default(),
            input: Input::default(),
            completion: Completion::default(),
            prompts: Prompts::default(),
            panel: Panel::default(),
            scroll: Scroll::default(),
            connection: Connection::Connected,
            last_seq: 0,
            historic_until: 0,
            tick: 0,
            expand_all: false,
            flash: None,
            ctrl_c_until: None,
            esc_until: None,
            rewind: None,
            trace: None,
            quit: false,
            drawn: DrawnLayout::default(),
            calls_of_requests: HashMap::new(),
            agents: Agents::default(),
            tmux: false,
            team: roocode_client::teams::TeamBoard::default(),
        };
        app.apply_session(&session);
        app
    }

    /// The seq of the last stored event applied: resubscribe with `since_seq` = this.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The attached session, as the events left it.
    pub fn session(&self) -> &SessionInfo {
        &self.session
    }

    /// Whether a turn runs.
    pub fn working(&self) -> bool {
        self.status.running
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether something animates (a turn runs): draw at each tick.
    pub fn animating(&self) -> bool {
        self.status.running
            || self.transcript.animating()
            || self.flash.is_some()
            || (self.panel.open && self.agents.active() > 0)
    }

    pub fn set_connection(&mut self, state: Connection) {
        self.connection = state;
    }

    /// The side panel's data: what waits in every session, and every session.
    pub fn set_overview(&mut self, pending: Vec<PendingRequest>, sessions: Vec<SessionInfo>) {
        self.prompts.retain_others(&self.session.id, &pending);
        self.panel.set(pending, sessions);
    }

    /// The session's sub-agents as `agent.list` gives them (on every (re)connect).
    pub fn set_agents(&mut self, list: &[roocode_protocol::agents::AgentInfo]) {
        let parent = self.session.id.clone();
        self.agents.set(&parent, list, self.tick);
    }

    /// The session's team as `team.get` gives it (on every (re)connect, and after
    /// team events: `None` when the session is in no team).
    pub fn set_team(&mut self, team: Option<roocode_protocol::teams::TeamInfo>) {
        self.team.set(team);
    }

    /// Whether team events since the last call may have moved what only `team.get`
    /// knows (unread mail): then perform [`Action::RefreshTeam`].
    /// The session's slash commands again (skills and command files are read at use,
    /// so the list changes as they do).
    pub fn set_commands(&mut self, commands: Vec<CommandInfo>) {
        self.commands = export::with_export(rewind::with_rewind(commands));
    }

    pub fn take_team_refresh(&mut self) -> bool {
        self.team.take_stale()
    }

    /// The UI runs inside tmux (`TMUX` is set): Ctrl+B, tmux's prefix, reaches the UI
    /// when pressed twice, and the hints say so.
    pub fn set_tmux(&mut self, on: bool) {
        self.tmux = on;
    }

    /// Whether a sub-agent of the session has work on.
    pub fn agents_active(&self) -> bool {
        self.agents.active() > 0
    }

    /// Shows a slash command's output (from `session.command`) in the conversation.
    pub fn command_output(&mut self, line: &str, output: &str) {
        self.transcript.user(line);
        self.transcript
            .notice(output.trim_end().to_owned(), Style::new());
    }

    /// Shows a failed request (an RPC error) in the conversation, in red.
    pub fn show_error(&mut self, message: &str) {
        self.transcript
            .notice(format!("error: {message}"), crate::theme::ERROR);
    }

    /// The daemon's warnings from its hello (a corrupt database moved aside, …): each
    /// stays in the transcript as a notice, and the first is flashed.
    pub fn daemon_warnings(&mut self, warnings: &[String]) {
        for w in warnings {
            self.transcript
                .notice(format!("warning: {w}"), crate::theme::WARN);
        }
        if let Some(first) = warnings.first() {
            self.flash(format!("warning: {first}"), crate::theme::WARN);
        }
    }

    /// Shows `text` for a few seconds in the input box's title.
    pub fn flash(&mut self, text: impl Into<String>, style: Style) {
        self.flash = Some(Flash {
            text: text.into(),
            style,
            until: self.tick + FLASH_TICKS,
        });
    }

    /// Bracketed paste: into the open dialog's text field, else into the input; never
    /// submits.
    pub fn on_paste(&mut self, text: &str) {
        if self.prompts.paste(text) {
            return;
        }
        self.input.paste(text);
        self.completion.edited();
    }

    /// The wheel scrolls the conversation; a click on a tool call folds or expands it.
    pub fn on_mouse(&mut self, ev: MouseEvent) {
        let ctx = self.render_ctx();
        match ev.kind {
            MouseEventKind::ScrollUp => self.scroll.up(&mut self.transcript, &ctx, WHEEL_LINES),
            MouseEventKind::ScrollDown => {
                self.scroll.down(&mut self.transcript, &ctx, WHEEL_LINES);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                let area = self.drawn.conversation;
                if ev.column < area.x
                    || ev.column >= area.right()
                    || ev.row < area.y
                    || ev.row >= area.bottom()
                {
                    return;
                }
                let row = (ev.row - area.y) as usize;
                if let Some(&(block, _)) = self.drawn.rows.get(row) {
                    self.transcript.toggle_tool(block, self.expand_all);
                }
            }
            _ => {}
        }
    }

    /// About ten times a second: spinners turn, notices expire.
    pub fn on_tick(&mut self) {
        self.tick += 1;
        if self.flash.as_ref().is_some_and(|f| self.tick > f.until) {
            self.flash = None;
        }
        if self.ctrl_c_until.is_some_and(|t| self.tick > t) {
            self.ctrl_c_until = None;
        }
        if self.esc_until.is_some_and(|t| self.tick > t) {
            self.esc_until = None;
        }
    }

    pub fn draw(&mut self, frame: &mut Frame) {
        crate::view::draw(self, frame);
    }

    /// What rendering depends on, at the width drawn last.
    pub(crate) fn render_ctx(&self) -> RenderCtx {
        RenderCtx {
            width: self.drawn.conversation.width,
            expand_all: self.expand_all,
            tick: self.tick,
        }
    }

    /// Takes the model, mode, status and cost baseline of `session`.
    fn apply_session(&mut self, session: &SessionInfo) {
        self.session = session.clone();
        self.status.running = session.status == SessionStatus::Running;
        self.historic_until = session.last_seq;
        self.status
            .set_cost_baseline(&session.usage, session.last_seq);
    }
}

#[cfg(test)]
mod key_tests;
#[cfg(test)]
mod rewind_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;
