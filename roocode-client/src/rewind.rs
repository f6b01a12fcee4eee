//! Rewind as every client words it: the line of a `rewound` event (`rewound to before
//! turn 3: 2 files restored, 1 removed, conversation cut by 6 messages`) and the short
//! forms of a [`RewindPlan`] — what it undoes, its scope, whether it does anything —
//! that `roocode-cli rewind` and the TUI's `/rewind` both print. Shared so the CLI,
//! the TUI and a replay say the same.

use roocode_protocol::event::EventPayload;
use roocode_protocol::rewind::{FileAction, RewindPlan, RewindScope};

/// What a rewind did, as a `rewound` event (or an applied plan) counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rewound {
    pub turn: u32,
    pub files: bool,
    pub conversation: bool,
    pub restored: u64,
    pub removed: u64,
    pub kept: u64,
    pub messages_removed: u64,
}

impl Rewound {
    /// The counts of a `rewound` event; `None` for any other event.
    pub fn of(payload: &EventPayload) -> Option<Rewound> {
        match payload {
            EventPayload::Rewound {
                turn,
                files,
                conversation,
                restored,
                removed,
                kept,
                messages_removed,
            } => Some(Rewound {
                turn: *turn,
                files: *files,
                conversation: *conversation,
                restored: *restored,
                removed: *removed,
                kept: *kept,
                messages_removed: *messages_removed,
            }),
            _ => None,
        }
    }

    /// The counts of an applied plan.
    pub fn of_plan(plan: &RewindPlan) -> Rewound {
        Rewound {
            turn: plan.turn,
            files: plan.scope.files(),
            conversation: plan.scope.conversation(),
            restored: plan.restored.len() as u64,
            removed: plan.removed.len() as u64,
            kept: plan.kept.len() as u64,
            messages_removed: plan.messages_removed,
        }
    }

    /// `rewound to before turn 3: 2 files restored, 1 removed, conversation cut by 6
    /// messages` (`rewound the files …`, `rewound the conversation …` for one scope).
    pub fn line(&self) -> String {
        let what = match (self.files, self.conversation) {
            (true, false) => "rewound the files",
            (false, true) => "rewound the conversation",
            (true, true) | (false, false) => "rewound",
        };
        let mut parts = Vec::new();
        if self.files {
            let mut noun = true;
            for (n, done) in [
                (self.restored, "restored"),
                (self.removed, "removed"),
                (self.kept, "kept (changed since by someone else)"),
            ] {
                if n == 0 {
                    continue;
                }
                parts.push(if noun {
                    format!("{} {done}", plural(n, "file", "files"))
                } else {
                    format!("{n} {done}")
                });
                noun = false;
            }
            if noun {
                parts.push("no file changed".to_owned());
            }
        }
        if self.conversation {
            parts.push(match (self.files, self.messages_removed) {
                (_, 0) => "conversation unchanged".to_owned(),
                (true, n) => format!("conversation cut by {}", plural(n, "message", "messages")),
                (false, n) => format!("{} removed", plural(n, "message", "messages")),
            });
        }
        if parts.is_empty() {
            format!("{what} to before turn {}", self.turn)
        } else {
            format!("{what} to before turn {}: {}", self.turn, parts.join(", "))
        }
    }
}

/// `1 file`, `2 files`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `files and conversation`, `files only`, `conversation only`.
pub fn scope_name(scope: RewindScope) -> &'static str {
    match scope {
        RewindScope::Both => "files and conversation",
        RewindScope::Files => "files only",
        RewindScope::Conversation => "conversation only",
    }
}

/// `turn 3 of 3`, `turn 3 of 4 and turn 4 after it`, `turn 3 of 6 and turns 4 to 6
/// after it`: what a rewind to `turn` undoes.
pub fn undone_turns(turn: u32, last_turn: u32) -> String {
    match last_turn.saturating_sub(turn) {
        0 => format!("turn {turn} of {last_turn}"),
        1 => format!("turn {turn} of {last_turn} and turn {last_turn} after it"),
        _ => format!(
            "turn {turn} of {last_turn} and turns {} to {last_turn} after it",
            turn + 1
        ),
    }
}

/// `restore`, `remove`: what a plan does to a file.
pub fn action_word(action: FileAction) -> &'static str {
    match action {
        FileAction::Restore => "restore",
        FileAction::Remove => "remove",
        FileAction::Unknown => "change",
    }
}

/// How many of the plan's files someone else changed since (kept unless overwritten).
pub fn conflicts(plan: &RewindPlan) -> usize {
    plan.files.iter().filter(|f| f.conflict.is_some()).count()
}

/// Whether the plan changes nothing: no file to put back and no message to remove.
pub fn is_noop(plan: &RewindPlan) -> bool {
    plan.files.is_empty() && (!plan.scope.conversation() || plan.messages_removed == 0)
}

/// Whether applying the plan cut the conversation, so the turn's prompt is gone from it.
pub fn prompt_dropped(plan: &RewindPlan) -> bool {
    plan.scope.conversation() && plan.messages_removed > 0 && !plan.prompt.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::rewind::FileRewind;

    fn counts(files: bool, conversation: bool) -> Rewound {
        Rewound {
            turn: 3,
            files,
            conversation,
            restored: 2,
            removed: 1,
            kept: 0,
            messages_removed: 6,
        }
    }

    fn plan(scope: RewindScope) -> RewindPlan {
        RewindPlan {
            session_id: "S".into(),
            turn: 2,
            last_turn: 4,
            scope,
            workspace: "W".into(),
            files: vec![],
            not_restorable: vec![],
            notes: Vec::new(),
            messages_removed: 0,
            prompt: "fix it".into(),
            applied: false,
            restored: vec![],
            removed: vec![],
            kept: vec![],
            refused: vec![],
        }
    }

    #[test]
    fn the_event_line_says_what_came_back() {
        assert_eq!(
            counts(true, true).line(),
            "rewound to before turn 3: 2 files restored, 1 removed, conversation cut by 6 messages"
        );
        assert_eq!(
            counts(true, false).line(),
            "rewound the files to before turn 3: 2 files restored, 1 removed"
        );
        assert_eq!(
            counts(false, true).line(),
            "rewound the conversation to before turn 3: 6 messages removed"
        );
        let one = Rewound {
            turn: 1,
            files: true,
            conversation: true,
            removed: 1,
            kept: 1,
            messages_removed: 1,
            ..Rewound::default()
        };
        assert_eq!(
            one.line(),
            "rewound to before turn 1: 1 file removed, 1 kept (changed since by someone else), conversation cut by 1 message"
        );
        let nothing = Rewound {
            turn: 2,
            files: true,
            ..Rewound::default()
        };
        assert_eq!(
            nothing.line(),
            "rewound the files to before turn 2: no file changed"
        );
    }

    #[test]
    fn events_and_plans_give_the_same_counts() {
        let ev = EventPayload::Rewound {
            turn: 3,
            files: true,
            conversation: true,
            restored: 2,
            removed: 1,
            kept: 0,
            messages_removed: 6,
        };
        assert_eq!(Rewound::of(&ev), Some(counts(true, true)));
        assert_eq!(Rewound::of(&EventPayload::ContextCleared), None);
        let mut p = plan(RewindScope::Both);
        p.turn = 3;
        p.restored = vec!["a".into(), "b".into()];
        p.removed = vec!["c".into()];
        p.messages_removed = 6;
        assert_eq!(Rewound::of_plan(&p), counts(true, true));
    }

    #[test]
    fn what_a_plan_undoes() {
        assert_eq!(undone_turns(3, 3), "turn 3 of 3");
        assert_eq!(undone_turns(3, 4), "turn 3 of 4 and turn 4 after it");
        assert_eq!(undone_turns(2, 5), "turn 2 of 5 and turns 3 to 5 after it");
        assert_eq!(scope_name(RewindScope::Files), "files only");
    }

    #[test]
    fn a_plan_with_nothing_to_put_back_is_a_noop() {
        let mut p = plan(RewindScope::Both);
        assert!(is_noop(&p) && !prompt_dropped(&p));
        p.messages_removed = 4;
        assert!(!is_noop(&p) && prompt_dropped(&p));
        p.scope = RewindScope::Files;
        assert!(is_noop(&p) && !prompt_dropped(&p));
        p.files.push(FileRewind {
            path: "a".into(),
            action: FileAction::Restore,
            conflict: Some("changed after turn 4 by someone else".into()),
            diff: None,
        });
        assert!(!is_noop(&p));
        assert_eq!(conflicts(&p), 1);
    }
}
