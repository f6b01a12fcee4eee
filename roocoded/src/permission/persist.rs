//! "Allow always" (DESIGN §8, layer 5): the rule that allows a call again, and writing
//! it into `<root>/.roocode/config.local.yaml` **as text**, so the file's comments,
//! order and formatting stay as the user left them.
//!
//! The editor understands the shapes a human writes: no `permissions:` yet (a block is
//! appended), `permissions:` without `allow:` (the key is added at the block's
//! indentation), a block list `allow:\n  - …` (the item goes after the last one, same
//! indentation), and a flow list `allow: [a, b]` (also across lines). Before writing,
//! the result is parsed and must equal the old document with exactly the rule appended
//! to `permissions.allow`; anything else (a broken file, `permissions: {…}` in flow
//! style) is an error and the file is left alone. [`append_allow_rule_at`] tells the
//! file and line the rule ended up at, its origin for the flight recorder.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use yaml_serde::{Mapping, Value};

mod ignore;

use super::network::Host;
use super::rules::{RuleKind, escape_glob, normalize};
use crate::config::RuleOrigin;
use crate::permission::PermissionTarget;

/// Where "allow always" rules go, relative to the project root.
pub const LOCAL_CONFIG: &str = ".roocode/config.local.yaml";

/// Serialises writers in this process (two approvals at once must both land).
static WRITE_LOCK: Mutex<()> = Mutex::new(());

const READ_TOOLS: [&str; 4] = ["Read", "Glob", "Grep", "LS"];

/// The rule that allows this call again: `Bash(<the exact command>)` (stars and
/// backslashes escaped so it stays exact), `Edit(<path relative to the root>)` for any
/// file write, `Read(…)` for reads (a top-level file is written `/name` so it does not
/// match the same name deeper; a file outside the root is `//abs/path`),
/// `WebFetch(domain:<host>)`, or the bare tool name.
pub fn rule_for(tool: &str, target: &PermissionTarget, root: &Path) -> String {
    match target {
        PermissionTarget::Command(command) => {
            format!(
                "{tool}({})",
                command.trim().replace('\\', "\\\\").replace('*', "\\*")
            )
        }
        PermissionTarget::Path { path, write } => {
            let kind = if *write {
                "Edit"
            } else if READ_TOOLS.contains(&tool) {
                "Read"
            } else {
                tool
            };
            format!("{kind}({})", path_spec(path, root))
        }
        PermissionTarget::Url(url) => match Host::of_url(url) {
            Some(host) => format!("{tool}(domain:{})", host.rule_text()),
            None => tool.to_string(),
        },
        PermissionTarget::None => tool.to_string(),
    }
}

fn path_spec(path: &Path, root: &Path) -> String {
    let abs = normalize(&root.join(path));
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let real_abs = super::sandbox::real_path(&abs).unwrap_or_else(|_| abs.clone());
    let rel = abs
        .strip_prefix(root)
        .ok()
        .or_else(|| real_abs.strip_prefix(&real_root).ok());
    let join = |p: &Path| {
        p.components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .map(|c| escape_glob(&c.as_os_str().to_string_lossy()))
            .collect::<Vec<_>>()
            .join("/")
    };
    match rel {
        Some(rel) => {
            let text = join(rel);
            if text.contains('/') {
                text
            } else {
                format!("/{text}")
            }
        }
        None => format!("//{}", join(&abs)),
    }
}

/// Appends `rule` to `permissions.allow` of `<root>/.roocode/config.local.yaml`,
/// creating the file and directory if needed; a rule already there is not added again.
/// `.roocode/.gitignore` is made to list the file (`ignore.rs`).
pub fn append_allow_rule(root: &Path, rule: &str) -> io::Result<()> {
    append_allow_rule_at(root, rule).map(|_| ())
}

/// [`append_allow_rule`], telling where the rule now is: the local config file and the
/// rule's line in it (the line it already had, if it was there), so the turn's
/// configuration can name it (`PermissionsConfig::add_allow_rule`).
pub fn append_allow_rule_at(root: &Path, rule: &str) -> io::Result<RuleOrigin> {
    let _guard = WRITE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let origin = add_rule(root, rule)?;
    if let Err(e) = ignore::ignore_local_config(root) {
        tracing::warn!("cannot add {LOCAL_CONFIG} to .roocode/.gitignore: {e}");
    }
    Ok(origin)
}

fn add_rule(root: &Path, rule: &str) -> io::Result<RuleOrigin> {
    let path = root.join(LOCAL_CONFIG);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let text = match with_allow_rule(&text, rule)? {
        None => text,
        Some(new_text) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            write_atomically(&path, &new_text)?;
            new_text
        }
    };
    // The edit was checked to parse with the rule in `permissions.allow`: it is there.
    let line = crate::config::rule_line(&text, RuleKind::Allow, rule).unwrap_or(1);
    Ok(RuleOrigin::new(path, line))
}

fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let mut tmp = PathBuf::from(path);
    tmp.set_extension(format!("yaml.tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, meta.permissions())?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

/// `text` with `rule` appended to `permissions.allow`, or `None` if it is already there.
pub fn with_allow_rule(text: &str, rule: &str) -> io::Result<Option<String>> {
    let old: Value = yaml_serde::from_str(text)
        .map_err(|e| invalid(format!("{LOCAL_CONFIG} is not valid YAML: {e}")))?;
    let allow = old.get("permissions").and_then(|p| p.get("allow"));
    if allow
        .and_then(Value::as_sequence)
        .is_some_and(|items| items.iter().any(|v| v.as_str() == Some(rule)))
    {
        return Ok(None);
    }
    let edited = edit(text, rule)?;
    let new: Value = yaml_serde::from_str(&edited)
        .map_err(|e| invalid(format!("adding the rule would break {LOCAL_CONFIG}: {e}")))?;
    if new != expected(old, rule)? {
        return Err(invalid(format!(
            "cannot add the rule to {LOCAL_CONFIG} safely; add {rule:?} to permissions.allow by hand"
        )));
    }
    Ok(Some(edited))
}

/// The document `old` with `rule` appended to `permissions.allow`.
fn expected(old: Value, rule: &str) -> io::Result<Value> {
    let mut doc = if old.is_null() {
        Value::Mapping(Mapping::new())
    } else {
        old
    };
    let root = doc
        .as_mapping_mut()
        .ok_or_else(|| invalid(format!("{LOCAL_CONFIG} is not a mapping of keys")))?;
    let perms = root
        .entry(Value::from("permissions"))
        .or_insert(Value::Null);
    if perms.is_null() {
        *perms = Value::Mapping(Mapping::new());
    }
    let perms = perms
        .as_mapping_mut()
        .ok_or_else(|| invalid("permissions is not a mapping"))?;
    let allow = perms.entry(Value::from("allow")).or_insert(Value::Null);
    if allow.is_null() {
        *allow = Value::Sequence(Vec::new());
    }
    allow
        .as_sequence_mut()
        .ok_or_else(|| invalid("permissions.allow is not a list"))?
        .push(Value::from(rule));
    Ok(doc)
}

/// A YAML double-quoted scalar.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                out.push_str(&format!("\\u{:04X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Blank or comment-only.
fn is_filler(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// `key: rest` for a line whose key (plain or quoted) is `key`.
fn key_rest<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let t = line.trim_start();
    let after = [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
        .iter()
        .find_map(|k| {
            t.strip_prefix(k.as_str())
                .map(|r| r.trim_start_matches(' '))
        })?;
    let rest = after.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(rest)
}

/// The value part of `key: value  # comment` is empty, `null` or `~`.
fn is_empty_value(rest: &str) -> bool {
    let value = rest.split(" #").next().unwrap_or("").trim();
    value.is_empty() || value.starts_with('#') || value == "null" || value == "~"
}

/// The text edit itself (checked by the caller).
fn edit(text: &str, rule: &str) -> io::Result<String> {
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let item = quote(rule);
    let header = lines
        .iter()
        .position(|l| indent_of(l) == 0 && key_rest(l, "permissions").is_some());
    let Some(h) = header else {
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push("permissions:".into());
        lines.push("  allow:".into());
        lines.push(format!("    - {item}"));
        return Ok(lines.join(nl) + nl);
    };
    let rest = key_rest(&lines[h], "permissions").unwrap_or("");
    if !is_empty_value(rest) && rest.trim() != "{}" {
        return Err(invalid(
            "permissions is written in flow style ({…}); add the rule by hand",
        ));
    }
    if !rest.trim().is_empty() && !rest.trim().starts_with('#') {
        lines[h] = "permissions:".into();
    }
    let block_end = (h + 1..lines.len())
        .find(|&i| !is_filler(&lines[i]) && indent_of(&lines[i]) == 0)
        .unwrap_or(lines.len());
    let content: Vec<usize> = (h + 1..block_end)
        .filter(|&i| !is_filler(&lines[i]))
        .collect();
    let child = content.first().map_or(2, |&i| indent_of(&lines[i]));
    let pad = |n: usize| " ".repeat(n);
    let allow = content
        .iter()
        .copied()
        .find(|&i| indent_of(&lines[i]) == child && key_rest(&lines[i], "allow").is_some());
    let Some(a) = allow else {
        let at = content.last().map_or(h + 1, |&i| i + 1);
        let new = [
            format!("{}allow:", pad(child)),
            format!("{}- {item}", pad(child + 2)),
        ];
        lines.splice(at..at, new);
        return Ok(lines.join(nl) + nl);
    };
    let rest = key_rest(&lines[a], "allow").unwrap_or("").to_string();
    let value = rest.trim();
    if value.starts_with('[') {
        return flow_insert(text, &lines, a, &item);
    }
    if !is_empty_value(&rest) {
        return Err(invalid("permissions.allow is not a list"));
    }
    if !value.is_empty() && !value.starts_with('#') {
        // `allow: null` / `allow: ~`
        lines[a] = format!("{}allow:", pad(child));
    }
    let mut last = a;
    let mut item_indent = None;
    for (i, line) in lines.iter().enumerate().take(block_end).skip(a + 1) {
        if is_filler(line) {
            continue;
        }
        let ind = indent_of(line);
        let dash = line.trim_start().starts_with('-');
        if ind > child || (ind == child && dash) {
            if dash && item_indent.is_none() {
                item_indent = Some(ind);
            }
            last = i;
        } else {
            break;
        }
    }
    let line = format!("{}- {item}", pad(item_indent.unwrap_or(child + 2)));
    lines.insert(last + 1, line);
    Ok(lines.join(nl) + nl)
}

/// Appends `item` inside the flow list that starts on line `a`.
fn flow_insert(text: &str, lines: &[String], a: usize, item: &str) -> io::Result<String> {
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let joined = lines.join(nl) + nl;
    let line_start: usize = lines[..a].iter().map(|l| l.len() + nl.len()).sum();
    let open = joined[line_start..]
        .find('[')
        .map(|i| line_start + i)
        .ok_or_else(|| invalid("malformed flow list"))?;
    let bytes: Vec<(usize, char)> = joined[open..]
        .char_indices()
        .map(|(i, c)| (i + open, c))
        .collect();
    let (mut depth, mut quote, mut comment) = (0usize, None::<char>, false);
    let mut last_content = open;
    let mut prev = ' ';
    for &(i, c) in &bytes {
        if comment {
            comment = c != '\n';
        } else if let Some(q) = quote {
            if c == q && !(q == '"' && prev == '\\') {
                quote = None;
            }
            last_content = i;
        } else {
            match c {
                '"' | '\'' => quote = Some(c),
                '#' if prev.is_whitespace() => comment = true,
                '[' | '{' => depth += 1,
                ']' | '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let sep = if last_content == open {
                            ""
                        } else if joined[last_content..].starts_with(',') {
                            " "
                        } else {
                            ", "
                        };
                        let at = last_content
                            + joined[last_content..]
                                .chars()
                                .next()
                                .map_or(0, char::len_utf8);
                        let mut out = joined;
                        out.insert_str(at, &format!("{sep}{item}"));
                        return Ok(out);
                    }
                }
                _ => {}
            }
            if !c.is_whitespace() && !comment && depth >= 1 && (depth != 1 || c != '[' || i != open)
            {
                last_content = i;
            }
        }
        prev = c;
    }
    Err(invalid("unterminated flow list in permissions.allow"))
}

#[cfg(test)]
mod tests;
