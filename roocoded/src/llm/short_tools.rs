//! Tools for small context windows (a local model's 8,192 tokens): below
//! `context.small_window_tokens`, each tool is sent with its short description (the
//! first sentence of its description, capped) and a schema without the properties'
//! descriptions, so the system prompt and the tools leave room for the conversation.
//! The transformation is deterministic: the request stays byte-identical between calls
//! (prompt caching keeps working).

use std::sync::Arc;

use serde_json::Value;

use super::ToolSpec;

/// The longest short description, in characters.
const MAX_SHORT_CHARS: usize = 160;

/// `defs` as a request for a `window`-token model sends them: as they are, or short
/// when the window is below `small_window`.
pub fn tools_for_window(defs: Vec<ToolSpec>, window: u64, small_window: u64) -> Vec<ToolSpec> {
    if window >= small_window {
        return defs;
    }
    defs.into_iter().map(|d| d.short()).collect()
}

impl ToolSpec {
    /// This tool with its short description and a schema without descriptions.
    pub fn short(&self) -> ToolSpec {
        let mut schema = self.input_schema.clone();
        strip_descriptions(&mut schema);
        ToolSpec {
            name: self.name.clone(),
            description: Arc::from(short_description(&self.description)),
            input_schema: schema,
        }
    }
}

/// The first sentence of `description` (its first line at most; `e.g.` and `i.e.` do
/// not end it), cut at a clause boundary when it is longer than `MAX_SHORT_CHARS` (160).
pub fn short_description(description: &str) -> String {
    let line = description.trim().lines().next().unwrap_or_default().trim();
    let mut sentence = line;
    let bytes = line.as_bytes();
    for (at, _) in line.match_indices('.') {
        let ends = bytes.get(at + 1).is_none_or(|b| b.is_ascii_whitespace());
        let before = &line[..at];
        let abbreviation = ["e.g", "i.e", "etc", "vs"]
            .iter()
            .any(|a| before.ends_with(a));
        if ends && !abbreviation {
            sentence = &line[..=at];
            break;
        }
    }
    if sentence.chars().count() <= MAX_SHORT_CHARS {
        return sentence.to_string();
    }
    let cap = sentence
        .char_indices()
        .nth(MAX_SHORT_CHARS)
        .map_or(sentence.len(), |(i, _)| i);
    let head = &sentence[..cap];
    let clause = [": ", "; ", ", ", " ("]
        .iter()
        .filter_map(|sep| head.rfind(sep))
        .max()
        .filter(|i| *i > MAX_SHORT_CHARS / 3);
    let cut = match clause {
        Some(i) => &head[..i],
        None => head.rsplit_once(' ').map_or(head, |(h, _)| h),
    };
    format!("{}.", cut.trim_end_matches([' ', ',', ';', ':', '.']))
}

/// Removes the `description` of every property, at any depth (names, types, enums and
/// `required` stay).
fn strip_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
