//! One configured hook ([`HookSpec`]): its event, optional matcher and condition, its
//! action, and where it was configured. [`HookSpec::applies`] decides whether it runs
//! for an event; [`HookSpec::id`] names it stably for approvals and "last result".

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use regex::Regex;
use sha2::{Digest, Sha256};

use super::condition::Condition;
use super::event::HookEvent;
use super::input::HookInput;

/// Timeout of a command hook that sets none (Claude Code's too).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Which configuration a hook comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookScope {
    /// `~/.roocode/config.yaml`, `~/.claude/settings.json`.
    User,
    /// `.roocode/config.yaml`, `.claude/settings.json` of the project: needs the user's
    /// approval before it runs (a cloned repository's).
    Project,
    /// `.roocode/config.local.yaml`, `.claude/settings.local.json` (not committed, but
    /// in the project's tree: approved like a project hook).
    Local,
}

impl HookScope {
    pub fn as_str(self) -> &'static str {
        match self {
            HookScope::User => "user",
            HookScope::Project => "project",
            HookScope::Local => "local",
        }
    }
}

/// Where a hook was configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSource {
    pub path: PathBuf,
    /// 1-based line of its entry (approximate for unusual layouts).
    pub line: usize,
    /// Its position among the hooks of its file, from 0.
    pub index: usize,
    pub scope: HookScope,
    /// From a Claude Code `settings.json` rather than a RooCode `config.yaml`.
    pub claude: bool,
}

/// What a hook does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookAction {
    /// `sh -c command` with the event as JSON on stdin (see `hooks::run`).
    Command { command: String, timeout: Duration },
    /// Text added to the model's context; nothing runs.
    Inject { text: String },
}

/// A matcher as Claude Code's: a regex matched against the whole value (`Write|Edit`
/// matches `Write` but not `WriteFile`); `*` matches everything.
#[derive(Debug, Clone)]
pub struct Matcher {
    pattern: String,
    /// `None` for `*`.
    regex: Option<Regex>,
}

impl Matcher {
    /// Compiles `pattern`, anchored at both ends. `*` matches everything (configs
    /// leave an empty or absent matcher out: it matches everything too).
    pub fn new(pattern: &str) -> Result<Matcher, regex::Error> {
        let regex = match pattern.trim() {
            "*" | "" => None,
            p => Some(Regex::new(&format!("^(?:{p})$"))?),
        };
        Ok(Matcher {
            pattern: pattern.to_string(),
            regex,
        })
    }

    /// The pattern as configured.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    pub fn matches(&self, value: &str) -> bool {
        self.regex.as_ref().is_none_or(|r| r.is_match(value))
    }

    /// Whether it matches every value.
    pub fn matches_all(&self) -> bool {
        self.regex.is_none()
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Matcher) -> bool {
        self.pattern == other.pattern
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pattern)
    }
}

/// One configured hook.
#[derive(Debug, Clone)]
pub struct HookSpec {
    pub event: HookEvent,
    /// `None`: every value (absent, empty or `*` in the file).
    pub matcher: Option<Matcher>,
    pub condition: Option<Condition>,
    pub action: HookAction,
    pub source: HookSource,
}

impl HookSpec {
    /// Whether it runs for `input`: same event; the matcher (if any) matches the
    /// event's matcher value (tool name, `source` of `session_start`, `trigger` of
    /// `pre_compact`, `notification_type`; an event without one, such as `stop`,
    /// ignores matchers as Claude Code does, and an event lacking its value matches
    /// only a matcher that matches everything); then the condition (if any).
    pub fn applies(&self, input: &HookInput) -> bool {
        if self.event != input.event() {
            return false;
        }
        if let Some(matcher) = &self.matcher
            && self.event.matcher_target().is_some()
        {
            let ok = match input.matcher_value() {
                Some(value) => matcher.matches(value),
                None => matcher.matches_all(),
            };
            if !ok {
                return false;
            }
        }
        match &self.condition {
            Some(condition) => condition.eval(&input.fields()),
            None => true,
        }
    }

    /// A stable id: 12 hex digits of a SHA-256 over the file, the position in it, the
    /// event, matcher, condition and action. Editing what a hook does (or moving it)
    /// gives it a new id, so an approval keyed by it is asked again.
    pub fn id(&self) -> String {
        let mut h = Sha256::new();
        let mut part = |s: &str| {
            h.update(s.len().to_le_bytes());
            h.update(s.as_bytes());
        };
        part(&self.source.path.to_string_lossy());
        part(&self.source.index.to_string());
        part(self.event.as_str());
        part(self.matcher.as_ref().map_or("", Matcher::pattern));
        part(self.condition.as_ref().map_or("", Condition::source));
        match &self.action {
            HookAction::Command { command, timeout } => {
                part("command");
                part(command);
                part(&timeout.as_millis().to_string());
            }
            HookAction::Inject { text } => {
                part("inject");
                part(text);
            }
        }
        h.finalize()
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// A one-line description for `/hooks` and logs: `pre_tool_use [Bash] if ...: cmd`.
    pub fn summary(&self) -> String {
        let mut s = self.event.as_str().to_string();
        if let Some(m) = &self.matcher {
            s.push_str(&format!(" [{m}]"));
        }
        if let Some(c) = &self.condition {
            s.push_str(&format!(" if {c}"));
        }
        match &self.action {
            HookAction::Command { command, .. } => s.push_str(&format!(": {command}")),
            HookAction::Inject { text } => s.push_str(&format!(": inject {text:?}")),
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::hooks::event::{CompactTrigger, SessionSource};
    use crate::hooks::input::HookContext;

    fn spec(event: HookEvent, matcher: Option<&str>, condition: Option<&str>) -> HookSpec {
        HookSpec {
            event,
            matcher: matcher.map(|m| Matcher::new(m).unwrap()),
            condition: condition.map(|c| Condition::parse(c).unwrap()),
            action: HookAction::Command {
                command: "true".into(),
                timeout: DEFAULT_TIMEOUT,
            },
            source: HookSource {
                path: PathBuf::from("/h/.roocode/config.yaml"),
                line: 3,
                index: 0,
                scope: HookScope::User,
                claude: false,
            },
        }
    }

    fn tool(event: HookEvent, name: &str) -> HookInput {
        let ctx = HookContext::default();
        let input = json!({"file_path": "/p/x.rs", "command": "ls"});
        match event {
            HookEvent::PostToolUse => HookInput::post_tool_use(ctx, name, input, json!({})),
            HookEvent::PermissionRequest => HookInput::permission_request(ctx, name, input),
            _ => HookInput::pre_tool_use(ctx, name, input),
        }
    }

    #[test]
    fn matcher_is_an_anchored_regex() {
        let table: &[(&str, &str, bool)] = &[
            ("Bash", "Bash", true),
            ("Bash", "BashOutput", false),
            ("Write|Edit", "Write", true),
            ("Write|Edit", "Edit", true),
            ("Write|Edit", "MultiEdit", false),
            ("Write|Edit", "WriteX", false),
            ("*", "Anything", true),
            ("", "Anything", true),
            ("Notebook.*", "NotebookEdit", true),
            ("mcp__github__.*", "mcp__github__create_issue", true),
            ("mcp__github__.*", "mcp__gitlab__x", false),
            ("bash", "Bash", false),
        ];
        for (pattern, value, expected) in table {
            let m = Matcher::new(pattern).unwrap();
            assert_eq!(m.matches(value), *expected, "{pattern} vs {value}");
        }
        assert!(Matcher::new("(").is_err());
    }

    #[test]
    fn applies_to_tool_events_by_name() {
        for event in [
            HookEvent::PreToolUse,
            HookEvent::PostToolUse,
            HookEvent::PermissionRequest,
        ] {
            let s = spec(event, Some("Write|Edit"), None);
            assert!(s.applies(&tool(event, "Write")), "{event}");
            assert!(!s.applies(&tool(event, "Bash")), "{event}");
            assert!(spec(event, None, None).applies(&tool(event, "Bash")));
        }
        // another event never applies
        let s = spec(HookEvent::PreToolUse, None, None);
        assert!(!s.applies(&tool(HookEvent::PostToolUse, "Write")));
    }

    #[test]
    fn matcher_targets_of_other_events() {
        let ctx = HookContext::default;
        let s = spec(HookEvent::SessionStart, Some("startup|resume"), None);
        assert!(s.applies(&HookInput::session_start(ctx(), SessionSource::Resume)));
        assert!(!s.applies(&HookInput::session_start(ctx(), SessionSource::Compact)));
        let s = spec(HookEvent::PreCompact, Some("auto"), None);
        assert!(s.applies(&HookInput::pre_compact(ctx(), CompactTrigger::Auto, "")));
        assert!(!s.applies(&HookInput::pre_compact(ctx(), CompactTrigger::Manual, "")));
        let s = spec(HookEvent::Notification, Some("idle_prompt"), None);
        assert!(s.applies(&HookInput::notification(
            ctx(),
            "m",
            Some("idle_prompt".into())
        )));
        assert!(!s.applies(&HookInput::notification(ctx(), "m", None)));
        // events without a matcher value ignore the matcher
        let s = spec(HookEvent::Stop, Some("whatever"), None);
        assert!(s.applies(&HookInput::stop(ctx(), false)));
    }

    #[test]
    fn condition_after_matcher() {
        let s = spec(
            HookEvent::PostToolUse,
            Some("Write|Edit"),
            Some(r#"file_path =~ "\.rs$""#),
        );
        assert!(s.applies(&tool(HookEvent::PostToolUse, "Edit")));
        let s = spec(HookEvent::PostToolUse, None, Some(r#"command == "pwd""#));
        assert!(!s.applies(&tool(HookEvent::PostToolUse, "Bash")));
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        let a = spec(HookEvent::PreToolUse, Some("Bash"), None);
        assert_eq!(a.id(), a.id());
        assert_eq!(a.id(), spec(HookEvent::PreToolUse, Some("Bash"), None).id());
        assert_eq!(a.id().len(), 12);
        let mut b = a.clone();
        b.action = HookAction::Command {
            command: "false".into(),
            timeout: DEFAULT_TIMEOUT,
        };
        assert_ne!(a.id(), b.id());
        let mut c = a.clone();
        c.source.index = 1;
        assert_ne!(a.id(), c.id());
        let mut d = a.clone();
        d.source.line = 99; // the line alone does not change it
        assert_eq!(a.id(), d.id());
        assert_eq!(a.summary(), "pre_tool_use [Bash]: true");
    }
}
