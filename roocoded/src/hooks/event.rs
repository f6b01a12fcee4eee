//! The hook events (DESIGN.md §7 "Hooks"): their RooCode (snake_case) and Claude Code
//! (PascalCase) names, and the small enums some of them carry (`source` of
//! `session_start`, `trigger` of `pre_compact`).

use std::fmt;

/// A point in a session where hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A session starts, resumes, or restarts after `/clear` or a compaction.
    SessionStart,
    /// A session ends.
    SessionEnd,
    /// The user sent a prompt; before the model sees it.
    UserPromptSubmit,
    /// Before a tool call runs (after the model asked for it).
    PreToolUse,
    /// After a tool call returned.
    PostToolUse,
    /// A permission prompt is about to be shown for a tool call.
    PermissionRequest,
    /// The main agent is about to end its turn.
    Stop,
    /// A sub-agent is about to finish.
    SubagentStop,
    /// Before the context is compacted.
    PreCompact,
    /// RooCode notifies the user (a permission is waiting, the agent is idle, ...).
    Notification,
}

impl HookEvent {
    /// Every event, in the order of the table above.
    pub const ALL: [HookEvent; 10] = [
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PermissionRequest,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::Notification,
    ];

    /// The RooCode name, as written in `config.yaml` (`pre_tool_use`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session_start",
            HookEvent::SessionEnd => "session_end",
            HookEvent::UserPromptSubmit => "user_prompt_submit",
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::PermissionRequest => "permission_request",
            HookEvent::Stop => "stop",
            HookEvent::SubagentStop => "subagent_stop",
            HookEvent::PreCompact => "pre_compact",
            HookEvent::Notification => "notification",
        }
    }

    /// The Claude Code name, as in `.claude/settings.json` and `hook_event_name`
    /// (`PreToolUse`).
    pub fn claude_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
        }
    }

    /// The event of either name (`pre_tool_use` or `PreToolUse`); `None` for others.
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL
            .into_iter()
            .find(|e| e.as_str() == name || e.claude_name() == name)
    }

    /// Whether the event concerns one tool call (its matcher matches the tool's name).
    pub fn is_tool_event(self) -> bool {
        match self {
            HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PermissionRequest => true,
            HookEvent::SessionStart
            | HookEvent::SessionEnd
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop
            | HookEvent::PreCompact
            | HookEvent::Notification => false,
        }
    }

    /// What a `matcher` is matched against for this event, as in Claude Code: the tool
    /// name for tool events, `source` for `session_start`, `trigger` for `pre_compact`,
    /// `notification_type` for `notification`. `None`: the event takes no matcher.
    pub fn matcher_target(self) -> Option<&'static str> {
        match self {
            HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PermissionRequest => {
                Some("tool name")
            }
            HookEvent::SessionStart => Some("source"),
            HookEvent::PreCompact => Some("trigger"),
            HookEvent::Notification => Some("notification_type"),
            HookEvent::SessionEnd
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop => None,
        }
    }

    /// Whether exit code 2 (or `"decision": "block"`) can block something at this
    /// event. At the others Claude Code only shows stderr to the user, and so do we.
    pub fn can_block(self) -> bool {
        match self {
            HookEvent::UserPromptSubmit
            | HookEvent::PreToolUse
            | HookEvent::PostToolUse
            | HookEvent::PermissionRequest
            | HookEvent::Stop
            | HookEvent::SubagentStop => true,
            HookEvent::SessionStart
            | HookEvent::SessionEnd
            | HookEvent::PreCompact
            | HookEvent::Notification => false,
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a session starts (`source` of `session_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SessionSource {
    /// A new session.
    Startup,
    /// `--continue`, `--resume` or `/resume`.
    Resume,
    /// `/clear`.
    Clear,
    /// The context was compacted.
    Compact,
}

impl SessionSource {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionSource::Startup => "startup",
            SessionSource::Resume => "resume",
            SessionSource::Clear => "clear",
            SessionSource::Compact => "compact",
        }
    }
}

/// What started a compaction (`trigger` of `pre_compact`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompactTrigger {
    /// `/compact`.
    Manual,
    /// The context reached its threshold.
    Auto,
}

impl CompactTrigger {
    pub fn as_str(self) -> &'static str {
        match self {
            CompactTrigger::Manual => "manual",
            CompactTrigger::Auto => "auto",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for e in HookEvent::ALL {
            assert_eq!(HookEvent::parse(e.as_str()), Some(e));
            assert_eq!(HookEvent::parse(e.claude_name()), Some(e));
        }
        assert_eq!(HookEvent::parse("PreToolUse"), Some(HookEvent::PreToolUse));
        assert_eq!(
            HookEvent::parse("pre_tool_use"),
            Some(HookEvent::PreToolUse)
        );
        assert_eq!(HookEvent::parse("pretooluse"), None);
        assert_eq!(HookEvent::parse("PostToolUseFailure"), None);
    }

    #[test]
    fn tool_events() {
        let tools: Vec<_> = HookEvent::ALL
            .into_iter()
            .filter(|e| e.is_tool_event())
            .collect();
        assert_eq!(
            tools,
            [
                HookEvent::PreToolUse,
                HookEvent::PostToolUse,
                HookEvent::PermissionRequest
            ]
        );
    }
}
