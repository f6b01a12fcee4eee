//! `roocode-cli team`: agent teams. Bare `team` lists the teams; `team NAME` shows one
//! (members with state, current task and unread mail; the task list), `--json` as the
//! `TeamInfo` (an array for the list); `--watch` then follows the team live from its
//! lead's event stream, one line per team event (`--json`: the events as JSON lines)
//! until Ctrl+C; `team delete NAME` deletes a team whose members are all idle or
//! stopped. A team is named by its name, its id or any session of it. Exit status 1
//! when the team does not exist or cannot be deleted.

use clap::{Args, Subcommand};
use roocode_client::teams::{self, TeamBoard};
use roocode_protocol::api::{SessionApiClient, TeamApiClient};
use roocode_protocol::teams::TeamInfo;
use tokio::signal::unix::{SignalKind, signal};

use crate::connect;
use crate::failure::{Failure, UsageError};
use crate::output::{Sink, Stdio, err_line, out, out_line};
use crate::stream;
use crate::team_view;

/// Arguments of `team`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TeamArgs {
    #[command(subcommand)]
    pub cmd: Option<TeamCmd>,
    /// The team: its name, its id, or a session of it (the lead's or a member's).
    pub team: Option<String>,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// After showing the team, follow it live: one line per member, task or message
    /// event, until Ctrl+C.
    #[arg(long, short = 'w')]
    pub watch: bool,
}

/// What `team` does besides showing.
#[derive(Debug, Subcommand)]
pub enum TeamCmd {
    /// Delete a team: refused while a member is active; stops its members and removes
    /// its tasks and mail (their sessions stay).
    Delete {
        /// The team: its name, its id, or a session of it.
        team: String,
    },
}

/// Runs `team`; returns the exit status.
pub async fn run(args: TeamArgs) -> anyhow::Result<i32> {
    match args.cmd {
        Some(TeamCmd::Delete { team }) => delete(&team, args.json).await,
        None => show(args.team, args.json, args.watch).await,
    }
}

async fn show(team: Option<String>, json: bool, watch: bool) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let info = match team {
        Some(given) => get(&conn.rpc, &given).await?,
        None => {
            let teams = TeamApiClient::list(&conn.rpc, None)
                .await
                .map_err(Failure::from)?;
            if !watch {
                if json {
                    out_line(&serde_json::to_string_pretty(&teams)?);
                } else if teams.is_empty() {
                    err_line("no teams (a lead creates one with the TeamCreate tool)");
                } else {
                    out(&team_view::teams_table(&teams));
                }
                return Ok(0);
            }
            match teams.as_slice() {
                [one] => get(&conn.rpc, &one.id).await?,
                [] => {
                    let none = "no team to watch: there are no teams (a lead creates one with the TeamCreate tool)";
                    return Err(Failure::new("team_not_found", none).into());
                }
                _ => {
                    return Err(UsageError(
                        "several teams: name the one to watch (`roocode-cli team NAME --watch`)"
                            .into(),
                    )
                    .into());
                }
            }
        }
    };
    if !watch {
        print_team(&info, json, /*one_line*/ false)?;
        return Ok(0);
    }
    // The lead's position first, then the team as of then or later: every event after
    // it is followed, none is lost between the two.
    let lead = SessionApiClient::get(&conn.rpc, info.lead_session_id.clone())
        .await
        .map_err(Failure::from)?;
    let info = get(&conn.rpc, &info.id).await?;
    print_team(&info, json, /*one_line*/ true)?;
    follow(&conn.rpc, info, lead.last_seq, json, &paths).await
}

/// The team as JSON (`one_line` when JSON lines of events follow) or as its page.
fn print_team(info: &TeamInfo, json: bool, one_line: bool) -> anyhow::Result<()> {
    if json && one_line {
        out_line(&serde_json::to_string(info)?);
    } else if json {
        out_line(&serde_json::to_string_pretty(info)?);
    } else {
        out(&team_view::team_page(info));
    }
    Ok(())
}

/// Follows the team's lead stream after `since`, printing each team event.
async fn follow(
    rpc: &roocode_client::RpcClient,
    info: TeamInfo,
    since: u64,
    json: bool,
    paths: &roocode_protocol::paths::Paths,
) -> anyhow::Result<i32> {
    let mut events = stream::open(rpc, &info.lead_session_id, since).await?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut board = TeamBoard::default();
    let name = info.name.clone();
    board.set(Some(info));
    let mut sink = Stdio::new();
    if !json {
        sink.err_line(&format!(
            "following team {} (Ctrl+C to stop)",
            teams::plain(&name)
        ));
    }
    loop {
        tokio::select! {
            ev = events.next() => match ev {
                Some(ev) => {
                    if !board.on_event(&ev) {
                        continue;
                    }
                    if json {
                        sink.out(&format!("{}\n", serde_json::to_string(&ev)?));
                    } else if let Some(line) = teams::event_line(&ev) {
                        sink.out(&format!("{line}\n"));
                    }
                }
                None => {
                    sink.err_line(&format!(
                        "error: the daemon went away; its log is {}",
                        paths.log.display()
                    ));
                    return Ok(1);
                }
            },
            _ = sigint.recv() => return Ok(130),
        }
    }
}

async fn delete(team: &str, json: bool) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    match TeamApiClient::delete(&conn.rpc, team.to_owned()).await {
        Ok(done) => {
            if json {
                out_line(&serde_json::to_string(
                    &serde_json::json!({ "deleted": true, "message": done }),
                )?);
            } else {
                err_line(&done);
            }
            Ok(0)
        }
        Err(e) => {
            let failure = Failure::from(e);
            if json {
                out_line(&serde_json::to_string(
                    &serde_json::json!({ "deleted": false, "kind": failure.kind, "message": failure.message }),
                )?);
            }
            err_line(&format!(
                "error: cannot delete team {}: {}",
                teams::plain(team),
                teams::plain(&failure.message)
            ));
            Ok(1)
        }
    }
}

/// The team `given` names.
async fn get(rpc: &roocode_client::RpcClient, given: &str) -> Result<TeamInfo, Failure> {
    TeamApiClient::get(rpc, given.to_owned())
        .await
        .map_err(Failure::from)
}
