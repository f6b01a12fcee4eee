//! Layer 1 for processes and scheduled jobs: `kill -9 -1` (every process the user may
//! signal, the daemon and the desktop included), `killall5`, `pkill`/`killall` of
//! every process of a user or of every name, `crontab -r` (removes the crontab without
//! a copy). Replacing the crontab from a file or standard input is asked: it schedules
//! commands that run later, outside any session.

use super::Finding;

/// What layer 1 finds in `name` (`kill`, `pkill`, `killall`, `killall5`, `crontab`).
pub(super) fn finding(name: &str, args: &[String]) -> Option<Finding> {
    let deny = |why: &str| Some(Finding::Deny(why.to_string()));
    match name {
        "kill" => kill_targets(args)
            .iter()
            .any(|t| t == "-1")
            .then(|| Finding::Deny("it signals every process you may signal (pid -1)".into())),
        "killall5" => deny("it signals every process on the machine"),
        "pkill" | "killall" => {
            let operands: Vec<&String> = operands_after_values(
                args,
                &[
                    "-u",
                    "-U",
                    "-G",
                    "-g",
                    "-s",
                    "-t",
                    "-P",
                    "-F",
                    "--signal",
                    "--user",
                    "--uid",
                    "--group",
                    "--parent",
                    "--session",
                    "--terminal",
                    "--pidfile",
                    "--older-than",
                    "--younger-than",
                    "-o",
                    "-y",
                    "-n",
                ],
            );
            let everything = |p: &str| matches!(p, "." | ".*" | "^" | "" | "$" | "^.*$" | ".+");
            let by_user = args.iter().any(|a| {
                matches!(a.as_str(), "-u" | "-U" | "--user" | "--uid") || a.starts_with("--user=")
            });
            if operands.iter().any(|p| everything(p)) || (operands.is_empty() && by_user) {
                deny("it kills every process of a user, or every process it may")
            } else {
                None
            }
        }
        "crontab" => {
            let letters: String = args
                .iter()
                .filter(|a| a.starts_with('-') && !a.starts_with("--") && a.len() > 1)
                .flat_map(|a| a.chars().skip(1))
                .collect();
            if letters.contains('r') || args.iter().any(|a| a == "--remove") {
                return deny("it deletes your crontab, and no copy is kept");
            }
            let listing = letters.contains('l') || letters.contains('e');
            let replaces = args
                .iter()
                .enumerate()
                .any(|(i, a)| (!a.starts_with('-') || a == "-") && !(i > 0 && args[i - 1] == "-u"));
            (!listing && replaces).then(|| {
                Finding::Opaque(
                    "it replaces your crontab, scheduling commands that run later outside \
                     any session"
                        .into(),
                )
            })
        }
        _ => None,
    }
}

/// The pids (or `%jobs`) `kill` is given: everything after the signal option.
fn kill_targets(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut signal_seen = false;
    let mut done = false;
    while let Some(a) = args.get(i) {
        i += 1;
        if done {
            out.push(a.clone());
        } else if a == "--" {
            done = true;
        } else if matches!(a.as_str(), "-l" | "-L" | "--list" | "--table") {
            return Vec::new();
        } else if matches!(a.as_str(), "-s" | "-n" | "--signal") {
            i += 1;
            signal_seen = true;
        } else if !signal_seen && a.len() > 1 && a.starts_with('-') && !a.starts_with("--") {
            // `-9`, `-KILL`, `-SIGKILL`: the signal (only the first one).
            signal_seen = true;
        } else if a.starts_with("--") {
        } else {
            out.push(a.clone());
            done = true;
        }
    }
    out
}

/// Operands of a command whose options in `with_value` take the next word.
fn operands_after_values<'a>(args: &'a [String], with_value: &[&str]) -> Vec<&'a String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if with_value.contains(&a.as_str()) {
            i += 1;
        } else if !a.starts_with('-') || a == "-" {
            out.push(a);
        }
    }
    out
}
