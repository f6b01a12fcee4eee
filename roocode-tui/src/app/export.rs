//! The [`App`]'s side of `/export [FILE]`: the TUI runs it itself — the binary writes
//! the session's transcript as Markdown to FILE ([`crate::export`]: relative to the
//! session's working directory, by default `roocode-<short id>-<yyyymmdd-hhmm>.md`,
//! never over an existing file) — and the conversation says where it went.

use std::path::Path;

use roocode_protocol::session::CommandInfo;

use super::{Action, App};
use crate::theme;

/// The name of the TUI's own command.
pub const EXPORT_COMMAND: &str = "export";

/// `/export` as completion offers it when the daemon does not list it.
fn export_command() -> CommandInfo {
    CommandInfo {
        name: EXPORT_COMMAND.to_owned(),
        description:
            "Write the transcript as Markdown to FILE (default roocode-<id>-<date>-<time>.md; never overwrites)"
                .to_owned(),
        kind: "local".to_owned(),
        usage: Some("/export [FILE]".to_owned()),
        source: Some("roocode-tui".to_owned()),
        shadowed_by: None,
    }
}

/// `commands` with `/export` among the local ones, unless the daemon lists it.
pub(crate) fn with_export(commands: Vec<CommandInfo>) -> Vec<CommandInfo> {
    super::own_commands::with_own(commands, export_command())
}

impl App {
    /// `/export [file]`: the binary writes the transcript (`file` empty: the default name).
    pub(crate) fn export(&mut self, file: &str) -> Vec<Action> {
        let file = file.trim();
        vec![Action::Export((!file.is_empty()).then(|| file.to_owned()))]
    }

    /// The transcript was written to `path`: said in the conversation.
    pub fn exported(&mut self, path: &Path) {
        self.transcript.notice(
            format!("transcript written to {} (Markdown)", path.display()),
            theme::OK,
        );
        self.flash("transcript exported", theme::OK);
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::app::tests::lines;
    use crate::test_support::{app, key, type_text};

    #[test]
    fn slash_export_asks_the_binary_to_write_the_file() {
        let mut a = app();
        type_text(&mut a, "/export");
        assert_eq!(a.on_key(key(KeyCode::Enter)), [Action::Export(None)]);
        assert!(a.input.is_empty());
        type_text(&mut a, "/export  notes/session.md ");
        assert_eq!(
            a.on_key(key(KeyCode::Enter)),
            [Action::Export(Some("notes/session.md".into()))]
        );
        // Not a message for the model, nor the daemon's command; `/exports` is.
        type_text(&mut a, "/exports");
        assert_eq!(
            a.on_key(key(KeyCode::Enter)),
            [Action::Command("/exports".into())]
        );
    }

    #[test]
    fn the_conversation_says_where_it_went() {
        let mut a = app();
        a.exported(Path::new("/p/roocode-7c5e01b2.md"));
        let shown = lines(&mut a).join("\n");
        assert!(
            shown.contains("transcript written to /p/roocode-7c5e01b2.md (Markdown)"),
            "{shown}"
        );
    }

    #[test]
    fn completion_offers_it_unless_the_daemon_lists_it() {
        let a = app();
        let export: Vec<_> = a.commands.iter().filter(|c| c.name == "export").collect();
        assert_eq!(export.len(), 1);
        assert_eq!(export[0].usage.as_deref(), Some("/export [FILE]"));
        // The daemon's own entry is kept as it is, once.
        let mut listed = a.commands.clone();
        listed.retain(|c| c.name != "export");
        let mut daemons = export_command();
        daemons.description = "the daemon's".into();
        daemons.source = None;
        listed.push(daemons);
        let mut a = app();
        a.set_commands(listed);
        let export: Vec<_> = a.commands.iter().filter(|c| c.name == "export").collect();
        assert_eq!(export.len(), 1);
        assert_eq!(export[0].description, "the daemon's");
    }
}
