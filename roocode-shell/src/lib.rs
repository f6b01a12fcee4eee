//! `roocode-shell`: shell command lines as RooCode's permission layers see them. This
//! crate owns the lexer and parser of the POSIX/bash subset that matters ([`Word`],
//! [`Seg`], [`RedirOp`] and the rest of the syntax tree), the wrappers and launchers
//! seen through, path expressions ([`PathExpr`]) and the analysis below; it imports
//! nothing of the daemon and runs nothing. The daemon's `permission` module judges
//! what it finds.
//!
//! A line is parsed (never run) into the
//! simple commands it is made of, and then into every program that would run,
//! seen through wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, `find -exec`,
//! `exec`, `command`, …, and the tracers, namespace tools and job runners of
//! `launchers.rs`: `strace`, `unshare`, `flock`, `script`, `at`, `parallel`, `tmux`, …),
//! `sh -c '…'` (recursively), aliases where they are defined, git settings that run
//! commands (`git -c alias.x='!…'`), shells fed a script on standard input by
//! `echo`/`printf` or a here-document, and command substitutions.
//!
//! Whatever cannot be seen through is listed in [`Analysis::opaque`]: `eval`, a
//! substitution or variable as the command word, a program read from a pipe by an
//! interpreter (checked by the dangerous-command layer), `source <(…)`, or a line that
//! does not parse. Inline programs of interpreters that may do more than print
//! (`python3 -c 'import shutil…'`) are listed in [`Analysis::inline_code`], and programs
//! completed with arguments from their input (`… | xargs rm -rf`) are marked
//! [`Exec::args_from_input`].

mod ast;
mod git_config;
mod inline;
mod launchers;
mod lex;
mod parse;
pub mod path;
mod piped;
mod vars;
mod wrappers;

pub use ast::{RedirOp, Seg, Word};
pub use git_config::git_key_runs;
pub use path::{Base, Comp, PathExpr};
pub use piped::reparse_word;
pub use wrappers::is_interpreter;

use ast::{Command, Redirect, Script, Simple};
use piped::printed_text;
use wrappers::Unwrap;

/// How deep `sh -c` and friends are followed before giving up.
const MAX_NESTING: usize = 8;

/// One program that would run.
#[derive(Debug, Clone)]
pub struct Exec {
    /// Basename of the program (`/bin/rm` → `rm`).
    pub name: String,
    pub args: Vec<Word>,
    /// The command as written from the program word on.
    pub text: String,
    /// Its working directory, as far as `cd`s before it tell.
    pub cwd: PathExpr,
    /// True if it is an interpreter reading its program from a pipe whose content the
    /// parser cannot see; `upstream` then names the programs feeding the pipe.
    pub program_from_pipe: bool,
    pub upstream: Vec<String>,
    /// True if some of its arguments are read from standard input at run time (`… |
    /// xargs rm -rf`): the arguments seen are not all it gets.
    pub args_from_input: bool,
}

impl Exec {
    /// The argument words as text (quotes removed, expansions as written).
    pub fn arg_texts(&self) -> Vec<String> {
        self.args.iter().map(Word::shell_text).collect()
    }
}

/// A simple command as written, for rules.
#[derive(Debug, Clone)]
pub struct Part {
    pub text: String,
    /// Its words (without leading assignments), quotes removed.
    pub words: Vec<String>,
    /// The same words as parsed, with the variables known at that point put in place
    /// (for judging the paths they name).
    pub parsed: Vec<Word>,
    /// Its working directory, as far as `cd`s before it tell.
    pub cwd: PathExpr,
    /// True if a redirection writes a file (not `/dev/null`, `/dev/std*`, `>&2`).
    pub writes_file: bool,
}

/// A file a redirection writes, and from where.
#[derive(Debug, Clone)]
pub struct FileWrite {
    pub target: Word,
    pub cwd: PathExpr,
    /// `>>` rather than `>`.
    pub append: bool,
}

/// Everything the permission layers need to know about a command line.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Simple commands as written, at every level (subshells, groups, substitutions),
    /// but not inside the scripts of `sh -c` and the like.
    pub parts: Vec<Part>,
    /// Every program that would run, wrappers and wrapped alike.
    pub execs: Vec<Exec>,
    /// Targets of redirections that write.
    pub writes: Vec<Word>,
    /// The same writes with their working directory and kind.
    pub file_writes: Vec<FileWrite>,
    /// Why an inline program (`python3 -c …`, `awk '…'`) may do more than print: RooCode
    /// cannot judge such code, so it is asked (kept apart from `opaque`, which rules
    /// also read).
    pub inline_code: Vec<String>,
    /// Functions that run themselves in a pipe or in the background (fork bombs).
    pub fork_bombs: Vec<String>,
    /// Why the parser cannot see what would run; empty when it can.
    pub opaque: Vec<String>,
}

/// Analyses a command line.
pub fn analyze(line: &str) -> Analysis {
    let mut walker = Walker {
        out: Analysis::default(),
        nesting: 0,
        collect_parts: true,
        functions: Vec::new(),
        xargs_replace: None,
        args_from_input: false,
        vars: vars::Vars::default(),
    };
    walker.nested(line, &mut PathExpr::cwd());
    if walker.out.parts.is_empty()
        && walker
            .out
            .opaque
            .iter()
            .any(|o| o.starts_with("cannot parse"))
    {
        walker.out.parts.push(Part {
            text: line.trim().to_string(),
            words: Vec::new(),
            parsed: Vec::new(),
            cwd: PathExpr::cwd(),
            writes_file: false,
        });
    }
    walker.out
}

/// How a pipeline stage's standard input is fed.
#[derive(Debug, Clone)]
enum Stdin {
    Inherited,
    /// From earlier stages: their program names, and the text the one just before
    /// prints when it is `echo`/`printf` of known words.
    Pipe {
        upstream: Vec<String>,
        text: Option<String>,
    },
    /// A here-document or here-string with this text.
    Text(String),
}

struct Walker {
    out: Analysis,
    nesting: usize,
    collect_parts: bool,
    /// Names of the functions whose bodies are being walked.
    functions: Vec<String>,
    /// `xargs -I R`: the replace string while walking its command.
    xargs_replace: Option<String>,
    /// Set while walking a command that `xargs` (or the like) completes with
    /// arguments read from its input.
    args_from_input: bool,
    /// Known values of variables and positional parameters.
    vars: vars::Vars,
}

impl Walker {
    /// Parses `text` and walks it as a script run in `cwd`.
    fn nested(&mut self, text: &str, cwd: &mut PathExpr) {
        if self.nesting >= MAX_NESTING {
            self.out
                .opaque
                .push("commands nested too deeply to follow".to_string());
            return;
        }
        match parse::parse(text) {
            Ok(script) => {
                self.nesting += 1;
                self.script(&script, cwd);
                self.nesting -= 1;
            }
            Err(e) => self
                .out
                .opaque
                .push(format!("cannot parse the command: {e}")),
        }
    }

    fn script(&mut self, script: &Script, cwd: &mut PathExpr) {
        for item in &script.items {
            for pipeline in &item.pipelines {
                let forks = pipeline.commands.len() > 1 || item.background;
                let mut upstream: Vec<String> = Vec::new();
                let mut text = None;
                for (i, command) in pipeline.commands.iter().enumerate() {
                    let stdin = if i == 0 {
                        Stdin::Inherited
                    } else {
                        Stdin::Pipe {
                            upstream: upstream.clone(),
                            text: text.take(),
                        }
                    };
                    let first_exec = self.out.execs.len();
                    if pipeline.commands.len() == 1 {
                        self.command(command, cwd, stdin, forks);
                    } else {
                        self.command(command, &mut cwd.clone(), stdin, forks);
                    }
                    upstream.extend(self.out.execs[first_exec..].iter().map(|e| e.name.clone()));
                    text = printed_text(command);
                }
            }
        }
    }

    fn command(&mut self, command: &Command, cwd: &mut PathExpr, stdin: Stdin, forks: bool) {
        match command {
            Command::Simple(simple) => self.simple(simple, cwd, stdin, forks),
            Command::Subshell { body, redirects } => {
                self.script(body, &mut cwd.clone());
                self.redirects(redirects, cwd);
            }
            Command::Group { body, redirects } => {
                self.script(body, cwd);
                self.redirects(redirects, cwd);
            }
            Command::Compound { words, bodies } => {
                for word in words {
                    self.word(word, cwd);
                }
                for body in bodies {
                    self.script(body, &mut cwd.clone());
                }
            }
            Command::Function { name, body } => {
                self.functions.push(name.clone());
                self.command(body, &mut cwd.clone(), Stdin::Inherited, false);
                self.functions.pop();
            }
        }
    }

    /// Substitutions inside a word run too.
    fn word(&mut self, word: &Word, cwd: &PathExpr) {
        for seg in &word.segs {
            match seg {
                Seg::Subst { script, .. } => self.script(script, &mut cwd.clone()),
                Seg::Var { name: None, raw } | Seg::Arith(raw)
                    if raw.contains("$(") || raw.contains('`') =>
                {
                    self.out
                        .opaque
                        .push(format!("a command substitution inside {raw}"));
                }
                _ => {}
            }
        }
    }

    fn redirects(&mut self, redirects: &[Redirect], cwd: &PathExpr) {
        for r in redirects {
            self.word(&r.target, cwd);
            if r.op.writes() {
                let target = self.vars.substitute(&r.target);
                if writes_file(r) {
                    self.out.file_writes.push(FileWrite {
                        target: target.clone(),
                        cwd: cwd.clone(),
                        append: matches!(r.op, RedirOp::Append | RedirOp::AndAppend),
                    });
                }
                self.out.writes.push(target);
            }
            if let Some(doc) = &r.heredoc {
                let body = doc.body.borrow();
                if doc.expand && (body.contains("$(") || body.contains('`')) {
                    self.out
                        .opaque
                        .push("a command substitution inside a here-document".to_string());
                }
            }
        }
    }

    fn simple(&mut self, simple: &Simple, cwd: &mut PathExpr, stdin: Stdin, forks: bool) {
        for word in simple.assigns.iter().chain(&simple.words) {
            self.word(word, cwd);
        }
        self.redirects(&simple.redirects, cwd);
        if simple.words.is_empty() {
            for assign in &simple.assigns {
                self.vars.assign(assign);
            }
            return;
        }
        if self.collect_parts {
            self.out.parts.push(Part {
                text: simple.raw.clone(),
                words: simple.words.iter().map(Word::shell_text).collect(),
                parsed: simple
                    .words
                    .iter()
                    .map(|w| self.vars.substitute(w))
                    .collect(),
                cwd: cwd.clone(),
                writes_file: simple.redirects.iter().any(writes_file),
            });
        }
        let first = simple.words[0].shell_text();
        if forks && self.functions.contains(&first) && !self.out.fork_bombs.contains(&first) {
            self.out.fork_bombs.push(first);
        }
        // Here-documents and here-strings feed the command's standard input.
        let stdin = simple
            .redirects
            .iter()
            .find_map(|r| match (&r.heredoc, r.op) {
                (Some(doc), _) => Some(Stdin::Text(doc.body.borrow().clone())),
                (None, RedirOp::HereString) => Some(Stdin::Text(r.target.shell_text())),
                _ => None,
            })
            .unwrap_or(stdin);
        let words: Vec<Word> = simple
            .words
            .iter()
            .map(|w| self.vars.substitute(w))
            .collect();
        let was = std::mem::replace(&mut self.collect_parts, false);
        self.exec(&words, cwd, &stdin);
        if words[0].literal().as_deref() == Some("alias") {
            // `alias ls='rm -rf ~'`: what an alias would run is judged where it is made.
            for value in words[1..].iter().filter_map(alias_value) {
                self.nested(&value, &mut cwd.clone());
            }
        }
        self.collect_parts = was;
        track_cd(&words, cwd);
        match words[0].literal().as_deref() {
            Some("export" | "declare" | "local" | "readonly" | "typeset") => {
                words[1..].iter().for_each(|w| self.vars.assign(w));
            }
            Some("unset") => {
                for name in words[1..].iter().filter_map(Word::literal) {
                    self.vars.unset(&name);
                }
            }
            _ => {}
        }
    }

    /// Records the program in `words[0]` and what it runs in turn.
    fn exec(&mut self, words: &[Word], cwd: &mut PathExpr, stdin: &Stdin) {
        let Some(program) = words.first() else { return };
        let name = match program_name(program) {
            Ok(name) => name,
            Err(why) => {
                self.out.opaque.push(why);
                return;
            }
        };
        if let Some(replace) = &self.xargs_replace
            && program.shell_text().contains(replace.as_str())
        {
            self.out
                .opaque
                .push("xargs builds the command from its input".to_string());
        }
        let args = &words[1..];
        let (upstream, piped_text) = match stdin {
            Stdin::Pipe { upstream, text } => (upstream.clone(), text.clone()),
            _ => (Vec::new(), None),
        };
        let index = self.out.execs.len();
        self.out.execs.push(Exec {
            name: name.clone(),
            args: args.to_vec(),
            text: words
                .iter()
                .map(|w| w.raw.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            cwd: cwd.clone(),
            program_from_pipe: false,
            upstream,
            args_from_input: std::mem::take(&mut self.args_from_input),
        });
        let from_input = self.out.execs[index].args_from_input;
        match wrappers::unwrap(&name, args) {
            Unwrap::None => {}
            Unwrap::Commands(ranges) => {
                for range in ranges {
                    // `xargs sudo rm -rf`: the input ends up with the wrapped command.
                    self.args_from_input = from_input && range.end == args.len();
                    self.exec(&args[range], &mut cwd.clone(), stdin);
                    self.args_from_input = false;
                }
            }
            Unwrap::Xargs { at, replace } => {
                let mut command = args[at.min(args.len())..].to_vec();
                match (&replace, &piped_text) {
                    // `echo / | xargs rm -rf`: the known input becomes the arguments.
                    (None, Some(text)) => {
                        command.extend(text.split_whitespace().map(reparse_word));
                    }
                    // Anything else: arguments nobody can see until it runs.
                    _ => self.args_from_input = true,
                }
                let was = std::mem::replace(&mut self.xargs_replace, replace);
                self.exec(&command, &mut cwd.clone(), &Stdin::Inherited);
                self.xargs_replace = was;
                self.args_from_input = false;
            }
            Unwrap::WithArgs { command, input } => {
                // `parallel rm -rf ::: a b`: the command once per argument.
                let command = &args[command];
                for arg in &input {
                    let mut one = command.to_vec();
                    one.push(arg.clone());
                    if command.is_empty() {
                        self.nested(&arg.shell_text(), &mut cwd.clone());
                    } else {
                        self.exec(&one, &mut cwd.clone(), &Stdin::Inherited);
                    }
                }
                if input.is_empty() && !command.is_empty() {
                    self.args_from_input = true;
                    self.exec(command, &mut cwd.clone(), &Stdin::Inherited);
                    self.args_from_input = false;
                }
            }
            Unwrap::Inline(why) => self.out.inline_code.push(format!("{name}: {why}")),
            Unwrap::ShellScript { text, args } => {
                if from_input {
                    self.out
                        .opaque
                        .push(format!("xargs passes its input to the {name} script"));
                }
                if let Some(replace) = &self.xargs_replace
                    && text.contains(replace.as_str())
                {
                    self.out
                        .opaque
                        .push("xargs builds the script from its input".to_string());
                }
                let was = self.vars.set_positional(args);
                self.nested(&text, &mut cwd.clone());
                self.vars.set_positional(was);
            }
            Unwrap::Script(text) => {
                if let Some(replace) = &self.xargs_replace
                    && text.contains(replace.as_str())
                {
                    self.out
                        .opaque
                        .push("xargs builds the script from its input".to_string());
                }
                self.nested(&text, &mut cwd.clone());
            }
            Unwrap::Eval(text) => {
                self.out
                    .opaque
                    .push("`eval` runs text built at run time".to_string());
                self.nested(&text, &mut cwd.clone());
            }
            Unwrap::ProgramFromStdin => {
                let text = match stdin {
                    Stdin::Text(text) => Some(text.clone()),
                    Stdin::Pipe { .. } => piped_text,
                    Stdin::Inherited => return,
                };
                match text {
                    Some(text)
                        if wrappers::SHELLS.contains(&name.as_str())
                            || matches!(name.as_str(), "sudo" | "at" | "batch" | "capsh") =>
                    {
                        self.nested(&text, &mut cwd.clone());
                    }
                    Some(_) => {}
                    None => self.out.execs[index].program_from_pipe = true,
                }
            }
            Unwrap::Opaque(why) => self.out.opaque.push(why),
        }
    }
}

/// The value of an `alias name=value` word.
fn alias_value(word: &Word) -> Option<String> {
    let text = word.shell_text();
    let (name, value) = text.split_once('=')?;
    (!name.is_empty() && !value.trim().is_empty()).then(|| value.to_string())
}

/// True if the redirection writes a file.
fn writes_file(redirect: &Redirect) -> bool {
    let target = redirect.target.shell_text();
    let harmless = matches!(
        target.as_str(),
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "-"
    ) || (redirect.op == RedirOp::DupOut
        && target.chars().all(|c| c.is_ascii_digit()));
    redirect.op.writes() && !harmless
}

/// The program's basename, or why it cannot be known before run time. `~/bin/x` and
/// `$HOME/bin/x` are known; a substitution or another variable is not.
fn program_name(word: &Word) -> Result<String, String> {
    let text = match word.literal() {
        Some(text) => text,
        None => {
            let known_prefix = match word.segs.first() {
                Some(Seg::Tilde(_)) => true,
                Some(Seg::Var { name: Some(n), .. }) => n == "HOME",
                _ => false,
            };
            let rest_literal = word.segs[1..].iter().all(|s| matches!(s, Seg::Char { .. }));
            if known_prefix && rest_literal {
                word.shell_text()
            } else if word.has_subst() {
                return Err(format!(
                    "the command name comes from a command substitution ({})",
                    word.raw
                ));
            } else {
                return Err(format!("the command name is a variable ({})", word.raw));
            }
        }
    };
    Ok(text.rsplit('/').next().unwrap_or(&text).to_string())
}

/// Follows `cd`/`pushd` for the commands after it.
fn track_cd(words: &[Word], cwd: &mut PathExpr) {
    let Some(name) = words.first().and_then(Word::literal) else {
        return;
    };
    if name != "cd" && name != "pushd" {
        return;
    }
    let mut operands = words[1..].iter().skip_while(|w| {
        w.literal()
            .is_some_and(|l| l.len() > 1 && l.starts_with('-') && l != "--")
    });
    let mut target = operands.next();
    if target.and_then(Word::literal).as_deref() == Some("--") {
        target = operands.next();
    }
    *cwd = match target {
        None => PathExpr::of_base(Base::Home),
        Some(w) if w.literal().as_deref() == Some("-") => PathExpr::of_base(Base::Unknown),
        Some(w) => cwd.join(&PathExpr::from_word(w)),
    };
}

#[cfg(test)]
mod tests;
