//! Layer 1, dangerous commands (DESIGN §8): a hard deny list matched on the parsed
//! command line ([`super::command`]), so it sees through `sudo`, `env`, `sh -c`, pipes,
//! `;`/`&&`/`||` chains, subshells, quoting tricks and absolute program paths. Nothing
//! overrides a deny from here: not rules, not modes.
//!
//! Only confident matches are denied:
//! - recursive `rm` of `/`, `/*`, a system directory (`/etc`, `/usr`, `/home`, …), a
//!   home directory (`~`, `$HOME`, `/home/x`), a top-level glob (`/u*`, `/$X`), the
//!   working directory or project root or any directory containing them (`.`, `*`, `..`,
//!   `../..`, the root's absolute path); `cd sub && rm -rf *` is fine, `/tmp/x` is fine;
//! - `mkfs*`, `mke2fs`; `dd of=`, `tee` or a redirection onto a block device;
//! - fork bombs (a function running itself in a pipe or in the background);
//! - a download piped into a shell or interpreter (`curl … | sh`, `wget -O- … | python3`);
//! - `git push` that force-pushes to or deletes a shared branch (the default branch,
//!   `main`, `master`, `permissions.protected_branches`), force pushes that name no
//!   branch (the current branch is unknown when the command runs: name it instead),
//!   force pushes of every branch, and `--mirror`;
//! - recursive `chmod`/`chown`/`chgrp` of `/`, system directories or home directories;
//! - `shutdown`, `reboot`, `halt`, `poweroff`, `init 0|6`, `systemctl poweroff|reboot|…`;
//! - `find` deleting everything below such a directory (`find.rs`), `git clean -f` of
//!   the home or a system directory (`git.rs`);
//! - the home's own files (`home.rs`): overwriting dotfiles, adding to or replacing
//!   `~/.ssh/authorized_keys`, deleting `~/.ssh`, `~/.config`, start-up files, `mv ~`;
//! - `kill -1`, `killall5`, `pkill`/`killall` of everything, `crontab -r` (`processes.rs`).
//!
//! What the parser cannot see through is reported as [`Finding::Opaque`], which the gate
//! turns into an `Ask` in every mode (a deny in `dontAsk`); so is what cannot be judged
//! before it runs: a substitution or an expansion with an operator as the target of
//! `rm -r` (a plain unknown `$DIR` is not counted: its value is the caller's), `xargs`
//! input to a command that would be dangerous with the worst argument, interpreter
//! one-liners that may touch files or run programs, `find` selecting files below the
//! home, git settings that run commands later, appending to start-up files, replacing
//! the crontab. Paths are judged from the shell's real working directory
//! ([`DangerContext::cwd`]; the gate passes where the session's shell is).

use std::path::Path;

use super::command::path::{is_ancestor_or_same, path_comps};
use super::command::{Analysis, Base, Comp, Exec, PathExpr, Seg, Word};

mod find;
mod git;
mod home;
mod processes;

/// What layer 1 found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// Never allowed; the reason reads well to a human.
    Deny(String),
    /// The parser cannot see what would run; must be asked.
    Opaque(String),
}

/// What layer 1 needs to know about the session.
#[derive(Debug, Clone, Copy)]
pub struct DangerContext<'a> {
    /// Branches that must never be force-pushed or deleted (including `main` and
    /// `master` and the default branch).
    pub protected_branches: &'a [String],
    pub home: Option<&'a Path>,
    pub root: &'a Path,
    /// Where the command starts: the session shell's working directory.
    pub cwd: &'a Path,
}

/// Top-level directories whose removal breaks the system.
const SYSTEM_DIRS: [&str; 30] = [
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "media",
    "mnt",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "snap",
    "srv",
    "sys",
    "usr",
    "var",
    "nix",
    "Applications",
    "Library",
    "System",
    "Users",
    "Volumes",
    "private",
    "cores",
    "efi",
];

/// Second-level system directories, by parent.
const SYSTEM_SUBDIRS: [(&str, &[&str]); 4] = [
    (
        "usr",
        &[
            "bin", "sbin", "lib", "lib32", "lib64", "libexec", "local", "share", "include", "src",
        ],
    ),
    (
        "var",
        &["lib", "log", "cache", "spool", "mail", "db", "backups"],
    ),
    ("System", &["Library"]),
    ("private", &["etc", "var"]),
];

/// Programs that download.
const DOWNLOADERS: [&str; 7] = ["curl", "wget", "fetch", "http", "https", "xh", "aria2c"];

/// Layer 1 on an analysed command line.
pub fn check(analysis: &Analysis, cx: &DangerContext<'_>) -> Option<Finding> {
    if let Some(name) = analysis.fork_bombs.first() {
        return Some(Finding::Deny(format!(
            "a fork bomb is never allowed: the function `{name}` runs copies of itself \
             in a pipe or in the background"
        )));
    }
    for target in &analysis.writes {
        let path = target.shell_text();
        if is_block_device(&path) {
            return Some(Finding::Deny(format!(
                "writing to the block device {path} is never allowed: it destroys the disk's data"
            )));
        }
    }
    let mut opaque = analysis.opaque.first().cloned();
    for exec in &analysis.execs {
        match exec_finding(exec, cx) {
            Some(Finding::Deny(why)) => {
                return Some(Finding::Deny(format!(
                    "{} is never allowed: {why}",
                    exec.text
                )));
            }
            Some(Finding::Opaque(why)) => {
                opaque.get_or_insert(format!("{}: {why}", exec.text));
            }
            None => {}
        }
        if exec.program_from_pipe {
            if let Some(dl) = exec
                .upstream
                .iter()
                .find(|u| DOWNLOADERS.contains(&u.as_str()))
            {
                return Some(Finding::Deny(format!(
                    "piping {dl} into {} is never allowed: it runs a downloaded program \
                     nobody has read; download it to a file first",
                    exec.name
                )));
            }
            opaque.get_or_insert_with(|| {
                format!(
                    "{} runs a program it reads from the output of {}",
                    exec.name,
                    exec.upstream.join(" | ")
                )
            });
        }
    }
    for write in &analysis.file_writes {
        match home::write_finding(&write.target, &write.cwd, write.append, cx) {
            Some(Finding::Deny(why)) => {
                return Some(Finding::Deny(format!(
                    "writing to {} is never allowed: {why}",
                    write.target.shell_text()
                )));
            }
            Some(Finding::Opaque(why)) => {
                opaque.get_or_insert(why);
            }
            None => {}
        }
    }
    if let Some(why) = analysis.inline_code.first() {
        opaque.get_or_insert_with(|| why.clone());
    }
    opaque.map(Finding::Opaque)
}

/// What layer 1 finds in one program: its own danger, or, when some of its arguments
/// are only known at run time (`… | xargs rm -rf`), whether the worst of them would be
/// dangerous.
fn exec_finding(exec: &Exec, cx: &DangerContext<'_>) -> Option<Finding> {
    if let Some(found) = exec_danger(exec, cx) {
        return Some(found);
    }
    if exec.args_from_input {
        for worst in ["/", "~", "-1"] {
            let mut probe = exec.clone();
            probe.args.push(super::command::reparse_word(worst));
            probe.args_from_input = false;
            if exec_danger(&probe, cx).is_some() {
                return Some(Finding::Opaque(format!(
                    "{} gets arguments from its input, which RooCode cannot see before it runs",
                    exec.name
                )));
            }
        }
    }
    None
}

/// Why one program is dangerous (a deny) or cannot be judged (opaque), if it is.
fn exec_danger(exec: &Exec, cx: &DangerContext<'_>) -> Option<Finding> {
    let args = exec.arg_texts();
    let deny = |why: Option<String>| why.map(Finding::Deny);
    match exec.name.as_str() {
        "rm" => rm_finding(exec, &args, cx),
        "chmod" | "chown" | "chgrp" => perm_finding(exec, &args, cx),
        n if n.starts_with("mkfs") || n == "mke2fs" => {
            deny(Some("it formats a file system, destroying its data".into()))
        }
        "dd" => match args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .find(|p| is_block_device(p))
        {
            Some(p) => deny(Some(format!("it overwrites the block device {p}"))),
            None => home::writer_finding(exec, &args, cx),
        },
        "tee" => match args.iter().find(|a| is_block_device(a)) {
            Some(p) => deny(Some(format!("it overwrites the block device {p}"))),
            None => home::writer_finding(exec, &args, cx),
        },
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            deny(Some("it shuts down or restarts the machine".into()))
        }
        "init" | "telinit" => deny(
            matches!(first_operand(&args), Some("0" | "6"))
                .then(|| "it shuts down or restarts the machine".into()),
        ),
        "systemctl" | "loginctl" => deny(
            matches!(
                first_operand(&args),
                Some("poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")
            )
            .then(|| "it shuts down or restarts the machine".into()),
        ),
        "git" => git::git_finding(exec, &args, cx),
        "find" => find::find_finding(exec, &args, cx),
        "kill" | "pkill" | "killall" | "killall5" | "crontab" => {
            processes::finding(&exec.name, &args)
        }
        _ => home::writer_finding(exec, &args, cx),
    }
}

fn first_operand(args: &[String]) -> Option<&str> {
    args.iter()
        .map(String::as_str)
        .find(|a| !a.starts_with('-'))
}

/// Splits `args` into (flags, operand indices), GNU style: options may follow operands
/// until `--`.
fn flags_and_operands(args: &[String]) -> (Vec<&str>, Vec<usize>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut done = false;
    for (i, a) in args.iter().enumerate() {
        if !done && a == "--" {
            done = true;
        } else if !done && a.len() > 1 && a.starts_with('-') {
            flags.push(a.as_str());
        } else {
            operands.push(i);
        }
    }
    (flags, operands)
}

fn has_long(flags: &[&str], name: &str) -> bool {
    flags.iter().any(|f| {
        f.strip_prefix("--")
            .is_some_and(|l| !l.is_empty() && name.starts_with(l.split('=').next().unwrap_or(l)))
    })
}

fn has_short(flags: &[&str], letters: &[char]) -> bool {
    flags
        .iter()
        .any(|f| !f.starts_with("--") && f.chars().skip(1).any(|c| letters.contains(&c)))
}

fn rm_finding(exec: &Exec, args: &[String], cx: &DangerContext<'_>) -> Option<Finding> {
    let (flags, operands) = flags_and_operands(args);
    if let Some(what) = operands
        .iter()
        .find_map(|&i| home::sensitive_entry(&exec.args[i], &exec.cwd, cx))
    {
        return Some(Finding::Deny(format!("it deletes {what}")));
    }
    if !(has_short(&flags, &['r', 'R']) || has_long(&flags, "recursive")) {
        return None;
    }
    if let Some(what) = operands
        .iter()
        .find_map(|&i| target_danger(&exec.args[i], &exec.cwd, cx, true))
    {
        return Some(Finding::Deny(format!("it deletes {what}")));
    }
    operands
        .iter()
        .find_map(|&i| {
            unknowable(&exec.args[i]).or_else(|| in_unknown_dir(&exec.args[i], &exec.cwd))
        })
        .map(|raw| {
            Finding::Opaque(format!(
                "rm -r deletes {raw}, which is only known when it runs"
            ))
        })
}

/// `cd "$X" && rm -rf *` (or after `cd -`): everything in a directory only known at
/// run time (an empty `$X` is the home directory).
fn in_unknown_dir(word: &Word, cwd: &PathExpr) -> Option<String> {
    let rel = PathExpr::from_word(word);
    (cwd.base == Base::Unknown && rel.base == Base::Cwd && rel.comps.is_empty())
        .then(|| format!("{} in a directory only known when it runs", word.raw))
}

fn perm_finding(exec: &Exec, args: &[String], cx: &DangerContext<'_>) -> Option<Finding> {
    let (flags, operands) = flags_and_operands(args);
    if !(has_short(&flags, &['R']) || has_long(&flags, "recursive")) {
        return None;
    }
    // The first operand is the mode or owner unless --reference gives it.
    let skip = usize::from(!has_long(&flags, "reference"));
    if let Some(what) = operands
        .iter()
        .skip(skip)
        .find_map(|&i| target_danger(&exec.args[i], &exec.cwd, cx, false))
    {
        return Some(Finding::Deny(format!(
            "it changes the ownership or permissions of everything in {what}"
        )));
    }
    operands
        .iter()
        .skip(skip)
        .find_map(|&i| unknowable(&exec.args[i]))
        .map(|raw| {
            Finding::Opaque(format!(
                "{} -R changes {raw}, which is only known when it runs",
                exec.name
            ))
        })
}

/// `${X:-/}`, `${X=~}`, `${X:+…}`: a braced expansion with an operator that may
/// give it another value (`:?` and `?` only fail when unset).
fn has_operator(raw: &str) -> bool {
    let Some(inner) = raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')) else {
        return false;
    };
    let rest = inner.trim_start_matches(|c: char| c == '_' || c.is_ascii_alphanumeric());
    !rest.is_empty() && !rest.starts_with(":?") && !rest.starts_with('?')
}

/// A target only known at run time that may be anything: a command substitution or
/// an expansion with an operator (`"$(echo ~)"`, `"${HOME%/}"`, `${X:-/}`) naming a
/// directory itself or everything in it. A plain unknown `$DIR` is not counted (its
/// value is the caller's, and an empty one deletes nothing); `$DIR/build` is a named
/// entry, not the directory.
fn unknowable(word: &Word) -> Option<String> {
    let from_run_time = match word.segs.first() {
        Some(Seg::Subst { raw, .. }) => !raw.contains("pwd"),
        Some(Seg::Var { name: None, .. } | Seg::Arith(_)) => true,
        Some(Seg::Var { raw, .. }) => has_operator(raw),
        _ => false,
    };
    let path = PathExpr::from_word(word);
    (from_run_time && path.base == Base::Unknown && path.comps.is_empty()).then(|| word.raw.clone())
}

/// What a recursive operation on `word` (run in `cwd`) would hit, if that is
/// something it must never hit. `project` adds the working directory, the project root
/// and their ancestors (for `rm`).
fn target_danger(
    word: &Word,
    cwd: &PathExpr,
    cx: &DangerContext<'_>,
    project: bool,
) -> Option<String> {
    word.brace_alternatives().iter().find_map(|alt| {
        let path = cwd.join(&PathExpr::from_word(alt));
        match &path.base {
            Base::Home if path.comps.is_empty() => {
                return Some(if path.ups > 0 {
                    "a directory above your home directory".to_string()
                } else {
                    "your home directory".to_string()
                });
            }
            Base::User(user) if path.comps.is_empty() => {
                return Some(format!("the home directory of {user}"));
            }
            Base::Cwd if project && path.comps.is_empty() => {
                return Some(if path.ups > 0 {
                    "a directory above the working directory".to_string()
                } else {
                    "everything in the working directory".to_string()
                });
            }
            _ => {}
        }
        let abs = path.absolute(cx.cwd, cx.home)?;
        abs_danger(&abs, cx, project)
    })
}

fn abs_danger(abs: &[Comp], cx: &DangerContext<'_>, project: bool) -> Option<String> {
    let name = |i: usize| match abs.get(i) {
        Some(Comp::Name(n)) => Some(n.as_str()),
        _ => None,
    };
    let shown = || {
        let parts: Vec<&str> = abs
            .iter()
            .map(|c| match c {
                Comp::Name(n) => n.as_str(),
                Comp::Wild => "*",
            })
            .collect();
        format!("/{}", parts.join("/"))
    };
    if abs.is_empty() {
        return Some("the root directory /".into());
    }
    if abs[0] == Comp::Wild {
        return Some(format!("top-level directories ({})", shown()));
    }
    if abs.len() == 1 && name(0).is_some_and(|n| SYSTEM_DIRS.contains(&n)) {
        return Some(format!("the system directory {}", shown()));
    }
    if abs.len() == 2 {
        if matches!(name(0), Some("home" | "Users")) {
            return Some(format!("the home directory {}", shown()));
        }
        let sub = SYSTEM_SUBDIRS.iter().any(|(parent, subs)| {
            name(0) == Some(parent) && name(1).is_some_and(|n| subs.contains(&n))
        });
        if sub {
            return Some(format!("the system directory {}", shown()));
        }
    }
    if let Some(home) = cx.home
        && is_ancestor_or_same(abs, &path_comps(home))
    {
        return Some(format!("your home directory ({})", shown()));
    }
    if project {
        for (dir, what) in [(cx.root, "the project"), (cx.cwd, "the working directory")] {
            if is_ancestor_or_same(abs, &path_comps(dir)) {
                return Some(format!("{what} ({})", shown()));
            }
        }
    }
    None
}

/// `/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`, `/dev/mapper/x`, …
pub fn is_block_device(path: &str) -> bool {
    let Some(name) = path.strip_prefix("/dev/") else {
        return false;
    };
    let after = |prefix: &str, f: fn(char) -> bool| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.chars().next())
            .is_some_and(f)
    };
    let letter = |c: char| c.is_ascii_lowercase();
    let digit = |c: char| c.is_ascii_digit();
    ["sd", "hd", "vd", "xvd"].iter().any(|p| after(p, letter))
        || [
            "nvme", "mmcblk", "disk", "rdisk", "md", "loop", "nbd", "mtdblock", "dm-",
        ]
        .iter()
        .any(|p| after(p, digit))
        || name.starts_with("mapper/")
        || name.starts_with("disk/")
}

#[cfg(test)]
mod attack_tests;
#[cfg(test)]
mod gate_cwd_tests;
#[cfg(test)]
pub(crate) mod tests;
