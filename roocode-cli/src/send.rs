//! `roocode-cli send`: deliver a message to a session and follow the turn it lands in.
//!
//! Flow: find or create the session → subscribe from its `last_seq` *before* sending
//! (so no event of our turn can be missed) → `session.send` → follow events until our
//! turn's `turn_completed`. Ctrl+C cancels the turn and keeps waiting for its end;
//! a second Ctrl+C exits 130 at once.
//!
//! Waits on a human always print `permission: <request_id> <tool> <summary>` (or
//! `question: …`) on stderr; when stdin and stderr are terminals the user is also
//! asked right here ([`HumanLoop`]) and the answer goes over the same connection.
//! Otherwise `send` keeps waiting for an answer from `approve`/`deny`/`answer` or a TUI.
//! A sub-agent's waits show the same way, labelled with its name.
//!
//! With `--wait-agents`, `send` goes on after its turn until the session's background
//! agents have ended and the turns their task notifications woke have completed
//! ([`AgentWait`]), printing those turns as it printed its own (with `--output json`,
//! one object per turn); the exit status is the last turn's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use roocode_client::RpcClient;
use roocode_protocol::api::{
    AgentApiClient, PermissionApiClient, QuestionApiClient, SessionApiClient,
};
use roocode_protocol::event::EventPayload;
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{CreateParams, SendParams, SessionInfo};
use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::connect;
use crate::failure::{Failure, UsageError};
use crate::human::{Effects, HumanLoop};
use crate::input;
use crate::output::{Sink, Stdio};
use crate::prompt::Reply;
use crate::stream::{self, EventStream};
use crate::summary::SummaryBuilder;
use crate::terminal::TerminalInput;
use crate::turn::{SendOutput, TurnFollower, print_json};
use crate::wait_agents::AgentWait;

/// Arguments of `send`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").multiple(false))]
pub struct SendArgs {
    /// The message; `-` (or nothing, with stdin not a terminal) reads it from stdin.
    pub text: Option<String>,
    /// Send to this session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    #[arg(long, short = 's', value_name = "ID", group = "target")]
    pub session: Option<String>,
    /// Continue the latest session of this directory's project (none: a new one).
    #[arg(long = "continue", short = 'c', group = "target")]
    pub continue_latest: bool,
    /// Start a new session (the default).
    #[arg(long, group = "target")]
    pub new: bool,
    /// Working directory of a new session, and the project `--continue` looks in.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Model to use (switches the session's model).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Permission mode to use (switches the session's mode).
    #[arg(long, value_name = "M")]
    pub mode: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = SendOutput::Text)]
    pub output: SendOutput,
    /// Exit once the message is accepted; print nothing on stdout.
    #[arg(long, conflicts_with = "wait_agents")]
    pub no_wait: bool,
    /// After the turn, wait for the session's background agents to end and for the
    /// turns their notifications start, printing those too (exit status: the last turn's).
    #[arg(long)]
    pub wait_agents: bool,
}

/// Runs `send`; returns the exit status.
pub async fn run(args: SendArgs) -> anyhow::Result<i32> {
    let text = input::message(args.text.as_deref())?;
    let cwd = working_dir(args.cwd.as_deref())?;
    let mut sink = Stdio::new();
    let mut session_id = None;
    match drive(&args, text, &cwd, &mut sink, &mut session_id).await {
        Ok(code) => Ok(code),
        Err(failure) => {
            sink.err_line(&format!("error: {failure}"));
            if args.output == SendOutput::Json {
                let summary =
                    SummaryBuilder::default().failed(session_id.as_deref(), None, &failure);
                print_json(&summary, &mut sink);
            }
            Ok(1)
        }
    }
}

/// The directory a new session starts in: `--cwd` (which must exist) or the current one.
fn working_dir(arg: Option<&Path>) -> Result<PathBuf, UsageError> {
    match arg {
        Some(dir) => {
            let dir = dir
                .canonicalize()
                .map_err(|e| UsageError(format!("--cwd {}: {e}", dir.display())))?;
            if !dir.is_dir() {
                return Err(UsageError(format!(
                    "--cwd {}: not a directory",
                    dir.display()
                )));
            }
            Ok(dir)
        }
        None => std::env::current_dir()
            .map_err(|e| UsageError(format!("cannot read the current directory: {e}"))),
    }
}

/// Everything up to the end of the turn; failures before the turn is followed are
/// returned, later ones are reported by the follower.
async fn drive(
    args: &SendArgs,
    text: String,
    cwd: &Path,
    sink: &mut Stdio,
    session_id: &mut Option<String>,
) -> Result<i32, Failure> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let rpc = &conn.rpc;
    let session = open_session(rpc, args, cwd).await?;
    *session_id = Some(session.id.clone());
    sink.err_line(&session_line(&session));
    let params = SendParams {
        session_id: session.id.clone(),
        text,
        env: roocode_client::client_env(cwd),
        model: args.model.clone(),
        mode: args.mode.clone(),
    };
    let command = slash_command(&params.text);
    if args.no_wait {
        match command {
            Some(line) => {
                let out = rpc
                    .command(session.id.clone(), line, Some(params.env))
                    .await?;
                if out.sent.is_none() {
                    print_command_output(args.output, &session.id, &out.output, sink);
                }
            }
            None => {
                rpc.send(params).await?;
            }
        }
        return Ok(0);
    }
    // Subscribed before the command or message is sent, so no event of its turn is missed.
    let mut stream = stream::open(rpc, &session.id, session.last_seq).await?;
    // The session's sub-agents started before we subscribed: their names label their
    // requests, and `--wait-agents` waits for the running ones. An older daemon has no
    // `agent.list`: then there are none.
    let agents = AgentApiClient::list(rpc, Some(session.id.clone()))
        .await
        .unwrap_or_default();
    // Watch Ctrl+C before sending, so that one pressed during the call cancels the turn.
    let sigint = signal(SignalKind::interrupt())
        .map_err(|e| Failure::new("internal", format!("cannot watch Ctrl+C: {e}")))?;
    let sent = match command {
        // A local command answers at once; a prompt command, a skill or an MCP prompt
        // starts a turn, followed as a message's.
        Some(line) => {
            let out = rpc
                .command(session.id.clone(), line, Some(params.env))
                .await?;
            match out.sent {
                Some(sent) => {
                    if !out.output.is_empty() {
                        sink.err_line(out.output.trim_end());
                    }
                    sent
                }
                None => {
                    print_command_output(args.output, &session.id, &out.output, sink);
                    return Ok(0);
                }
            }
        }
        None => rpc.send(params).await?,
    };
    let mut follower = TurnFollower::new(args.output, &session, &sent)
        .with_answer_hints(!TerminalInput::available());
    follower.learn_agents(&agents);
    let turn = Turn {
        rpc,
        paths: &paths,
        session: &session,
        sigint,
        output: args.output,
        wait: args.wait_agents.then(|| AgentWait::new(&agents)),
    };
    turn.follow(&mut stream, follower, sink).await
}

/// `Some(line)` when `text` is a slash command (`/cost`, `/mode plan`, an unknown
/// `/cots`, which the daemon refuses naming the closest); anything else, such as a
/// message starting with a path (`/usr/lib is broken`), goes to the model.
fn slash_command(text: &str) -> Option<String> {
    roocode_protocol::command::parse(text).map(|_| text.trim().to_string())
}

/// A local command's answer: its text, or `{"session_id", "output"}` as JSON.
fn print_command_output(output: SendOutput, session_id: &str, text: &str, sink: &mut Stdio) {
    match output {
        SendOutput::Text => sink.out(&format!("{}\n", text.trim_end())),
        SendOutput::Json | SendOutput::StreamJson => print_json(
            &serde_json::json!({"session_id": session_id, "output": text}),
            sink,
        ),
    }
}

/// What following a turn needs besides its events.
struct Turn<'a> {
    rpc: &'a RpcClient,
    paths: &'a Paths,
    session: &'a SessionInfo,
    sigint: Signal,
    output: SendOutput,
    /// `--wait-agents`: what is left to wait for after our turn.
    wait: Option<AgentWait>,
}

/// `session: <short id> (<full id>)`: the short form to type, the full one for scripts
/// reading stderr (JSON outputs carry the full id alone).
fn session_line(session: &SessionInfo) -> String {
    if session.shown_id() == session.id {
        format!("session: {}", session.id)
    } else {
        format!("session: {} ({})", session.shown_id(), session.id)
    }
}

/// The session to send to: `--session`, `--continue`, or a new one.
async fn open_session(
    rpc: &RpcClient,
    args: &SendArgs,
    cwd: &Path,
) -> Result<SessionInfo, Failure> {
    if let Some(id) = &args.session {
        return Ok(SessionApiClient::get(rpc, id.clone()).await?);
    }
    if args.continue_latest {
        let root = cwd.to_string_lossy().into_owned();
        if let Some(latest) = SessionApiClient::list(rpc, Some(root), Some(1), None)
            .await?
            .into_iter()
            .next()
        {
            return Ok(latest);
        }
    }
    let params = CreateParams {
        cwd: cwd.to_string_lossy().into_owned(),
        model: args.model.clone(),
        mode: args.mode.clone(),
        env: roocode_client::client_env(cwd),
        ..CreateParams::default()
    };
    Ok(rpc.create(params).await?)
}

impl Turn<'_> {
    /// Follows the turn until it completes, the daemon goes away, or the user insists.
    /// On a terminal, waits on a human are prompted for and answered from here.
    async fn follow(
        mut self,
        stream: &mut EventStream<'_>,
        mut follower: TurnFollower,
        sink: &mut Stdio,
    ) -> Result<i32, Failure> {
        let mut interrupts = 0;
        let mut human = TerminalInput::available()
            .then(|| HumanLoop::new(&self.session.id, PathBuf::from(&self.session.cwd)));
        let mut terminal = TerminalInput::default();
        // The exit status of the last completed turn, once ours has completed.
        let mut last_code: Option<i32> = None;
        loop {
            tokio::select! {
                ev = stream.next() => match ev {
                    Some(ev) => {
                        if let Some(w) = self.wait.as_mut() {
                            w.observe(&ev);
                        }
                        // An answer from elsewhere closes the prompt before its line shows.
                        let resolved = matches!(
                            ev.payload,
                            EventPayload::PermissionResolved { .. } | EventPayload::QuestionResolved { .. }
                        );
                        let mut effects = Effects::default();
                        if resolved && let Some(h) = human.as_mut() {
                            effects = h.on_event(&ev, Instant::now(), TerminalInput::is_foreground(), sink);
                        }
                        if follower.on_event(&ev, sink) {
                            let code = follower.finish(sink);
                            // A cancelled turn ends the wait too (Ctrl+C).
                            let Some(wait) = self.wait.as_ref().filter(|_| interrupts == 0) else {
                                return Ok(code);
                            };
                            if last_code.is_none() && !wait.is_done() && self.output == SendOutput::Text {
                                sink.err_line(&format!(
                                    "waiting for {} background agent(s) and the turns they start…",
                                    wait.outstanding().max(1)
                                ));
                            }
                            last_code = Some(code);
                            let mut next = TurnFollower::next_turn(self.output, self.session);
                            next.carry_over(&follower);
                            follower = next;
                        }
                        if let (Some(code), Some(wait)) = (last_code, self.wait.as_ref())
                            && wait.is_done()
                            && !follower.has_turn()
                        {
                            return Ok(code);
                        }
                        if !resolved && let Some(h) = human.as_mut() {
                            effects = h.on_event(&ev, Instant::now(), TerminalInput::is_foreground(), sink);
                        }
                        self.apply(effects, human.as_mut(), &mut terminal, sink).await;
                    }
                    None => return Ok(follower.fail(&Failure::daemon_gone(&self.paths.log), sink)),
                },
                input = terminal.next() => {
                    if let Some(h) = human.as_mut() {
                        let effects =
                            h.on_input(input, Instant::now(), TerminalInput::is_foreground(), sink);
                        self.apply(effects, Some(h), &mut terminal, sink).await;
                    }
                }
                _ = self.sigint.recv() => {
                    if let Some(h) = human.as_mut() {
                        h.stop();
                    }
                    interrupts += 1;
                    let waiting_idle = last_code.is_some()
                        && !self.wait.as_ref().is_some_and(AgentWait::turn_running);
                    if waiting_idle {
                        sink.err_line(
                            "stopped waiting; the background agents go on (`roocode-cli agents` lists them)",
                        );
                        return Ok(130);
                    }
                    if interrupts > 1 {
                        sink.err_line("interrupted; the turn may still be stopping in the daemon");
                        return Ok(130);
                    }
                    sink.err_line("cancelling the turn… (Ctrl+C again to stop waiting)");
                    match self.rpc.cancel(self.session.id.clone()).await {
                        Ok(true) => {}
                        Ok(false) if !follower.turn_started() => {
                            sink.err_line("nothing was running; the message stays queued");
                            return Ok(130);
                        }
                        // Our turn is just ending: its turn_completed is on the way.
                        Ok(false) => {}
                        Err(e) => sink.err_line(&format!("error: cannot cancel: {}", Failure::from(e))),
                    }
                }
            }
        }
    }

    /// Does what the prompts asked: get the terminal ready, send an answer.
    async fn apply(
        &self,
        effects: Effects,
        human: Option<&mut HumanLoop>,
        terminal: &mut TerminalInput,
        sink: &mut Stdio,
    ) {
        if effects.opened {
            terminal.prepare();
        }
        if let Some(reply) = effects.reply
            && let Err(failure) = deliver(self.rpc, &reply).await
            && let Some(h) = human
        {
            h.reply_failed(&reply, &failure.message, sink);
        }
    }
}

/// Sends an answer typed at a prompt over our connection.
async fn deliver(rpc: &RpcClient, reply: &Reply) -> Result<(), Failure> {
    match reply {
        Reply::Permission {
            request_id,
            decision,
            feedback,
        } => {
            PermissionApiClient::respond(rpc, request_id.clone(), *decision, feedback.clone())
                .await?;
        }
        Reply::Question {
            request_id,
            answers,
        } => QuestionApiClient::respond(rpc, request_id.clone(), answers.clone()).await?,
    }
    Ok(())
}
