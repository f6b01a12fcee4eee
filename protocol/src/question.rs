//! The questions of an `AskUserQuestion` call and how a person answers them: each
//! answer is an option's label, its 1-based number, or free text; for a multi-select
//! question several labels or numbers separated by commas. Clients turn numbers into
//! labels with [`resolve`], so the daemon always receives labels (joined by `, `) or
//! free text.
//!
//! The input is `{"questions": [{"question", "header", "options": [{"label",
//! "description"}], "multiSelect"}]}`; the bare array, or a bare string, is accepted too.

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One question with its options. Its JSON Schema (the `AskUserQuestion` tool's) asks
/// for every field, while parsing stays lenient for input written elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    deny_unknown_fields,
    extend("required" = ["question", "header", "options", "multiSelect"]),
    transform = no_defaults
)]
pub struct Question {
    /// The full question
    #[serde(default)]
    pub question: String,
    /// A very short label, e.g. "Database"
    #[serde(default)]
    pub header: String,
    #[serde(default)]
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<Choice>,
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

/// One option of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    deny_unknown_fields,
    extend("required" = ["label", "description"]),
    transform = no_defaults
)]
pub struct Choice {
    pub label: String,
    #[serde(default)]
    pub description: String,
}

/// Drops the defaults the lenient parsing adds from the schema: whoever the schema is
/// for gives every field (`required` lists them all).
fn no_defaults(schema: &mut Schema) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Some(property) = property.as_object_mut() {
                property.remove("default");
            }
        }
    }
}

/// The questions of a tool input (`{"questions": [...]}` or the array itself);
/// entries that are not questions are skipped, a bare string is a question without
/// options.
pub fn parse(input: &Value) -> Vec<Question> {
    let items = match input {
        Value::Object(o) => match o.get("questions") {
            Some(Value::Array(items)) => items.as_slice(),
            _ => std::slice::from_ref(input),
        },
        Value::Array(items) => items.as_slice(),
        Value::String(_) => std::slice::from_ref(input),
        _ => return vec![],
    };
    items
        .iter()
        .filter_map(|item| match item {
            Value::String(s) => Some(Question {
                question: s.clone(),
                header: String::new(),
                options: vec![],
                multi_select: false,
            }),
            other => serde_json::from_value(other.clone()).ok(),
        })
        .collect()
}

/// The answer to send for what a person typed: option numbers become labels, labels
/// are written as the option spells them, anything else is kept as free text.
pub fn resolve(q: &Question, raw: &str) -> String {
    let raw = raw.trim();
    if !q.multi_select || q.choice(raw).is_some() {
        return q.choice(raw).map_or_else(|| raw.to_owned(), str::to_owned);
    }
    raw.split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| q.choice(part).unwrap_or(part))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Question {
    /// The label `raw` names: a 1-based number or a label (case aside).
    pub fn choice(&self, raw: &str) -> Option<&str> {
        if let Ok(n) = raw.parse::<usize>()
            && let Some(choice) = n.checked_sub(1).and_then(|i| self.options.get(i))
        {
            return Some(&choice.label);
        }
        self.options
            .iter()
            .find(|c| c.label.eq_ignore_ascii_case(raw))
            .map(|c| c.label.as_str())
    }

    /// `[Header] Question?` (without the header when there is none).
    pub fn title(&self) -> String {
        match self.header.trim() {
            "" => self.question.clone(),
            h => format!("[{h}] {}", self.question),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn questions_parse_from_every_accepted_shape() {
        let input = json!({"questions": [{"question": "Which?", "header": "DB",
            "options": [{"label": "pg", "description": "Postgres"}, {"label": "lite", "description": ""}],
            "multiSelect": true}]});
        let qs = parse(&input);
        assert_eq!(qs.len(), 1);
        assert_eq!(qs[0].title(), "[DB] Which?");
        assert_eq!(parse(&json!(["Why?"]))[0].question, "Why?");
        assert_eq!(parse(&json!("Why?"))[0].question, "Why?");
        assert!(parse(&json!(42)).is_empty());
        assert_eq!(resolve(&qs[0], "1, LITE, other"), "pg, lite, other");
        assert_eq!(qs[0].choice("3"), None);
    }
}
