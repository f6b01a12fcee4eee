//! Every problem of one config file at once (issue 7). A file is first read as it
//! always is, strictly (`deny_unknown_fields`: a typo such as `permisions:` is an error,
//! never a section silently dropped). Only when that fails does [`problems`] look for
//! all the others: it deserialises the file again and again, each time without the
//! entries already found at fault ([`filter`]), until the rest reads, so that:
//!
//! - an unknown key is reported at its line with the closest valid key (`did you mean
//!   `allow`?`) and the keys valid at that level, which come from the structs' own serde
//!   names (`deserialize_struct`), so no list of keys is kept by hand;
//! - a value of the wrong type is reported at its line with serde's message (`max_turns:
//!   invalid type: string "x", expected u32`), one per key;
//! - a struct that lacks a required key only because one of its keys was left out
//!   (`providers.x: {type: grpc}`) is not reported twice.
//!
//! Raw sections (`hooks`, `recovery`, `mcp_servers`) are not looked into here; the
//! `mcp_servers` entries are checked by `mcp_servers.rs` with the same function.

mod filter;
mod locate;

use std::cell::RefCell;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::error::Problem;
use filter::{Failure, Filter, KeyPath, Seg};

/// At most this many deserialisations of one file (each finds one problem or ends).
const MAX_PASSES: usize = 64;

/// The problems of `text` (valid YAML) read as a `T`, by line; empty if it reads.
pub(crate) fn problems<T: DeserializeOwned>(path: &Path, text: &str) -> Vec<Problem> {
    let mut hidden: Vec<KeyPath> = Vec::new();
    let mut found = Vec::new();
    for pass in 0..=MAX_PASSES {
        let failure = RefCell::new(None);
        let de = yaml_serde::Deserializer::from_str(text);
        let Err(err) = T::deserialize(Filter::new(de, &hidden, &failure)) else {
            break;
        };
        if pass == MAX_PASSES {
            found.push(Problem::new(
                path,
                None,
                "there are more problems than these: fix these first",
            ));
            break;
        }
        let Some(failure) = failure.into_inner() else {
            // Not inside any entry: nothing to leave out and go on without.
            found.push(Problem::from_yaml(path, &err));
            break;
        };
        if hidden.contains(&failure.path) {
            break;
        }
        if !is_consequence(&failure, &err, &hidden) {
            found.push(describe(path, text, &failure, &err));
        }
        hidden.push(failure.path);
    }
    sort(&mut found);
    found
}

/// The 1-based line of the entry `index` of the list at `keys` (`permissions`,
/// `allow`) in `text`, a file that parses; `None` if there is no such entry.
pub(crate) fn item_line(text: &str, keys: &[&str], index: usize) -> Option<u32> {
    let mut path: KeyPath = keys.iter().map(|k| Seg::Key((*k).to_string())).collect();
    path.push(Seg::Index(index));
    let (line, _) = locate::value_position(text, &path)?;
    u32::try_from(line).ok()
}

/// The 1-based line of the last key of `keys` in `text`, if it is there.
pub(crate) fn key_line(text: &str, keys: &[&str]) -> Option<u32> {
    let path: KeyPath = keys.iter().map(|k| Seg::Key((*k).to_string())).collect();
    let (line, _) = locate::key_position(text, &path)?;
    u32::try_from(line).ok()
}

/// By position; problems without one last.
pub(crate) fn sort(problems: &mut [Problem]) {
    problems.sort_by_key(|p| (p.line.unwrap_or(usize::MAX), p.column.unwrap_or(0)));
}

/// A `missing field `k`` of a struct whose `k` was left out for a problem of its own.
fn is_consequence(failure: &Failure, err: &yaml_serde::Error, hidden: &[KeyPath]) -> bool {
    let text = err.to_string();
    let Some(rest) = text.split("missing field `").nth(1) else {
        return false;
    };
    let Some(field) = rest.split('`').next() else {
        return false;
    };
    let mut path = failure.path.clone();
    path.push(Seg::Key(field.to_string()));
    hidden.contains(&path)
}

fn describe(path: &Path, text: &str, failure: &Failure, err: &yaml_serde::Error) -> Problem {
    match (failure.key, failure.fields, failure.path.split_last()) {
        (true, Some(fields), Some((Seg::Key(key), parent))) => Problem::new(
            path,
            locate::key_position(text, &failure.path),
            unknown_key(key, parent, fields),
        ),
        (true, _, _) => {
            let message = Problem::from_yaml(path, err).message;
            Problem::new(
                path,
                locate::key_position(text, &failure.path),
                format!("{}: {message}", shown(&failure.path)),
            )
        }
        _ => value_problem(path, text, &failure.path, err),
    }
}

/// A value refused at `at`: serde's message, headed by the key path. Its position is
/// the error's, unless the error was placed at an enclosing level (a check of a
/// `deserialize_with` function runs after its value was read): then the value's own.
fn value_problem(path: &Path, text: &str, at: &[Seg], err: &yaml_serde::Error) -> Problem {
    let yaml = Problem::from_yaml(path, err);
    if at.is_empty() {
        return yaml;
    }
    let own = shown(at);
    if yaml.message.starts_with(&format!("{own}: ")) {
        return yaml;
    }
    // yaml_serde heads the message with the level it placed the error at.
    let mut rest = yaml.message.as_str();
    for len in (1..at.len()).rev() {
        if let Some(after) = rest.strip_prefix(&format!("{}: ", shown(&at[..len]))) {
            rest = after;
            break;
        }
    }
    let position = locate::value_position(text, at).or(yaml.line.zip(yaml.column));
    Problem::new(path, position, format!("{own}: {rest}"))
}

/// ``unknown key `alow` in `permissions` (did you mean `allow`?); valid keys there: ...``
fn unknown_key(key: &str, parent: &[Seg], fields: &[&str]) -> String {
    let place = if parent.is_empty() {
        String::new()
    } else {
        format!(" in `{}`", shown(parent))
    };
    let hint = roocode_protocol::command::closest(key, fields)
        .first()
        .map(|best| format!(" (did you mean `{best}`?)"))
        .unwrap_or_default();
    let level = if parent.is_empty() {
        "valid top-level keys"
    } else {
        "valid keys there"
    };
    format!(
        "unknown key `{key}`{place}{hint}; {level}: {}",
        fields.join(", ")
    )
}

/// `permissions.allow[2]`.
fn shown(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}
