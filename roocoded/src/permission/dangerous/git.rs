//! Layer 1 for git: force pushes and deletions of shared branches, `git clean` of a
//! directory that is not a project (the home directory, `/`), and `git config` setting
//! a key whose value git later runs as a command (`core.fsmonitor`, `alias.x=!…`).

use super::super::command::{Exec, Word};
use super::{DangerContext, Finding, target_danger};
use crate::permission::command::{PathExpr, git_key_runs};

/// What layer 1 finds in one `git` program.
pub(super) fn git_finding(exec: &Exec, args: &[String], cx: &DangerContext<'_>) -> Option<Finding> {
    let mut i = 0;
    let mut dir = exec.cwd.clone();
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        let takes_value = matches!(
            a.as_str(),
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--super-prefix"
                | "--config-env"
        );
        if a == "-C" {
            if let Some(w) = exec.args.get(i + 1) {
                dir = dir.join(&PathExpr::from_word(w));
            }
        } else if a == "--work-tree" {
            if let Some(w) = exec.args.get(i + 1) {
                dir = exec.cwd.join(&PathExpr::from_word(w));
            }
        } else if let Some(tree) = a.strip_prefix("--work-tree=") {
            dir = exec.cwd.join(&PathExpr::from_word(&reparse(tree)));
        }
        i += if takes_value { 2 } else { 1 };
    }
    let rest = args.get(i + 1..).unwrap_or(&[]);
    match args.get(i).map(String::as_str) {
        Some("push") => push_danger(rest, cx.protected_branches).map(Finding::Deny),
        Some("clean") => clean_danger(&exec.args[(i + 1).min(exec.args.len())..], rest, &dir, cx)
            .map(Finding::Deny),
        Some("config") => config_finding(rest),
        _ => None,
    }
}

fn reparse(text: &str) -> Word {
    crate::permission::command::reparse_word(text)
}

/// `git clean -f` with `-d`, `-x` or `-X` deletes untracked files below the directory it
/// runs in (and the pathspecs): fine in a project, never in the home directory or a
/// system directory.
fn clean_danger(
    words: &[Word],
    args: &[String],
    dir: &PathExpr,
    cx: &DangerContext<'_>,
) -> Option<String> {
    let (flags, operands) = super::flags_and_operands(args);
    let force = super::has_short(&flags, &['f']) || super::has_long(&flags, "force");
    let dry = super::has_short(&flags, &['n']) || super::has_long(&flags, "dry-run");
    if !force || dry {
        return None;
    }
    let here = Word::quoted(".");
    let targets: Vec<&Word> = if operands.is_empty() {
        vec![&here]
    } else {
        operands.iter().filter_map(|&i| words.get(i)).collect()
    };
    targets.iter().find_map(|w| {
        target_danger(w, dir, cx, false)
            .map(|what| format!("it deletes every untracked file in {what}"))
    })
}

/// `git config [scope] KEY VALUE` for a key whose value git runs later: asked, and the
/// value itself is judged as a command by the walker (see `launchers.rs`).
fn config_finding(args: &[String]) -> Option<Finding> {
    let mut operands = args.iter().filter(|a| !a.starts_with('-'));
    let readonly = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--get"
                | "--get-all"
                | "--get-regexp"
                | "-l"
                | "--list"
                | "--unset"
                | "--unset-all"
                | "--remove-section"
                | "--show-origin"
                | "get"
                | "list"
                | "unset"
        )
    });
    let first = operands.next()?;
    let key = if matches!(first.as_str(), "set" | "add") {
        operands.next()?
    } else {
        first
    };
    (!readonly && git_key_runs(key) && operands.next().is_some()).then(|| {
        Finding::Opaque(format!(
            "it sets the git setting {key}, whose value git runs as a command later \
             (in your own git commands too)"
        ))
    })
}

/// `git push …` arguments that rewrite or delete a shared branch.
fn push_danger(args: &[String], protected: &[String]) -> Option<String> {
    let (mut force, mut delete, mut all, mut mirror) = (false, false, false, false);
    let mut positional: Vec<&str> = Vec::new();
    let mut done = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if done || !a.starts_with('-') || a == "-" {
            positional.push(a);
        } else if a == "--" {
            done = true;
        } else if let Some(long) = a.strip_prefix("--") {
            match long.split('=').next().unwrap_or(long) {
                "force" | "force-with-lease" => force = true,
                "delete" => delete = true,
                "all" | "branches" => all = true,
                "mirror" => mirror = true,
                "repo" | "receive-pack" | "exec" | "push-option" if !long.contains('=') => i += 1,
                _ => {}
            }
        } else {
            let letters: Vec<char> = a.chars().skip(1).collect();
            for (k, c) in letters.iter().enumerate() {
                match c {
                    'f' => force = true,
                    'd' => delete = true,
                    'o' => {
                        i += usize::from(k + 1 == letters.len());
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    let shared = || protected.join(", ");
    if mirror {
        return Some(format!(
            "--mirror overwrites and deletes every branch on the remote, shared ones ({}) included",
            shared()
        ));
    }
    if force && all {
        return Some(format!(
            "it force-pushes every branch, shared ones ({}) included",
            shared()
        ));
    }
    let implicit = || {
        format!(
            "a force push that names no branch may rewrite a shared branch ({}); \
             name the branch, as in `git push --force origin my-branch`",
            shared()
        )
    };
    let refspecs = positional.get(1..).unwrap_or(&[]);
    if refspecs.is_empty() {
        return force.then(implicit);
    }
    for spec in refspecs {
        let plus = spec.starts_with('+');
        let spec = spec.trim_start_matches('+');
        let (src, dst) = spec.split_once(':').unwrap_or((spec, spec));
        let dst = dst.strip_prefix("refs/heads/").unwrap_or(dst);
        let deleting = delete || (spec.contains(':') && src.is_empty());
        let forced = force || plus;
        if !forced && !deleting {
            continue;
        }
        // A branch computed at run time (`$(git branch --show-current)`) is as unknown
        // as no branch at all.
        let unknown = dst.contains('$') || dst.contains('`');
        if forced && (unknown || matches!(dst, "HEAD" | "@" | "")) {
            return Some(implicit());
        }
        let verb = if deleting {
            "deletes"
        } else {
            "force-pushes to"
        };
        if dst.contains('*') {
            return Some(format!(
                "it {verb} every branch matching {dst}, shared ones ({}) included",
                shared()
            ));
        }
        if protected.iter().any(|p| p == dst) {
            return Some(format!("it {verb} the shared branch `{dst}`"));
        }
    }
    None
}
