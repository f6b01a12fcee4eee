//! Edits the `mcpServers` object of a Claude-compatible `.mcp.json` as text: members
//! are spliced in before an object's closing brace (with the comma, line ending and
//! indentation the file uses) or cut out with their adjoining comma, so every other key
//! keeps its place and spelling. serde_json here does not keep key order, so the file
//! is never re-serialised; a small scanner finds the spans instead, and every result is
//! parsed back and must hold exactly the intended change, or the edit is refused.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::entry::{Fields, Held, inline, to_object};

/// The top-level key of the servers.
const KEY: &str = "mcpServers";

/// Why a parsed-back result is refused.
const CHECK_FAILED: &str =
    "the edited file would not hold exactly the intended change: edit it by hand";

/// The servers of `text` and what each entry says.
pub fn entries(text: &str) -> Result<BTreeMap<String, Held>, String> {
    let doc = parse(text)?;
    let mut out = BTreeMap::new();
    for (name, entry) in servers(&doc)? {
        let held = match &entry {
            Value::Object(m) => Held::of(
                m.keys().map(String::as_str),
                m.get("enabled").and_then(Value::as_bool),
            ),
            _ => Held::of(std::iter::empty(), None),
        };
        out.insert(name, held);
    }
    Ok(out)
}

/// `text` (empty for a new file) with a server `name` of `fields` added at the end of
/// `mcpServers` (which is added when missing).
pub fn add(text: &str, name: &str, fields: &Fields) -> Result<String, String> {
    let text = if text.trim().is_empty() { "{}\n" } else { text };
    let old = parse(text)?;
    if servers(&old)?.contains_key(name) {
        return Err(format!("it already has a server `{name}`"));
    }
    let top = object_at(text, start_of_top(text)?)?;
    let with_key;
    let text = match unique(&top, KEY)? {
        Some(_) => text,
        None => {
            with_key = insert(text, &top, KEY, &Insert::Raw("{}"));
            with_key.as_str()
        }
    };
    let top = object_at(text, start_of_top(text)?)?;
    let servers_at = unique(&top, KEY)?.ok_or(CHECK_FAILED)?.value.start;
    let servers = object_at(text, servers_at).map_err(|_| not_an_object())?;
    let new = insert(text, &servers, name, &Insert::Fields(fields));
    verify(&old, &new, name, Some(to_object(fields)))?;
    Ok(new)
}

/// `text` without the server `name`'s entry.
pub fn remove(text: &str, name: &str) -> Result<String, String> {
    let old = parse(text)?;
    let servers = servers_object(text)?;
    unique(&servers, name)?;
    let index = servers
        .members
        .iter()
        .position(|m| m.key == name)
        .ok_or_else(|| format!("it has no server `{name}`"))?;
    let new = cut(text, &servers, index);
    verify(&old, &new, name, None)?;
    Ok(new)
}

/// `text` with the server `name`'s entry switched: `"enabled": false`, or (`enabled`
/// true) without its `enabled` key.
pub fn set_enabled(text: &str, name: &str, enabled: bool) -> Result<String, String> {
    let old = parse(text)?;
    let Some(Value::Object(entry)) = servers(&old)?.get(name).cloned() else {
        return Err(format!(
            "its entry for `{name}` is not an object of settings"
        ));
    };
    let mut want = entry;
    if enabled {
        want.remove("enabled");
    } else {
        want.insert("enabled".into(), Value::Bool(false));
    }
    let servers = servers_object(text)?;
    let member = unique(&servers, name)?.ok_or(CHECK_FAILED)?;
    let entry = object_at(text, member.value.start).map_err(|_| CHECK_FAILED)?;
    let switch = entry.members.iter().position(|m| m.key == "enabled");
    let new = match (enabled, switch) {
        (true, Some(i)) => cut(text, &entry, i),
        (true, None) => text.to_string(),
        (false, Some(i)) => splice(text, entry.members[i].value.clone(), "false"),
        (false, None) => insert(text, &entry, "enabled", &Insert::Raw("false")),
    };
    verify(&old, &new, name, Some(Value::Object(want)))?;
    Ok(new)
}

fn parse(text: &str) -> Result<Value, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "it is not valid JSON (line {}, column {}: {e}): fix it first",
            e.line(),
            e.column()
        )
    })?;
    if !doc.is_object() {
        return Err("its top level is not an object".into());
    }
    Ok(doc)
}

fn not_an_object() -> String {
    format!("`{KEY}` is not an object of servers by name")
}

/// The `mcpServers` of a parsed file (empty when missing).
fn servers(doc: &Value) -> Result<Map<String, Value>, String> {
    match doc.get(KEY) {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(not_an_object()),
    }
}

/// Checks that `new` is `old` with exactly the server `name` set to `expected` (or
/// removed), every other top-level key's value unchanged.
fn verify(old: &Value, new: &str, name: &str, expected: Option<Value>) -> Result<(), String> {
    let new: Value = serde_json::from_str(new).map_err(|_| CHECK_FAILED)?;
    let others = |doc: &Value| -> Option<Map<String, Value>> {
        let mut map = doc.as_object()?.clone();
        map.remove(KEY);
        Some(map)
    };
    if others(old) != others(&new) || others(&new).is_none() {
        return Err(CHECK_FAILED.into());
    }
    let mut want = servers(old)?;
    match expected {
        Some(value) => {
            want.insert(name.to_string(), value);
        }
        None => {
            want.remove(name);
        }
    }
    if servers(&new).map_err(|_| CHECK_FAILED)? != want {
        return Err(CHECK_FAILED.into());
    }
    Ok(())
}

/// The `mcpServers` object of `text`, which must be there.
fn servers_object(text: &str) -> Result<Object, String> {
    let top = object_at(text, start_of_top(text)?)?;
    let member = unique(&top, KEY)?.ok_or_else(|| format!("it has no `{KEY}`"))?;
    object_at(text, member.value.start).map_err(|_| not_an_object())
}

/// The one member named `key` of `object`, if any (refused when there are several).
fn unique(object: &Object, key: &str) -> Result<Option<Member>, String> {
    let mut found = object.members.iter().filter(|m| m.key == key);
    let first = found.next().cloned();
    if found.next().is_some() {
        return Err(format!("it has `{key}` twice in one object: keep one"));
    }
    Ok(first)
}

/// An object's braces and members.
#[derive(Debug)]
struct Object {
    open: usize,
    close: usize,
    members: Vec<Member>,
}

/// One `"key": value` member: where its key starts and its value's span.
#[derive(Debug, Clone)]
struct Member {
    key: String,
    start: usize,
    value: std::ops::Range<usize>,
}

fn start_of_top(text: &str) -> Result<usize, String> {
    let at = skip_ws(text.as_bytes(), 0);
    if text.as_bytes().get(at) == Some(&b'{') {
        Ok(at)
    } else {
        Err("its top level is not an object".into())
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end (exclusive) of the string starting at `at` (its opening quote).
fn string_end(bytes: &[u8], at: usize) -> Result<usize, String> {
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err(CHECK_FAILED.into())
}

/// The end (exclusive) of the value starting at `at`.
fn value_end(bytes: &[u8], at: usize) -> Result<usize, String> {
    match bytes.get(at) {
        Some(b'"') => string_end(bytes, at),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Err(CHECK_FAILED.into())
        }
        Some(_) => {
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                i += 1;
            }
            Ok(i)
        }
        None => Err(CHECK_FAILED.into()),
    }
}

/// The object whose `{` is at `at`, its members in file order.
fn object_at(text: &str, at: usize) -> Result<Object, String> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'{') {
        return Err(CHECK_FAILED.into());
    }
    let mut members = Vec::new();
    let mut i = skip_ws(bytes, at + 1);
    loop {
        match bytes.get(i) {
            Some(b'}') => {
                return Ok(Object {
                    open: at,
                    close: i,
                    members,
                });
            }
            Some(b'"') => {
                let key_end = string_end(bytes, i)?;
                let key: String =
                    serde_json::from_str(&text[i..key_end]).map_err(|_| CHECK_FAILED)?;
                let colon = skip_ws(bytes, key_end);
                if bytes.get(colon) != Some(&b':') {
                    return Err(CHECK_FAILED.into());
                }
                let value_start = skip_ws(bytes, colon + 1);
                let end = value_end(bytes, value_start)?;
                members.push(Member {
                    key,
                    start: i,
                    value: value_start..end,
                });
                i = skip_ws(bytes, end);
                if bytes.get(i) == Some(&b',') {
                    i = skip_ws(bytes, i + 1);
                }
            }
            _ => return Err(CHECK_FAILED.into()),
        }
    }
}

/// What to insert as a member's value.
enum Insert<'a> {
    /// JSON text as is.
    Raw(&'a str),
    /// An object of these fields: one per line in a multi-line object, else on one.
    Fields(&'a Fields),
}

/// The file's line ending: CRLF when it has any.
fn eol(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The leading whitespace of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// One level of the file's indentation: that of its first indented line (2 spaces
/// when it has none).
fn unit(text: &str) -> String {
    text.lines()
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .find(|ws| !ws.is_empty())
        .unwrap_or("  ")
        .to_string()
}

/// `text` with `"key": value` as the last member of `object`.
fn insert(text: &str, object: &Object, key: &str, value: &Insert<'_>) -> String {
    let eol = eol(text);
    let key = Value::from(key);
    let multiline_value = |indent: &str| match value {
        Insert::Raw(raw) => raw.to_string(),
        Insert::Fields(fields) => {
            let inner = format!("{indent}{}", unit(text));
            let lines: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{inner}{}: {}", Value::from(*k), inline(v)))
                .collect();
            format!("{{{eol}{}{eol}{indent}}}", lines.join(&format!(",{eol}")))
        }
    };
    match object.members.last() {
        Some(last) => {
            let first = object.members.first().map_or(last.start, |m| m.start);
            if text[object.open..first].contains('\n') {
                let indent = line_indent(text, first);
                let member = format!(",{eol}{indent}{key}: {}", multiline_value(indent));
                splice(text, last.value.end..last.value.end, &member)
            } else {
                let value = match value {
                    Insert::Raw(raw) => raw.to_string(),
                    Insert::Fields(fields) => inline(&to_object(fields)),
                };
                splice(
                    text,
                    last.value.end..last.value.end,
                    &format!(", {key}: {value}"),
                )
            }
        }
        None => {
            let base = line_indent(text, object.open);
            let indent = format!("{base}{}", unit(text));
            let member = format!(
                "{eol}{indent}{key}: {}{eol}{base}",
                multiline_value(&indent)
            );
            splice(text, object.open + 1..object.close, &member)
        }
    }
}

/// `text` without member `index` of `object` and its adjoining comma.
fn cut(text: &str, object: &Object, index: usize) -> String {
    let members = &object.members;
    let range = match (index.checked_sub(1), members.get(index + 1)) {
        // Up to the next member's key: the comma and the space before it go too.
        (_, Some(next)) => members[index].start..next.start,
        // The last one: from the end of the one before, taking that comma.
        (Some(before), None) => members[before].value.end..members[index].value.end,
        // The only one: the object becomes `{}`.
        (None, None) => object.open + 1..object.close,
    };
    splice(text, range, "")
}

fn splice(text: &str, range: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

#[cfg(test)]
mod tests;
