//! Slash-command completion: while the input is a single word starting with `/`, the
//! known commands starting with it are offered above the input box; Up and Down pick
//! one, Tab completes it, Esc hides the list until the word changes.

use roocode_protocol::session::CommandInfo;

/// The completion list's state.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    pub selected: usize,
    /// Esc hid the list for this word.
    dismissed: Option<String>,
}

/// The commands matching `text` (`/co` → `cost`, …), in the order given.
pub fn candidates<'a>(text: &str, commands: &'a [CommandInfo]) -> Vec<&'a CommandInfo> {
    let Some(word) = text.strip_prefix('/') else {
        return Vec::new();
    };
    if word.contains(char::is_whitespace) {
        return Vec::new();
    }
    // A shadowed command cannot run under its name: only the one that wins is offered.
    commands
        .iter()
        .filter(|c| c.shadowed_by.is_none())
        .filter(|c| c.name.trim_start_matches('/').starts_with(word))
        .collect()
}

/// Whether `line` is a slash command (`/cost`, `/mode plan`, or an unknown one, which
/// the daemon refuses naming the closest); `/usr/lib is broken` is a message.
pub fn is_command(line: &str) -> bool {
    roocode_protocol::command::parse(line).is_some()
}

/// Whether `line` is a command of `commands` (not a prefix of one, `/co`): Enter on an
/// open list runs the selected candidate unless the line already names one.
pub fn is_known(line: &str, commands: &[CommandInfo]) -> bool {
    roocode_protocol::command::parse(line).is_some_and(|c| {
        commands
            .iter()
            .any(|known| known.name.trim_start_matches('/') == c.name)
    })
}

impl Completion {
    /// The candidates to show for `text` (none once dismissed for it).
    pub fn visible<'a>(&self, text: &str, commands: &'a [CommandInfo]) -> Vec<&'a CommandInfo> {
        if self.dismissed.as_deref() == Some(text) {
            return Vec::new();
        }
        candidates(text, commands)
    }

    /// Esc: hides the list for `text`.
    pub fn dismiss(&mut self, text: &str) {
        self.dismissed = Some(text.to_owned());
    }

    /// The text changed: the selection starts over.
    pub fn edited(&mut self) {
        self.selected = 0;
    }

    pub fn up(&mut self, count: usize) {
        if count > 0 {
            self.selected = (self.selected + count - 1) % count;
        }
    }

    pub fn down(&mut self, count: usize) {
        if count > 0 {
            self.selected = (self.selected + 1) % count;
        }
    }

    /// Tab: the completed text (`/cost `) for the selected candidate.
    pub fn complete(&mut self, text: &str, commands: &[CommandInfo]) -> Option<String> {
        let list = self.visible(text, commands);
        let chosen = list.get(self.selected.min(list.len().saturating_sub(1)))?;
        let done = format!("/{} ", chosen.name.trim_start_matches('/'));
        self.selected = 0;
        self.dismissed = Some(done.clone());
        Some(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn commands() -> Vec<CommandInfo> {
        ["help", "clear", "cost", "compact"]
            .iter()
            .map(|n| CommandInfo {
                name: (*n).to_owned(),
                description: format!("the {n} command"),
                kind: "local".to_owned(),
                usage: None,
                source: None,
                shadowed_by: None,
            })
            .collect()
    }

    #[test]
    fn slash_words_list_matching_commands() {
        let cmds = commands();
        let names: Vec<&str> = candidates("/co", &cmds)
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["cost", "compact"]);
        assert_eq!(candidates("/", &cmds).len(), 4);
        assert!(candidates("/cost now", &cmds).is_empty());
        assert!(candidates("cost", &cmds).is_empty());
    }

    #[test]
    fn a_shadowed_command_is_not_offered() {
        let mut cmds = commands();
        let mut lost = cmds[2].clone();
        lost.kind = "prompt".into();
        lost.shadowed_by = Some("the built-in command /cost".into());
        cmds.push(lost);
        let shown: Vec<&str> = candidates("/cos", &cmds)
            .iter()
            .map(|c| c.kind.as_str())
            .collect();
        assert_eq!(shown, ["local"]);
    }

    #[test]
    fn tab_completes_the_selection() {
        let cmds = commands();
        let mut c = Completion::default();
        c.down(2);
        assert_eq!(c.complete("/co", &cmds).as_deref(), Some("/compact "));
        assert!(c.visible("/compact ", &cmds).is_empty());
    }

    #[test]
    fn esc_hides_until_the_word_changes() {
        let cmds = commands();
        let mut c = Completion::default();
        c.dismiss("/c");
        assert!(c.visible("/c", &cmds).is_empty());
        assert_eq!(c.visible("/co", &cmds).len(), 2);
    }

    #[test]
    fn commands_are_told_from_messages_by_their_form() {
        assert!(is_command("/cost"));
        assert!(is_command("/clear now"));
        assert!(is_command("/cots"), "unknown: the daemon names the closest");
        assert!(!is_command("/usr/bin is broken"));
        assert!(!is_command("cost"));
        let cmds = commands();
        assert!(is_known("/cost", &cmds) && !is_known("/co", &cmds));
    }
}
