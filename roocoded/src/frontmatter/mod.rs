//! Markdown files with YAML frontmatter, shared by agent definitions, skills and prompt
//! commands: splitting a file into its frontmatter and body, and parsing the
//! frontmatter into a mapping with errors placed on the file's own lines.
//!
//! A BOM and CRLF line endings are accepted. Claude Code's generator writes descriptions
//! such as `description: Use this agent when... Examples: <example>Context: ...` — a
//! plain scalar with `: ` inside, which YAML refuses. When (and only when) the strict
//! parse fails, such values are quoted and the parse retried; the caller is told so
//! (the flag of [`mapping`]) and warns.
//!
//! [`read`] reads such a file safely (size cap, UTF-8, broken links), [`values`] reads
//! the common kinds of values, [`folders`] holds what the three loaders share around
//! their files (each folder read once, listing, one item of each name), and [`Problem`]
//! is a file that could not be loaded.

mod error;
pub(crate) mod folders;
mod read;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;
pub(crate) mod values;

use yaml_serde::{Mapping, Value};

pub use error::Problem;
pub(crate) use error::{FileError, Invalid, Located};
pub(crate) use read::read_text;

/// The warning of a file whose frontmatter needed the lenient retry of [`mapping`].
pub(crate) const LENIENT_WARNING: &str = "a value contains an unquoted `: `, which YAML \
                                          refuses; it was read as plain text — put the \
                                          value in quotes";

/// The two halves of a file, line endings normalised to `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    /// The frontmatter's lines, without the `---` fences; empty when there is none.
    pub yaml: String,
    /// The 1-based file line of the frontmatter's first line.
    pub first_line: usize,
    /// Everything after the closing fence (the whole text when there is no frontmatter).
    pub body: String,
}

impl Split {
    /// The file line where `key:` starts a top-level entry, else the frontmatter's start.
    pub fn line_of(&self, key: &str) -> usize {
        self.yaml
            .split('\n')
            .position(|l| {
                let rest = l
                    .strip_prefix(key)
                    .or_else(|| l.strip_prefix(&format!("\"{key}\"")))
                    .or_else(|| l.strip_prefix(&format!("'{key}'")));
                rest.is_some_and(|r| r.trim_start().starts_with(':'))
            })
            .map_or(self.first_line, |i| self.first_line + i)
    }
}

/// Splits `text` at its `---` fences; a file must have a frontmatter.
pub(crate) fn split(text: &str) -> Result<Split, Located> {
    split_optional(text)?.ok_or_else(|| Located::at(1, Invalid::NoFrontmatter))
}

/// Splits `text` at its `---` fences; `None` when it does not start with one (the whole
/// file is then a body). An opening fence never closed is an error either way.
pub(crate) fn split_optional(text: &str) -> Result<Option<Split>, Located> {
    let text = normalise(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let is_fence = |l: &&str| l.trim_end() == "---";
    if !lines.first().is_some_and(is_fence) {
        return Ok(None);
    }
    let close = lines
        .iter()
        .skip(1)
        .position(is_fence)
        .map(|i| i + 1)
        .ok_or_else(|| Located::at(1, Invalid::Unclosed))?;
    Ok(Some(Split {
        yaml: lines[1..close].join("\n"),
        first_line: 2,
        body: lines[close + 1..].join("\n"),
    }))
}

/// Splits and parses a file whose frontmatter is optional: without one the whole text
/// is the body and the mapping is empty. The flag says the lenient retry was needed.
pub(crate) fn parse_optional(text: &str) -> Result<(Split, Mapping, bool), Located> {
    let Some(split) = split_optional(text)? else {
        let split = Split {
            yaml: String::new(),
            first_line: 1,
            body: normalise(text),
        };
        return Ok((split, Mapping::new(), false));
    };
    let (map, lenient) = mapping(&split)?;
    Ok((split, map, lenient))
}

/// `text` without a BOM, its line endings `\n`.
pub(crate) fn normalise(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.replace("\r\n", "\n")
}

/// Parses the frontmatter into a mapping; the flag says it needed the lenient retry.
pub(crate) fn mapping(split: &Split) -> Result<(Mapping, bool), Located> {
    let (value, lenient) = match yaml_serde::from_str::<Value>(&split.yaml) {
        Ok(value) => (value, false),
        Err(strict) => match lenient(&split.yaml) {
            Some(value) => (value, true),
            None => return Err(yaml_error(split, &strict)),
        },
    };
    match value {
        Value::Mapping(map) => Ok((map, lenient)),
        Value::Null => Ok((Mapping::new(), lenient)),
        other => Err(Located::at(
            split.first_line,
            Invalid::NotMapping(kind(&other)),
        )),
    }
}

/// The strict error, its line moved from the frontmatter onto the file.
fn yaml_error(split: &Split, err: &yaml_serde::Error) -> Located {
    let text = err.to_string();
    match err.location() {
        Some(loc) => {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            let message = text.replace(&suffix, &format!(" (column {})", loc.column()));
            let line = split.first_line + loc.line().saturating_sub(1);
            Located::at(line, Invalid::Yaml(message))
        }
        None => Located::at(split.first_line, Invalid::Yaml(text)),
    }
}

/// The frontmatter with every top-level plain value containing `: ` single-quoted,
/// parsed; `None` if nothing needed quoting or it still fails.
fn lenient(yaml: &str) -> Option<Value> {
    let mut changed = false;
    let quoted: Vec<String> = yaml
        .split('\n')
        .map(|line| match quote_plain_value(line) {
            Some(q) => {
                changed = true;
                q
            }
            None => line.to_string(),
        })
        .collect();
    if !changed {
        return None;
    }
    yaml_serde::from_str(&quoted.join("\n")).ok()
}

/// `key: a: b` → `key: 'a: b'` for a top-level key with a plain scalar value, and
/// `key: [a] [b]` → `key: '[a] [b]'` for a value that only looks like a flow list (as
/// Claude Code's `argument-hint: [pr-number] [priority]`).
fn quote_plain_value(line: &str) -> Option<String> {
    let (key, value) = line.split_once(':')?;
    let simple_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let value = value.strip_prefix(' ')?.trim();
    let plain = !value.starts_with(['\'', '"', '[', '{', '|', '>', '&', '*', '!', '#']);
    let broken_flow = value.starts_with('[')
        && value.ends_with(']')
        && yaml_serde::from_str::<Value>(value).is_err();
    (simple_key && ((plain && value.contains(": ")) || broken_flow))
        .then(|| format!("{key}: '{}'", value.replace('\'', "''")))
}

/// A YAML kind for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}
