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
//! - `shutdown`, `reboot`, `halt`, `poweroff`, `init 0|6`, `systemctl poweroff|reboot|…`.
//!
//! What the parser cannot see through is reported as [`Finding::Opaque`], which the gate
//! turns into an `Ask` in every mode (a deny in `dontAsk`).

use std::path::Path;

use super::command::path::{is_ancestor_or_same, path_comps};
use super::command::{Analysis, Base, Comp, Exec, PathExpr, Word};

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
        if let Some(why) = exec_danger(exec, cx) {
            return Some(Finding::Deny(format!(
                "{} is never allowed: {why}",
                exec.text
            )));
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
    opaque.map(Finding::Opaque)
}

/// Why one program is dangerous, if it is.
fn exec_danger(exec: &Exec, cx: &DangerContext<'_>) -> Option<String> {
    let args = exec.arg_texts();
    match exec.name.as_str() {
        "rm" => rm_danger(exec, &args, cx),
        "chmod" | "chown" | "chgrp" => perm_danger(exec, &args, cx),
        n if n.starts_with("mkfs") || n == "mke2fs" => {
            Some("it formats a file system, destroying its data".into())
        }
        "dd" => args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .find(|p| is_block_device(p))
            .map(|p| format!("it overwrites the block device {p}")),
        "tee" => args
            .iter()
            .find(|a| is_block_device(a))
            .map(|p| format!("it overwrites the block device {p}")),
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            Some("it shuts down or restarts the machine".into())
        }
        "init" | "telinit" => matches!(first_operand(&args), Some("0" | "6"))
            .then(|| "it shuts down or restarts the machine".into()),
        "systemctl" | "loginctl" => matches!(
            first_operand(&args),
            Some("poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")
        )
        .then(|| "it shuts down or restarts the machine".into()),
        "git" => git_danger(&args, cx.protected_branches),
        _ => None,
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

fn rm_danger(exec: &Exec, args: &[String], cx: &DangerContext<'_>) -> Option<String> {
    let (flags, operands) = flags_and_operands(args);
    if !(has_short(&flags, &['r', 'R']) || has_long(&flags, "recursive")) {
        return None;
    }
    operands.iter().find_map(|&i| {
        target_danger(&exec.args[i], &exec.cwd, cx, true).map(|what| format!("it deletes {what}"))
    })
}

fn perm_danger(exec: &Exec, args: &[String], cx: &DangerContext<'_>) -> Option<String> {
    let (flags, operands) = flags_and_operands(args);
    if !(has_short(&flags, &['R']) || has_long(&flags, "recursive")) {
        return None;
    }
    // The first operand is the mode or owner unless --reference gives it.
    let skip = usize::from(!has_long(&flags, "reference"));
    operands.iter().skip(skip).find_map(|&i| {
        target_danger(&exec.args[i], &exec.cwd, cx, false)
            .map(|what| format!("it changes the ownership or permissions of everything in {what}"))
    })
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

/// `git [global options] push …` that rewrites or deletes a shared branch.
fn git_danger(args: &[String], protected: &[String]) -> Option<String> {
    let mut i = 0;
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
        i += if takes_value { 2 } else { 1 };
    }
    if args.get(i).map(String::as_str) != Some("push") {
        return None;
    }
    push_danger(&args[i + 1..], protected)
}

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

#[cfg(test)]
pub(crate) mod tests;
