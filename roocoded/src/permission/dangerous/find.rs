//! Layer 1 for `find` that deletes: `-delete`, or `-exec`/`-execdir`/`-ok` of `rm`,
//! `unlink`, `shred` (a shell or interpreter whose script deletes is asked). Without a test that narrows what it selects
//! (`-name`, `-path`, `-newer`, `-size`, …; `-name '*'`, `!` and `-o` do not narrow),
//! it deletes everything below its starting points, judged like `rm -rf` (the project
//! and the working directory included). With one, it is allowed inside a project
//! (`find . -name '*.o' -delete`) and asked below the home directory or a system
//! directory, where RooCode cannot tell what it selects.

use super::super::command::{Exec, Word, is_interpreter};
use super::{DangerContext, Finding, target_danger};

const DELETERS: [&str; 8] = [
    "rm",
    "unlink",
    "rmdir",
    "shred",
    "srm",
    "trash",
    "trash-put",
    "gio",
];

const NARROWING: [&str; 30] = [
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-newer",
    "-anewer",
    "-cnewer",
    "-newermt",
    "-newerct",
    "-newerat",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-empty",
    "-inum",
    "-samefile",
    "-links",
    "-perm",
    "-user",
    "-group",
];

/// What layer 1 finds in one `find`.
pub(super) fn find_finding(
    exec: &Exec,
    args: &[String],
    cx: &DangerContext<'_>,
) -> Option<Finding> {
    // Leading options, then the starting points, then the expression.
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            o if o.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let start = i;
    while args
        .get(i)
        .is_some_and(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!" | ","))
    {
        i += 1;
    }
    let starts = start..i;
    let expr = &args[i..];
    let mut deletes = expr.iter().any(|a| a == "-delete");
    // A shell or interpreter run on every file may delete it: asked, not denied.
    let mut may_delete = false;
    for (k, a) in expr.iter().enumerate() {
        if !matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let Some(program) = expr.get(k + 1) else {
            continue;
        };
        let program = program.rsplit('/').next().unwrap_or(program);
        if DELETERS.contains(&program) {
            deletes = true;
        } else if is_interpreter(program) {
            let end = expr[k..]
                .iter()
                .position(|a| a == ";" || a == "+")
                .map_or(expr.len(), |e| k + e);
            may_delete |= expr[k + 1..end].iter().any(|a| {
                [
                    "rm ", "unlink", "shred", "rmtree", "rmdir", "delete", "truncate",
                ]
                .iter()
                .any(|w| a.contains(w))
            });
        }
    }
    if !deletes {
        let words = start_words(exec, starts);
        return may_delete
            .then(|| {
                words.iter().find_map(|w| {
                    target_danger(w, &exec.cwd, cx, true).map(|what| {
                        Finding::Opaque(format!(
                            "it runs a script that may delete every file in {what}"
                        ))
                    })
                })
            })
            .flatten();
    }
    let everything = |v: Option<&String>| v.is_none_or(|v| v.chars().all(|c| "*.?".contains(c)));
    let negated = expr
        .iter()
        .any(|a| matches!(a.as_str(), "!" | "-not" | "-o" | "-or"));
    // A test after the action does not narrow it: `find . -delete -name x` deletes all.
    let first_action = expr
        .iter()
        .position(|a| {
            matches!(
                a.as_str(),
                "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir"
            )
        })
        .unwrap_or(expr.len());
    let narrowed = !negated
        && expr[..first_action].iter().enumerate().any(|(k, a)| {
            NARROWING.contains(&a.as_str())
                && !(matches!(
                    a.as_str(),
                    "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-regex" | "-iregex"
                ) && everything(expr.get(k + 1)))
        });
    for word in &start_words(exec, starts) {
        if !narrowed {
            if let Some(what) = target_danger(word, &exec.cwd, cx, true) {
                return Some(Finding::Deny(format!("it deletes everything in {what}")));
            }
        } else if let Some(what) = target_danger(word, &exec.cwd, cx, false) {
            return Some(Finding::Opaque(format!(
                "it deletes the files it selects in {what}, and RooCode cannot tell which"
            )));
        }
    }
    None
}

/// The starting points as words (`.` when none is given).
fn start_words(exec: &Exec, starts: std::ops::Range<usize>) -> Vec<Word> {
    if starts.is_empty() {
        vec![Word::quoted(".")]
    } else {
        exec.args[starts].to_vec()
    }
}
