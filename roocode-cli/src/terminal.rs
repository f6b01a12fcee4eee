//! Reading answers from the terminal without blocking the event loop: a detached thread
//! reads stdin line by line (in the terminal's ordinary line mode, so Ctrl+C still
//! raises SIGINT) and hands each line over a channel, stamped with when it was read.
//! The thread is started at the first prompt and never joined: it must not keep the
//! process alive, which is why it is not a tokio blocking task.

use std::io::{BufRead, IsTerminal};
use std::time::Instant;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// One line typed by the user; `line` is `None` at the end of input (Ctrl+D).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputLine {
    pub at: Instant,
    pub line: Option<String>,
}

/// The terminal on stdin, read on demand.
#[derive(Debug, Default)]
pub struct TerminalInput {
    lines: Option<UnboundedReceiver<InputLine>>,
    ended: bool,
}

impl TerminalInput {
    /// Whether prompts are possible: stdin and stderr are both terminals.
    pub fn available() -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    /// Whether this process is in the terminal's foreground (a background job that
    /// reads its terminal would be stopped).
    pub fn is_foreground() -> bool {
        nix::unistd::tcgetpgrp(std::io::stdin()).is_ok_and(|pg| pg == nix::unistd::getpgrp())
    }

    /// Starts the reading thread (once) and throws away what was typed before the
    /// prompt appeared, so a stray key cannot answer a prompt not yet seen.
    pub fn prepare(&mut self) {
        let _ = nix::sys::termios::tcflush(std::io::stdin(), nix::sys::termios::FlushArg::TCIFLUSH);
        if self.lines.is_some() || self.ended {
            return;
        }
        let (tx, rx) = unbounded_channel();
        let spawned = std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || {
                let stdin = std::io::stdin();
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    let line = match stdin.lock().read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => None,
                        Ok(_) => Some(
                            String::from_utf8_lossy(&buf)
                                .trim_end_matches(['\n', '\r'])
                                .to_owned(),
                        ),
                    };
                    let end = line.is_none();
                    if tx
                        .send(InputLine {
                            at: Instant::now(),
                            line,
                        })
                        .is_err()
                        || end
                    {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => self.lines = Some(rx),
            Err(_) => self.ended = true,
        }
    }

    /// The next line; the end of input once, then it waits forever (as it does when
    /// nothing reads the terminal).
    pub async fn next(&mut self) -> InputLine {
        match self.lines.as_mut() {
            Some(rx) => {
                let input = rx.recv().await.unwrap_or_else(|| InputLine {
                    at: Instant::now(),
                    line: None,
                });
                if input.line.is_none() {
                    self.lines = None;
                    self.ended = true;
                }
                input
            }
            None => std::future::pending().await,
        }
    }
}
