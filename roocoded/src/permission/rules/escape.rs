//! What an allow rule for a command's words does not cover: the files the command
//! would write or read outside the workspace through its options. `Bash(git diff:*)`
//! is about looking at the project's changes, not `git diff --no-index
//! --output=$HOME/.bashrc …` or `git diff --no-index ~/.ssh/id_rsa /dev/null`; a part
//! whose path-taking options (or, for programs whose operands are all files, such as
//! `tee` and `cp`, its operands) name something outside the workspace is left to the
//! mode, which asks.

use std::path::{Path, PathBuf};

use super::Bases;
use crate::permission::command::{Comp, Part, PathExpr, Word, reparse_word};

/// Where a command runs and what counts as inside the workspace.
pub struct Workspace<'a> {
    /// The shell's working directory (relative paths resolve against it).
    pub cwd: &'a Path,
    /// True if the path (absolute, maybe not existing) lies inside the workspace, for
    /// a write (`true`) or a read.
    pub inside: &'a dyn Fn(&Path, bool) -> bool,
}

/// Long options whose value is a file or directory the program writes or reads.
const PATH_LONG: [&str; 34] = [
    "output",
    "output-file",
    "output-document",
    "output-directory",
    "out",
    "outfile",
    "out-file",
    "log-file",
    "logfile",
    "append-output",
    "directory-prefix",
    "target-directory",
    "upload-file",
    "config",
    "input-file",
    "git-dir",
    "work-tree",
    "file",
    "rcfile",
    "init-file",
    "cookie-jar",
    "dump-header",
    "trace",
    "trace-ascii",
    "stderr",
    "netrc-file",
    "data",
    "data-binary",
    "data-urlencode",
    "form",
    "include",
    "exclude-from",
    "files-from",
    "directory",
];

/// Short options whose value is a path, by program.
const PATH_SHORT: [(&str, &str); 14] = [
    ("git", "oC"),
    ("curl", "oTKDcbdF"),
    ("wget", "OoaPi"),
    ("sort", "oT"),
    ("tar", "fCTX"),
    ("gcc", "o"),
    ("g++", "o"),
    ("cc", "o"),
    ("c++", "o"),
    ("clang", "o"),
    ("clang++", "o"),
    ("rustc", "o"),
    ("go", "o"),
    ("zip", "b"),
];

/// Programs whose every operand is a file they write or read.
const FILE_OPERANDS: [&str; 9] = [
    "tee", "cp", "mv", "install", "ln", "rsync", "scp", "shred", "truncate",
];

/// The first path `part` would write or read outside the workspace through an option
/// (or a file operand of the programs above), as written.
pub(super) fn escaping_path(
    part: &Part,
    bases: &Bases<'_>,
    ws: Option<&Workspace<'_>>,
) -> Option<String> {
    let (program, args) = part.parsed.split_first()?;
    let name = program.shell_text();
    let name = name.rsplit('/').next().unwrap_or(&name).to_string();
    let short = PATH_SHORT
        .iter()
        .find(|(p, _)| *p == name)
        .map_or("", |(_, s)| *s);
    let no_index = args.iter().any(|a| a.shell_text() == "--no-index");
    let all_operands = no_index || FILE_OPERANDS.contains(&name.as_str());
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let mut i = 0;
    while i < args.len() {
        let text = &texts[i];
        let mut value: Option<Word> = None;
        if text == "--" {
            if all_operands {
                for w in &args[i + 1..] {
                    if let Some(out) = outside(w, part, bases, ws) {
                        return Some(out);
                    }
                }
            }
            break;
        } else if let Some(long) = text.strip_prefix("--") {
            let (key, glued) = match long.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (long, None),
            };
            if PATH_LONG.contains(&key) {
                value = match glued {
                    Some(v) => Some(reparse_word(v)),
                    None => {
                        i += 1;
                        args.get(i).cloned()
                    }
                };
            }
        } else if text.len() > 1 && text.starts_with('-') {
            let letters: Vec<char> = text.chars().skip(1).collect();
            if let Some(k) = letters.iter().position(|c| short.contains(*c)) {
                let rest: String = letters[k + 1..].iter().collect();
                value = if rest.is_empty() {
                    i += 1;
                    args.get(i).cloned()
                } else {
                    Some(reparse_word(&rest))
                };
            }
        } else if all_operands {
            value = Some(args[i].clone());
        } else if name == "dd" {
            value = text
                .strip_prefix("of=")
                .or_else(|| text.strip_prefix("if="))
                .map(reparse_word);
        }
        if let Some(v) = value
            && let Some(out) = outside(&strip_file_marker(&v), part, bases, ws)
        {
            return Some(out);
        }
        i += 1;
    }
    None
}

/// `@file` (curl `-d @f`) and `name=@file` / `name=<file` (curl `-F`) name `file`.
fn strip_file_marker(word: &Word) -> Word {
    let text = word.shell_text();
    let file = text
        .strip_prefix('@')
        .or_else(|| text.split_once("=@").map(|(_, f)| f))
        .or_else(|| text.split_once("=<").map(|(_, f)| f));
    match file {
        Some(f) => reparse_word(f),
        None => word.clone(),
    }
}

/// The word as written if the path it names is outside the workspace or unknown.
fn outside(
    word: &Word,
    part: &Part,
    bases: &Bases<'_>,
    ws: Option<&Workspace<'_>>,
) -> Option<String> {
    let text = word.shell_text();
    if matches!(
        text.as_str(),
        "-" | "/dev/null" | "/dev/stdin" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) {
        return None;
    }
    let cwd = ws.map_or(bases.root, |w| w.cwd);
    let shown = || Some(word.raw.clone());
    let Some(comps) = part
        .cwd
        .join(&PathExpr::from_word(word))
        .absolute(cwd, bases.home)
    else {
        return shown();
    };
    let mut path = PathBuf::from("/");
    for c in comps {
        match c {
            Comp::Name(n) => path.push(n),
            // A glob or expansion: judged by the directory it is in.
            Comp::Wild => break,
        }
    }
    let inside = match ws {
        Some(w) => (w.inside)(&path, true),
        None => path.starts_with(bases.root),
    };
    if inside { None } else { shown() }
}
