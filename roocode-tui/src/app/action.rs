//! What the UI asks the binary to do ([`Action`]) and what the binary tells the UI
//! about its link to the daemon ([`Connection`]).

use roocode_protocol::session::PermissionDecision;

use crate::rewind::RewindRequest;

/// A request of the UI to the binary, returned by [`super::App::on_key`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Submit the input (the daemon queues it if a turn runs).
    Send(String),
    /// A slash command line naming a known command, e.g. `/cost` or `/mode plan`.
    Command(String),
    /// Esc while a turn runs: `session.cancel`.
    Cancel,
    /// Shift+Tab: `session.set_mode` (default → acceptEdits → plan → default).
    SetMode(String),
    RespondPermission {
        request_id: String,
        decision: PermissionDecision,
        feedback: Option<String>,
    },
    AnswerQuestion {
        request_id: String,
        answers: Vec<String>,
    },
    /// The side panel was opened: fetch `pending.list` and `session.list` and pass
    /// them to [`super::App::set_overview`].
    RefreshOverview,
    /// Ctrl+B while a foreground sub-agent runs: `agent.background` (its parent goes on).
    BackgroundAgent(String),
    /// (Re)connected: fetch `agent.list` of the session and pass it to
    /// [`super::App::set_agents`].
    RefreshAgents,
    /// (Re)connected, or team events arrived: fetch `team.get` of the session and pass
    /// it to [`super::App::set_team`].
    RefreshTeam,
    /// Leave the client (agents keep running).
    Quit,
    /// `/resume`: leave this session for the session picker.
    Resume,
    /// `/rewind` or Esc Esc: fetch `session.turns` and pass them to
    /// [`super::App::set_turns`].
    RewindTurns,
    /// The rewind dialog asks `session.rewind` (a plan, or applying one): pass the
    /// answer to [`super::App::rewind_answer`], a failure to
    /// [`super::App::rewind_failed`].
    Rewind(RewindRequest),
    /// Ctrl+T, or `r` in the trace view: fetch `session.trace` and pass it to
    /// [`super::App::set_trace`], a failure to [`super::App::trace_failed`].
    Trace,
    /// A turn ended: fetch `commands.list` again (skills and command files may have
    /// changed) and pass it to [`super::App::set_commands`].
    RefreshCommands,
    /// `/export [FILE]`: write the session's transcript as Markdown to FILE (`None`:
    /// the default name; see [`crate::export`]) and pass the path written to
    /// [`super::App::exported`], a failure to [`super::App::show_error`].
    Export(Option<String>),
}

/// The state of the link to the daemon, shown in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    Connected,
    Reconnecting { attempt: u32 },
    Disconnected(String),
}
