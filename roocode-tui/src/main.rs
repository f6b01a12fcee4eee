//! `roocode-tui`: the terminal UI client. Picks or creates a session, then runs one
//! loop over three sources — terminal input, the daemon's event feed (which reconnects
//! by itself) and a tick for spinners — drawing after each change. It holds no agent
//! state: everything on screen comes from the session's events.

mod actions;
mod feed;
mod terminal;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};
use futures_util::StreamExt;
use roocode_client::RpcClient;
use roocode_client::autostart::connect_or_start;
use roocode_protocol::api::{CommandsApiClient, SessionApiClient};
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{CreateParams, SessionInfo};
use roocode_tui::{Action, App, Connection, Picker, PickerChoice};
use tokio::sync::{RwLock, mpsc};

use actions::ActionResult;
use feed::FeedMsg;

/// RooCode's terminal UI: attach any number of terminals to one live session.
#[derive(Parser)]
#[command(version = roocode_protocol::BUILD_ID)]
#[command(group = clap::ArgGroup::new("target").multiple(false))]
struct Args {
    /// Continue the latest session of this directory's project (none: a new one).
    #[arg(long = "continue", short = 'c', group = "target")]
    continue_latest: bool,
    /// Attach to this session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    #[arg(long, short = 's', value_name = "ID", group = "target")]
    session: Option<String>,
    /// Choose a session from a list.
    #[arg(long, short = 'r', group = "target")]
    resume: bool,
    /// Working directory of a new session.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Model of a new session.
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// Permission mode of a new session.
    #[arg(long, value_name = "M")]
    mode: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("roocode-tui: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let paths = Paths::from_env()?;
    let (rpc, hello) = connect_or_start(&paths, feed::client_info()).await?;
    if let Some(warning) = roocode_client::build_mismatch_warning(&hello) {
        eprintln!("{warning}");
    }
    let cwd = feed::working_dir(args.cwd.clone())?;
    let mut term = terminal::Terminal::enter()?;
    let session = match choose_session(&rpc, &args, &cwd, &mut term).await {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(()),
        Err(e) => {
            drop(term);
            return Err(e);
        }
    };
    let client: feed::SharedClient = Arc::new(RwLock::new(Some(Arc::new(rpc))));
    let mut session = session;
    let result = loop {
        let commands = match client.read().await.clone() {
            Some(rpc) => {
                let env = roocode_client::client_env(&cwd);
                CommandsApiClient::list(&*rpc, Some(session.id.clone()), Some(env))
                    .await
                    .unwrap_or_default()
            }
            None => Vec::new(),
        };
        let ended = ui(
            &mut term,
            paths.clone(),
            session.clone(),
            commands,
            client.clone(),
            &hello.warnings,
        )
        .await;
        match ended {
            Ok(Exit::Quit) => break Ok(()),
            Ok(Exit::Resume) => {
                let Some(rpc) = client.read().await.clone() else {
                    break Ok(());
                };
                match pick(&rpc, &mut term).await {
                    Ok(PickerChoice::Session(id)) => match rpc.get(id).await {
                        Ok(s) => session = s,
                        Err(e) => break Err(anyhow::anyhow!(roocode_tui::hints::describe(&e))),
                    },
                    // A new session in the same directory.
                    Ok(PickerChoice::New) => match new_session(&rpc, &args, &cwd).await {
                        Ok(s) => session = s,
                        Err(e) => break Err(e),
                    },
                    Ok(PickerChoice::Quit) => break Ok(()),
                    Err(e) => break Err(e),
                }
            }
            Err(e) => break Err(e),
        }
    };
    // The terminal is restored first, so the lines stay on the user's screen.
    drop(term);
    println!("{}", goodbye(&session));
    result
}

/// The session picker over every session; what the user chose.
async fn pick(rpc: &RpcClient, term: &mut terminal::Terminal) -> anyhow::Result<PickerChoice> {
    let sessions = SessionApiClient::list(rpc, None, Some(200), None).await?;
    let mut picker = Picker::new(sessions);
    let mut input = EventStream::new();
    loop {
        term.draw(|f| picker.draw(f))?;
        let Some(Ok(ev)) = input.next().await else {
            return Ok(PickerChoice::Quit);
        };
        if let TermEvent::Key(key) = ev
            && key.kind != KeyEventKind::Release
            && let Some(choice) = picker.on_key(key)
        {
            return Ok(choice);
        }
    }
}

/// A new session in `cwd` with the command line's model and mode.
async fn new_session(
    rpc: &RpcClient,
    args: &Args,
    cwd: &std::path::Path,
) -> anyhow::Result<SessionInfo> {
    let params = CreateParams {
        cwd: cwd.display().to_string(),
        model: args.model.clone(),
        mode: args.mode.clone(),
        env: roocode_client::client_env(cwd),
        ..CreateParams::default()
    };
    rpc.create(params)
        .await
        .map_err(|e| anyhow::anyhow!(roocode_tui::hints::describe(&e)))
}

/// What leaving prints: the session lives on in the daemon, and how to come back.
/// (The title is the one known on entering: a new session has none yet.)
fn goodbye(session: &SessionInfo) -> String {
    let id = session.shown_id();
    let title = session.title.trim();
    let named = if title.is_empty() {
        format!("session {id}")
    } else {
        format!("session {id} ({title})")
    };
    format!(
        "Left {named}; the daemon keeps it, and a running turn goes on.\nReturn with `roocode-tui --session {id}`, or follow it with `roocode-cli attach {id}`."
    )
}

/// `--session`, `--continue`, the picker, or a new session.
async fn choose_session(
    rpc: &RpcClient,
    args: &Args,
    cwd: &std::path::Path,
    term: &mut terminal::Terminal,
) -> anyhow::Result<Option<SessionInfo>> {
    if let Some(id) = &args.session {
        return Ok(Some(
            rpc.get(id.clone())
                .await
                .map_err(|e| anyhow::anyhow!(roocode_tui::hints::describe(&e)))?,
        ));
    }
    if args.continue_latest
        && let Some(latest) =
            SessionApiClient::list(rpc, Some(cwd.display().to_string()), Some(1), None)
                .await?
                .into_iter()
                .next()
    {
        return Ok(Some(latest));
    }
    if args.resume {
        match pick(rpc, term).await? {
            PickerChoice::Session(id) => return Ok(Some(rpc.get(id).await?)),
            PickerChoice::New => {}
            PickerChoice::Quit => return Ok(None),
        }
    }
    Ok(Some(new_session(rpc, args, cwd).await?))
}

/// The main loop.
async fn ui(
    term: &mut terminal::Terminal,
    paths: Paths,
    session: SessionInfo,
    commands: Vec<roocode_protocol::session::CommandInfo>,
    client: feed::SharedClient,
    warnings: &[String],
) -> anyhow::Result<Exit> {
    let session_id = session.id.clone();
    let mut app = App::new(session, commands);
    app.daemon_warnings(warnings);
    app.set_tmux(std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()));
    let (feed_tx, mut feed_rx) = mpsc::unbounded_channel::<FeedMsg>();
    let (result_tx, mut result_rx) = mpsc::unbounded_channel::<ActionResult>();
    tokio::spawn(feed::watch_overview(client.clone(), feed_tx.clone()));
    tokio::spawn(feed::run(
        paths,
        session_id.clone(),
        0,
        client.clone(),
        feed_tx,
    ));
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    term.draw(|f| app.draw(f))?;
    while !app.should_quit() {
        tokio::select! {
            ev = input.next() => match ev {
                Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
                    for action in app.on_key(key) {
                        match action {
                            Action::Quit => return Ok(Exit::Quit),
                            Action::Resume => return Ok(Exit::Resume),
                            _ => {}
                        }
                        actions::perform(action, session_id.clone(), client.clone(), result_tx.clone());
                    }
                }
                Some(Ok(TermEvent::Paste(text))) => app.on_paste(&text),
                Some(Ok(TermEvent::Mouse(m))) => app.on_mouse(m),
                Some(Ok(_)) => {}
                Some(Err(e)) => anyhow::bail!("cannot read the terminal: {e}"),
                None => return Ok(Exit::Quit),
            },
            msg = feed_rx.recv() => match msg {
                Some(FeedMsg::Event(ev)) => {
                    let mut turn_ended = is_turn_end(&ev);
                    app.on_event(&ev);
                    // Drain what else is ready, then draw once.
                    while let Ok(FeedMsg::Event(ev)) = feed_rx.try_recv() {
                        turn_ended |= is_turn_end(&ev);
                        app.on_event(&ev);
                    }
                    // Skills and command files may have changed: the completion list
                    // is read again after each turn.
                    if turn_ended {
                        actions::perform(Action::RefreshCommands, session_id.clone(), client.clone(), result_tx.clone());
                    }
                    if app.take_team_refresh() {
                        actions::perform(Action::RefreshTeam, session_id.clone(), client.clone(), result_tx.clone());
                    }
                }
                Some(FeedMsg::Connected) => {
                    app.set_connection(Connection::Connected);
                    // The sub-agents, as of now (the stream keeps them current).
                    actions::perform(Action::RefreshAgents, session_id.clone(), client.clone(), result_tx.clone());
                    actions::perform(Action::RefreshTeam, session_id.clone(), client.clone(), result_tx.clone());
                }
                Some(FeedMsg::OverviewChanged) => actions::perform(
                    Action::RefreshOverview,
                    session_id.clone(),
                    client.clone(),
                    result_tx.clone(),
                ),
                Some(FeedMsg::Reconnecting { attempt, error }) => app.set_connection(if attempt <= 3 {
                    Connection::Reconnecting { attempt }
                } else {
                    Connection::Disconnected(error)
                }),
                None => return Ok(Exit::Quit),
            },
            r = result_rx.recv() => match r {
                Some(ActionResult::Error(e)) => app.show_error(&e),
                Some(ActionResult::Output { line, text }) => app.command_output(&line, &text),
                Some(ActionResult::Overview { pending, sessions }) => app.set_overview(pending, sessions),
                Some(ActionResult::Agents(list)) => app.set_agents(&list),
                Some(ActionResult::Team(team)) => app.set_team(team.map(|t| *t)),
                Some(ActionResult::Commands(list)) => app.set_commands(list),
                Some(ActionResult::Turns(turns)) => app.set_turns(turns),
                Some(ActionResult::RewindPlan(plan)) => app.rewind_answer(*plan),
                Some(ActionResult::RewindFailed(e)) => app.rewind_failed(&e),
                Some(ActionResult::Exported(path)) => app.exported(&path),
                Some(ActionResult::Trace(trace)) => app.set_trace(*trace),
                Some(ActionResult::TraceFailed(e)) => app.trace_failed(&e),
                None => {}
            },
            _ = tick.tick() => app.on_tick(),
        }
        term.draw(|f| app.draw(f))?;
    }
    Ok(Exit::Quit)
}

/// How the main loop ended.
enum Exit {
    Quit,
    /// `/resume`: the picker, then another session.
    Resume,
}

fn is_turn_end(ev: &roocode_protocol::event::Event) -> bool {
    matches!(
        ev.payload,
        roocode_protocol::event::EventPayload::TurnCompleted { .. }
    )
}
