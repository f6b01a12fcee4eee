//! `roocode-cli`: the scriptable client of the RooCode daemon. This file holds the
//! command line (clap) and the dispatch to one module per command; exit statuses:
//! the turn's stop reason for `send`, 1 for failures, 2 for usage errors.

mod agents;
mod atomic;
mod attach;
mod color;
mod completions;
mod connect;
mod daemon_cmd;
mod daemon_exit;
mod doctor;
mod failure;
mod hooks;
mod human;
mod idle;
mod import;
mod input;
mod logs;
mod loops;
mod mailbox;
mod mcp;
mod otlp;
mod output;
mod pending;
mod prompt;
mod prune;
mod questions;
mod render;
mod replay;
mod request_ids;
mod respond;
mod rewind;
mod send;
mod session_cmds;
mod sessions;
mod show;
mod stream;
mod summary;
mod table;
mod team;
mod team_view;
mod terminal;
#[cfg(test)]
mod test_support;
mod timefmt;
mod trace;
mod turn;
mod wait_agents;
mod workflow;

use clap::{CommandFactory, Parser, Subcommand};

use crate::agents::AgentsArgs;
use crate::attach::AttachArgs;
use crate::daemon_cmd::DaemonCmd;
use crate::failure::UsageError;
use crate::mailbox::MailboxArgs;
use crate::output::err_line;
use crate::pending::PendingArgs;
use crate::respond::{AnswerArgs, ApproveArgs, DenyArgs};
use crate::rewind::RewindArgs;
use crate::send::SendArgs;
use crate::sessions::SessionsArgs;
use crate::team::TeamArgs;

/// Scriptable client of the RooCode daemon (roocoded), started on demand.
#[derive(Debug, Parser)]
#[command(name = "roocode-cli", version = roocode_protocol::BUILD_ID)]
struct Cli {
    /// When to colour the output: auto (on a terminal, unless NO_COLOR is set or TERM
    /// is dumb), always, never. JSON output is never coloured.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: color::ColorChoice,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Send a message to a session and follow the turn.
    Send(SendArgs),
    /// List the sessions, newest first.
    Sessions(SessionsArgs),
    /// Replay a session, then follow it live.
    Attach(AttachArgs),
    /// Interrupt the running turn of a session.
    Cancel {
        /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
        id: String,
    },
    /// Print a session's model context as JSONL.
    Export {
        /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
        id: String,
    },
    /// Import a session exported with `export` (JSONL) as a new session.
    Import(import::ImportArgs),
    /// List the permission requests and questions waiting for a human.
    Pending(PendingArgs),
    /// Allow a waiting permission request (once, or always with --always).
    Approve(ApproveArgs),
    /// Refuse a waiting permission request.
    Deny(DenyArgs),
    /// Answer a waiting question: one ANSWER per question.
    Answer(AnswerArgs),
    /// Undo turns: put the files and/or the conversation back as they were before one
    /// (the plan and its diffs first, then asks unless --yes).
    Rewind(RewindArgs),
    /// A session's timeline from the flight recorder: turns, model calls, tool calls
    /// and who allowed them (`--why CALL_ID`), sub-agents; `--json`, `--otlp FILE`.
    Trace(trace::TraceArgs),
    /// Run a recorded session again against its recorded model answers (no network, no
    /// key) in a scratch copy of its project, and report where it diverges.
    Replay(replay::ReplayArgs),
    /// Delete a session.
    Rm {
        /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
        id: String,
    },
    /// Manage the daemon.
    #[command(subcommand)]
    Daemon(DaemonCmd),
    /// Check the daemon, the command sandbox, the config files and the providers' keys.
    Doctor,
    /// Remove old sessions, their spilled results, snapshots and recorded bodies (a dry
    /// run without --yes).
    Prune(prune::PruneArgs),
    /// Print a session's transcript readably (`--markdown` for a file).
    Show(show::ShowArgs),
    /// List the sub-agents (`stop ID`, `show ID`; `--definitions`: the agent types).
    Agents(AgentsArgs),
    /// Move a running foreground sub-agent to the background: its parent goes on.
    Background {
        /// The agent (its short id as `agents` shows it, the full id, or a unique prefix).
        id: String,
    },
    /// Show the agent teams, or one (members, their state, current task and unread
    /// mail; its tasks), `--watch` to follow it live; `team delete NAME` deletes one.
    Team(TeamArgs),
    /// List the messages of agent teams (only AGENT's with AGENT).
    Mailbox(MailboxArgs),
    /// MCP servers: list, get, approve; configure them with add, remove, enable, disable.
    Mcp(mcp::McpArgs),
    /// Hooks: list them (where each is configured, whether it runs, its last result);
    /// approve the project's.
    Hooks(hooks::HooksArgs),
    /// Print the completion script of a shell (bash, zsh, fish); see the README to
    /// install it.
    Completions(completions::CompletionsArgs),
    /// A session's workflow functions (phase, what they wait for, evidence) and its
    /// artifacts; `--json`.
    Workflow(workflow::WorkflowArgs),
    /// List the `|loop|`s: phase, rounds, task (`--session S`, `--json`).
    Loops(loops::LoopsArgs),
    /// Act on a loop: `loop stop ID`.
    #[command(subcommand)]
    Loop(loops::LoopCmd),
}

fn main() {
    let cli = Cli::parse();
    color::init(cli.color);
    // An unusable ROOCODE_HOME (relative, a file) is a usage error of every command.
    if let Err(e) = roocode_protocol::paths::Paths::from_env() {
        err_line(&format!("error: {e}"));
        std::process::exit(2);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let result = match runtime {
        Ok(rt) => rt.block_on(dispatch(cli)),
        Err(e) => Err(anyhow::anyhow!("cannot start the async runtime: {e}")),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) if e.downcast_ref::<UsageError>().is_some() => {
            err_line(&format!("error: {e}"));
            2
        }
        Err(e) => {
            err_line(&format!("error: {e:#}"));
            1
        }
    };
    std::process::exit(code);
}

async fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    match cli.cmd {
        Cmd::Send(args) => send::run(args).await,
        Cmd::Sessions(args) => sessions::run(args).await,
        Cmd::Attach(args) => attach::run(args).await,
        Cmd::Cancel { id } => session_cmds::cancel(&id).await,
        Cmd::Export { id } => session_cmds::export(&id).await,
        Cmd::Import(args) => import::run(args).await,
        Cmd::Rewind(args) => rewind::run(args).await,
        Cmd::Trace(args) => trace::run(args).await,
        Cmd::Workflow(args) => workflow::run(args).await,
        Cmd::Loops(args) => loops::list(args).await,
        Cmd::Loop(cmd) => loops::run(cmd).await,
        Cmd::Replay(args) => replay::run(args).await,
        Cmd::Rm { id } => session_cmds::remove(&id).await,
        Cmd::Pending(args) => pending::run(args).await,
        Cmd::Approve(args) => respond::approve(args).await,
        Cmd::Deny(args) => respond::deny(args).await,
        Cmd::Answer(args) => respond::answer(args).await,
        Cmd::Daemon(cmd) => daemon_cmd::run(cmd).await,
        Cmd::Doctor => doctor::run().await,
        Cmd::Prune(args) => prune::run(&args).await,
        Cmd::Show(args) => show::run(&args).await,
        Cmd::Agents(args) => agents::run(args).await,
        Cmd::Background { id } => agents::background(&id).await,
        Cmd::Team(args) => team::run(args).await,
        Cmd::Mailbox(args) => mailbox::run(args).await,
        Cmd::Mcp(args) => mcp::run(args).await,
        Cmd::Hooks(args) => hooks::run(args).await,
        Cmd::Completions(args) => Ok(completions::run(&args, Cli::command())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attach::AttachOutput;
    use crate::turn::SendOutput;
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("roocode-cli").chain(args.iter().copied()))
    }

    fn send(args: &[&str]) -> SendArgs {
        match parse(&[&["send"], args].concat()).unwrap().cmd {
            Cmd::Send(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn send_defaults() {
        let a = send(&["fix it"]);
        assert_eq!(a.text.as_deref(), Some("fix it"));
        assert_eq!(a.output, SendOutput::Text);
        assert!(!a.new && !a.continue_latest && a.session.is_none() && !a.no_wait);
    }

    #[test]
    fn send_options() {
        let a = send(&[
            "-",
            "--session",
            "019a",
            "--cwd",
            "/tmp",
            "--model",
            "m",
            "--mode",
            "plan",
            "--output",
            "stream-json",
            "--no-wait",
        ]);
        assert_eq!(a.text.as_deref(), Some("-"), "`-` means stdin");
        assert_eq!(a.session.as_deref(), Some("019a"));
        assert_eq!(a.cwd.as_deref(), Some(std::path::Path::new("/tmp")));
        assert_eq!(
            (a.model.as_deref(), a.mode.as_deref()),
            (Some("m"), Some("plan"))
        );
        assert_eq!(a.output, SendOutput::StreamJson);
        assert!(a.no_wait);
        assert!(send(&["--continue"]).continue_latest);
        assert_eq!(send(&["--output", "json", "x"]).output, SendOutput::Json);
        assert!(send(&[]).text.is_none());
    }

    #[test]
    fn session_selectors_conflict() {
        for args in [
            &["send", "--session", "a", "--continue", "x"][..],
            &["send", "--session", "a", "--new", "x"],
            &["send", "--continue", "--new", "x"],
        ] {
            let err = parse(args).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ArgumentConflict, "{args:?}");
            assert_eq!(err.exit_code(), 2);
        }
    }

    #[test]
    fn bad_usage_exits_2() {
        for args in [
            &["send", "--output", "xml", "x"][..],
            &["send", "a", "b"],
            &["attach"],
            &["daemon"],
            &["frobnicate"],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn other_commands() {
        match parse(&["attach", "019a", "--output", "stream-json", "--until-idle"])
            .unwrap()
            .cmd
        {
            Cmd::Attach(a) => {
                assert_eq!(a.id, "019a");
                assert_eq!(a.output, AttachOutput::StreamJson);
                assert!(a.until_idle);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(&["daemon", "restart", "--force"]).unwrap().cmd,
            Cmd::Daemon(DaemonCmd::Restart { force: true })
        ));
        assert!(matches!(
            parse(&["daemon", "logs", "-n", "20"]).unwrap().cmd,
            Cmd::Daemon(DaemonCmd::Logs {
                lines: Some(20),
                follow: false
            })
        ));
        assert!(matches!(
            parse(&["sessions", "--json"]).unwrap().cmd,
            Cmd::Sessions(SessionsArgs { json: true, .. })
        ));
        assert!(matches!(parse(&["rm", "x"]).unwrap().cmd, Cmd::Rm { .. }));
    }

    #[test]
    fn rewind_command() {
        match parse(&["rewind", "019a"]).unwrap().cmd {
            Cmd::Rewind(r) => {
                assert_eq!(r.id, "019a");
                assert!(r.to.is_none() && !r.yes && !r.json && !r.overwrite_conflicts);
                assert!(!r.files && !r.conversation && !r.both);
            }
            other => panic!("{other:?}"),
        }
        match parse(&["rewind", "019a", "--to", "3", "--files", "-y", "--json"])
            .unwrap()
            .cmd
        {
            Cmd::Rewind(r) => assert!(r.to == Some(3) && r.files && r.yes && r.json),
            other => panic!("{other:?}"),
        }
        for args in [
            &["rewind"][..],
            &["rewind", "a", "--files", "--conversation"],
            &["rewind", "a", "--to", "x"],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn replay_command() {
        match parse(&["replay", "019a", "--into", "/tmp/r", "--prepare"])
            .unwrap()
            .cmd
        {
            Cmd::Replay(r) => {
                assert_eq!((r.id.as_str(), r.into.as_deref()), ("019a", Some("/tmp/r")));
                assert!(r.prepare);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parse(&["replay"]).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn trace_command() {
        match parse(&["trace", "019a"]).unwrap().cmd {
            Cmd::Trace(t) => {
                assert_eq!(t.id, "019a");
                assert!(t.turn.is_none() && t.agent.is_none() && !t.json);
                assert!(t.why.is_none() && t.otlp.is_none());
            }
            other => panic!("{other:?}"),
        }
        match parse(&["trace", "019a", "--turn", "2", "--agent", "scout", "--json"])
            .unwrap()
            .cmd
        {
            Cmd::Trace(t) => {
                assert!(t.turn == Some(2) && t.agent.as_deref() == Some("scout") && t.json)
            }
            other => panic!("{other:?}"),
        }
        match parse(&["trace", "019a", "--why", "toolu_01"]).unwrap().cmd {
            Cmd::Trace(t) => assert_eq!(t.why.as_deref(), Some("toolu_01")),
            other => panic!("{other:?}"),
        }
        match parse(&["trace", "019a", "--otlp", "t.json"]).unwrap().cmd {
            Cmd::Trace(t) => assert_eq!(t.otlp.as_deref(), Some(std::path::Path::new("t.json"))),
            other => panic!("{other:?}"),
        }
        for args in [
            &["trace"][..],
            &["trace", "a", "--json", "--why", "c"],
            &["trace", "a", "--why", "c", "--otlp", "f"],
            &["trace", "a", "--turn", "x"],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn agent_commands() {
        use crate::agents::AgentsCmd;
        match parse(&["agents", "--json", "-s", "019a"]).unwrap().cmd {
            Cmd::Agents(a) => {
                assert!(a.json && a.cmd.is_none() && !a.definitions);
                assert_eq!(a.session.as_deref(), Some("019a"));
            }
            other => panic!("{other:?}"),
        }
        match parse(&["agents", "stop", "a1"]).unwrap().cmd {
            Cmd::Agents(a) => assert!(matches!(a.cmd, Some(AgentsCmd::Stop { id }) if id == "a1")),
            other => panic!("{other:?}"),
        }
        match parse(&["agents", "get", "a1", "--json"]).unwrap().cmd {
            Cmd::Agents(a) => {
                assert!(a.json);
                assert!(matches!(a.cmd, Some(AgentsCmd::Show { id }) if id == "a1"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(&["background", "a1"]).unwrap().cmd,
            Cmd::Background { id } if id == "a1"
        ));
        assert!(send(&["--wait-agents", "x"]).wait_agents);
        for args in [
            &["send", "--wait-agents", "--no-wait", "x"][..],
            &["agents", "stop"],
            &["background"],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
        assert!(matches!(
            parse(&["sessions", "--all"]).unwrap().cmd,
            Cmd::Sessions(SessionsArgs { all: true, .. })
        ));
    }

    #[test]
    fn team_commands() {
        use crate::team::TeamCmd;
        match parse(&["team"]).unwrap().cmd {
            Cmd::Team(t) => assert!(t.team.is_none() && t.cmd.is_none() && !t.json && !t.watch),
            other => panic!("{other:?}"),
        }
        match parse(&["team", "alpha", "--json", "--watch"]).unwrap().cmd {
            Cmd::Team(t) => assert!(t.team.as_deref() == Some("alpha") && t.json && t.watch),
            other => panic!("{other:?}"),
        }
        match parse(&["team", "delete", "alpha"]).unwrap().cmd {
            Cmd::Team(t) => {
                assert!(matches!(t.cmd, Some(TeamCmd::Delete { team }) if team == "alpha"));
            }
            other => panic!("{other:?}"),
        }
        match parse(&["mailbox", "builder", "--team", "alpha", "--json"])
            .unwrap()
            .cmd
        {
            Cmd::Mailbox(m) => {
                assert_eq!(m.agent.as_deref(), Some("builder"));
                assert_eq!(m.team.as_deref(), Some("alpha"));
                assert!(m.json && !m.unread);
            }
            other => panic!("{other:?}"),
        }
        for args in [
            &["team", "delete"][..],
            &["team", "a", "b"],
            &["mailbox", "a", "b"],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn colour_and_completions() {
        use crate::color::ColorChoice;
        assert_eq!(parse(&["sessions"]).unwrap().color, ColorChoice::Auto);
        // Global: before or after the command.
        assert_eq!(
            parse(&["--color", "never", "sessions"]).unwrap().color,
            ColorChoice::Never
        );
        assert_eq!(
            parse(&["send", "--color=always", "x"]).unwrap().color,
            ColorChoice::Always
        );
        let err = parse(&["--color", "purple", "sessions"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("auto, always, never"), "{err}");
        match parse(&["completions", "zsh"]).unwrap().cmd {
            Cmd::Completions(c) => assert_eq!(c.shell, completions::Shell::Zsh),
            other => panic!("{other:?}"),
        }
        // An unknown shell is a usage error naming the known ones.
        let err = parse(&["completions", "powershell"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("bash, zsh, fish"), "{err}");
        assert_eq!(parse(&["completions"]).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn human_in_the_loop_commands() {
        assert!(matches!(
            parse(&["pending", "--json"]).unwrap().cmd,
            Cmd::Pending(PendingArgs { json: true })
        ));
        match parse(&["approve", "019a", "--always"]).unwrap().cmd {
            Cmd::Approve(a) => assert!(a.request_id == "019a" && a.always),
            other => panic!("{other:?}"),
        }
        match parse(&["deny", "019a", "--feedback", "not now"])
            .unwrap()
            .cmd
        {
            Cmd::Deny(d) => assert_eq!(d.feedback.as_deref(), Some("not now")),
            other => panic!("{other:?}"),
        }
        match parse(&["answer", "019a", "2", "auth,search"]).unwrap().cmd {
            Cmd::Answer(a) => assert_eq!(a.answers, ["2", "auth,search"]),
            other => panic!("{other:?}"),
        }
        for args in [
            &["approve"][..],
            &["deny", "R", "--always"],
            &["pending", "x"],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }
}
