//! Colour in the CLI's output, decided in one place: whether stdout and stderr each get
//! it (`--color`, `NO_COLOR`, whether the stream is a terminal, `TERM=dumb`), decided
//! once at start-up ([`init`]), and the few styles the CLI uses.
//!
//! The rule (<https://no-color.org>): `--color never` never colours; `--color always`
//! always does, `NO_COLOR` or not; `auto`, the default, colours a stream only when it is
//! a terminal, `TERM` is not `dumb` and `NO_COLOR` is unset or empty. Machine output
//! (`--output json`, `stream-json`, `--json`) is never styled, whatever the rule says.
//!
//! Colour is added by us, as ANSI SGR sequences around text that has already been made
//! safe for the terminal (`output::for_terminal`): [`Styled`] keeps the text and its
//! styles apart until the last moment, so no escape sequence is ever taken from what is
//! printed. [`labelled`] gives the CLI's stderr lines their colour by their label
//! (`error:`, `warning:`, `● Read`, `permission:`, …).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::IsTerminal;
use std::sync::OnceLock;

/// `--color`: when to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set or TERM is dumb.
    #[default]
    Auto,
    /// Always, even into a pipe or with NO_COLOR set.
    Always,
    /// Never.
    Never,
}

/// What the decision depends on in the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Env {
    /// `NO_COLOR` is set and not empty.
    pub no_color: bool,
    /// `TERM` is `dumb`.
    pub dumb_term: bool,
}

impl Env {
    /// From the values of `NO_COLOR` and `TERM` (`None`: unset).
    pub fn from_vars(no_color: Option<&OsStr>, term: Option<&OsStr>) -> Env {
        Env {
            no_color: no_color.is_some_and(|v| !v.is_empty()),
            dumb_term: term.is_some_and(|t| t == "dumb"),
        }
    }

    /// From this process's environment.
    pub fn from_process() -> Env {
        Env::from_vars(
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        )
    }
}

/// Whether a stream gets colour: `never` wins over everything, `always` over
/// `NO_COLOR`; `auto` wants a terminal, a `TERM` that is not `dumb` and no `NO_COLOR`.
pub fn decide(choice: ColorChoice, env: Env, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Never => false,
        ColorChoice::Always => true,
        ColorChoice::Auto => is_terminal && !env.dumb_term && !env.no_color,
    }
}

/// The decision for each stream (one may be a terminal and the other not).
#[derive(Debug, Clone, Copy)]
struct Decision {
    stdout: bool,
    stderr: bool,
}

static DECISION: OnceLock<Decision> = OnceLock::new();

/// Decides, once, for stdout and stderr. Until then (and in tests) nothing is coloured.
pub fn init(choice: ColorChoice) {
    let env = Env::from_process();
    DECISION.get_or_init(|| Decision {
        stdout: decide(choice, env, std::io::stdout().is_terminal()),
        stderr: decide(choice, env, std::io::stderr().is_terminal()),
    });
}

/// Whether text written to stdout may be coloured.
pub fn stdout() -> bool {
    DECISION.get().is_some_and(|d| d.stdout)
}

/// Whether text written to stderr may be coloured.
pub fn stderr() -> bool {
    DECISION.get().is_some_and(|d| d.stderr)
}

/// What a piece of text means, and so its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `error:`.
    Error,
    /// `warning:`, `stopped:`.
    Warning,
    /// `note:` (a retried answer).
    Note,
    /// The `●` of a tool call.
    ToolMark,
    /// A tool's name.
    ToolName,
    /// `permission:` and `question:`: the agent waits for a person.
    Wait,
    /// A diff's added line.
    Added,
    /// A diff's removed line.
    Removed,
    /// A diff's `@@` line.
    Hunk,
    /// A diff's `---`/`+++` lines.
    DiffFile,
    /// A file someone else changed since (a rewind keeps it unless told).
    Conflict,
}

impl Style {
    /// The SGR parameters (the same colours as the TUI's theme).
    fn sgr(self) -> &'static str {
        match self {
            Style::Error => "1;31",
            Style::Warning => "1;33",
            Style::Note | Style::ToolMark | Style::Hunk => "36",
            Style::ToolName | Style::DiffFile => "1",
            Style::Wait => "1;35",
            Style::Added => "32",
            Style::Removed => "31",
            Style::Conflict => "33",
        }
    }
}

/// One piece of [`Styled`] text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    style: Option<Style>,
    text: String,
}

/// Text in pieces, some of them styled: the styles become escape sequences only when it
/// is written ([`Styled::render`]), after its text has been made safe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Styled {
    spans: Vec<Span>,
}

impl Styled {
    /// Appends unstyled text.
    pub fn push(&mut self, text: impl Into<String>) {
        self.push_span(None, text.into());
    }

    /// Appends text in `style`.
    pub fn push_styled(&mut self, style: Style, text: impl Into<String>) {
        self.push_span(Some(style), text.into());
    }

    fn push_span(&mut self, style: Option<Style>, text: String) {
        if text.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(&text),
            _ => self.spans.push(Span { style, text }),
        }
    }

    /// The text without styles.
    pub fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }

    /// The text with each piece passed through `clean` first (the terminal's
    /// sanitising, or nothing), then, when `colour`, wrapped in its style's SGR
    /// sequence and a reset.
    pub fn render(&self, colour: bool, clean: fn(&str) -> Cow<'_, str>) -> String {
        let mut out = String::new();
        for span in &self.spans {
            let text = clean(&span.text);
            match span.style.filter(|_| colour) {
                Some(style) if !text.is_empty() => {
                    out.push_str(&format!("\x1b[{}m{text}\x1b[0m", style.sgr()));
                }
                _ => out.push_str(&text),
            }
        }
        out
    }
}

/// A stderr line with its label styled: `error:`, `warning:`, `stopped:`, `note:`; the
/// `●` and name of a tool call (`● Read src/a.rs`); `permission:` and `question:` of a
/// wait on a person, also after a sub-agent's `[name] `. Other lines stay plain.
pub fn labelled(line: &str) -> Styled {
    let mut styled = Styled::default();
    if let Some(rest) = line.strip_prefix("● ") {
        let (name, arg) = rest.split_once(' ').unwrap_or((rest, ""));
        styled.push_styled(Style::ToolMark, "●");
        styled.push(" ");
        styled.push_styled(Style::ToolName, name);
        if !arg.is_empty() {
            styled.push(" ");
            styled.push(arg);
        }
        return styled;
    }
    const LABELS: [(&str, Style); 4] = [
        ("error:", Style::Error),
        ("warning:", Style::Warning),
        ("stopped:", Style::Warning),
        ("note:", Style::Note),
    ];
    for (label, style) in LABELS {
        if let Some(rest) = line.strip_prefix(label) {
            styled.push_styled(style, label);
            styled.push(rest);
            return styled;
        }
    }
    // A sub-agent's wait: `[Explore] permission: …`.
    let (agent, rest) = match line.strip_prefix('[').and_then(|r| r.split_once("] ")) {
        Some((name, rest)) => (&line[..name.len() + 3], rest),
        None => ("", line),
    };
    for label in ["permission:", "question:"] {
        if let Some(after) = rest.strip_prefix(label) {
            styled.push(agent);
            styled.push_styled(Style::Wait, label);
            styled.push(after);
            return styled;
        }
    }
    styled.push(line);
    styled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{error_line, pending_line, permission_line, tool_line};
    use roocode_protocol::event::ErrorInfo;
    use serde_json::json;

    fn plain(text: &str) -> Cow<'_, str> {
        Cow::Borrowed(text)
    }

    fn env(no_color: Option<&str>, term: Option<&str>) -> Env {
        Env::from_vars(no_color.map(OsStr::new), term.map(OsStr::new))
    }

    /// Every combination of the flag, NO_COLOR, TERM and a terminal or not.
    #[test]
    fn the_decision_table() {
        let no_colors = [None, Some(""), Some("1")];
        let terms = [None, Some("xterm-256color"), Some("dumb")];
        for choice in [ColorChoice::Auto, ColorChoice::Always, ColorChoice::Never] {
            for no_color in no_colors {
                for term in terms {
                    for tty in [false, true] {
                        let want = match choice {
                            ColorChoice::Never => false,
                            ColorChoice::Always => true,
                            ColorChoice::Auto => {
                                tty && term != Some("dumb") && no_color.is_none_or(str::is_empty)
                            }
                        };
                        assert_eq!(
                            decide(choice, env(no_color, term), tty),
                            want,
                            "{choice:?} NO_COLOR={no_color:?} TERM={term:?} tty={tty}"
                        );
                    }
                }
            }
        }
        // The rows that matter most, spelled out.
        let tty = true;
        assert!(decide(ColorChoice::Auto, env(None, Some("xterm")), tty));
        assert!(!decide(ColorChoice::Auto, env(None, Some("xterm")), !tty));
        assert!(!decide(
            ColorChoice::Auto,
            env(Some("1"), Some("xterm")),
            tty
        ));
        assert!(decide(ColorChoice::Auto, env(Some(""), Some("xterm")), tty));
        assert!(!decide(ColorChoice::Auto, env(None, Some("dumb")), tty));
        assert!(decide(
            ColorChoice::Always,
            env(Some("1"), Some("dumb")),
            !tty
        ));
        assert!(!decide(ColorChoice::Never, env(None, Some("xterm")), tty));
    }

    #[test]
    fn nothing_is_coloured_before_the_decision() {
        // Unit tests never call `init`.
        assert!(!stdout() && !stderr());
    }

    #[test]
    fn styles_are_added_after_cleaning_and_only_when_asked() {
        let mut s = Styled::default();
        s.push_styled(Style::Error, "error:");
        s.push(" bad \x1b[2J thing");
        assert_eq!(s.text(), "error: bad \x1b[2J thing");
        assert_eq!(s.render(false, plain), "error: bad \x1b[2J thing");
        assert_eq!(
            s.render(true, crate::output::for_terminal),
            "\x1b[1;31merror:\x1b[0m bad [2J thing"
        );
        // Cleaning applies to styled text too: an escape in a path cannot get through.
        let mut s = Styled::default();
        s.push_styled(Style::Added, "+\x1b]0;title\x07x");
        assert_eq!(
            s.render(true, crate::output::for_terminal),
            "\x1b[32m+]0;titlex\x1b[0m"
        );
        assert_eq!(Styled::default().render(true, plain), "");
    }

    #[test]
    fn the_clis_stderr_lines_are_labelled() {
        let coloured = |line: &str| labelled(line).render(true, plain);
        let tool = tool_line("Read", &json!({"file_path": "/p/src/a.rs"}), None);
        assert_eq!(
            coloured(&tool),
            "\x1b[36m●\x1b[0m \x1b[1mRead\x1b[0m /p/src/a.rs"
        );
        assert_eq!(
            coloured(&tool_line("TodoWrite", &json!({}), None)),
            "\x1b[36m●\x1b[0m \x1b[1mTodoWrite\x1b[0m"
        );
        let error = error_line(&ErrorInfo {
            kind: roocode_protocol::event::ErrorKind::Auth,
            message: "invalid key".into(),
        });
        assert_eq!(coloured(&error), "\x1b[1;31merror:\x1b[0m invalid key");
        assert_eq!(
            coloured("warning: skipped an event"),
            "\x1b[1;33mwarning:\x1b[0m skipped an event"
        );
        assert_eq!(
            coloured(crate::turn::RESET_NOTE),
            format!(
                "\x1b[36mnote:\x1b[0m{}",
                &crate::turn::RESET_NOTE["note:".len()..]
            )
        );
        let wait = permission_line("R1", "Bash", &json!({"command": "ls"}), None);
        assert_eq!(coloured(&wait), "\x1b[1;35mpermission:\x1b[0m R1 Bash ls");
        let mut pending = crate::test_support::pending("R2", "question");
        pending.agent_id = Some("A1".into());
        pending.agent_name = Some("Explore".into());
        assert_eq!(
            coloured(&pending_line(&pending)),
            "[Explore] \x1b[1;35mquestion:\x1b[0m R2 Which database?"
        );
        // Anything else is left as it is.
        for line in [
            "session: 7c5e01b2 (S)",
            "[x] nothing",
            "Error: not ours",
            "",
        ] {
            assert_eq!(coloured(line), line);
        }
    }
}
