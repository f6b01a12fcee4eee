//! The message `send` delivers: the TEXT argument, or stdin for `-` (or for no
//! argument when stdin is not a terminal). No message at all is a usage error.

use std::io::{IsTerminal, Read};

use crate::failure::UsageError;

/// Works out the message from the argument and stdin.
pub fn message(arg: Option<&str>) -> Result<String, UsageError> {
    let stdin = std::io::stdin();
    resolve(arg, stdin.is_terminal(), || {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text).map(|_| text)
    })
}

/// [`message`] with stdin abstracted, for tests.
pub fn resolve(
    arg: Option<&str>,
    stdin_is_terminal: bool,
    read_stdin: impl FnOnce() -> std::io::Result<String>,
) -> Result<String, UsageError> {
    let text = match arg {
        Some("-") => read(read_stdin)?,
        Some(text) => text.to_owned(),
        None if !stdin_is_terminal => read(read_stdin)?,
        None => {
            return Err(UsageError(
                "no message: give TEXT, or `-` to read it from stdin".into(),
            ));
        }
    };
    if text.trim().is_empty() {
        return Err(UsageError("the message is empty".into()));
    }
    Ok(text)
}

fn read(read_stdin: impl FnOnce() -> std::io::Result<String>) -> Result<String, UsageError> {
    let text = read_stdin().map_err(|e| UsageError(format!("cannot read stdin: {e}")))?;
    // A trailing newline from `echo` or a heredoc is not part of the message.
    Ok(text
        .strip_suffix('\n')
        .map_or(text.as_str(), |t| t.strip_suffix('\r').unwrap_or(t))
        .to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdin(text: &'static str) -> impl FnOnce() -> std::io::Result<String> {
        move || Ok(text.to_owned())
    }

    fn unread() -> std::io::Result<String> {
        panic!("stdin must not be read")
    }

    #[test]
    fn dash_reads_stdin() {
        assert_eq!(
            resolve(Some("-"), true, stdin("fix it\n")).unwrap(),
            "fix it"
        );
        assert_eq!(resolve(Some("-"), false, stdin("a\nb\n")).unwrap(), "a\nb");
    }

    #[test]
    fn text_wins_over_stdin() {
        assert_eq!(resolve(Some("hello"), false, unread).unwrap(), "hello");
    }

    #[test]
    fn no_text_reads_a_piped_stdin() {
        assert_eq!(resolve(None, false, stdin("piped")).unwrap(), "piped");
    }

    #[test]
    fn no_text_at_all_is_a_usage_error() {
        assert!(resolve(None, true, unread).is_err());
        assert!(resolve(None, false, stdin("  \n")).is_err());
        assert!(resolve(Some(""), true, unread).is_err());
    }
}
