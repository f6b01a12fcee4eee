//! Edits the `mcp_servers:` section of a RooCode YAML config file as text, so that
//! everything else (comments, key order, quoting, blank lines) stays byte for byte.
//!
//! The section must be a block mapping at the top level (`mcp_servers:` alone on its
//! line, or with an empty value such as `{}`); entries are added at the indentation the
//! existing ones use (2 spaces when there are none) with their values as one-line JSON
//! (valid YAML), and removed as their key line plus every following line indented
//! deeper. Every result is parsed back with `yaml_serde` and must hold exactly the
//! intended change, every other top-level key's value unchanged; otherwise the edit is
//! refused (an `Err` saying why) and the caller leaves the file alone.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use yaml_serde::{Mapping, Value};

use super::entry::{Fields, Held, inline, to_object};

/// The top-level key of the servers.
const KEY: &str = "mcp_servers";

/// Why a parsed-back result is refused.
const CHECK_FAILED: &str = "the edited file would not hold exactly the intended change (it may use YAML this command does not edit, such as a quoted `mcp_servers` key or several documents): edit it by hand";

/// The servers of `text` and what each entry says.
pub fn entries(text: &str) -> Result<BTreeMap<String, Held>, String> {
    let doc = parse(text)?;
    let mut out = BTreeMap::new();
    for (name, entry) in &servers(&doc)? {
        let Some(name) = name.as_str() else {
            return Err(format!(
                "`{KEY}` has a server name that is not a string: quote it"
            ));
        };
        let held = match entry {
            Value::Mapping(m) => Held::of(
                m.keys().filter_map(Value::as_str),
                m.get("enabled").and_then(Value::as_bool),
            ),
            _ => Held::of(std::iter::empty(), None),
        };
        out.insert(name.to_string(), held);
    }
    Ok(out)
}

/// `text` with a server `name` of `fields` added at the end of `mcp_servers:` (which is
/// appended when missing).
pub fn add(text: &str, name: &str, fields: &Fields) -> Result<String, String> {
    let old = parse(text)?;
    if servers(&old)?.contains_key(name) {
        return Err(format!("it already has a server `{name}`"));
    }
    let lines = lines(text);
    let eol = eol(text);
    let new = match find_section(&lines)? {
        None => {
            let mut new = text.to_string();
            if !new.is_empty() && !new.ends_with('\n') {
                new.push_str(eol);
            }
            new.push_str(KEY);
            new.push(':');
            new.push_str(eol);
            for line in entry_lines(name, fields, 2, 2) {
                new.push_str(&line);
                new.push_str(eol);
            }
            new
        }
        Some(section) => {
            let indent = section.indent.unwrap_or(2);
            let block = entry_lines(name, fields, indent, step(&lines, &section));
            match section.empty_value {
                // `mcp_servers: {}`: the key line loses its `{}` and the block follows.
                Some(comment) => {
                    let key_line = &lines[section.key];
                    let mut head = format!("{KEY}:");
                    if let Some(comment) = comment {
                        head.push(' ');
                        head.push_str(comment);
                    }
                    let replaced = [head].into_iter().chain(block).collect::<Vec<_>>();
                    splice(text, key_line.start..key_line.end, &replaced.join(eol))
                }
                None => insert_after(text, &lines, section.last, &block, eol),
            }
        }
    };
    let expected = yaml_serde::to_value(to_object(fields)).map_err(|e| e.to_string())?;
    verify(&old, &new, name, Some(expected))?;
    Ok(new)
}

/// `text` without the server `name`'s entry.
pub fn remove(text: &str, name: &str) -> Result<String, String> {
    let old = parse(text)?;
    let lines = lines(text);
    let span = find_section(&lines)?
        .map(|section| find_entry(&lines, &section, name))
        .transpose()?
        .flatten()
        .ok_or_else(|| format!("it has no server `{name}`"))?;
    let new = remove_lines(text, &lines, span.key, span.last);
    verify(&old, &new, name, None)?;
    Ok(new)
}

/// `text` with the server `name`'s entry switched: `enabled: false`, or (`enabled`
/// true) without its `enabled` key. An entry written on one line (`name: {…}`) is
/// rewritten as a block, its keys in their order.
pub fn set_enabled(text: &str, name: &str, enabled: bool) -> Result<String, String> {
    let old = parse(text)?;
    let Some(Value::Mapping(entry)) = servers(&old)?.get(name).cloned() else {
        return Err(format!(
            "its entry for `{name}` is not a mapping of settings"
        ));
    };
    let mut want = entry;
    if enabled {
        want.shift_remove("enabled");
    } else {
        want.insert("enabled".into(), Value::Bool(false));
    }
    let lines = lines(text);
    let eol = eol(text);
    let section = find_section(&lines)?.ok_or(CHECK_FAILED)?;
    let span = find_entry(&lines, &section, name)?.ok_or(CHECK_FAILED)?;
    let indent = section.indent.unwrap_or(2);
    let step = step(&lines, &section);
    let (_, rest) = split_key(&lines[span.key].text[indent..]).ok_or(CHECK_FAILED)?;
    let new = if !value_and_comment(rest).0.is_empty() {
        let mut fields = Vec::new();
        for (key, value) in &want {
            let key = key.as_str().ok_or(CHECK_FAILED)?;
            let value = serde_json::to_value(value).map_err(|_| CHECK_FAILED)?;
            fields.push((key, value));
        }
        let block = entry_lines(name, &fields, indent, step).join(eol);
        splice(text, lines[span.key].start..lines[span.last].end, &block)
    } else {
        let children: Vec<usize> = (span.key + 1..=span.last)
            .filter(|&i| !lines[i].blank() && !lines[i].comment())
            .collect();
        let child = children
            .first()
            .map_or(indent + step, |&i| lines[i].indent());
        let line = format!("{}enabled: false", " ".repeat(child));
        let switch = children.into_iter().find(|&i| {
            lines[i].indent() == child
                && split_key(&lines[i].text[child..]).is_some_and(|(k, _)| k == "enabled")
        });
        match (enabled, switch) {
            (true, Some(i)) => remove_lines(text, &lines, i, i),
            (true, None) => text.to_string(),
            (false, Some(i)) => splice(text, lines[i].start..lines[i].end, &line),
            (false, None) => insert_after(text, &lines, span.last, &[line], eol),
        }
    };
    verify(&old, &new, name, Some(Value::Mapping(want)))?;
    Ok(new)
}

/// The document's top level (empty for a file of nothing or only comments).
fn parse(text: &str) -> Result<Mapping, String> {
    let only_comments = text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    });
    if only_comments {
        return Ok(Mapping::new());
    }
    match yaml_serde::from_str::<Value>(text) {
        Ok(Value::Mapping(m)) => Ok(m),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(_) => Err("its top level is not a mapping of keys".into()),
        Err(e) => Err(format!("it is not valid YAML ({e}): fix it first")),
    }
}

/// The `mcp_servers:` mapping of a document (empty when missing or null).
fn servers(doc: &Mapping) -> Result<Mapping, String> {
    match doc.get(KEY) {
        None | Some(Value::Null) => Ok(Mapping::new()),
        Some(Value::Mapping(m)) => Ok(m.clone()),
        Some(_) => Err(format!("`{KEY}` is not a mapping of servers by name")),
    }
}

/// Checks that `new` is `old` with exactly the server `name` set to `expected` (or
/// removed), every other top-level key's value unchanged.
fn verify(old: &Mapping, new: &str, name: &str, expected: Option<Value>) -> Result<(), String> {
    let new = parse(new).map_err(|_| CHECK_FAILED)?;
    let others = |doc: &Mapping| -> Mapping {
        doc.iter()
            .filter(|(k, _)| k.as_str() != Some(KEY))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    if others(old) != others(&new) {
        return Err(CHECK_FAILED.into());
    }
    let mut want = servers(old)?;
    match expected {
        Some(value) => {
            want.insert(name.into(), value);
        }
        None => {
            want.shift_remove(name);
        }
    }
    if servers(&new).map_err(|_| CHECK_FAILED)? != want {
        return Err(CHECK_FAILED.into());
    }
    Ok(())
}

/// One line: its byte range without and with its terminator.
struct Line<'a> {
    start: usize,
    end: usize,
    next: usize,
    text: &'a str,
}

impl Line<'_> {
    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }

    fn blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    fn comment(&self) -> bool {
        self.text.trim_start().starts_with('#')
    }

    fn has_eol(&self) -> bool {
        self.next > self.end
    }
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let next = start + piece.len();
        let content = match piece.strip_suffix('\n') {
            Some(p) => p.strip_suffix('\r').unwrap_or(p),
            None => piece,
        };
        out.push(Line {
            start,
            end: start + content.len(),
            next,
            text: content,
        });
        start = next;
    }
    out
}

/// The file's line ending: CRLF when it has any.
fn eol(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// A mapping key at the start of `s` (plain, `"…"` or `'…'`) and what follows its `:`.
fn split_key(s: &str) -> Option<(&str, &str)> {
    let (key, rest) = match s.chars().next()? {
        q @ ('"' | '\'') => {
            let close = s[1..].find(q)? + 1;
            (&s[1..close], s[close + 1..].trim_start_matches([' ', '\t']))
        }
        '#' | '-' | '?' | '[' | '{' => return None,
        _ => {
            let bytes = s.as_bytes();
            let colon = (0..bytes.len()).find(|&i| {
                bytes[i] == b':' && bytes.get(i + 1).is_none_or(|b| *b == b' ' || *b == b'\t')
            })?;
            (s[..colon].trim_end(), &s[colon..])
        }
    };
    let rest = rest.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some((key, rest))
}

/// A value after `key:`, trimmed, and its trailing `# comment`.
fn value_and_comment(rest: &str) -> (&str, Option<&str>) {
    let bytes = rest.as_bytes();
    let hash = (0..bytes.len())
        .find(|&i| bytes[i] == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')));
    match hash {
        Some(i) => (rest[..i].trim(), Some(rest[i..].trim_end())),
        None => (rest.trim(), None),
    }
}

/// Where `mcp_servers:` is.
struct Section<'a> {
    /// Its key line.
    key: usize,
    /// The last line indented under it (`key` when none).
    last: usize,
    /// The indentation of its entries, if it has any.
    indent: Option<usize>,
    /// `Some` when the key line says `{}`, `~` or `null` (with its comment, if any).
    empty_value: Option<Option<&'a str>>,
}

fn find_section<'a>(lines: &[Line<'a>]) -> Result<Option<Section<'a>>, String> {
    let is_key = |l: &Line| {
        l.indent() == 0 && !l.comment() && split_key(l.text).is_some_and(|(k, _)| k == KEY)
    };
    let Some(key) = lines.iter().position(is_key) else {
        return Ok(None);
    };
    let (_, rest) = split_key(lines[key].text).ok_or(CHECK_FAILED)?;
    let empty_value = match value_and_comment(rest) {
        ("", _) => None,
        ("{}" | "~" | "null" | "Null" | "NULL", comment) => Some(comment),
        _ => {
            return Err(format!(
                "its `{KEY}:` has its value on the key's line (flow style, `{KEY}: {{…}}`), which this command does not edit: rewrite it as a block, one server per indented key, or edit the file by hand"
            ));
        }
    };
    let mut last = key;
    let mut indent = None;
    for (i, l) in lines.iter().enumerate().skip(key + 1) {
        if l.blank() {
            continue;
        }
        if l.indent() == 0 {
            if l.comment() {
                continue;
            }
            break;
        }
        last = i;
        if indent.is_none() && !l.comment() {
            indent = Some(l.indent());
        }
    }
    Ok(Some(Section {
        key,
        last,
        indent,
        empty_value,
    }))
}

/// The lines of one entry: its key line and the last line indented deeper.
struct Span {
    key: usize,
    last: usize,
}

fn find_entry(lines: &[Line], section: &Section<'_>, name: &str) -> Result<Option<Span>, String> {
    let Some(indent) = section.indent else {
        return Ok(None);
    };
    let mut found = None;
    for (i, l) in lines
        .iter()
        .enumerate()
        .take(section.last + 1)
        .skip(section.key + 1)
    {
        if l.blank() || l.comment() || l.indent() != indent {
            continue;
        }
        if split_key(&l.text[indent..]).is_some_and(|(k, _)| k == name) {
            if found.is_some() {
                return Err(format!("it defines `{name}` twice: keep one"));
            }
            found = Some(i);
        }
    }
    let Some(key) = found else {
        return Ok(None);
    };
    let mut last = key;
    for (i, l) in lines
        .iter()
        .enumerate()
        .take(section.last + 1)
        .skip(key + 1)
    {
        if l.blank() {
            continue;
        }
        if l.indent() <= indent {
            break;
        }
        last = i;
    }
    Ok(Some(Span { key, last }))
}

/// How much deeper than an entry's key its settings are indented (2 unless an
/// existing entry says otherwise).
fn step(lines: &[Line], section: &Section<'_>) -> usize {
    let Some(indent) = section.indent else {
        return 2;
    };
    let mut after_key = false;
    for l in &lines[section.key + 1..=section.last] {
        if l.blank() || l.comment() {
            continue;
        }
        if l.indent() == indent {
            after_key = true;
        } else if after_key && l.indent() > indent {
            return l.indent() - indent;
        }
    }
    2
}

/// The lines of an entry: its key at `indent`, each field `step` deeper.
fn entry_lines<K: AsRef<str>>(
    name: &str,
    fields: &[(K, Json)],
    indent: usize,
    step: usize,
) -> Vec<String> {
    let pad = " ".repeat(indent);
    let field_pad = " ".repeat(indent + step);
    let mut out = vec![format!("{pad}{}:", key_text(name))];
    for (key, value) in fields {
        out.push(format!(
            "{field_pad}{}: {}",
            key_text(key.as_ref()),
            inline(value)
        ));
    }
    out
}

/// A key plain when YAML reads it back as that string, else double-quoted (`"123"`,
/// `"null"`, `"-x"`).
fn key_text(key: &str) -> String {
    let plain = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !matches!(
            key.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        key.to_string()
    } else {
        Json::from(key).to_string()
    }
}

fn splice(text: &str, range: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// `text` with `block` inserted after line `i`; a last line without a newline stays
/// without one.
fn insert_after(text: &str, lines: &[Line], i: usize, block: &[String], eol: &str) -> String {
    let line = &lines[i];
    if line.has_eol() {
        let with: String = block.iter().map(|l| format!("{l}{eol}")).collect();
        splice(text, line.next..line.next, &with)
    } else {
        let with: String = block.iter().map(|l| format!("{eol}{l}")).collect();
        splice(text, line.end..line.end, &with)
    }
}

/// `text` without lines `first..=last`.
fn remove_lines(text: &str, lines: &[Line], first: usize, last: usize) -> String {
    if lines[last].has_eol() || first == 0 {
        splice(text, lines[first].start..lines[last].next, "")
    } else {
        // The last line of the file had no newline: neither does the new last line.
        splice(text, lines[first - 1].end..lines[last].next, "")
    }
}

#[cfg(test)]
mod tests;
