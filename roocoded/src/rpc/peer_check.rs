//! A command can never drive RooCode: the calls that decide something for the user
//! (permission and question answers, mode and model changes, messages, slash commands,
//! importing a history into a session, deleting one, deleting a team, approving an MCP
//! server, stopping the daemon) are refused when the connecting process descends from a command the daemon runs for
//! the model. Otherwise a prompt-injected model could run `roocode-cli approve` on its
//! own request, or switch its session to `bypassPermissions`.
//!
//! The connecting pid comes from SO_PEERCRED. From it the walk goes up the parent
//! chain (a command can `setsid` itself out of its group, but not out of its
//! ancestry); a process whose pid, process group or session is the group of a running
//! command is a command. The sandbox also hides the socket from commands; this check
//! holds without it.

use std::collections::HashSet;
use std::sync::Arc;

use jsonrpsee::types::{ErrorObjectOwned, Request};
use roocode_protocol::error::RpcErrorCode;

use crate::agent::Engine;

/// The methods a command may not call.
pub const GUARDED: &[&str] = &[
    "permission.respond",
    "question.respond",
    "session.set_mode",
    "session.set_model",
    "session.send",
    "session.command",
    // A forged history is a forged user: an imported "user" turn could approve anything.
    "session.import",
    "session.delete",
    // A session in a mode and with an environment the command chose, for the user to
    // resume later.
    "session.create",
    // A command may not approve its own repository's hooks, nor read what they run.
    "hooks.approve",
    "hooks.list",
    // Both read files the caller names (a HOME, a cwd) with the daemon's rights,
    // outside the command's sandbox.
    "agent.definitions",
    "doctor.run",
    // What the user does to sub-agents (stop one, move one to the background), from a
    // terminal, never an agent's command (which could stop another session's agents).
    "agent.stop",
    "agent.background",
    // Deleting a team stops its members: the user's cleanup, never a command's.
    "team.delete",
    // A command may not approve a server of its own repository (it would then run with
    // the user's rights); listing starts servers and reads files with the daemon's.
    "mcp.list",
    "mcp.get",
    "mcp.approve",
    // Stopping a loop stops agents: the user's decision, never a command's.
    "workflow.stop_loop",
    "daemon.shutdown",
];

/// How far up the parent chain to look (a chain deeper than this is itself suspect).
const MAX_ANCESTORS: usize = 256;

/// The process found to be a command, and the group that makes it one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandAncestor {
    pub pid: i32,
    pub group: i32,
}

/// Why `pid` may not drive the daemon, if it may not.
pub enum Verdict {
    Allowed,
    Command(CommandAncestor),
    /// The peer's process cannot be inspected (it is gone): refused, since what it
    /// was cannot be told.
    Unknown(i32),
}

/// Walks from `pid` up its parents; stops at the daemon (`daemon_pid`) or at init.
pub fn check(pid: i32, groups: &HashSet<i32>, daemon_pid: i32) -> Verdict {
    let mut current = pid;
    for depth in 0..MAX_ANCESTORS {
        if current <= 1 || current == daemon_pid {
            return Verdict::Allowed;
        }
        let Some(stat) = read_stat(current) else {
            // The peer itself must be readable; an ancestor may have exited meanwhile
            // (its children are re-parented, and the walk ends there).
            return if depth == 0 {
                Verdict::Unknown(pid)
            } else {
                Verdict::Allowed
            };
        };
        for group in [current, stat.pgrp, stat.session] {
            if groups.contains(&group) {
                return Verdict::Command(CommandAncestor {
                    pid: current,
                    group,
                });
            }
        }
        current = stat.ppid;
    }
    Verdict::Allowed
}

struct Stat {
    ppid: i32,
    pgrp: i32,
    session: i32,
}

/// Parent, process group and session of `pid`, from `/proc/<pid>/stat` (fields 4-6,
/// after the command name in parentheses, which may itself contain spaces and `)`).
fn read_stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(1);
    let mut next = || fields.next()?.parse::<i32>().ok();
    Some(Stat {
        ppid: next()?,
        pgrp: next()?,
        session: next()?,
    })
}

/// The rule, one per connection (run by `rpc::refusing::Refusing`).
#[derive(Clone)]
pub struct CommandRule {
    pub peer_pid: Option<i32>,
    pub engine: Arc<Engine>,
}

impl super::refusing::Rule for CommandRule {
    fn refusal(&self, request: &Request<'_>) -> Option<ErrorObjectOwned> {
        let method = request.method_name();
        if !GUARDED.contains(&method) {
            return None;
        }
        let Some(pid) = self.peer_pid else {
            return Some(refused(method, "the connecting process is unknown"));
        };
        let daemon = std::process::id() as i32;
        match check(pid, &self.engine.command_groups(), daemon) {
            Verdict::Allowed => None,
            Verdict::Command(hit) => {
                tracing::warn!(
                    method,
                    pid,
                    ancestor = hit.pid,
                    group = hit.group,
                    "refused a call from inside a command"
                );
                Some(refused(
                    method,
                    &format!(
                        "the caller (pid {pid}) runs inside a command RooCode started for the model (process group {})",
                        hit.group
                    ),
                ))
            }
            Verdict::Unknown(pid) => Some(refused(
                method,
                &format!("the connecting process (pid {pid}) is gone, so it cannot be checked"),
            )),
        }
    }
}

fn refused(method: &str, why: &str) -> ErrorObjectOwned {
    super::errors::error_object(
        RpcErrorCode::RefusedFromCommand,
        format!(
            "{method} refused: {why}. A command can never answer permission requests or questions, change the mode or model, send or import messages, delete sessions or teams, stop or background sub-agents, list or approve MCP servers or stop the daemon; answer from your own terminal (`roocode-cli approve|deny <id>`, or the TUI)"
        ),
        None,
    )
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_follow_the_last_parenthesis() {
        let s = parse_stat("4242 (a) b (c)) S 17 4242 99 0 -1").unwrap();
        assert_eq!((s.ppid, s.pgrp, s.session), (17, 4242, 99));
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn a_descendant_of_a_command_group_is_a_command_even_after_setsid() {
        // This test process stands for the peer; its parent chain is real.
        let me = std::process::id() as i32;
        let stat = read_stat(me).unwrap();
        let none = HashSet::new();
        assert!(matches!(check(me, &none, 0), Verdict::Allowed));
        // Our own group recorded as a command's: we are inside it.
        let ours = HashSet::from([stat.pgrp]);
        assert!(matches!(check(me, &ours, 0), Verdict::Command(_)));
        // Only our parent is recorded (as after a setsid out of its group): the walk
        // up the parents still finds it.
        if stat.ppid > 1 {
            let parent = HashSet::from([stat.ppid]);
            match check(me, &parent, 0) {
                Verdict::Command(hit) => assert_eq!(hit.pid, stat.ppid),
                _ => panic!("the parent's group was not found"),
            }
        }
        // The walk stops at the daemon: what is above it does not count.
        if stat.ppid > 1 {
            let parent = HashSet::from([stat.ppid]);
            assert!(matches!(check(me, &parent, me), Verdict::Allowed));
        }
        // A process that is gone cannot be checked.
        assert!(matches!(check(i32::MAX - 1, &none, 0), Verdict::Unknown(_)));
    }
}
