//! The frontmatter keys: which are known (in snake_case or Claude Code's camelCase),
//! which are Claude Code's and not applied here, and how each value is read.

use std::path::Path;

use roocode_protocol::Mode;
use yaml_serde::{Mapping, Value};

use super::error::{Invalid, Located};
use super::{Definition, Isolation, ModelChoice, ModelTier, Source};
use crate::frontmatter::values::{self, Cut};
use crate::frontmatter::{FileError, Split, kind};

/// A key RooCode applies, whatever its spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Name,
    Description,
    Tools,
    DisallowedTools,
    Model,
    MaxTurns,
    PermissionMode,
    Isolation,
    Background,
    TimeoutS,
    PlanModeRequired,
    Collaboration,
}

/// Claude Code keys accepted and listed as not applied.
const NOT_APPLIED: [&str; 5] = ["color", "skills", "mcpServers", "mcp_servers", "hooks"];

fn key(spelling: &str) -> Option<Key> {
    Some(match spelling {
        "name" => Key::Name,
        "description" => Key::Description,
        "tools" => Key::Tools,
        "disallowed_tools" | "disallowedTools" => Key::DisallowedTools,
        "model" => Key::Model,
        "max_turns" | "maxTurns" => Key::MaxTurns,
        "permission_mode" | "permissionMode" => Key::PermissionMode,
        "isolation" => Key::Isolation,
        "background" => Key::Background,
        "timeout_s" | "timeoutS" => Key::TimeoutS,
        "plan_mode_required" | "planModeRequired" => Key::PlanModeRequired,
        "collaboration" => Key::Collaboration,
        _ => return None,
    })
}

/// Builds the definition from a parsed frontmatter; `split` places errors on lines.
pub(crate) fn definition(
    map: Mapping,
    split: &Split,
    path: &Path,
    source: Source,
) -> Result<Definition, Located> {
    let mut def = Definition {
        name: String::new(),
        description: String::new(),
        prompt: split.body.trim_start_matches('\n').trim_end().to_string(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: ModelChoice::Inherit,
        max_turns: None,
        permission_mode: None,
        isolation: Isolation::None,
        background: false,
        timeout_s: None,
        plan_mode_required: false,
        collaboration: None,
        not_applied: Vec::new(),
        unknown_keys: Vec::new(),
        lenient_yaml: false,
        path: path.to_path_buf(),
        source,
        overrides: Vec::new(),
    };
    let mut seen: Vec<(Key, String)> = Vec::new();
    for (k, value) in map {
        let spelling = match k {
            Value::String(s) => s,
            other => format!("{other:?}"),
        };
        let Some(known) = key(&spelling) else {
            let list = if NOT_APPLIED.contains(&spelling.as_str()) {
                &mut def.not_applied
            } else {
                &mut def.unknown_keys
            };
            list.push(spelling);
            continue;
        };
        let line = split.line_of(&spelling);
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == known) {
            let error = Invalid::two_spellings(first.clone(), spelling);
            return Err(Located::at(line, error));
        }
        apply(&mut def, known, &spelling, value).map_err(|e| Located::at(line, e))?;
        seen.push((known, spelling));
    }
    if def.name.is_empty() {
        return Err(Located::at(split.first_line, Invalid::NoName));
    }
    Ok(def)
}

fn apply(def: &mut Definition, known: Key, spelling: &str, value: Value) -> Result<(), Invalid> {
    match known {
        Key::Name => {
            def.name = text(spelling, value)?;
            if def.name.chars().any(char::is_control) {
                return Err(Invalid::field(spelling, "must be one line of text"));
            }
        }
        // Claude Code's generator writes `\n` escapes in plain scalars, where YAML keeps
        // them as two characters; Claude Code shows them as line breaks, so do we.
        Key::Description => def.description = text(spelling, value)?.replace("\\n", "\n"),
        Key::Tools => def.tools = tool_list(spelling, value)?,
        Key::DisallowedTools => {
            def.disallowed_tools = tool_list(spelling, value)?.unwrap_or_default()
        }
        Key::Model => def.model = model(&text(spelling, value)?),
        Key::MaxTurns => {
            let n = count(spelling, value, u32::MAX.into())?;
            def.max_turns = Some(u32::try_from(n).unwrap_or(u32::MAX));
        }
        Key::PermissionMode => def.permission_mode = mode(spelling, value)?,
        Key::Isolation => def.isolation = isolation(spelling, value)?,
        Key::Background => def.background = boolean(spelling, value)?,
        Key::PlanModeRequired => def.plan_mode_required = boolean(spelling, value)?,
        Key::TimeoutS => def.timeout_s = Some(count(spelling, value, u64::MAX)?),
        Key::Collaboration => {
            let graph = crate::workflow::graph::parse(&value)
                .map_err(|e| Invalid::field(spelling, e.to_string()))?;
            def.collaboration = Some(Box::new(graph));
        }
    }
    Ok(())
}

/// A text value ([`values::text`]), its error on `spelling`.
fn text(spelling: &str, value: Value) -> Result<String, Invalid> {
    values::text(value).map_err(|e| Invalid::field(spelling, e))
}

/// A YAML list of names or a comma-separated string (`Read, Grep, Bash(git log:*)`),
/// trimmed and deduplicated in order; `None` for nothing, "" or `*` (every tool).
fn tool_list(spelling: &str, value: Value) -> Result<Option<Vec<String>>, Invalid> {
    let names: Vec<String> = match value {
        Value::Null => return Ok(None),
        Value::String(s) if matches!(s.trim(), "" | "*") => return Ok(None),
        Value::String(s) => values::cut_string(&s, Cut::Commas),
        Value::Sequence(items) => {
            let mut names = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => names.push(s),
                    other => {
                        let why = format!("must list tool names, but one item is {}", kind(&other));
                        return Err(Invalid::field(spelling, why));
                    }
                }
            }
            names
        }
        other => {
            let why = format!(
                "must be a list of tool names or a comma-separated string, not {}",
                kind(&other)
            );
            return Err(Invalid::field(spelling, why));
        }
    };
    Ok(Some(values::distinct(&names)))
}

pub(crate) fn model(spec: &str) -> ModelChoice {
    match spec.to_ascii_lowercase().as_str() {
        "" | "inherit" => ModelChoice::Inherit,
        "sonnet" => ModelChoice::Tier(ModelTier::Sonnet),
        "opus" => ModelChoice::Tier(ModelTier::Opus),
        "haiku" => ModelChoice::Tier(ModelTier::Haiku),
        _ => ModelChoice::Spec(spec.to_string()),
    }
}

/// A positive whole number up to `max` (a quoted one is accepted too).
fn count(spelling: &str, value: Value, max: u64) -> Result<u64, Invalid> {
    let n = match &value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    match n {
        Some(n) if n > 0 && n <= max => Ok(n),
        _ => Err(Invalid::field(
            spelling,
            format!(
                "must be a whole number above 0, not {}",
                values::shown(&value)
            ),
        )),
    }
}

fn mode(spelling: &str, value: Value) -> Result<Option<Mode>, Invalid> {
    let name = text(spelling, value)?;
    if name.is_empty() {
        return Ok(None);
    }
    Mode::parse(&name).map(Some).ok_or_else(|| {
        let why = format!(
            "`{name}` is not a permission mode: use one of {}",
            Mode::names()
        );
        Invalid::field(spelling, why)
    })
}

fn isolation(spelling: &str, value: Value) -> Result<Isolation, Invalid> {
    match text(spelling, value)?.as_str() {
        "" | "none" => Ok(Isolation::None),
        "worktree" => Ok(Isolation::Worktree),
        other => Err(Invalid::field(
            spelling,
            format!("`{other}` is not an isolation: use `worktree` or leave it out"),
        )),
    }
}

/// `true` or `false` ([`values::boolean`]), nothing `false`; its error on `spelling`.
fn boolean(spelling: &str, value: Value) -> Result<bool, Invalid> {
    values::boolean(value, false).map_err(|e| Invalid::field(spelling, e))
}
