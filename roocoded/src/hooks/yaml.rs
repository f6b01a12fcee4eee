//! RooCode's own hook entries: the `hooks:` list of a `config.yaml`, each entry
//! `{event, matcher?, if?, action: {type: command, command, timeout?} | {type: inject,
//! text}}`. Every entry is checked on its own: unknown keys, unknown events, wrong
//! types, a matcher that does not compile or a condition that does not parse are
//! problems naming the file and line, and only that entry is dropped.

use std::path::Path;
use std::time::Duration;

use yaml_serde::{Mapping, Value};

use super::condition::Condition;
use super::event::HookEvent;
use super::lines::YamlHookLines;
use super::set::{HookProblem, HookSet};
use super::spec::{DEFAULT_TIMEOUT, HookAction, HookScope, HookSource, HookSpec, Matcher};

/// The keys of an entry.
const ENTRY_KEYS: [&str; 4] = ["event", "matcher", "if", "action"];

/// The hooks of one RooCode config file (`path` is for provenance and messages).
/// Keys other than `hooks` are not looked at.
pub fn parse_yaml(path: &Path, text: &str, scope: HookScope) -> HookSet {
    let mut set = HookSet::default();
    let value: Value = match yaml_serde::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            let line = e.location().map(|l| l.line());
            set.problems.push(HookProblem::new(
                path,
                line,
                format!("invalid YAML, so none of its hooks are loaded: {e}"),
            ));
            return set;
        }
    };
    let Some(hooks) = value.as_mapping().and_then(|m| m.get("hooks")) else {
        return set;
    };
    let lines = YamlHookLines::scan(text);
    let entries = match hooks {
        Value::Null => return set,
        Value::Sequence(entries) => entries,
        other => {
            set.problems.push(HookProblem::new(
                path,
                Some(lines.hooks_line),
                format!(
                    "`hooks` must be a list of entries (`- event: ...`), not {}",
                    kind(other)
                ),
            ));
            return set;
        }
    };
    for (index, entry) in entries.iter().enumerate() {
        let mut entry_parser = Entry {
            path,
            lines: &lines,
            index,
            problems: Vec::new(),
        };
        let spec = entry_parser.parse(entry, scope);
        set.problems.extend(entry_parser.problems);
        set.hooks.extend(spec);
    }
    set
}

/// One entry being checked; its problems pile up in `problems`.
struct Entry<'a> {
    path: &'a Path,
    lines: &'a YamlHookLines,
    index: usize,
    problems: Vec<HookProblem>,
}

/// A problem was recorded (the value is unusable).
struct Reported;

/// Where a key lives: in the entry, or in its `action` (whose line is the fallback
/// when the action is a flow mapping on one line).
#[derive(Clone, Copy)]
enum At {
    Entry,
    Action,
}

#[derive(Clone, Copy)]
enum ActionKind {
    Command,
    Inject,
}

impl ActionKind {
    fn keys(self) -> &'static [&'static str] {
        match self {
            ActionKind::Command => &["type", "command", "timeout"],
            ActionKind::Inject => &["type", "text"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            ActionKind::Command => "command",
            ActionKind::Inject => "inject",
        }
    }
}

impl Entry<'_> {
    /// A problem at the line of `key`, else of the action (for its keys), else of the
    /// entry.
    fn problem(&mut self, key: Option<(&str, At)>, message: String) {
        let line = key
            .and_then(|(key, at)| {
                self.lines.key(self.index, key).or(match at {
                    At::Entry => None,
                    At::Action => self.lines.key(self.index, "action"),
                })
            })
            .unwrap_or_else(|| self.lines.item(self.index));
        let n = self.index + 1;
        self.problems.push(HookProblem::new(
            self.path,
            Some(line),
            format!("hook #{n}: {message}"),
        ));
    }

    fn parse(&mut self, entry: &Value, scope: HookScope) -> Option<HookSpec> {
        let expected = ENTRY_KEYS.join(", ");
        let Some(map) = entry.as_mapping() else {
            self.problem(
                None,
                format!("expected a mapping ({expected}), not {}", kind(entry)),
            );
            return None;
        };
        for key in map.keys() {
            match key.as_str() {
                Some(k) if ENTRY_KEYS.contains(&k) => {}
                Some(other) => self.problem(
                    Some((other, At::Entry)),
                    format!("unknown key `{other}` (expected {expected})"),
                ),
                None => self.problem(None, format!("a key is not a string: {}", kind(key))),
            }
        }
        let event = self.event(map);
        let matcher = event.map(|event| self.matcher(map, event));
        let condition = self.condition(map);
        let action = self.action(map);
        if !self.problems.is_empty() {
            return None;
        }
        Some(HookSpec {
            event: event?,
            matcher: matcher?.ok()?,
            condition: condition.ok()?,
            action: action.ok()?,
            source: HookSource {
                path: self.path.to_path_buf(),
                line: self.lines.item(self.index),
                index: self.index,
                scope,
                claude: false,
            },
        })
    }

    /// The string at `key` of `map`; `Ok(None)` when absent.
    fn string<'v>(
        &mut self,
        map: &'v Mapping,
        key: &str,
        at: At,
    ) -> Result<Option<&'v str>, Reported> {
        match map.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => {
                self.problem(
                    Some((key, at)),
                    format!("`{key}` must be a string, not {}", kind(other)),
                );
                Err(Reported)
            }
        }
    }

    fn event(&mut self, map: &Mapping) -> Option<HookEvent> {
        let name = self.string(map, "event", At::Entry).ok()?;
        let Some(name) = name else {
            self.problem(
                None,
                format!("`event` is missing (one of {})", event_names()),
            );
            return None;
        };
        let event = HookEvent::parse(name);
        if event.is_none() {
            self.problem(
                Some(("event", At::Entry)),
                format!("unknown event `{name}` (expected one of {})", event_names()),
            );
        }
        event
    }

    /// `Ok(None)`: no matcher (absent or empty).
    fn matcher(&mut self, map: &Mapping, event: HookEvent) -> Result<Option<Matcher>, Reported> {
        let pattern = self.string(map, "matcher", At::Entry)?;
        let Some(pattern) = pattern.filter(|p| !p.trim().is_empty()) else {
            return Ok(None);
        };
        let at = Some(("matcher", At::Entry));
        let Some(target) = event.matcher_target() else {
            self.problem(
                at,
                format!(
                    "`{event}` has no matcher (tool events match the tool name, session_start \
                     its source, pre_compact its trigger, notification its type): use `if` instead"
                ),
            );
            return Err(Reported);
        };
        Matcher::new(pattern).map(Some).map_err(|e| {
            self.problem(
                at,
                format!("`matcher` is not a valid regex for the {target}: {e}"),
            );
            Reported
        })
    }

    fn condition(&mut self, map: &Mapping) -> Result<Option<Condition>, Reported> {
        let Some(source) = self.string(map, "if", At::Entry)? else {
            return Ok(None);
        };
        Condition::parse(source).map(Some).map_err(|e| {
            self.problem(
                Some(("if", At::Entry)),
                format!("in `if: {source}` at column {}: {}", e.column, e.message),
            );
            Reported
        })
    }

    fn action(&mut self, map: &Mapping) -> Result<HookAction, Reported> {
        let Some(action) = map.get("action") else {
            self.problem(
                None,
                "`action` is missing (`action: {type: command, command: ...}` or \
                 `action: {type: inject, text: ...}`)"
                    .to_string(),
            );
            return Err(Reported);
        };
        let Some(action) = action.as_mapping() else {
            self.problem(
                Some(("action", At::Entry)),
                format!(
                    "`action` must be a mapping such as `{{type: command, command: ...}}`, not {}",
                    kind(action)
                ),
            );
            return Err(Reported);
        };
        let action_kind = match self.string(action, "type", At::Action)? {
            Some("command") => ActionKind::Command,
            Some("inject") => ActionKind::Inject,
            Some(other) => {
                self.problem(
                    Some(("type", At::Action)),
                    format!("unknown action type `{other}` (expected command or inject)"),
                );
                return Err(Reported);
            }
            None => {
                self.problem(
                    Some(("action", At::Entry)),
                    "the action has no `type` (add `type: command` or `type: inject`)".into(),
                );
                return Err(Reported);
            }
        };
        let allowed = action_kind.keys();
        let mut unknown = false;
        for key in action.keys() {
            let name = key.as_str().unwrap_or("?");
            if !allowed.contains(&name) {
                self.problem(
                    Some((name, At::Action)),
                    format!(
                        "unknown key `{name}` in the `{}` action (expected {})",
                        action_kind.name(),
                        allowed.join(", ")
                    ),
                );
                unknown = true;
            }
        }
        let built = match action_kind {
            ActionKind::Command => self.command(action)?,
            ActionKind::Inject => self.inject(action)?,
        };
        if unknown { Err(Reported) } else { Ok(built) }
    }

    fn command(&mut self, action: &Mapping) -> Result<HookAction, Reported> {
        let command = self.string(action, "command", At::Action)?;
        let Some(command) = command.filter(|c| !c.trim().is_empty()) else {
            self.problem(
                Some(("command", At::Action)),
                "a command action needs a non-empty `command`".into(),
            );
            return Err(Reported);
        };
        let timeout = match action.get("timeout") {
            None => DEFAULT_TIMEOUT,
            Some(value) => {
                let secs = value.as_f64().filter(|s| value.is_number() && *s > 0.0);
                match secs.and_then(|s| Duration::try_from_secs_f64(s).ok()) {
                    Some(d) => d,
                    None => {
                        self.problem(
                            Some(("timeout", At::Action)),
                            format!(
                                "`timeout` must be a positive number of seconds, not {}",
                                describe(value)
                            ),
                        );
                        return Err(Reported);
                    }
                }
            }
        };
        Ok(HookAction::Command {
            command: command.to_string(),
            timeout,
        })
    }

    fn inject(&mut self, action: &Mapping) -> Result<HookAction, Reported> {
        let Some(text) = self.string(action, "text", At::Action)? else {
            self.problem(
                Some(("action", At::Entry)),
                "an inject action needs `text`".into(),
            );
            return Err(Reported);
        };
        Ok(HookAction::Inject {
            text: text.to_string(),
        })
    }
}

fn event_names() -> String {
    HookEvent::ALL
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {s:?}"),
        other => kind(other).to_string(),
    }
}

#[cfg(test)]
#[path = "yaml_tests.rs"]
mod tests;
