//! The questions of an `AskUserQuestion` call: `{"questions": [{"question", "header",
//! "options": [{"label", "description"}], "multiSelect"}]}` (the bare array, or a bare
//! string, accepted too) — the shape `roocode-cli` reads as well.

use serde::Deserialize;
use serde_json::Value;

/// One question with its options.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Question {
    #[serde(default)]
    pub question: String,
    #[serde(default)]
    pub header: String,
    #[serde(default)]
    pub options: Vec<Choice>,
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

/// One option of a question.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Choice {
    pub label: String,
    #[serde(default)]
    pub description: String,
}

impl Question {
    /// `[Header] Question?` (without the header when there is none).
    pub fn title(&self) -> String {
        match self.header.trim() {
            "" => self.question.clone(),
            h => format!("[{h}] {}", self.question),
        }
    }
}

/// The questions of a tool input; entries that are not questions are skipped.
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn questions_parse_from_every_accepted_shape() {
        let input = json!({"questions": [{"question": "Which?", "header": "DB",
            "options": [{"label": "pg", "description": "Postgres"}], "multiSelect": true}]});
        let qs = parse(&input);
        assert_eq!(qs.len(), 1);
        assert!(qs[0].multi_select);
        assert_eq!(qs[0].title(), "[DB] Which?");
        assert_eq!(parse(&json!(["Why?"]))[0].question, "Why?");
        assert!(parse(&json!(42)).is_empty());
    }
}
