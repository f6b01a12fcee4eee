//! Where the CLI's text goes: stdout writes that end the process quietly (exit 0) when
//! the reader has gone away (`roocode-cli sessions | head`), and stderr lines that never
//! fail. Renderers write through the [`Sink`] trait so tests can capture both streams.

use std::io::{ErrorKind, IsTerminal, Write};

/// The two output streams of a command.
pub trait Sink {
    /// Writes `text` to stdout as is.
    fn out(&mut self, text: &str);
    /// Writes one line to stderr (a newline is added).
    fn err_line(&mut self, line: &str);
}

/// The real stdout and stderr.
///
/// When both are terminals, a stderr line that would land in the middle of a stdout
/// line (a tool call while the answer streams) first ends that line on stdout, so the
/// two never share a line on screen. Redirected output is never altered.
pub struct Stdio {
    stdout_mid_line: bool,
    both_terminals: bool,
}

impl Stdio {
    pub fn new() -> Self {
        Stdio {
            stdout_mid_line: false,
            both_terminals: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
        }
    }
}

impl Sink for Stdio {
    fn out(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        out(text);
        self.stdout_mid_line = !text.ends_with('\n');
    }

    fn err_line(&mut self, line: &str) {
        if self.both_terminals && self.stdout_mid_line {
            out("\n");
            self.stdout_mid_line = false;
        }
        err_line(line);
    }
}

/// Writes `text` to stdout and flushes it; exits 0 at once if stdout is a closed pipe.
pub fn out(text: &str) {
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

/// Writes one line to stderr, ignoring failures (there is nowhere left to report them).
pub fn err_line(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Captures both streams, for tests.
#[cfg(test)]
#[derive(Debug, Default)]
pub struct Captured {
    pub out: String,
    pub err: String,
}

#[cfg(test)]
impl Sink for Captured {
    fn out(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn err_line(&mut self, line: &str) {
        self.err.push_str(line);
        self.err.push('\n');
    }
}
