//! Read-only commands: whether a command line can only look (list, read, search, ask
//! git what it knows) and never change a file, a repository or a process — for agents
//! whose Bash must stay read-only (the `Explore` and `Plan` sub-agents, DESIGN §9).
//! The gate enforces it, not the prompt.
//!
//! Built on the shell parser ([`super::command`]): every program that would run, seen
//! through wrappers, pipes and `sh -c`, must be on a short list of programs that only
//! read, with none of the options that make them write or run something else
//! (`find -delete`, `sort -o`, `rg --pre`, `git branch -D`, …). A redirection that
//! writes a file, inline code (`awk '…'`, `python -c`), or anything the parser cannot
//! see through makes the line not read-only. An allowlist on purpose: a program not
//! listed is refused, however harmless.

use super::command::{self, Exec};

/// Programs that only read whatever their arguments (besides the options of
/// [`writing_option`]).
const READERS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "ls",
    "pwd",
    "echo",
    "printf",
    "wc",
    "sort",
    "uniq",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "find",
    "fd",
    "tree",
    "stat",
    "file",
    "du",
    "df",
    "which",
    "type",
    "whoami",
    "id",
    "date",
    "uname",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "diff",
    "cmp",
    "comm",
    "cut",
    "tr",
    "nl",
    "od",
    "hexdump",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "true",
    "false",
    "test",
    "[",
    "jq",
    "column",
    "cd",
    "env",
    "nice",
    "timeout",
    "xargs",
    "command",
];

/// The git subcommands that only read (with [`git_writes`] for the ones that also
/// have a writing form).
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "branch",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "grep",
    "describe",
    "shortlog",
    "remote",
    "tag",
    "cat-file",
    "rev-list",
    "merge-base",
    "config",
    "worktree",
    "stash",
    "reflog",
    "version",
];

/// Per reader with a writing form: its short options that write or run something, and
/// its long ones (matched also abbreviated, as GNU tools accept them).
const WRITING_OPTIONS: &[(&str, &[char], &[&str])] = &[
    (
        "find",
        &[],
        &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ("fd", &['x', 'X'], &["--exec", "--exec-batch"]),
    ("sort", &['o'], &["--output", "--compress-program"]),
    ("rg", &[], &["--pre"]),
    ("tree", &['o'], &[]),
    ("file", &['C'], &["--compile"]),
];

/// `Ok` if `line` only reads; else why not, for the model.
pub fn check(line: &str) -> Result<(), String> {
    let analysis = command::analyze(line);
    if let Some(why) = analysis.opaque.first() {
        return Err(format!("RooCode cannot see what it would run ({why})"));
    }
    if let Some(why) = analysis.inline_code.first() {
        return Err(format!("it runs inline code ({why})"));
    }
    if let Some(write) = analysis.file_writes.first() {
        return Err(format!(
            "it writes {} through a redirection",
            write.target.shell_text()
        ));
    }
    if analysis.execs.is_empty() {
        return Err("it runs nothing RooCode recognises".into());
    }
    // `GIT_EXTERNAL_DIFF=./x git diff`: an assignment can make a reader run anything.
    if let Some(part) = analysis.parts.iter().find(|p| assigns(&p.text, &p.words)) {
        return Err(format!("`{}` sets environment variables", part.text));
    }
    analysis.execs.iter().try_for_each(exec_reads)
}

/// True if the simple command `text` (whose words without assignments are `words`)
/// starts with variable assignments.
fn assigns(text: &str, words: &[String]) -> bool {
    let first = text.split_whitespace().next().unwrap_or_default();
    words.first().is_none_or(|w| first != w) && first.contains('=')
}

/// `Ok` if this one program only reads.
fn exec_reads(exec: &Exec) -> Result<(), String> {
    let args = exec.arg_texts();
    let name = exec.name.as_str();
    let has_writing_form =
        name == "git" || name == "uniq" || WRITING_OPTIONS.iter().any(|(n, ..)| *n == name);
    if exec.args_from_input && has_writing_form {
        return Err(format!(
            "`{name}` gets arguments from its input, which could make it write"
        ));
    }
    if name == "env" && args.iter().any(|a| a.contains('=')) {
        return Err("`env` sets environment variables".into());
    }
    let writes = if name == "git" {
        git_writes(&args)
    } else if READERS.contains(&name) {
        writing_option(name, &args)
    } else {
        Some(format!("`{name}` is not a read-only program"))
    };
    writes.map_or(Ok(()), Err)
}

/// Why `name` with `args` writes or runs more, if it does.
fn writing_option(name: &str, args: &[String]) -> Option<String> {
    if name == "uniq" && positional(args) > 1 {
        return Some("`uniq` writes its second file".into());
    }
    let (_, short, long) = WRITING_OPTIONS.iter().find(|(n, ..)| *n == name)?;
    let found = args.iter().find(|a| writes_by(a, short, long))?;
    Some(format!(
        "`{name} {found}` writes or runs more than it reads"
    ))
}

/// True if `arg` is one of `long` (with `=value`, or abbreviated to at least three
/// characters past its dashes) or a cluster of short options holding one of `short`.
fn writes_by(arg: &str, short: &[char], long: &[&str]) -> bool {
    let word = arg.split('=').next().unwrap_or(arg);
    let abbreviates = |option: &&str| {
        option.starts_with(word) && word.trim_start_matches('-').len() >= 3 || *option == word
    };
    if long.iter().any(abbreviates) {
        return true;
    }
    match arg.strip_prefix('-') {
        Some(cluster) if !cluster.starts_with('-') => cluster
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .any(|c| short.contains(&c)),
        _ => false,
    }
}

/// How many arguments are not options.
fn positional(args: &[String]) -> usize {
    args.iter().filter(|a| !a.starts_with('-')).count()
}

/// Why a git command writes, if it does: global options that run or redirect
/// (`-c`, `--exec-path`, …), a subcommand outside [`GIT_READERS`], or the writing form
/// of one inside it.
fn git_writes(args: &[String]) -> Option<String> {
    let mut rest = args.iter().map(String::as_str);
    let sub = loop {
        match rest.next() {
            Some("-C") => {
                rest.next();
            }
            Some("--no-pager" | "-P" | "--no-optional-locks") => {}
            Some(option) if option.starts_with('-') => {
                return Some(format!("git's option `{option}` is not read-only"));
            }
            Some(sub) => break sub,
            None => return None,
        }
    };
    if !GIT_READERS.contains(&sub) {
        return Some(format!("`git {sub}` is not read-only"));
    }
    let rest: Vec<&str> = rest.collect();
    let listing = |allowed: &[&str]| {
        rest.iter().all(|a| {
            allowed
                .iter()
                .any(|o| a == o || a.starts_with(&format!("{o}=")))
        })
    };
    let read_only = match sub {
        "branch" => listing(&[
            "-a",
            "-r",
            "-v",
            "-vv",
            "--list",
            "--all",
            "--remotes",
            "--show-current",
            "--contains",
            "--merged",
            "--no-merged",
            "--format",
            "--sort",
        ]),
        "tag" => listing(&["-l", "--list", "-n", "--contains", "--sort", "--format"]),
        "remote" => {
            listing(&["-v", "--verbose"]) || matches!(rest.first(), Some(&("show" | "get-url")))
        }
        "config" => rest
            .first()
            .is_some_and(|a| ["--get", "--get-all", "--list", "-l", "--get-regexp"].contains(a)),
        "worktree" => rest.first() == Some(&"list"),
        "stash" => {
            ["list", "show"].contains(rest.first().unwrap_or(&""))
                && !rest.iter().any(|a| a.starts_with("--ext-diff"))
        }
        "grep" => !rest
            .iter()
            .any(|a| a.starts_with("-O") || a.starts_with("--open-files-in-pager")),
        "reflog" => rest
            .first()
            .is_none_or(|a| *a == "show" || !a.chars().all(char::is_alphabetic)),
        "diff" | "log" | "show" => !rest.iter().any(|a| {
            a.starts_with("--output") || a.starts_with("--ext-diff") || *a == "--textconv"
        }),
        _ => true,
    };
    (!read_only).then(|| format!("this form of `git {sub}` changes the repository"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_commands_are_read_only() {
        for line in [
            "ls -la src",
            "cat README.md | head -20",
            "grep -rn 'fn main' src | sort | uniq -c",
            "rg --json -e TODO -- src",
            "find . -name '*.rs' -type f",
            "fd -e rs",
            "wc -l $(git ls-files)",
            "cd roocoded && ls",
            "git status --short",
            "git -C ../other log --oneline -5",
            "git --no-pager diff HEAD~1 -- src",
            "git branch -a",
            "git branch --show-current",
            "git config --get user.name",
            "git worktree list",
            "git remote -v",
            "git remote get-url origin",
            "git stash list",
            "tree -L 2 || ls",
            "echo done; pwd",
            "find src -name '*.rs' | xargs grep -l unsafe",
            "sort -u names.txt",
            "sort -rn counts.txt",
            "git grep -n TODO",
            "find . -name '*.rs' | xargs wc -l",
            "jq .name package.json",
        ] {
            assert_eq!(check(line), Ok(()), "{line}");
        }
    }

    #[test]
    fn anything_that_writes_or_runs_more_is_not() {
        for (line, why) in [
            ("rm -rf target", "`rm` is not a read-only program"),
            ("echo hi > notes.txt", "writes notes.txt"),
            ("cat a >> b", "writes b"),
            ("find . -name '*.tmp' -delete", "`find -delete`"),
            ("find . -exec rm {} +", "`find -exec`"),
            ("fd -e log -x rm", "`fd -x`"),
            ("sort -o out.txt in.txt", "`sort -o`"),
            ("rg --pre ./evil.sh TODO", "`rg --pre`"),
            ("uniq in.txt out.txt", "`uniq` writes its second file"),
            ("sed -i s/a/b/ f.txt", "`sed` is not a read-only program"),
            ("git commit -am wip", "`git commit` is not read-only"),
            ("git branch -D main", "this form of `git branch`"),
            ("git branch new-feature", "this form of `git branch`"),
            ("git tag v1", "this form of `git tag`"),
            ("git config user.name x", "this form of `git config`"),
            ("git stash", "this form of `git stash`"),
            ("git reflog expire --all", "this form of `git reflog`"),
            ("git -c core.pager=evil log", "git's option `-c`"),
            ("git diff --output=patch.txt", "this form of `git diff`"),
            ("git worktree add ../x", "this form of `git worktree`"),
            (
                "git remote add x https://example.invalid/x",
                "this form of `git remote`",
            ),
            ("sudo ls", "`sudo` is not a read-only program"),
            ("sh -c 'touch x'", "is not a read-only program"),
            ("ls | xargs rm", "`rm` is not a read-only program"),
            ("awk '{print > \"out\"}' f", "inline code"),
            ("eval \"$CMD\"", "cannot see what it would run"),
            ("cargo build", "`cargo` is not a read-only program"),
            ("npm test", "`npm` is not a read-only program"),
            ("echo -delete | xargs find .", "`find"),
            ("printf -o | xargs sort in.txt", "`sort"),
            ("cat list | xargs sort", "gets arguments from its input"),
            (
                "GIT_EXTERNAL_DIFF=./x.sh git diff",
                "sets environment variables",
            ),
            ("LD_PRELOAD=./evil.so cat f", "sets environment variables"),
            (
                "env GIT_SSH_COMMAND=./x git remote show origin",
                "`env` sets",
            ),
            ("sort -uo out.txt in.txt", "`sort -uo`"),
            ("sort --outp=out in", "`sort --outp=out`"),
            (
                "sort --compress-program=./x in",
                "`sort --compress-program=./x`",
            ),
            ("fd -Hx rm", "`fd -Hx`"),
            ("tree -o out.txt", "`tree -o`"),
            ("file -C -m magic", "`file -C`"),
            ("git grep -O./x TODO", "this form of `git grep`"),
            ("git stash show --ext-diff", "this form of `git stash`"),
            ("git help --web log", "`git help` is not read-only"),
        ] {
            let err = check(line).expect_err(line);
            assert!(err.contains(why), "{line}: {err}");
        }
    }
}
