//! The JSON-RPC API, declared once: the daemon implements the `*Server` traits and
//! clients call the generated `*Client` traits. Parameters travel by name.
//!
//! Wire names read `group.method` (`session.create`). The first call of every
//! connection is `daemon.hello`.

use jsonrpsee::core::SubscriptionResult;
use jsonrpsee::proc_macros::rpc;
use jsonrpsee::types::ErrorObjectOwned;

use crate::agents::{AgentDefinitions, AgentInfo};
use crate::daemon::{ClientInfo, DaemonInfo, HelloResponse};
use crate::doctor::DoctorReport;
use crate::event::Event;
use crate::hooks::{HookInfo, HookList};
use crate::mcp::{McpApproval, McpServerInfo};
use crate::prune::{PruneParams, PruneReport};
use crate::replay::{ReplayParams, ReplayStarted};
use crate::rewind::{RewindParams, RewindPlan, TurnSummary};
use crate::session::{
    ClientEnv, CommandInfo, CommandOutput, CreateParams, ExportPage, HistoryPage, ImportParams,
    PendingRequest, PermissionDecision, SendParams, SendResponse, SessionInfo,
};
use crate::teams::{MailInfo, TeamInfo};
use crate::trace::{SessionTrace, TraceBody};
use crate::workflow::{LoopInfo, WorkflowInfo};

/// Result type of every RPC method.
pub type RpcResult<T> = Result<T, ErrorObjectOwned>;

/// `daemon.*`: handshake, status and lifecycle.
#[rpc(server, client, namespace = "daemon", namespace_separator = ".")]
pub trait DaemonApi {
    /// The handshake: the first call of every connection.
    #[method(name = "hello", param_kind = map, with_extensions)]
    async fn hello(
        &self,
        protocol: u32,
        build_id: String,
        client: ClientInfo,
    ) -> RpcResult<HelloResponse>;

    #[method(name = "info", param_kind = map)]
    async fn info(&self) -> RpcResult<DaemonInfo>;

    /// Stops the daemon cleanly: running turns are marked interrupted.
    #[method(name = "shutdown", param_kind = map)]
    async fn shutdown(&self) -> RpcResult<()>;

    /// Old sessions, spilled results, snapshots and recorded bodies: what can go, or
    /// (with `apply`) removing it (see [`crate::prune`]).
    #[method(name = "prune", param_kind = map)]
    async fn prune(&self, params: PruneParams) -> RpcResult<PruneReport>;

    /// Events of every session that matter outside it: turns starting and ending,
    /// permission requests and questions raised and resolved, sub-agents
    /// starting and ending. For overviews (the TUI's
    /// side panel): refresh `pending.list` / `session.list` on each. Advisory: a
    /// subscriber that falls behind skips events rather than being closed.
    #[subscription(name = "subscribe" => "event", unsubscribe = "unsubscribe", item = Event, param_kind = map)]
    async fn subscribe_daemon(&self) -> SubscriptionResult;
}

/// `session.*`: sessions, messages and their event streams.
#[rpc(server, client, namespace = "session", namespace_separator = ".")]
pub trait SessionApi {
    #[method(name = "create", param_kind = map)]
    async fn create(&self, params: CreateParams) -> RpcResult<SessionInfo>;

    /// Sessions by last activity, newest first; `root` filters by project root.
    /// Main sessions only, unless `all` (then sub-agents' sessions too).
    #[method(name = "list", param_kind = map)]
    async fn list(
        &self,
        root: Option<String>,
        limit: Option<u32>,
        all: Option<bool>,
    ) -> RpcResult<Vec<SessionInfo>>;

    /// `session_id` may be a unique prefix.
    #[method(name = "get", param_kind = map)]
    async fn get(&self, session_id: String) -> RpcResult<SessionInfo>;

    /// A page of the event log: the newest `limit` events before `before_seq`
    /// (or after `after_seq`), oldest first.
    #[method(name = "history", param_kind = map)]
    async fn history(
        &self,
        session_id: String,
        before_seq: Option<u64>,
        after_seq: Option<u64>,
        limit: Option<u32>,
    ) -> RpcResult<HistoryPage>;

    /// Sends a user message; returns at once.
    #[method(name = "send", param_kind = map)]
    async fn send(&self, params: SendParams) -> RpcResult<SendResponse>;

    /// Interrupts the running turn (like Esc). Returns whether a turn was running.
    #[method(name = "cancel", param_kind = map)]
    async fn cancel(&self, session_id: String) -> RpcResult<bool>;

    /// Runs a slash command line such as `/mode plan` or `/review src`. Prompt
    /// commands, skills and MCP prompts start a turn (`sent`); `env` is the client's
    /// environment for it, as `send` takes it.
    #[method(name = "command", param_kind = map)]
    async fn command(
        &self,
        session_id: String,
        line: String,
        env: Option<ClientEnv>,
    ) -> RpcResult<CommandOutput>;

    #[method(name = "set_mode", param_kind = map)]
    async fn set_mode(&self, session_id: String, mode: String) -> RpcResult<SessionInfo>;

    #[method(name = "set_model", param_kind = map)]
    async fn set_model(&self, session_id: String, model: String) -> RpcResult<SessionInfo>;

    /// Deletes the session, cancelling its turn first.
    #[method(name = "delete", param_kind = map)]
    async fn delete(&self, session_id: String) -> RpcResult<()>;

    /// The model context as JSONL, one message per line, in pages.
    #[method(name = "export", param_kind = map)]
    async fn export(
        &self,
        session_id: String,
        format: Option<String>,
        offset: Option<u64>,
        limit: Option<u32>,
    ) -> RpcResult<ExportPage>;

    /// Imports a session exported as JSONL (one message per line), in pages: the first
    /// call (no `session_id`) creates the session in `cwd`; later calls append to it.
    #[method(name = "import", param_kind = map)]
    async fn import(&self, params: ImportParams) -> RpcResult<SessionInfo>;

    /// The session's turns, oldest first, with the files each changed.
    #[method(name = "turns", param_kind = map)]
    async fn turns(&self, session_id: String) -> RpcResult<Vec<TurnSummary>>;

    /// Puts the workspace and/or the conversation back as they were before a turn
    /// (see [`crate::rewind`]); refused while a turn runs.
    #[method(name = "rewind", param_kind = map)]
    async fn rewind(&self, params: RewindParams) -> RpcResult<RewindPlan>;

    /// The flight recorder's timeline of the session (see [`crate::trace`]).
    #[method(name = "trace", param_kind = map)]
    async fn trace(&self, session_id: String) -> RpcResult<SessionTrace>;

    /// The kept request and response bodies of one model call of the session or of
    /// one of its agents (`model_call_id`: the id or a unique prefix of it).
    #[method(name = "trace_body", param_kind = map)]
    async fn trace_body(&self, session_id: String, model_call_id: String) -> RpcResult<TraceBody>;

    /// Runs a recorded session again against its recorded model answers, in a scratch
    /// copy of its project (see [`crate::replay`]); returns once the replay started.
    #[method(name = "replay", param_kind = map)]
    async fn replay(&self, params: ReplayParams) -> RpcResult<ReplayStarted>;

    /// Replays the events after `since_seq` (0: all), then follows live. The first
    /// item is a `snapshot`; a client that falls behind gets `resync` and the end.
    #[subscription(name = "subscribe" => "event", unsubscribe = "unsubscribe", item = Event, param_kind = map)]
    async fn subscribe_events(
        &self,
        session_id: String,
        since_seq: Option<u64>,
    ) -> SubscriptionResult;
}

/// `commands.*`: slash commands for completion and `/help`.
#[rpc(server, client, namespace = "commands", namespace_separator = ".")]
pub trait CommandsApi {
    /// The daemon's own commands; with a session, also its project's and the user's
    /// skills, prompt commands and MCP prompts (user files from `env`'s `HOME`), the
    /// shadowed ones marked.
    #[method(name = "list", param_kind = map)]
    async fn list(
        &self,
        session_id: Option<String>,
        env: Option<ClientEnv>,
    ) -> RpcResult<Vec<CommandInfo>>;
}

/// `pending.*`: every permission request and question waiting for a human.
#[rpc(server, client, namespace = "pending", namespace_separator = ".")]
pub trait PendingApi {
    #[method(name = "list", param_kind = map)]
    async fn list(&self) -> RpcResult<Vec<PendingRequest>>;
}

/// `permission.*`: answering permission requests from any client. The first answer
/// wins; every attached client sees `permission_resolved` with who decided.
#[rpc(server, client, namespace = "permission", namespace_separator = ".")]
pub trait PermissionApi {
    /// Errors when the request is unknown or already answered (by another client).
    #[method(name = "respond", param_kind = map, with_extensions)]
    async fn respond(
        &self,
        request_id: String,
        decision: PermissionDecision,
        feedback: Option<String>,
    ) -> RpcResult<()>;
}

/// `question.*`: answering `AskUserQuestion`.
#[rpc(server, client, namespace = "question", namespace_separator = ".")]
pub trait QuestionApi {
    /// `answers` has one entry per question, in order: an option's label (several
    /// labels joined by `, ` for multi-select questions) or free text.
    #[method(name = "respond", param_kind = map, with_extensions)]
    async fn respond(&self, request_id: String, answers: Vec<String>) -> RpcResult<()>;
}

/// `agent.*`: sub-agents.
#[rpc(server, client, namespace = "agent", namespace_separator = ".")]
pub trait AgentApi {
    /// The agent definitions that apply in `cwd`'s project for the user whose home is
    /// `env`'s `HOME` (`~/.claude/agents`, `~/.roocode/agents`, then the project's), with
    /// every file that could not be loaded and why.
    #[method(name = "definitions", param_kind = map)]
    async fn definitions(
        &self,
        cwd: String,
        env: crate::session::ClientEnv,
    ) -> RpcResult<AgentDefinitions>;

    /// Sub-agents, oldest first: of `session_id`'s tree (any session of it; a unique
    /// prefix is fine), or of every session when absent.
    #[method(name = "list", param_kind = map)]
    async fn list(&self, session_id: Option<String>) -> RpcResult<Vec<AgentInfo>>;

    /// One sub-agent, with its result once it has one.
    #[method(name = "get", param_kind = map)]
    async fn get(&self, agent_id: String) -> RpcResult<AgentInfo>;

    /// Stops a sub-agent (its running turn is cancelled; it ends `cancelled`). Returns
    /// whether it was still running or queued.
    #[method(name = "stop", param_kind = map)]
    async fn stop(&self, agent_id: String) -> RpcResult<bool>;

    /// Moves a running foreground sub-agent to the background: its parent's turn goes
    /// on at once and gets its result later as a task notification. Returns whether it
    /// moved (false: it was in the background already, or has ended).
    #[method(name = "background", param_kind = map)]
    async fn background(&self, agent_id: String) -> RpcResult<bool>;
}

/// `team.*`: agent teams (a lead session, its teammates and their shared task list).
/// A team is named by its id, its name (when no other team has it) or any session of
/// it (the lead's or a member's: an id or a unique prefix).
#[rpc(server, client, namespace = "team", namespace_separator = ".")]
pub trait TeamApi {
    /// Teams, oldest first, with their members (no task list: `team.get` has it); only
    /// the team of `session_id` (lead or member) when given.
    #[method(name = "list", param_kind = map)]
    async fn list(&self, session_id: Option<String>) -> RpcResult<Vec<TeamInfo>>;

    /// One team, with its members and its task list.
    #[method(name = "get", param_kind = map)]
    async fn get(&self, team: String) -> RpcResult<TeamInfo>;

    /// Deletes a team: refused while a member is active; otherwise stops every member
    /// and removes the team's state (members, tasks, mail). Returns what was done.
    #[method(name = "delete", param_kind = map)]
    async fn delete(&self, team: String) -> RpcResult<String>;
}

/// `mailbox.*`: the messages of teams' members.
#[rpc(server, client, namespace = "mailbox", namespace_separator = ".")]
pub trait MailboxApi {
    /// Messages, oldest first: of `team` (as `team.get` names one) or of every team;
    /// only those addressed to `agent` when given (a member's name in the team, `lead`,
    /// or an agent id; without `team`, an agent id or prefix names its team too).
    #[method(name = "list", param_kind = map)]
    async fn list(&self, team: Option<String>, agent: Option<String>) -> RpcResult<Vec<MailInfo>>;
}

/// `doctor.*`: the health report of `roocode-cli doctor`.
#[rpc(server, client, namespace = "doctor", namespace_separator = ".")]
pub trait DoctorApi {
    /// Checks the daemon, the command sandbox on this kernel, the config files that
    /// apply to `cwd` and the providers' keys in `env` (a client snapshot; keys are
    /// reported present or missing, never returned).
    #[method(name = "run", param_kind = map)]
    async fn run(&self, cwd: String, env: crate::session::ClientEnv) -> RpcResult<DoctorReport>;
}

/// `hooks.*`: the hooks a session started in `cwd` by a client with `env` would run
/// (user hooks from `env`'s `HOME`). Both are refused to the model's commands: a command
/// may not approve its own repository's hooks.
#[rpc(server, client, namespace = "hooks", namespace_separator = ".")]
pub trait HooksApi {
    /// Every configured hook, approved or not, with its last result.
    #[method(name = "list", param_kind = map)]
    async fn list(&self, cwd: String, env: crate::session::ClientEnv) -> RpcResult<HookList>;

    /// Approves the project's hooks as they are now (`ids`, or every one waiting when
    /// empty); returns those approved.
    #[method(name = "approve", param_kind = map)]
    async fn approve(
        &self,
        cwd: String,
        env: crate::session::ClientEnv,
        ids: Vec<String>,
    ) -> RpcResult<Vec<HookInfo>>;
}

/// `mcp.*`: the MCP servers of a project as a session started in `cwd` by a client
/// with `env` would have them (`${VAR}`s expanded from `env`). Listing starts the
/// servers that may run and waits for them up to `mcp.startup_wait_ms`, so their
/// states are real. All three are refused to the model's commands.
#[rpc(server, client, namespace = "mcp", namespace_separator = ".")]
pub trait McpApi {
    /// Every configured server, by name.
    #[method(name = "list", param_kind = map)]
    async fn list(
        &self,
        cwd: String,
        env: crate::session::ClientEnv,
    ) -> RpcResult<Vec<McpServerInfo>>;

    /// One server, with its tools.
    #[method(name = "get", param_kind = map)]
    async fn get(
        &self,
        cwd: String,
        env: crate::session::ClientEnv,
        name: String,
    ) -> RpcResult<McpServerInfo>;

    /// Approves a project's server as it is now (a change to what it runs asks
    /// again); it starts at the next turn of a session. Errors for an unknown name and
    /// for a server that is not a project's (it needs no approval).
    #[method(name = "approve", param_kind = map)]
    async fn approve(
        &self,
        cwd: String,
        env: crate::session::ClientEnv,
        name: String,
    ) -> RpcResult<McpApproval>;
}

/// `workflow.*`: workflow functions, their artifacts (see [`crate::workflow`]).
#[rpc(server, client, namespace = "workflow", namespace_separator = ".")]
pub trait WorkflowApi {
    /// One agent's functions and its session's artifacts (`session_id`: a session or
    /// agent id, or a unique prefix).
    #[method(name = "get", param_kind = map)]
    async fn get(&self, session_id: String) -> RpcResult<WorkflowInfo>;

    /// The loops of a session (`session_id`), or of every session, newest first.
    #[method(name = "loops", param_kind = map)]
    async fn loops(&self, session_id: Option<String>) -> RpcResult<Vec<LoopInfo>>;

    /// Stops a running loop (`loop_id`: its id or a unique prefix) and its round's
    /// worker; the loop's origin is told. The loop as it ended.
    #[method(name = "stop_loop", param_kind = map)]
    async fn stop_loop(&self, loop_id: String) -> RpcResult<LoopInfo>;
}
