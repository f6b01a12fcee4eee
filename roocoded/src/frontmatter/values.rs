//! Reading the common kinds of frontmatter values: text, true/false, whole numbers and
//! lists written either as YAML lists or as one comma-separated string. Each error is
//! the end of a sentence that starts with the key ("`priority` must be ...").

use yaml_serde::Value;

use super::kind;

/// How a list written as one string is cut into items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// At commas (`rust, cli tools`).
    Commas,
    /// At commas and whitespace outside parentheses, so `Read Grep Bash(git add:*)` and
    /// `Read, Bash(git add, git commit)` both keep their rules whole.
    Words,
}

/// Text, trimmed; a bare number or boolean is read as its text; nothing is "".
pub(crate) fn text(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.trim().to_string()),
        Value::Null => Ok(String::new()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!("must be text, not {}", kind(&other))),
    }
}

/// Text of one line, `None` when empty.
pub(crate) fn line(value: Value) -> Result<Option<String>, String> {
    let text = text(value)?;
    if text.chars().any(char::is_control) {
        return Err("must be one line of text".to_string());
    }
    Ok((!text.is_empty()).then_some(text))
}

/// A usage hint such as `[file] [mode]`: text of one line, or a YAML list (as
/// `argument-hint: [issue-number]` parses) shown as it was written, `[a, b]`.
pub(crate) fn hint(value: Value) -> Result<Option<String>, String> {
    match value {
        Value::Sequence(items) => {
            let mut parts = Vec::new();
            for item in items {
                parts.push(text(item)?);
            }
            Ok(Some(format!("[{}]", parts.join(", "))))
        }
        other => line(other),
    }
}

/// `true` or `false` (also quoted); nothing is `default`.
pub(crate) fn boolean(value: Value, default: bool) -> Result<bool, String> {
    match &value {
        Value::Bool(b) => Ok(*b),
        Value::Null => Ok(default),
        Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(format!("must be true or false, not {}", shown(&value))),
    }
}

/// A whole number (also quoted) within `i32`.
pub(crate) fn integer(value: Value) -> Result<i32, String> {
    let n = match &value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| format!("must be a whole number, not {}", shown(&value)))
}

/// A YAML list of text items or one string cut by `cut`, trimmed, empty items dropped,
/// deduplicated in order; `None` for nothing.
pub(crate) fn list(value: Value, cut: Cut) -> Result<Option<Vec<String>>, String> {
    let items: Vec<String> = match value {
        Value::Null => return Ok(None),
        Value::String(s) => cut_string(&s, cut),
        Value::Sequence(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => out.push(s),
                    Value::Number(n) => out.push(n.to_string()),
                    other => {
                        return Err(format!("must list text, but one item is {}", kind(&other)));
                    }
                }
            }
            out
        }
        other => {
            return Err(format!(
                "must be a list or a comma-separated string, not {}",
                kind(&other)
            ));
        }
    };
    Ok(Some(distinct(&items)))
}

/// `items` trimmed, empty ones dropped, each once in their order.
pub(crate) fn distinct(items: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    out
}

/// Cuts `s` at commas (and whitespace, for [`Cut::Words`]) outside parentheses.
pub(crate) fn cut_string(s: &str, cut: Cut) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(s[start..i].to_string());
                start = i + 1;
            }
            c if depth == 0 && cut == Cut::Words && c.is_whitespace() => {
                out.push(s[start..i].to_string());
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(s[start..].to_string());
    out
}

/// The first non-empty line of a Markdown body, heading marks removed, whitespace
/// collapsed, cut to `max` characters (with `…`): the description of a file that has
/// none.
pub(crate) fn summary(body: &str, max: usize) -> String {
    let line = body
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    shorten(&one_line(line), max)
}

/// `text` with every run of whitespace (line breaks too) one space, trimmed.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most `max` characters, the last one `…` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// A value for messages: scalars as written, the rest by kind.
pub(crate) fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("`{s}`"),
        Value::Number(n) => format!("`{n}`"),
        Value::Bool(b) => format!("`{b}`"),
        other => kind(other).to_string(),
    }
}
