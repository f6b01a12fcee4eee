//! Carries out what the user asked for in the UI, over the current connection. Answers
//! come back as events through the feed; only failures are reported here.

use roocode_protocol::agents::AgentInfo;
use roocode_protocol::api::{
    AgentApiClient, CommandsApiClient, PendingApiClient, PermissionApiClient, QuestionApiClient,
    SessionApiClient, TeamApiClient,
};
use roocode_protocol::rewind::{RewindParams, RewindPlan, TurnSummary};
use roocode_protocol::session::{CommandInfo, SendParams};
use roocode_protocol::teams::TeamInfo;
use tokio::sync::mpsc;

use crate::feed::SharedClient;
use roocode_protocol::session::{PendingRequest, SessionInfo};
use roocode_tui::app::Action;

/// What an action produced for the UI.
pub enum ActionResult {
    /// Something failed; show it.
    Error(String),
    /// A slash command's output.
    Output { line: String, text: String },
    /// Data for the side panel.
    Overview {
        pending: Vec<PendingRequest>,
        sessions: Vec<SessionInfo>,
    },
    /// The session's sub-agents (`agent.list`).
    Agents(Vec<AgentInfo>),
    /// The session's team (`team.get`), `None` outside a team.
    Team(Option<Box<TeamInfo>>),
    /// The session's slash commands (`commands.list`).
    Commands(Vec<CommandInfo>),
    /// The session's turns (`session.turns`), for the rewind dialog.
    Turns(Vec<TurnSummary>),
    /// `session.rewind`'s answer: a plan, or what an applied rewind did.
    RewindPlan(Box<RewindPlan>),
    /// A rewind request failed: the daemon's message, for the rewind dialog.
    RewindFailed(String),
    /// `/export` wrote the transcript to this file.
    Exported(std::path::PathBuf),
    /// The session's trace (`session.trace`), for the trace view.
    Trace(Box<roocode_protocol::trace::SessionTrace>),
    /// Fetching the trace failed: the daemon's message, for the trace view.
    TraceFailed(String),
}

/// Performs `action` in the background; results go to `tx`.
pub fn perform(
    action: Action,
    session_id: String,
    client: SharedClient,
    tx: mpsc::UnboundedSender<ActionResult>,
) {
    tokio::spawn(async move {
        let Some(rpc) = client.read().await.clone() else {
            let _ = tx.send(ActionResult::Error(
                "not connected to the daemon: retrying".into(),
            ));
            return;
        };
        let result = match action {
            Action::Send(text) => rpc
                .send(SendParams {
                    session_id,
                    text,
                    env: roocode_client::client_env(&std::env::current_dir().unwrap_or_default()),
                    model: None,
                    mode: None,
                })
                .await
                .map(|_| None),
            Action::Command(line) => {
                let env = roocode_client::client_env(&std::env::current_dir().unwrap_or_default());
                // A command that starts a turn shows through the session's events.
                rpc.command(session_id, line.clone(), Some(env))
                    .await
                    .map(|out| {
                        out.sent.is_none().then_some(ActionResult::Output {
                            line,
                            text: out.output,
                        })
                    })
            }
            Action::Cancel => rpc.cancel(session_id).await.map(|_| None),
            Action::SetMode(mode) => rpc.set_mode(session_id, mode).await.map(|_| None),
            Action::RespondPermission {
                request_id,
                decision,
                feedback,
            } => PermissionApiClient::respond(&*rpc, request_id, decision, feedback)
                .await
                .map(|()| None),
            Action::AnswerQuestion {
                request_id,
                answers,
            } => QuestionApiClient::respond(&*rpc, request_id, answers)
                .await
                .map(|()| None),
            Action::RefreshOverview => {
                let pending = PendingApiClient::list(&*rpc).await;
                let sessions = SessionApiClient::list(&*rpc, None, Some(50), None).await;
                match (pending, sessions) {
                    (Ok(pending), Ok(sessions)) => {
                        Ok(Some(ActionResult::Overview { pending, sessions }))
                    }
                    (Err(e), _) | (_, Err(e)) => Err(e),
                }
            }
            Action::BackgroundAgent(id) => match AgentApiClient::background(&*rpc, id).await {
                Ok(true) => Ok(None),
                Ok(false) => Ok(Some(ActionResult::Error(
                    "the agent was not running in the foreground any more".into(),
                ))),
                Err(e) => Err(e),
            },
            // An older daemon has no `agent.list`: then there are no agents to show.
            Action::RefreshAgents => Ok(AgentApiClient::list(&*rpc, Some(session_id))
                .await
                .ok()
                .map(ActionResult::Agents)),
            // Outside a team (or with an older daemon, which has no `team.get`) there
            // is no team to show.
            Action::RefreshTeam => Ok(Some(ActionResult::Team(
                TeamApiClient::get(&*rpc, session_id)
                    .await
                    .ok()
                    .map(Box::new),
            ))),
            // Failures go to the rewind dialog, which says them where the user looks.
            Action::RewindTurns => Ok(Some(
                match SessionApiClient::turns(&*rpc, session_id).await {
                    Ok(turns) => ActionResult::Turns(turns),
                    Err(e) => ActionResult::RewindFailed(roocode_tui::hints::describe(&e)),
                },
            )),
            Action::Rewind(r) => {
                let params = RewindParams {
                    session_id,
                    to: Some(r.to),
                    scope: r.scope,
                    apply: r.apply,
                    workspace: r.workspace,
                    overwrite_conflicts: r.overwrite_conflicts,
                };
                Ok(Some(match SessionApiClient::rewind(&*rpc, params).await {
                    Ok(plan) => ActionResult::RewindPlan(Box::new(plan)),
                    Err(e) => ActionResult::RewindFailed(roocode_tui::hints::describe(&e)),
                }))
            }
            // Failures go to the trace view, as the rewind dialog's do.
            Action::Trace => Ok(Some(
                match SessionApiClient::trace(&*rpc, session_id).await {
                    Ok(trace) => ActionResult::Trace(Box::new(trace)),
                    Err(e) => ActionResult::TraceFailed(roocode_tui::hints::describe(&e)),
                },
            )),
            Action::Export(file) => Ok(Some(export(&rpc, session_id, file).await)),
            Action::Quit | Action::Resume => Ok(None),
            Action::RefreshCommands => {
                let env = roocode_client::client_env(&std::env::current_dir().unwrap_or_default());
                CommandsApiClient::list(&*rpc, Some(session_id), Some(env))
                    .await
                    .map(|list| Some(ActionResult::Commands(list)))
            }
        };
        match result {
            Ok(Some(r)) => {
                let _ = tx.send(r);
            }
            Ok(None) => {}
            Err(e) => {
                let _ = tx.send(ActionResult::Error(roocode_tui::hints::describe(&e)));
            }
        }
    });
}

/// `/export [file]`: the session's transcript as Markdown, written to `file` or the
/// default name beside the session ([`roocode_tui::export`]).
async fn export(
    rpc: &roocode_client::RpcClient,
    session_id: String,
    file: Option<String>,
) -> ActionResult {
    use roocode_client::transcript::{self, Format};
    let failed = |e: &jsonrpsee::core::client::Error| {
        ActionResult::Error(format!(
            "cannot export the transcript: {}",
            roocode_tui::hints::describe(e)
        ))
    };
    let info = match SessionApiClient::get(rpc, session_id).await {
        Ok(info) => info,
        Err(e) => return failed(&e),
    };
    let events = match transcript::load(rpc, &info.id).await {
        Ok(events) => events,
        Err(e) => return failed(&e),
    };
    let text = transcript::render(&info.title, &info.id, &events, Format::Markdown);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let path = roocode_tui::export::target(
        std::path::Path::new(&info.cwd),
        home.as_deref(),
        file.as_deref(),
        info.shown_id(),
        now,
    );
    match roocode_tui::export::write_new(&path, &text) {
        Ok(()) => ActionResult::Exported(path),
        Err(e) => ActionResult::Error(format!("cannot export the transcript: {e}")),
    }
}
