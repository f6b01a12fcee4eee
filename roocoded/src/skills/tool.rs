//! A folder skill's own tools, from its `tool.json`:
//!
//! ```json
//! {"tools": [{"name": "lint", "description": "Lint one file",
//!             "input_schema": {"type": "object", "properties": {"path": {"type": "string"}},
//!                              "required": ["path"]},
//!             "command": ["eslint", "--format", "compact", "{{path}}"], "timeout_s": 60}]}
//! ```
//!
//! A tool runs its `command` as an argument vector, never through a shell: each
//! `{{param}}` is replaced inside its own element by the call's value ([`SkillTool::argv`]),
//! so a value with spaces, quotes or `;` stays one argument. The program (the first
//! element) is fixed: it may not hold a placeholder.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use super::Problem;
use crate::frontmatter;

/// The tools file of a folder skill.
pub(crate) const FILE: &str = "tool.json";

/// Larger tools files are refused.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// One tool of a skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillTool {
    /// `[A-Za-z][A-Za-z0-9_-]*`, at most 64 characters.
    pub name: String,
    pub description: String,
    /// A JSON Schema of `"type": "object"`.
    pub input_schema: Value,
    /// The argument vector, `{{param}}` placeholders as written.
    pub command: Vec<String>,
    pub timeout: Option<Duration>,
}

/// Why a tools file is refused; the caller names the file.
#[derive(Debug, Error, PartialEq)]
pub(crate) enum ToolFileError {
    #[error("not valid JSON for a tools file: {0}")]
    Json(String),
    #[error("tool `{0}`: {1}")]
    Tool(String, String),
    #[error("the tool `{0}` is defined twice: rename one")]
    Twice(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    tools: Vec<RawTool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    name: String,
    description: String,
    input_schema: Value,
    command: Vec<String>,
    #[serde(default)]
    timeout_s: Option<f64>,
}

/// The tools of `path`, or the problem naming it.
pub(crate) fn load(path: &Path) -> Result<Vec<SkillTool>, Problem> {
    let text = match frontmatter::read_text(path, MAX_FILE_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(e.problem(path)),
    };
    parse(&text).map_err(|(line, e)| Problem::new(path, line, e.to_string()))
}

/// The tools of a tools file's text; an error has its line when JSON knows it.
pub(crate) fn parse(text: &str) -> Result<Vec<SkillTool>, (Option<usize>, ToolFileError)> {
    let raw: RawFile = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string();
        (Some(e.line()), ToolFileError::Json(message))
    })?;
    let mut tools: Vec<SkillTool> = Vec::new();
    for raw in raw.tools {
        let tool = validate(raw).map_err(|e| (None, e))?;
        if tools.iter().any(|t| t.name == tool.name) {
            return Err((None, ToolFileError::Twice(tool.name)));
        }
        tools.push(tool);
    }
    Ok(tools)
}

fn validate(raw: RawTool) -> Result<SkillTool, ToolFileError> {
    let name = raw.name.trim().to_string();
    let bad = |why: String| ToolFileError::Tool(name.clone(), why);
    let mut chars = name.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= 64;
    if !ok {
        return Err(bad(
            "the name must be letters, digits, `_` and `-`, starting with a letter, at most 64"
                .to_string(),
        ));
    }
    if raw.description.trim().is_empty() {
        return Err(bad(
            "`description` is empty: the model picks tools by it".to_string()
        ));
    }
    let properties = schema_properties(&raw.input_schema).map_err(&bad)?;
    let Some(program) = raw.command.first() else {
        return Err(bad(
            "`command` is empty: give the program and its arguments".to_string(),
        ));
    };
    if program.trim().is_empty() || program.contains("{{") {
        return Err(bad(
            "the program (the first element of `command`) must be fixed text, without a \
             `{{placeholder}}`"
                .to_string(),
        ));
    }
    for element in &raw.command {
        for name in placeholders(element).map_err(&bad)? {
            if !properties.contains_key(name) {
                return Err(bad(format!(
                    "`command` uses `{{{{{name}}}}}`, which `input_schema` has no property for"
                )));
            }
        }
    }
    let timeout = match raw.timeout_s {
        None => None,
        Some(s) => match Duration::try_from_secs_f64(s) {
            Ok(d) if !d.is_zero() => Some(d),
            _ => {
                return Err(bad(format!(
                    "`timeout_s` must be a number of seconds above 0, not {s}"
                )));
            }
        },
    };
    Ok(SkillTool {
        name: name.clone(),
        description: raw.description.trim().to_string(),
        input_schema: raw.input_schema,
        command: raw.command,
        timeout,
    })
}

/// The `properties` of an object schema (empty when it has none).
fn schema_properties(schema: &Value) -> Result<Map<String, Value>, String> {
    let Value::Object(schema) = schema else {
        return Err("`input_schema` must be a JSON Schema object".to_string());
    };
    if let Some(kind) = schema.get("type")
        && kind != "object"
    {
        return Err(format!(
            "`input_schema` must have `\"type\": \"object\"`, not {kind}"
        ));
    }
    let properties = match schema.get("properties") {
        None => Map::new(),
        Some(Value::Object(p)) => p.clone(),
        Some(_) => return Err("`input_schema.properties` must be an object".to_string()),
    };
    if let Some(required) = schema.get("required") {
        let names = required
            .as_array()
            .ok_or("`input_schema.required` must be a list")?;
        for name in names {
            match name.as_str() {
                Some(n) if properties.contains_key(n) => {}
                _ => {
                    return Err(format!(
                        "`input_schema.required` names {name}, which is not a property"
                    ));
                }
            }
        }
    }
    Ok(properties)
}

/// One element of a command: text and placeholders.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Param(&'a str),
}

/// The pieces of `element`; an unclosed or empty `{{` is an error.
fn pieces(element: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = element;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            out.push(Piece::Text(&rest[..open]));
        }
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| format!("`{element}` opens a `{{{{` it never closes"))?;
        let name = after[..close].trim();
        if name.is_empty() {
            return Err(format!("`{element}` has an empty `{{{{}}}}`"));
        }
        out.push(Piece::Param(name));
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

fn placeholders(element: &str) -> Result<Vec<&str>, String> {
    Ok(pieces(element)?
        .into_iter()
        .filter_map(|p| match p {
            Piece::Param(name) => Some(name),
            Piece::Text(_) => None,
        })
        .collect())
}

impl SkillTool {
    /// The argument vector for a call with `args` (a JSON object): each `{{param}}`
    /// replaced in its element by the value — text as it is, anything else as compact
    /// JSON. A missing value takes the schema's `default`; a missing required one is an
    /// error; an element naming a missing optional one is left out (so
    /// `--limit={{limit}}` disappears when no limit is given). Values are never seen by
    /// a shell and never expanded again.
    pub fn argv(&self, args: &Value) -> Result<Vec<String>, String> {
        let empty = Map::new();
        let args = match args {
            Value::Object(map) => map,
            Value::Null => &empty,
            other => {
                return Err(format!(
                    "the arguments of `{}` must be an object, not {other}",
                    self.name
                ));
            }
        };
        let properties = self
            .input_schema
            .get("properties")
            .and_then(Value::as_object);
        let required: Vec<&str> = self
            .input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut argv = Vec::with_capacity(self.command.len());
        'elements: for element in &self.command {
            let mut out = String::new();
            for piece in pieces(element)? {
                let name = match piece {
                    Piece::Text(text) => {
                        out.push_str(text);
                        continue;
                    }
                    Piece::Param(name) => name,
                };
                let default = properties
                    .and_then(|p| p.get(name))
                    .and_then(|p| p.get("default"));
                let value = args.get(name).filter(|v| !v.is_null()).or(default);
                match value {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(other) => out.push_str(&other.to_string()),
                    None if required.contains(&name) => {
                        return Err(format!("`{name}` is required by the tool `{}`", self.name));
                    }
                    None => continue 'elements,
                }
            }
            if out.contains('\0') {
                return Err(format!(
                    "an argument of `{}` contains a NUL byte",
                    self.name
                ));
            }
            argv.push(out);
        }
        Ok(argv)
    }
}
