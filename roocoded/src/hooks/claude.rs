//! Claude Code's hooks, read from `.claude/settings.json` (and `settings.local.json`,
//! `~/.claude/settings.json`) and mapped onto the same [`HookSpec`]s:
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash",
//!     "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//! ```
//!
//! Each command of each matcher group becomes one hook (`timeout` in seconds, default
//! 60). A matcher on an event without one (`Stop`, `UserPromptSubmit`, ...) is ignored,
//! as Claude Code ignores it. Unknown events, non-command hook types (`prompt`) and
//! wrong types are problems and drop that hook; keys Claude Code may add later are
//! reported but do not drop it.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::event::HookEvent;
use super::lines::{TextLines, json_key};
use super::set::{HookProblem, HookSet};
use super::spec::{DEFAULT_TIMEOUT, HookAction, HookScope, HookSource, HookSpec, Matcher};

/// The hooks of one Claude Code settings file. Keys other than `hooks` are not looked at.
pub fn parse_claude(path: &Path, text: &str, scope: HookScope) -> HookSet {
    let mut set = HookSet::default();
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            set.problems.push(HookProblem::new(
                path,
                Some(e.line()).filter(|l| *l > 0),
                format!("invalid JSON, so none of its hooks are loaded: {e}"),
            ));
            return set;
        }
    };
    let Some(hooks) = value.get("hooks") else {
        return set;
    };
    let lines = TextLines::new(text);
    let hooks_at = json_key("hooks")
        .and_then(|k| lines.find(0, &k))
        .unwrap_or(0);
    let Some(events) = hooks.as_object() else {
        if !hooks.is_null() {
            set.problems.push(HookProblem::new(
                path,
                Some(lines.line_of(hooks_at)),
                format!(
                    "`hooks` must be an object of events (\"PreToolUse\": [...]), not {}",
                    kind(hooks)
                ),
            ));
        }
        return set;
    };
    let mut reader = Reader {
        path,
        scope,
        lines: &lines,
        set: &mut set,
        index: 0,
    };
    for (name, groups) in events {
        let at = json_key(name)
            .and_then(|k| lines.find(hooks_at, &k))
            .unwrap_or(hooks_at);
        reader.event(name, groups, at);
    }
    set
}

struct Reader<'a> {
    path: &'a Path,
    scope: HookScope,
    lines: &'a TextLines<'a>,
    set: &'a mut HookSet,
    /// Hooks of the file seen so far (the next one's [`HookSource::index`]).
    index: usize,
}

impl Reader<'_> {
    fn problem(&mut self, at: usize, message: String) {
        let line = self.lines.line_of(at);
        self.set
            .problems
            .push(HookProblem::new(self.path, Some(line), message));
    }

    /// Moves `cursor` to the next `needle` after it, if there is one.
    fn advance(&self, cursor: &mut usize, needle: &str) {
        if let Some(found) = self.lines.find_str(*cursor + 1, needle) {
            *cursor = found;
        }
    }

    fn event(&mut self, name: &str, groups: &Value, at: usize) {
        let event = HookEvent::ALL.into_iter().find(|e| e.claude_name() == name);
        let Some(event) = event else {
            let known: Vec<_> = HookEvent::ALL.iter().map(|e| e.claude_name()).collect();
            self.problem(
                at,
                format!(
                    "unknown hook event `{name}`: its hooks are not loaded (RooCode runs {})",
                    known.join(", ")
                ),
            );
            return;
        };
        let Some(groups) = groups.as_array() else {
            self.problem(
                at,
                format!(
                    "`{name}` must be a list of matcher groups ({{\"matcher\": ..., \"hooks\": [...]}}), not {}",
                    kind(groups)
                ),
            );
            return;
        };
        let mut cursor = at;
        for group in groups {
            self.group(event, group, &mut cursor);
        }
    }

    fn group(&mut self, event: HookEvent, group: &Value, cursor: &mut usize) {
        let name = event.claude_name();
        let Some(group) = group.as_object() else {
            self.problem(
                *cursor,
                format!(
                    "a `{name}` entry must be an object with `hooks`, not {}",
                    kind(group)
                ),
            );
            return;
        };
        if group.contains_key("matcher") {
            self.advance(cursor, "\"matcher\"");
        }
        for key in group.keys() {
            if key != "matcher" && key != "hooks" {
                self.problem(
                    *cursor,
                    format!("`{name}`: unknown key `{key}` in a matcher group (ignored)"),
                );
            }
        }
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) if p.trim().is_empty() || event.matcher_target().is_none() => {
                None
            }
            Some(Value::String(p)) => match Matcher::new(p) {
                Ok(m) => Some(m),
                Err(e) => {
                    self.problem(
                        *cursor,
                        format!("`{name}`: matcher `{p}` is not a valid regex, so its hooks are not loaded: {e}"),
                    );
                    return;
                }
            },
            Some(other) => {
                self.problem(
                    *cursor,
                    format!("`{name}`: `matcher` must be a string, not {}", kind(other)),
                );
                return;
            }
        };
        let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
            self.problem(
                *cursor,
                format!("`{name}`: a matcher group needs a `hooks` list"),
            );
            return;
        };
        for hook in hooks {
            let index = self.index;
            self.index += 1;
            let Some(hook) = hook.as_object() else {
                self.problem(
                    *cursor,
                    format!("`{name}`: a hook must be an object, not {}", kind(hook)),
                );
                continue;
            };
            match hook.get("command").and_then(Value::as_str) {
                Some(command) => {
                    if let Ok(encoded) = serde_json::to_string(command) {
                        self.advance(cursor, &encoded);
                    }
                }
                None if hook.contains_key("type") => self.advance(cursor, "\"type\""),
                None => {}
            }
            let Some(action) = self.action(name, hook, *cursor) else {
                continue;
            };
            self.set.hooks.push(HookSpec {
                event,
                matcher: matcher.clone(),
                condition: None,
                action,
                source: HookSource {
                    path: self.path.to_path_buf(),
                    line: self.lines.line_of(*cursor),
                    index,
                    scope: self.scope,
                    claude: true,
                },
            });
        }
    }

    fn action(&mut self, name: &str, hook: &Map<String, Value>, at: usize) -> Option<HookAction> {
        match hook.get("type").and_then(Value::as_str) {
            Some("command") => {}
            Some(other) => {
                self.problem(
                    at,
                    format!("`{name}`: hooks of type `{other}` are not supported (only `command`)"),
                );
                return None;
            }
            None => {
                self.problem(
                    at,
                    format!("`{name}`: a hook needs `\"type\": \"command\"`"),
                );
                return None;
            }
        }
        for key in hook.keys() {
            if !["type", "command", "timeout"].contains(&key.as_str()) {
                self.problem(
                    at,
                    format!("`{name}`: unknown key `{key}` in a hook (ignored)"),
                );
            }
        }
        let Some(command) = hook
            .get("command")
            .and_then(Value::as_str)
            .filter(|c| !c.trim().is_empty())
        else {
            self.problem(
                at,
                format!("`{name}`: a command hook needs a non-empty `command` string"),
            );
            return None;
        };
        let timeout = match hook.get("timeout") {
            None | Some(Value::Null) => DEFAULT_TIMEOUT,
            Some(value) => {
                let secs = value.as_f64().filter(|s| *s > 0.0);
                match secs.and_then(|s| Duration::try_from_secs_f64(s).ok()) {
                    Some(d) => d,
                    None => {
                        self.problem(
                            at,
                            format!("`{name}`: `timeout` must be a positive number of seconds, not {value}"),
                        );
                        return None;
                    }
                }
            }
        };
        Some(HookAction::Command {
            command: command.to_string(),
            timeout,
        })
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
