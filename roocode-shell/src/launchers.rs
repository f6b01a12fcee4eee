//! More programs that run another command, beyond the classic wrappers of
//! `wrappers.rs`: tracers and debuggers (`strace`, `ltrace`, `gdb`, `valgrind`),
//! namespace and scheduling tools (`unshare`, `nsenter`, `chroot`, `taskset`, `chrt`,
//! `numactl`, `prlimit`, `setpriv`, `flock`, `script`, `systemd-run`, …), job runners
//! (`at`, `batch`, `parallel`, `entr`, `tmux`, `screen`), and the options of ordinary
//! tools that run a command (`git -c alias.x='!…'`, `git -c core.pager=…`,
//! `tar --to-command`, `rsync -e`, `awk 'BEGIN{system(…)}'`, `sed 's/…/…/e'`).

use super::ast::Word;
use super::inline;
use super::wrappers::{Unwrap, from, options};

/// Runs `args` from the first operand on, once the options are skipped.
/// (name, short options taking a value, long options taking a value, operands to skip
/// before the command).
const PLAIN: &[(&str, &str, &[&str], usize)] = &[
    (
        "strace",
        "abeEIoOpPsSuUX",
        &["output", "signal", "trace", "user", "env"],
        0,
    ),
    ("ltrace", "aeEfFlnopsuxXA", &["output"], 0),
    ("valgrind", "", &[], 0),
    (
        "unshare",
        "SGRwlt",
        &["setuid", "setgid", "root", "wd", "propagation"],
        0,
    ),
    (
        "nsenter",
        "tSGrwT",
        &["target", "setuid", "setgid", "root", "wd"],
        0,
    ),
    ("chroot", "", &["userspec", "groups"], 1),
    ("numactl", "NmCpiPH", &[], 0),
    ("prlimit", "p", &["pid"], 0),
    (
        "setpriv",
        "",
        &["reuid", "regid", "groups", "inh-caps", "bounding-set"],
        0,
    ),
    ("fakeroot", "ilsb", &["lib", "faked"], 0),
    ("fakechroot", "lc", &["lib", "config-dir"], 0),
    ("eatmydata", "", &[], 0),
    ("torsocks", "uPpa", &[], 0),
    ("proxychains", "f", &[], 0),
    ("proxychains4", "f", &[], 0),
    ("firejail", "", &[], 0),
    (
        "xvfb-run",
        "nsfpel",
        &["server-num", "server-args", "auth-file", "error-file"],
        0,
    ),
    ("dbus-run-session", "", &["config-file", "dbus-daemon"], 0),
    ("dbus-launch", "", &[], 0),
    ("ssh-agent", "aEPt", &[], 0),
    ("catchsegv", "", &[], 0),
    ("chronic", "", &[], 0),
    ("ifne", "", &[], 0),
    ("rlwrap", "acCfHlmopPqsSwz", &[], 0),
    ("nocache", "", &[], 0),
    ("trickle", "udwtlnL", &[], 0),
    ("faketime", "f", &[], 1),
    ("cpulimit", "lpe", &["limit", "pid", "exe"], 0),
    ("caffeinate", "tw", &[], 0),
    ("linux32", "", &[], 0),
    ("linux64", "", &[], 0),
    ("setarch", "", &[], 1),
    ("coproc", "", &[], 0),
    (
        "run0",
        "uDgm",
        &["user", "group", "chdir", "setenv", "machine", "unit"],
        0,
    ),
    (
        "systemd-run",
        "pEMHuq",
        &[
            "unit",
            "property",
            "description",
            "slice",
            "setenv",
            "uid",
            "gid",
            "machine",
            "host",
            "working-directory",
            "nice",
        ],
        0,
    ),
    ("runcon", "urtl", &["user", "role", "type", "range"], 0),
    ("cgexec", "g", &[], 0),
    ("chpst", "uUe/nlmdofpc", &[], 0),
    ("sg", "", &[], 1),
    (
        "ld.so",
        "",
        &["library-path", "preload", "audit", "argv0"],
        0,
    ),
    (
        "ld-linux.so.2",
        "",
        &["library-path", "preload", "audit", "argv0"],
        0,
    ),
    (
        "ld-linux-x86-64.so.2",
        "",
        &["library-path", "preload", "audit", "argv0"],
        0,
    ),
    (
        "ld-linux-aarch64.so.1",
        "",
        &["library-path", "preload", "audit", "argv0"],
        0,
    ),
    ("screen", "SscdDrRpXtTehLl", &[], 0),
    ("daemonize", "acEelopu", &[], 0),
    ("start-stop-daemon", "", &[], 0),
];

/// What `name` runs, for the programs of this file; `None` for others.
pub fn unwrap(name: &str, args: &[Word]) -> Option<Unwrap> {
    let n = args.len();
    if let Some((_, short, long, skip)) = PLAIN.iter().find(|(p, ..)| *p == name) {
        let o = options(args, short, long);
        return Some(match name {
            "chroot" if o.operand + 1 >= n => Unwrap::None,
            // `sg group -c 'cmd'`, `sg group cmd`.
            "sg" => match args.get(o.operand + 1).map(Word::shell_text).as_deref() {
                Some("-c") => args
                    .get(o.operand + 2)
                    .map_or(Unwrap::None, |w| Unwrap::Script(w.shell_text())),
                _ => from(o.operand + 1, n),
            },
            // `runcon CONTEXT cmd` without options.
            "runcon" if o.flags.is_empty() => from(o.operand + 1, n),
            _ => from(o.operand + skip, n),
        });
    }
    Some(match name {
        "script" => {
            let o = options(
                args,
                "cEIOTBm",
                &[
                    "command",
                    "echo",
                    "log-in",
                    "log-out",
                    "log-timing",
                    "log-io",
                    "logging-format",
                ],
            );
            match o.value("c").or_else(|| o.value("command")) {
                Some(script) => Unwrap::Script(script.to_string()),
                None => Unwrap::None,
            }
        }
        "flock" => {
            let o = options(args, "wEc", &["timeout", "conflict-exit-code", "command"]);
            if let Some(script) = o.value("c").or_else(|| o.value("command")) {
                return Some(Unwrap::Script(script.to_string()));
            }
            // `flock FILE -c 'cmd'` or `flock FILE cmd args…`.
            let after = o.operand + 1;
            match args.get(after).map(Word::shell_text).as_deref() {
                Some("-c" | "--command") => args
                    .get(after + 1)
                    .map_or(Unwrap::None, |w| Unwrap::Script(w.shell_text())),
                _ => from(after, n),
            }
        }
        "taskset" => {
            let o = options(args, "", &["cpu-list"]);
            if o.has("p") || o.has("pid") {
                Unwrap::None
            } else {
                from(o.operand + 1, n)
            }
        }
        "chrt" => {
            let o = options(
                args,
                "T",
                &["sched-runtime", "sched-deadline", "sched-period"],
            );
            if o.has("p") || o.has("pid") || o.has("m") || o.has("max") {
                Unwrap::None
            } else {
                from(o.operand + 1, n)
            }
        }
        "gdb" | "cgdb" | "lldb" => debugger(args),
        "entr" => {
            let o = options(args, "", &[]);
            if o.has("s") {
                args.get(o.operand)
                    .map_or(Unwrap::None, |w| Unwrap::Script(w.shell_text()))
            } else {
                from(o.operand, n)
            }
        }
        // `at` and `batch` read the job's commands from standard input.
        "at" | "batch" => {
            let o = options(args, "qfmMtT", &[]);
            if o.has("f") || o.has("l") || o.has("r") || o.has("d") || o.has("c") {
                Unwrap::None
            } else {
                Unwrap::ProgramFromStdin
            }
        }
        "parallel" | "sem" => parallel(args),
        "tmux" => tmux(args),
        "capsh" => {
            // `capsh … -- -c 'cmd'`: what follows `--` goes to bash.
            let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
            match texts.iter().position(|a| a == "--") {
                Some(at) if texts.get(at + 1).map(String::as_str) == Some("-c") => args
                    .get(at + 2)
                    .map_or(Unwrap::None, |w| Unwrap::Script(w.shell_text())),
                Some(_) => Unwrap::ProgramFromStdin,
                None => Unwrap::None,
            }
        }
        "expect" => {
            let o = options(args, "cfb", &[]);
            if o.has("c") {
                Unwrap::Opaque("`expect -c` runs a script of its own language".into())
            } else {
                Unwrap::None
            }
        }
        "git" => super::git_config::unwrap(args),
        "tar" | "bsdtar" | "gtar" => tar(args),
        "rsync" => option_script(args, &["-e", "--rsh", "--rsync-path"]),
        "zip" => option_script(args, &["-TT", "--unzip-command"]),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => {
            let o = options(
                args,
                "FvfW",
                &["field-separator", "assign", "file", "include", "load"],
            );
            if o.has("f") || o.has("file") {
                return Some(Unwrap::None);
            }
            let program = o
                .value("e")
                .map(str::to_string)
                .or_else(|| args.get(o.operand).map(Word::shell_text))
                .unwrap_or_default();
            inline::awk(&program).map_or(Unwrap::None, Unwrap::Inline)
        }
        "sed" | "gsed" => {
            let o = options(args, "eflsz", &["expression", "file", "line-length"]);
            let scripts: Vec<&str> = o
                .values
                .iter()
                .filter(|(f, _)| f == "e" || f == "expression")
                .map(|(_, v)| v.as_str())
                .collect();
            let first = args.get(o.operand).map(Word::shell_text);
            let script = if scripts.is_empty() {
                first.unwrap_or_default()
            } else {
                scripts.join("\n")
            };
            inline::sed(&script).map_or(Unwrap::None, Unwrap::Inline)
        }
        _ => return None,
    })
}

/// `gdb -ex 'shell …'`, `gdb -batch -ex run --args cmd …`, `gdb prog`.
fn debugger(args: &[Word]) -> Unwrap {
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let mut scripts = Vec::new();
    let mut i = 0;
    while i < texts.len() {
        let a = texts[i].as_str();
        let value = match a {
            "-ex" | "-iex" | "--eval-command" | "--init-eval-command" | "-o" | "--one-line" => {
                i += 1;
                texts.get(i).cloned()
            }
            _ => a
                .strip_prefix("--eval-command=")
                .or_else(|| a.strip_prefix("--init-eval-command="))
                .map(str::to_string),
        };
        if let Some(v) = value {
            let v = v.trim();
            if let Some(cmd) = v
                .strip_prefix("shell ")
                .or_else(|| v.strip_prefix('!'))
                .or_else(|| v.strip_prefix("platform shell "))
            {
                scripts.push(cmd.to_string());
            } else if v.starts_with("python")
                || v.starts_with("py ")
                || v.starts_with("pipe")
                || v.starts_with('|')
                || v.starts_with("guile")
            {
                return Unwrap::Opaque(format!(
                    "the debugger command `{v}` runs code RooCode cannot see"
                ));
            }
        }
        if a == "--args" {
            if i + 1 < texts.len() {
                scripts.push(
                    args[i + 1..]
                        .iter()
                        .map(|w| w.raw.clone())
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            break;
        }
        i += 1;
    }
    if scripts.is_empty() {
        Unwrap::None
    } else {
        Unwrap::Script(scripts.join("\n"))
    }
}

/// `parallel [options] [command] ::: args` runs the command with each argument (or, with
/// no command, each argument as a command); without `:::` the arguments come from input.
fn parallel(args: &[Word]) -> Unwrap {
    let o = options(
        args,
        "jSIEnNPXLlsa",
        &[
            "jobs",
            "sshlogin",
            "max-args",
            "max-lines",
            "arg-file",
            "delimiter",
            "joblog",
            "results",
            "tmpdir",
            "workdir",
        ],
    );
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let sep = texts
        .iter()
        .enumerate()
        .skip(o.operand)
        .find(|(_, t)| matches!(t.as_str(), ":::" | "::::" | ":::+"))
        .map(|(i, _)| i);
    let at = o.operand.min(args.len());
    match sep {
        Some(sep) => Unwrap::WithArgs {
            command: at.min(sep)..sep,
            input: args[sep + 1..]
                .iter()
                .filter(|w| !w.shell_text().starts_with(":::"))
                .cloned()
                .collect(),
        },
        None => Unwrap::WithArgs {
            command: at..args.len(),
            input: Vec::new(),
        },
    }
}

/// tmux subcommands that run a shell command, and `send-keys` (which types into one).
fn tmux(args: &[Word]) -> Unwrap {
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let o = options(args, "LSfcT", &[]);
    if let Some(c) = o.value("c") {
        return Unwrap::Script(c.to_string());
    }
    let sub = texts.get(o.operand).map(String::as_str).unwrap_or("");
    match sub {
        "send-keys" | "send" | "pipe-pane" | "pipep" | "if-shell" | "if" | "run-shell" | "run"
        | "source-file" | "source" => Unwrap::Opaque(format!(
            "`tmux {sub}` runs or types commands RooCode cannot follow"
        )),
        "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
        | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => {
            let rest = &args[o.operand + 1..];
            let o2 = options(rest, "cstnxyFeEl", &[]);
            let command: Vec<String> = rest[o2.operand.min(rest.len())..]
                .iter()
                .map(Word::shell_text)
                .collect();
            if command.is_empty() {
                Unwrap::None
            } else {
                Unwrap::Script(command.join(" "))
            }
        }
        _ => Unwrap::None,
    }
}

/// `tar --to-command=CMD`, `--checkpoint-action=exec=CMD`, `-I CMD` /
/// `--use-compress-program=CMD`, `--info-script`/`-F`, `--rsh-command`.
fn tar(args: &[Word]) -> Unwrap {
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let mut scripts = Vec::new();
    let mut i = 0;
    while i < texts.len() {
        let a = texts[i].as_str();
        for opt in [
            "--to-command",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
            "-I",
            "-F",
        ] {
            if a == opt {
                if let Some(v) = texts.get(i + 1) {
                    scripts.push(v.clone());
                }
            } else if let Some(v) = a.strip_prefix(opt).and_then(|r| r.strip_prefix('=')) {
                scripts.push(v.to_string());
            }
        }
        if let Some(v) = a
            .strip_prefix("--checkpoint-action=exec=")
            .or_else(|| a.strip_prefix("--checkpoint-action=exec:"))
        {
            scripts.push(v.to_string());
        }
        i += 1;
    }
    if scripts.is_empty() {
        Unwrap::None
    } else {
        Unwrap::Script(scripts.join("\n"))
    }
}

/// The value of one of `opts` (`-e CMD`, `--rsh=CMD`, `--rsh CMD`) as a script.
fn option_script(args: &[Word], opts: &[&str]) -> Unwrap {
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let mut scripts = Vec::new();
    for (i, a) in texts.iter().enumerate() {
        for opt in opts {
            if a == opt {
                if let Some(v) = texts.get(i + 1) {
                    scripts.push(v.clone());
                }
            } else if let Some(v) = a.strip_prefix(opt).and_then(|r| r.strip_prefix('=')) {
                scripts.push(v.to_string());
            }
        }
    }
    if scripts.is_empty() {
        Unwrap::None
    } else {
        Unwrap::Script(scripts.join("\n"))
    }
}
