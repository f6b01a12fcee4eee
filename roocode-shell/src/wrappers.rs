//! Programs that run another command: what each one runs, given its arguments.
//! `sudo -u x rm …` runs `rm …`; `bash -c '…'` runs a script; `bash` with no script
//! reads its program from standard input; `eval` runs text built at run time.

use std::ops::Range;

use super::ast::Word;

/// What a program runs besides itself.
#[derive(Debug, Clone)]
pub enum Unwrap {
    /// Nothing we know of.
    None,
    /// The commands in these ranges of its arguments (`sudo`, `env`, `find -exec`).
    Commands(Vec<Range<usize>>),
    /// `xargs`: the command from this index, plus arguments read from standard input
    /// (substituted for `replace` when given).
    Xargs { at: usize, replace: Option<String> },
    /// A script given as text (`su -c`, `watch`, `trap`, `env -S`).
    Script(String),
    /// `sh -c script arg0 arg1 …`: the script and its positional parameters.
    ShellScript { text: String, args: Vec<Word> },
    /// `eval`: text built at run time; the text as far as it is known.
    Eval(String),
    /// An interpreter that reads its program from standard input.
    ProgramFromStdin,
    /// Runs something the parser cannot see; the reason.
    Opaque(String),
    /// The command in this range, run once with each of these arguments added
    /// (`parallel cmd ::: a b`); none: arguments read from standard input.
    WithArgs {
        command: Range<usize>,
        input: Vec<Word>,
    },
    /// An interpreter given inline code that may do more than compute and print; why.
    Inline(String),
}

/// Shells: `-c` runs a script; no script operand means the program comes from stdin.
pub const SHELLS: [&str; 10] = [
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "mksh",
    "yash",
    "fish",
    "busybox-sh",
];

/// Other interpreters and the flags that give them their program inline.
const INTERPRETERS: [(&str, &str); 20] = [
    ("python", "cm"),
    ("python2", "cm"),
    ("python3", "cm"),
    ("pypy", "cm"),
    ("pypy3", "cm"),
    ("perl", "eE"),
    ("ruby", "e"),
    ("node", "ep"),
    ("nodejs", "ep"),
    ("php", "rR"),
    ("lua", "e"),
    ("osascript", "e"),
    ("Rscript", "e"),
    ("julia", "e"),
    ("bun", "e"),
    ("elixir", "e"),
    ("guile", "c"),
    ("racket", "e"),
    ("groovy", "e"),
    ("pwsh", "c"),
];

/// True if `name` runs programs (shells and the interpreters above).
pub fn is_interpreter(name: &str) -> bool {
    SHELLS.contains(&name) || interpreter_flags(name).is_some()
}

fn interpreter_flags(name: &str) -> Option<&'static str> {
    let base = name
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .to_string();
    INTERPRETERS
        .iter()
        .find(|(n, _)| *n == name || (*n == base && base.starts_with("python")))
        .map(|(_, flags)| *flags)
}

/// Options parsed from the front of an argument list.
pub(super) struct Opts {
    /// Short flag letters and long option names seen.
    pub(super) flags: Vec<String>,
    /// Values of options that take one, by flag.
    pub(super) values: Vec<(String, String)>,
    /// Index of the first operand.
    pub(super) operand: usize,
}

impl Opts {
    pub(super) fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
    pub(super) fn value(&self, flag: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(f, _)| f == flag)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses options until the first operand or `--`. `short_arg` lists short options
/// taking a value; `long_arg` long ones (`--user x` or `--user=x`).
pub(super) fn options(args: &[Word], short_arg: &str, long_arg: &[&str]) -> Opts {
    let mut opts = Opts {
        flags: Vec::new(),
        values: Vec::new(),
        operand: args.len(),
    };
    let text = |i: usize| args.get(i).map(Word::shell_text).unwrap_or_default();
    let mut i = 0;
    while i < args.len() {
        let arg = text(i);
        if arg == "--" {
            opts.operand = i + 1;
            return opts;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (long.to_string(), None),
            };
            opts.flags.push(name.clone());
            match value {
                Some(v) => opts.values.push((name, v)),
                None if long_arg.contains(&name.as_str()) => {
                    opts.values.push((name, text(i + 1)));
                    i += 1;
                }
                None => {}
            }
        } else if arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+')) {
            let letters: Vec<char> = arg.chars().skip(1).collect();
            for (k, c) in letters.iter().enumerate() {
                opts.flags.push(c.to_string());
                if short_arg.contains(*c) {
                    let rest: String = letters[k + 1..].iter().collect();
                    if rest.is_empty() {
                        opts.values.push((c.to_string(), text(i + 1)));
                        i += 1;
                    } else {
                        opts.values.push((c.to_string(), rest));
                    }
                    break;
                }
            }
        } else {
            opts.operand = i;
            return opts;
        }
        i += 1;
    }
    opts
}

pub(super) fn from(at: usize, len: usize) -> Unwrap {
    if at < len {
        Unwrap::Commands(std::iter::once(at..len).collect())
    } else {
        Unwrap::None
    }
}

/// What program `name` (a basename) runs when given `args`.
pub fn unwrap(name: &str, args: &[Word]) -> Unwrap {
    let n = args.len();
    match name {
        "sudo" => {
            let o = options(
                args,
                "ugCDhprtTU",
                &[
                    "user",
                    "group",
                    "close-from",
                    "chdir",
                    "host",
                    "prompt",
                    "role",
                    "type",
                    "command-timeout",
                    "other-user",
                ],
            );
            if o.operand >= n && (o.has("s") || o.has("i") || o.has("shell") || o.has("login")) {
                return Unwrap::ProgramFromStdin;
            }
            from(o.operand, n)
        }
        "doas" => from(options(args, "uC", &[]).operand, n),
        "pkexec" => from(options(args, "", &["user"]).operand, n),
        "nice" => from(options(args, "n", &["adjustment"]).operand, n),
        "ionice" => from(
            options(args, "cnpPu", &["class", "classdata", "pid", "pgid", "uid"]).operand,
            n,
        ),
        "nohup" | "builtin" | "unbuffer" | "busybox" => from(options(args, "", &[]).operand, n),
        "setsid" => from(options(args, "", &[]).operand, n),
        "stdbuf" => from(
            options(args, "ioe", &["input", "output", "error"]).operand,
            n,
        ),
        "time" => from(options(args, "fo", &["format", "output"]).operand, n),
        "exec" => from(options(args, "a", &[]).operand, n),
        "command" => {
            let o = options(args, "", &[]);
            if o.has("v") || o.has("V") {
                Unwrap::None
            } else {
                from(o.operand, n)
            }
        }
        "timeout" => {
            let o = options(args, "sk", &["signal", "kill-after"]);
            from(o.operand + 1, n)
        }
        "env" => env(args),
        "xargs" => {
            let o = options(
                args,
                "IEnLPsda",
                &[
                    "max-args",
                    "max-lines",
                    "max-procs",
                    "max-chars",
                    "delimiter",
                    "arg-file",
                    "eof",
                    "process-slot-var",
                ],
            );
            let replace = o
                .value("I")
                .map(str::to_string)
                .or_else(|| o.value("replace").map(str::to_string))
                .or_else(|| (o.has("i") || o.has("replace")).then(|| "{}".to_string()));
            Unwrap::Xargs {
                at: o.operand,
                replace,
            }
        }
        "find" => find_exec(args),
        "watch" => {
            let o = options(args, "nq", &["interval"]);
            if o.has("x") || o.has("exec") {
                from(o.operand, n)
            } else {
                script_of(&args[o.operand.min(n)..])
            }
        }
        "su" | "runuser" => {
            // Options may follow the user name: look for `-c` anywhere.
            let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
            let script = texts.iter().enumerate().find_map(|(i, a)| {
                if a == "-c" || a == "--command" {
                    texts.get(i + 1).cloned()
                } else {
                    a.strip_prefix("--command=").map(str::to_string)
                }
            });
            script.map_or(Unwrap::None, Unwrap::Script)
        }
        "trap" => match args.first().map(Word::shell_text) {
            Some(first) if !first.starts_with('-') => Unwrap::Script(first),
            _ => Unwrap::None,
        },
        "eval" => Unwrap::Eval(join(args)),
        "source" | "." => match args.first() {
            Some(w) if w.has_subst() => Unwrap::Opaque(format!(
                "`{name}` runs a script produced at run time ({})",
                w.raw
            )),
            _ => Unwrap::None,
        },
        _ if SHELLS.contains(&name) => shell(name, args),
        _ => match interpreter_flags(name) {
            Some(inline) => interpreter(name, args, inline),
            None => super::launchers::unwrap(name, args).unwrap_or(Unwrap::None),
        },
    }
}

fn join(args: &[Word]) -> String {
    args.iter()
        .map(Word::shell_text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `watch`-style: the arguments joined are a script.
fn script_of(args: &[Word]) -> Unwrap {
    if args.is_empty() {
        Unwrap::None
    } else {
        Unwrap::Script(join(args))
    }
}

fn env(args: &[Word]) -> Unwrap {
    let o = options(args, "uCSP", &["unset", "chdir", "split-string"]);
    let mut at = o.operand;
    while args.get(at).is_some_and(|w| {
        w.literal()
            .is_some_and(|l| l.contains('=') && !l.starts_with('='))
    }) {
        at += 1;
    }
    if let Some(split) = o.value("S").or_else(|| o.value("split-string")) {
        // `env -S 'rm -rf /'` splits the string into the command's words.
        let mut text = split.to_string();
        for w in &args[at.min(args.len())..] {
            text.push(' ');
            text.push_str(&w.raw);
        }
        return Unwrap::Script(text);
    }
    from(at, args.len())
}

/// `find … -exec cmd {} ;` (and `-execdir`, `-ok`, `-okdir`).
fn find_exec(args: &[Word]) -> Unwrap {
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = args[i].shell_text();
        if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let mut end = start;
            while end < args.len() && !matches!(args[end].shell_text().as_str(), ";" | "+") {
                end += 1;
            }
            if start < end {
                ranges.push(start..end);
            }
            i = end;
        }
        i += 1;
    }
    if ranges.is_empty() {
        Unwrap::None
    } else {
        Unwrap::Commands(ranges)
    }
}

fn shell(name: &str, args: &[Word]) -> Unwrap {
    let o = options(args, "oO", &["rcfile", "init-file"]);
    let operand = args.get(o.operand);
    let inline = o.has("c") || (name == "fish" && o.has("command"));
    if inline {
        if let Some(script) = o.value("command") {
            return Unwrap::Script(script.to_string());
        }
        return match operand {
            Some(script) => Unwrap::ShellScript {
                text: script.shell_text(),
                args: args[o.operand + 1..].to_vec(),
            },
            None => Unwrap::None,
        };
    }
    match operand {
        _ if o.has("s") => Unwrap::ProgramFromStdin,
        None => Unwrap::ProgramFromStdin,
        Some(w) if w.literal().as_deref() == Some("-") => Unwrap::ProgramFromStdin,
        Some(w) if w.has_subst() => Unwrap::Opaque(format!(
            "`{name}` runs a script produced at run time ({})",
            w.raw
        )),
        Some(_) => Unwrap::None,
    }
}

fn interpreter(name: &str, args: &[Word], inline: &str) -> Unwrap {
    let o = options(args, "WXI", &[]);
    if inline.chars().any(|c| o.has(&c.to_string())) || o.has("eval") || o.has("print") {
        // The code is the first operand (`python3 -c CODE`, `perl -n -e CODE`) or the
        // value glued to the flag (`--eval=CODE`).
        let code = o
            .value("eval")
            .map(str::to_string)
            .or_else(|| args.get(o.operand).map(Word::shell_text))
            .unwrap_or_default();
        let module = name.starts_with("python") && o.has("m") && !o.has("c");
        return match super::inline::judge(name, &code, module) {
            Some(why) => Unwrap::Inline(why),
            None => Unwrap::None,
        };
    }
    match args.get(o.operand) {
        None => Unwrap::ProgramFromStdin,
        Some(w) if w.literal().as_deref() == Some("-") => Unwrap::ProgramFromStdin,
        Some(w) if w.has_subst() => Unwrap::Opaque(format!(
            "`{name}` runs a program produced at run time ({})",
            w.raw
        )),
        Some(_) => Unwrap::None,
    }
}
