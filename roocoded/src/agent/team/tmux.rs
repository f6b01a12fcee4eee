//! The tmux backend: a teammate is always a daemon-owned agent; with backend `tmux` the
//! daemon also opens a pane in the tmux of the lead's client running
//! `roocode-tui --session <teammate>`, a client like any other. Closing the pane closes
//! that client, never the teammate.
//!
//! Where: the client forwards `TMUX` (`socket,pid,session`) and `TMUX_PANE`; the pane is
//! split from the lead's pane (`-d`: the lead's pane keeps the focus), or opened in a
//! new window beside it when the window has no room left. The daemon talks to that
//! server by its socket (`tmux -S`), never to a default server.
//!
//! What runs there: `ROOCODE_TUI_BIN` of the lead's client, else the `roocode-tui` next
//! to the daemon's own executable, with `ROOCODE_SOCKET` set to this daemon's socket (so
//! it attaches to this daemon, whatever the tmux server's environment says) and the
//! client's `ROOCODE_HOME` and `ROOCODE_DAEMON_BIN` when it sent them. No key is passed:
//! the TUI only shows the teammate.
//!
//! A pane is opened when the teammate joins, once: after a daemon restart a TUI left
//! open reconnects by itself, and `roocode-tui --session <teammate>` opens another.
//!
//! Commands run for the model never see `TMUX` or `TMUX_PANE` (`sandbox::env`), nor the
//! tmux socket directories (hidden by the sandbox): a hostile model must not drive the
//! user's other panes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use roocode_protocol::session::ClientEnv;

/// Names the TUI binary to open in panes (tests; an installation elsewhere).
pub const TUI_BIN_VAR: &str = "ROOCODE_TUI_BIN";
/// A tmux command that takes longer than this is given up on (a hung server must not
/// hold up the lead's `Agent` call).
const TMUX_TIMEOUT: Duration = Duration::from_secs(5);
/// The client's variables the pane's TUI gets, when the client sent them.
const PASSED_ON: &[&str] = &["ROOCODE_HOME", "ROOCODE_DAEMON_BIN"];

/// Why a pane could not be opened; the teammate runs in-process only.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaneError {
    #[error(
        "the lead's terminal is not inside tmux (its client sent no TMUX): start the lead from a tmux pane, or use backend in-process"
    )]
    NotInTmux,
    #[error("TMUX is `{0}`, not the `socket,pid,session` tmux sets")]
    BadTmux(String),
    #[error(
        "there is no roocode-tui at {0}: install it beside roocoded, or name it with ROOCODE_TUI_BIN"
    )]
    NoTui(PathBuf),
    #[error("tmux could not open a pane: {0}")]
    Tmux(String),
}

/// A pane to open: where, and the TUI it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneSpec {
    /// The tmux server's socket (the first field of `TMUX`).
    socket: PathBuf,
    /// The lead's pane (`TMUX_PANE`), split for the new one; tmux's current pane if the
    /// client did not send it.
    pane: Option<String>,
    tui: PathBuf,
    /// `NAME=value` pairs set in the pane.
    env: Vec<String>,
}

impl PaneSpec {
    /// The pane for a teammate of a lead whose client sent `env`, attached to the daemon
    /// at `daemon_socket`.
    pub fn for_client(env: &ClientEnv, daemon_socket: &Path) -> Result<Self, PaneError> {
        let tmux = env
            .get("TMUX")
            .filter(|v| !v.is_empty())
            .ok_or(PaneError::NotInTmux)?;
        let socket = tmux
            .split(',')
            .next()
            .filter(|s| s.starts_with('/'))
            .ok_or_else(|| PaneError::BadTmux(tmux.to_string()))?;
        let pane = env
            .get("TMUX_PANE")
            .filter(|p| {
                p.strip_prefix('%')
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
            .map(String::from);
        let tui = match env.get(TUI_BIN_VAR).filter(|v| !v.is_empty()) {
            Some(given) => PathBuf::from(given),
            None => beside_the_daemon(),
        };
        if !tui.is_file() {
            return Err(PaneError::NoTui(tui));
        }
        let mut vars = vec![format!("ROOCODE_SOCKET={}", daemon_socket.display())];
        for name in PASSED_ON {
            if let Some(value) = env.get(name).filter(|v| !v.is_empty()) {
                vars.push(format!("{name}={value}"));
            }
        }
        Ok(PaneSpec {
            socket: PathBuf::from(socket),
            pane,
            tui,
            env: vars,
        })
    }

    /// Opens the pane showing session `teammate`; returns its tmux pane id (`%7`).
    pub async fn open(&self, teammate: &str) -> Result<String, PaneError> {
        let split = self.tmux_args("split-window", teammate);
        match self.tmux(&split).await {
            Ok(pane) => Ok(pane),
            // Most often "no space for new pane": a window of its own beside the lead's.
            Err(split_error) => {
                let window = self.tmux_args("new-window", teammate);
                self.tmux(&window).await.map_err(|window_error| {
                    PaneError::Tmux(format!("{split_error}; a new window: {window_error}"))
                })
            }
        }
    }

    /// `split-window` or `new-window` (after the lead's window), detached, printing the
    /// new pane's id, running the TUI directly (no shell).
    fn tmux_args(&self, verb: &str, teammate: &str) -> Vec<String> {
        let mut args = vec![verb.to_string(), "-d".into()];
        if verb == "new-window" {
            args.push("-a".into());
        }
        args.extend(["-P".into(), "-F".into(), "#{pane_id}".into()]);
        if let Some(pane) = &self.pane {
            args.extend(["-t".into(), pane.clone()]);
        }
        for var in &self.env {
            args.extend(["-e".into(), var.clone()]);
        }
        args.extend([
            "--".into(),
            self.tui.display().to_string(),
            "--session".into(),
            teammate.to_string(),
        ]);
        args
    }

    /// Runs `tmux -S <socket> args…`; its first line of output, or why it failed.
    async fn tmux(&self, args: &[String]) -> Result<String, String> {
        let mut command = tokio::process::Command::new("tmux");
        command
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            // The server is named by its socket; the daemon's own tmux (if it has one)
            // plays no part.
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        let output = match tokio::time::timeout(TMUX_TIMEOUT, command.output()).await {
            Ok(Ok(output)) => output,
            Ok(Err(e)) => return Err(format!("cannot run tmux: {e}")),
            Err(_) => {
                return Err(format!(
                    "tmux did not answer within {}s",
                    TMUX_TIMEOUT.as_secs()
                ));
            }
        };
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("{} ({})", stderr.trim(), output.status));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        Ok(stdout.lines().next().unwrap_or_default().trim().to_string())
    }
}

/// `roocode-tui` in the daemon's own directory (`/proc/self/exe`'s, resolved now).
fn beside_the_daemon() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("roocode-tui")))
        .unwrap_or_else(|| PathBuf::from("roocode-tui"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> ClientEnv {
        ClientEnv {
            vars: vars
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
        }
    }

    /// A file that stands for the TUI binary (only its existence is checked).
    fn fake_tui() -> tempfile::NamedTempFile {
        tempfile::NamedTempFile::new().unwrap()
    }

    #[test]
    fn the_pane_goes_to_the_client_s_tmux_with_this_daemon_s_socket() {
        let tui = fake_tui();
        let tui_path = tui.path().display().to_string();
        let given = env(&[
            ("TMUX", "/tmp/tmux-1000/private,4242,0"),
            ("TMUX_PANE", "%3"),
            (TUI_BIN_VAR, &tui_path),
            ("ROOCODE_HOME", "/home/u/rc"),
            ("ANTHROPIC_API_KEY", "sk-secret"),
        ]);
        let spec = PaneSpec::for_client(&given, Path::new("/run/roocode/roocoded.sock")).unwrap();
        assert_eq!(spec.socket, PathBuf::from("/tmp/tmux-1000/private"));
        let args = spec.tmux_args("split-window", "019a-teammate");
        assert_eq!(
            args,
            [
                "split-window",
                "-d",
                "-P",
                "-F",
                "#{pane_id}",
                "-t",
                "%3",
                "-e",
                "ROOCODE_SOCKET=/run/roocode/roocoded.sock",
                "-e",
                "ROOCODE_HOME=/home/u/rc",
                "--",
                &tui_path,
                "--session",
                "019a-teammate",
            ]
        );
        assert!(!args.iter().any(|a| a.contains("sk-secret")), "no key");
        assert_eq!(
            spec.tmux_args("new-window", "x")[..3],
            ["new-window", "-d", "-a"]
        );
    }

    #[test]
    fn no_pane_without_tmux_a_valid_tmux_or_a_tui() {
        let tui = fake_tui();
        let tui_path = tui.path().display().to_string();
        let socket = Path::new("/s");
        assert_eq!(
            PaneSpec::for_client(&env(&[(TUI_BIN_VAR, &tui_path)]), socket),
            Err(PaneError::NotInTmux)
        );
        assert_eq!(
            PaneSpec::for_client(&env(&[("TMUX", "junk"), (TUI_BIN_VAR, &tui_path)]), socket),
            Err(PaneError::BadTmux("junk".into()))
        );
        let missing = env(&[
            ("TMUX", "/t,1,0"),
            (TUI_BIN_VAR, "/nonexistent/roocode-tui"),
        ]);
        assert_eq!(
            PaneSpec::for_client(&missing, socket),
            Err(PaneError::NoTui("/nonexistent/roocode-tui".into()))
        );
        // A TMUX_PANE that is not a pane id is not passed to tmux as a target.
        let odd = env(&[
            ("TMUX", "/t,1,0"),
            ("TMUX_PANE", "-k"),
            (TUI_BIN_VAR, &tui_path),
        ]);
        assert_eq!(PaneSpec::for_client(&odd, socket).unwrap().pane, None);
    }
}
