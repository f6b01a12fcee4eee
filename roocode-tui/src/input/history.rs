//! The messages sent from this terminal, recalled with Up and Down; the text being
//! written when browsing starts is kept as a draft and comes back at the end.

/// Input history with a browsing position.
#[derive(Debug, Clone, Default)]
pub struct History {
    entries: Vec<String>,
    /// The entry shown, while browsing.
    pos: Option<usize>,
    draft: String,
}

impl History {
    /// Records a sent message (not twice in a row) and stops browsing.
    pub fn push(&mut self, text: &str) {
        self.pos = None;
        self.draft.clear();
        if self.entries.last().is_some_and(|last| last == text) {
            return;
        }
        self.entries.push(text.to_owned());
    }

    /// The entry before the one shown (`current` is kept as the draft when browsing
    /// starts); `None` when there is none.
    pub fn older(&mut self, current: &str) -> Option<&str> {
        let pos = match self.pos {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = current.to_owned();
                self.entries.len() - 1
            }
            Some(0) => return None,
            Some(p) => p - 1,
        };
        self.pos = Some(pos);
        self.entries.get(pos).map(String::as_str)
    }

    /// The entry after the one shown, then the draft; `None` when not browsing.
    pub fn newer(&mut self) -> Option<&str> {
        let pos = self.pos?;
        if pos + 1 < self.entries.len() {
            self.pos = Some(pos + 1);
            self.entries.get(pos + 1).map(String::as_str)
        } else {
            self.pos = None;
            Some(self.draft.as_str())
        }
    }

    /// Stops browsing (the shown text was edited or sent).
    pub fn reset(&mut self) {
        self.pos = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browse_back_and_forth_to_the_draft() {
        let mut h = History::default();
        h.push("one");
        h.push("two");
        h.push("two");
        assert_eq!(h.older("draft"), Some("two"));
        assert_eq!(h.older("two"), Some("one"));
        assert_eq!(h.older("one"), None);
        assert_eq!(h.newer(), Some("two"));
        assert_eq!(h.newer(), Some("draft"));
        assert_eq!(h.newer(), None);
    }
}
