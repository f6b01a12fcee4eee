//! Layer 1 for the files that make a home directory work: overwriting or truncating a
//! dotfile (`: > ~/.bashrc`, `cp /dev/null ~/.profile`), adding to or replacing
//! `~/.ssh/authorized_keys`, deleting `~/.ssh`, `~/.gnupg`, `~/.config` and the shell
//! start-up files, moving the home directory away (`mv ~ …`). Changing a start-up file
//! in place (appending, `sed -i`) is asked: it runs in every new shell.

use super::super::command::{Comp, Exec, PathExpr, Word};
use super::{DangerContext, Finding, flags_and_operands, has_long, has_short, target_danger};

/// Entries directly in the home directory whose loss breaks logins, keys or settings.
const SENSITIVE: [&str; 22] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".docker",
    ".config",
    ".local",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".gitconfig",
    ".netrc",
    ".cargo",
    ".rustup",
    ".password-store",
    ".pki",
    ".mozilla",
];

/// Files (relative to the home directory) that a shell or session runs at start.
const STARTUP: [&str; 16] = [
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".xprofile",
    ".xinitrc",
    ".config/fish/config.fish",
];

/// The path `word` names (run in `cwd`) relative to the home directory, when it is
/// inside it and every component is known.
fn home_relative(word: &Word, cwd: &PathExpr, cx: &DangerContext<'_>) -> Option<Vec<String>> {
    let home = super::path_comps(cx.home?);
    let abs = cwd
        .join(&PathExpr::from_word(word))
        .absolute(cx.cwd, cx.home)?;
    if abs.len() <= home.len() || abs[..home.len()] != home[..] {
        return None;
    }
    abs[home.len()..]
        .iter()
        .map(|c| match c {
            Comp::Name(n) => Some(n.clone()),
            Comp::Wild => None,
        })
        .collect()
}

/// Top-level directories whose files configure or run the system.
const SYSTEM_FILE_DIRS: [&str; 10] = [
    "etc", "boot", "usr", "bin", "sbin", "lib", "lib64", "root", "var", "sys",
];

/// The file, as shown, when `word` names one below a system directory (`/etc/hosts`,
/// `/var/spool/cron/x`; not `/var/tmp`).
fn system_file(word: &Word, cwd: &PathExpr, cx: &DangerContext<'_>) -> Option<String> {
    let abs = cwd
        .join(&PathExpr::from_word(word))
        .absolute(cx.cwd, cx.home)?;
    let names: Vec<&str> = abs
        .iter()
        .map(|c| match c {
            Comp::Name(n) => n.as_str(),
            Comp::Wild => "*",
        })
        .collect();
    let hit = names.len() >= 2
        && SYSTEM_FILE_DIRS.contains(&names[0])
        && !(names[0] == "var" && matches!(names[1], "tmp" | "cache" | "log"));
    hit.then(|| format!("/{}", names.join("/")))
}

/// `~/.ssh`, `~/.bashrc`, … (or anything inside `~/.ssh` and `~/.gnupg`), as shown to
/// the user, if `word` names one.
pub(super) fn sensitive_entry(
    word: &Word,
    cwd: &PathExpr,
    cx: &DangerContext<'_>,
) -> Option<String> {
    let rel = home_relative(word, cwd, cx)?;
    let first = rel.first()?.as_str();
    let hit = (rel.len() == 1 && SENSITIVE.contains(&first))
        || (rel.len() > 1 && matches!(first, ".ssh" | ".gnupg"))
        || STARTUP.contains(&rel.join("/").as_str());
    hit.then(|| format!("your ~/{}", rel.join("/")))
}

/// Writing `word` (run in `cwd`); `append` for `>>` and in-place edits.
pub(super) fn write_finding(
    word: &Word,
    cwd: &PathExpr,
    append: bool,
    cx: &DangerContext<'_>,
) -> Option<Finding> {
    if let Some(file) = system_file(word, cwd, cx) {
        return Some(Finding::Opaque(format!(
            "it writes the system file {file}, which RooCode does not check"
        )));
    }
    let rel = home_relative(word, cwd, cx)?;
    let shown = format!("~/{}", rel.join("/"));
    let first = rel.first()?.as_str();
    if first == ".ssh" && rel.get(1).is_some_and(|f| f.starts_with("authorized_keys")) {
        return Some(Finding::Deny(if append {
            format!("it adds a key to {shown}, letting whoever holds it log in as you")
        } else {
            format!("it replaces {shown}, the keys that may log in as you")
        }));
    }
    if !append && (rel.len() == 1 && first.starts_with('.') || matches!(first, ".ssh" | ".gnupg")) {
        return Some(Finding::Deny(format!("it overwrites your {shown}")));
    }
    let joined = rel.join("/");
    if STARTUP.contains(&joined.as_str())
        || joined.starts_with(".config/autostart/")
        || joined.starts_with(".config/systemd/user/")
    {
        return Some(Finding::Opaque(format!(
            "it changes {shown}, which runs in every new shell or login"
        )));
    }
    None
}

/// Programs that write, move or delete the files of [`write_finding`] and
/// [`sensitive_entry`]: `tee`, `cp`, `install`, `ln`, `mv`, `dd of=`, `truncate`,
/// `shred`, `sed -i`, `perl -i`, `curl -o`, `wget -O`.
pub(super) fn writer_finding(
    exec: &Exec,
    args: &[String],
    cx: &DangerContext<'_>,
) -> Option<Finding> {
    let words = &exec.args;
    let write = |i: usize, append: bool| {
        words
            .get(i)
            .and_then(|w| write_finding(w, &exec.cwd, append, cx))
    };
    let (flags, operands) = flags_and_operands(args);
    match exec.name.as_str() {
        "tee" => {
            let append = has_short(&flags, &['a']) || has_long(&flags, "append");
            operands.iter().find_map(|&i| write(i, append))
        }
        "cp" | "install" | "ln" | "rsync" => {
            // `rsync -a --delete empty/ ~/` empties the destination.
            let deletes = exec.name == "rsync" && args.iter().any(|a| a.starts_with("--delete"));
            if deletes
                && let Some(what) = operands
                    .last()
                    .and_then(|&i| target_danger(&words[i], &exec.cwd, cx, true))
            {
                return Some(Finding::Deny(format!("it deletes everything in {what}")));
            }
            if let Some(dir) = option_value(args, &["-t"], &["--target-directory"]) {
                return write_finding(&dir, &exec.cwd, false, cx);
            }
            operands.last().and_then(|&i| write(i, false))
        }
        "mv" => {
            let target_dir = option_value(args, &["-t"], &["--target-directory"]);
            let sources = if target_dir.is_some() {
                &operands[..]
            } else {
                &operands[..operands.len().saturating_sub(1)]
            };
            for &i in sources {
                let word = &words[i];
                let danger = target_danger(word, &exec.cwd, cx, !word.has_unquoted_glob())
                    .or_else(|| sensitive_entry(word, &exec.cwd, cx));
                if let Some(what) = danger {
                    return Some(Finding::Deny(format!("it moves {what} away")));
                }
            }
            match target_dir {
                Some(dir) => write_finding(&dir, &exec.cwd, false, cx),
                None => operands.last().and_then(|&i| write(i, false)),
            }
        }
        "dd" => args
            .iter()
            .position(|a| a.starts_with("of="))
            .and_then(|i| {
                let target = Word::quoted(args[i].trim_start_matches("of="));
                let target = super::super::command::reparse_word(&target.shell_text());
                write_finding(&target, &exec.cwd, false, cx)
            }),
        "truncate" | "shred" => {
            let values = option_indices(
                args,
                &[
                    "-s",
                    "-r",
                    "-n",
                    "--size",
                    "--reference",
                    "--iterations",
                    "--random-source",
                ],
            );
            operands
                .iter()
                .filter(|i| !values.contains(i))
                .find_map(|&i| {
                    write(i, false).or_else(|| {
                        sensitive_entry(&words[i], &exec.cwd, cx)
                            .map(|what| Finding::Deny(format!("it destroys {what}")))
                    })
                })
        }
        "sed" | "gsed" | "perl" => {
            let in_place = args.iter().any(|a| {
                a == "--in-place"
                    || a.starts_with("--in-place=")
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
            });
            if !in_place {
                return None;
            }
            // Without `-e`, the first operand is the script.
            let scripted = args
                .iter()
                .any(|a| a == "-e" || a.starts_with("--expression"))
                || (exec.name == "perl"
                    && args.iter().any(|a| a.starts_with('-') && a.contains('e')));
            let skip = usize::from(!scripted);
            operands.iter().skip(skip).find_map(|&i| write(i, true))
        }
        "curl" | "wget" => {
            let value = option_value(args, &["-o", "-O"], &["--output", "--output-document"])?;
            if exec.name == "curl"
                && args.iter().any(|a| a == "-O")
                && value.shell_text().is_empty()
            {
                return None;
            }
            write_finding(&value, &exec.cwd, false, cx)
        }
        _ => None,
    }
}

/// The value of a short (`-t DIR`, `-tDIR`) or long (`--x DIR`, `--x=DIR`) option.
fn option_value(args: &[String], short: &[&str], long: &[&str]) -> Option<Word> {
    let reparse = super::super::command::reparse_word;
    for (i, a) in args.iter().enumerate() {
        for s in short {
            if a == s {
                return args.get(i + 1).map(|v| reparse(v));
            }
            if let Some(v) = a
                .strip_prefix(s)
                .filter(|v| !v.is_empty() && !a.starts_with("--"))
            {
                return Some(reparse(v));
            }
        }
        for l in long {
            if a == l {
                return args.get(i + 1).map(|v| reparse(v));
            }
            if let Some(v) = a.strip_prefix(l).and_then(|r| r.strip_prefix('=')) {
                return Some(reparse(v));
            }
        }
    }
    None
}

/// Indices of the values of options given as separate words (`-s 0`).
fn option_indices(args: &[String], opts: &[&str]) -> Vec<usize> {
    args.iter()
        .enumerate()
        .filter(|(_, a)| opts.contains(&a.as_str()))
        .map(|(i, _)| i + 1)
        .collect()
}
