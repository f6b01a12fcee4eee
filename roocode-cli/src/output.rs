//! Where the CLI's text goes: stdout writes that end the process quietly (exit 0) when
//! the reader has gone away (`roocode-cli sessions | head`), and stderr lines that never
//! fail. Renderers write through the [`Sink`] trait so tests can capture both streams;
//! it also knows the one-line prompt of `send`'s questions to the user, so other output
//! never lands on the line where the user types.
//!
//! Text bound for a terminal loses its control characters but newlines and tabs
//! ([`for_terminal`]): the model's words (its answers, tool output, team messages)
//! cannot move the cursor, retitle the window, set the clipboard or hide lines.
//! Redirected output is left as it is.
//!
//! The only escape sequences the CLI writes are its own colours, added after that
//! cleaning when [`crate::color`] allows them for the stream: stderr lines by their
//! label ([`crate::color::labelled`]), and stdout text a command styles itself
//! ([`Sink::out_styled`]).

use std::borrow::Cow;
use std::io::{ErrorKind, IsTerminal, Write};

use crate::color::{self, Styled};

/// The two output streams of a command.
pub trait Sink {
    /// Writes `text` to stdout as is.
    fn out(&mut self, text: &str);
    /// Writes styled `text` to stdout: coloured when stdout may be, else as [`Sink::out`].
    fn out_styled(&mut self, text: &Styled) {
        self.out(&text.text());
    }
    /// Writes one line to stderr (a newline is added).
    fn err_line(&mut self, line: &str);
    /// Writes `text` to stderr without a newline: where the user types an answer.
    /// Until [`Sink::input_received`], any other output first ends that line.
    fn prompt(&mut self, text: &str);
    /// The user's Enter ended the prompt's line.
    fn input_received(&mut self);
    /// Whether a prompt's line is still open (not ended by the user or other output).
    fn prompt_shown(&self) -> bool;
}

/// The real stdout and stderr.
///
/// When both are terminals, a stderr line that would land in the middle of a stdout
/// line (a tool call while the answer streams) first ends that line on stdout, so the
/// two never share a line on screen. Redirected output is never altered. Likewise,
/// output arriving while a prompt waits for the user's answer starts on a new line.
pub struct Stdio {
    stdout_mid_line: bool,
    both_terminals: bool,
    prompt_open: bool,
}

impl Stdio {
    pub fn new() -> Self {
        Stdio {
            stdout_mid_line: false,
            both_terminals: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
            prompt_open: false,
        }
    }

    /// Ends an open prompt line before other output.
    fn end_prompt(&mut self) {
        if self.prompt_open {
            err_text("\n");
            self.prompt_open = false;
        }
    }
}

impl Sink for Stdio {
    fn out(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.both_terminals {
            self.end_prompt();
        }
        out(text);
        self.stdout_mid_line = !text.ends_with('\n');
    }

    fn out_styled(&mut self, text: &Styled) {
        let plain = text.text();
        if plain.is_empty() {
            return;
        }
        if self.both_terminals {
            self.end_prompt();
        }
        write_stdout(&text.render(color::stdout(), cleaning(cleaned().0)));
        self.stdout_mid_line = !plain.ends_with('\n');
    }

    fn err_line(&mut self, line: &str) {
        self.end_prompt();
        if self.both_terminals && self.stdout_mid_line {
            out("\n");
            self.stdout_mid_line = false;
        }
        err_line(line);
    }

    fn prompt(&mut self, text: &str) {
        if self.both_terminals && self.stdout_mid_line {
            out("\n");
            self.stdout_mid_line = false;
        }
        self.end_prompt();
        err_text(text);
        self.prompt_open = true;
    }

    fn input_received(&mut self) {
        self.prompt_open = false;
    }

    fn prompt_shown(&self) -> bool {
        self.prompt_open
    }
}

/// `text` without the control characters a terminal would act on: every C0 and C1
/// control, ESC and DEL included, but newlines and tabs.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|c| !unsafe_char(*c)).collect())
}

/// How text bound for a stream is cleaned: [`for_terminal`] on a terminal, else not.
fn cleaning(terminal: bool) -> fn(&str) -> Cow<'_, str> {
    if terminal { for_terminal } else { as_is }
}

/// `text` unchanged.
fn as_is(text: &str) -> Cow<'_, str> {
    Cow::Borrowed(text)
}

/// Whether what goes to stdout and stderr is cleaned: when the stream is a terminal,
/// and whenever it is coloured (`--color always` into `less -R` or a log shown later:
/// whatever shows our colours would act on the model's sequences too).
fn cleaned() -> (bool, bool) {
    let (out, err) = terminals();
    (out || color::stdout(), err || color::stderr())
}

/// Whether stdout and stderr are terminals (looked at once).
fn terminals() -> (bool, bool) {
    static TERMINALS: std::sync::OnceLock<(bool, bool)> = std::sync::OnceLock::new();
    *TERMINALS.get_or_init(|| {
        (
            std::io::stdout().is_terminal(),
            std::io::stderr().is_terminal(),
        )
    })
}

/// Writes `text` to stdout and flushes it; exits 0 at once if stdout is a closed pipe.
pub fn out(text: &str) {
    write_stdout(&cleaning(cleaned().0)(text));
}

/// Writes `text`, already cleaned, to stdout (see [`out`]).
fn write_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let result = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Err(e) = result {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        err_line(&format!("error: cannot write to stdout: {e}"));
        std::process::exit(1);
    }
}

/// Writes `line` and a newline to stdout (see [`out`]).
pub fn out_line(line: &str) {
    out(&format!("{line}\n"));
}

/// Writes one line to stderr, ignoring failures (there is nowhere left to report them);
/// its label is coloured when stderr may be ([`color::labelled`]).
pub fn err_line(line: &str) {
    let line = cleaning(cleaned().1)(line);
    let line = if color::stderr() {
        Cow::Owned(color::labelled(&line).render(true, as_is))
    } else {
        line
    };
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Writes `text` to stderr as is and flushes it, ignoring failures.
pub fn err_text(text: &str) {
    let text = cleaning(cleaned().1)(text);
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush());
}

#[cfg(test)]
mod tests {
    use super::for_terminal;
    use std::borrow::Cow;

    #[test]
    fn terminal_text_keeps_lines_and_tabs_but_no_control_sequence() {
        assert_eq!(for_terminal("plain\ttext\n"), "plain\ttext\n");
        assert!(matches!(for_terminal("ok"), Cow::Borrowed(_)));
        assert_eq!(
            for_terminal("a\x1b[2Jb\x1b]0;title\x07c\r\nd\u{9b}31me\x7f"),
            "a[2Jb]0;titlec\nd31me"
        );
    }
}

/// Captures both streams, for tests (an open prompt is ended like on a terminal).
#[cfg(test)]
#[derive(Debug, Default)]
pub struct Captured {
    pub out: String,
    pub err: String,
    pub prompt_open: bool,
}

#[cfg(test)]
impl Sink for Captured {
    fn out(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn err_line(&mut self, line: &str) {
        if std::mem::take(&mut self.prompt_open) {
            self.err.push('\n');
        }
        self.err.push_str(line);
        self.err.push('\n');
    }

    fn prompt(&mut self, text: &str) {
        if std::mem::take(&mut self.prompt_open) {
            self.err.push('\n');
        }
        self.err.push_str(text);
        self.prompt_open = true;
    }

    fn input_received(&mut self) {
        self.prompt_open = false;
    }

    fn prompt_shown(&self) -> bool {
        self.prompt_open
    }
}
