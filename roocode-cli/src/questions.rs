//! The questions of an `AskUserQuestion` call and how a person answers them: each
//! answer is an option's label, its 1-based number, or free text; for a multi-select
//! question several labels or numbers separated by commas. Numbers are turned into
//! labels here, so the daemon always receives labels (joined by `, `) or free text.
//!
//! The input is `{"questions": [{"question", "header", "options": [{"label",
//! "description"}], "multiSelect"}]}`; the bare array is accepted too.

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
    fn choice(&self, raw: &str) -> Option<&str> {
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

    /// The numbered options, one a line: `1) label — description`.
    pub fn option_lines(&self) -> Vec<String> {
        self.options
            .iter()
            .enumerate()
            .map(|(i, c)| match c.description.trim() {
                "" => format!("{}) {}", i + 1, c.label),
                d => format!("{}) {} — {d}", i + 1, c.label),
            })
            .collect()
    }

    /// How to answer this question, in a few words.
    pub fn hint(&self) -> &'static str {
        match (self.options.is_empty(), self.multi_select) {
            (true, _) => "type your answer",
            (false, false) => "answer with a number, a label, or your own text",
            (false, true) => "answer with numbers or labels separated by commas, or your own text",
        }
    }
}

/// One answer per question, resolved; the error explains the questions when the count
/// is wrong or an answer is empty.
pub fn resolve_all(
    request_id: &str,
    questions: &[Question],
    raw: &[String],
) -> Result<Vec<String>, String> {
    if raw.len() != questions.len() {
        let asks = match questions.len() {
            1 => "1 question".to_owned(),
            n => format!("{n} questions"),
        };
        return Err(format!(
            "{request_id} asks {asks} and {} answer{} given; give one ANSWER per question, in order:\n{}",
            raw.len(),
            if raw.len() == 1 { " was" } else { "s were" },
            describe(questions)
        ));
    }
    let answers: Vec<String> = questions
        .iter()
        .zip(raw)
        .map(|(q, a)| resolve(q, a))
        .collect();
    if let Some(i) = answers.iter().position(String::is_empty) {
        return Err(format!(
            "answer {} is empty; give one ANSWER per question, in order:\n{}",
            i + 1,
            describe(questions)
        ));
    }
    Ok(answers)
}

/// The questions, numbered, each with its numbered options, and how to answer.
pub fn describe(questions: &[Question]) -> String {
    let mut out = String::new();
    for (i, q) in questions.iter().enumerate() {
        out.push_str(&format!("  {}. {}", i + 1, q.title()));
        if q.multi_select {
            out.push_str(" (several: separate them with commas)");
        }
        out.push('\n');
        for line in q.option_lines() {
            out.push_str(&format!("       {line}\n"));
        }
    }
    out.push_str("each ANSWER may be an option's label, its number, or your own text");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn input() -> Value {
        crate::test_support::questions_input()
    }

    fn raw(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_the_tool_input_and_the_bare_array() {
        let qs = parse(&input());
        assert_eq!(qs.len(), 2);
        assert_eq!(qs[0].options[1].label, "SQLite");
        assert!(!qs[0].multi_select && qs[1].multi_select);
        assert_eq!(parse(&input()["questions"]), qs);
        assert_eq!(parse(&json!(["Go on?"]))[0].question, "Go on?");
        assert!(parse(&json!(null)).is_empty());
    }

    #[test]
    fn labels_numbers_and_free_text() {
        let qs = parse(&input());
        assert_eq!(resolve(&qs[0], "2"), "SQLite");
        assert_eq!(resolve(&qs[0], " sqlite "), "SQLite");
        assert_eq!(resolve(&qs[0], "Postgres"), "Postgres");
        assert_eq!(resolve(&qs[0], "MySQL please"), "MySQL please");
        assert_eq!(resolve(&qs[0], "3"), "3", "out of range: free text");
        assert_eq!(resolve(&qs[0], "1,2"), "1,2", "single-select: no lists");
    }

    #[test]
    fn comma_lists_for_multi_select() {
        let qs = parse(&input());
        assert_eq!(resolve(&qs[1], "1,2"), "auth, search");
        assert_eq!(resolve(&qs[1], "search, 1"), "search, auth");
        assert_eq!(resolve(&qs[1], "2, logging,"), "search, logging");
        assert_eq!(resolve(&qs[1], "a, b"), "a, b", "a label with a comma");
        assert_eq!(resolve(&qs[1], "3"), "a, b");
    }

    #[test]
    fn one_answer_per_question() {
        let qs = parse(&input());
        assert_eq!(
            resolve_all("Q1", &qs, &raw(&["1", "2,3"])).unwrap(),
            ["Postgres", "search, a, b"]
        );
        let err = resolve_all("Q1", &qs, &raw(&["1"])).unwrap_err();
        assert_eq!(
            err,
            "\
Q1 asks 2 questions and 1 answer was given; give one ANSWER per question, in order:
  1. [DB] Which database?
       1) Postgres — robust
       2) SQLite — simple
  2. [Features] Which features? (several: separate them with commas)
       1) auth
       2) search
       3) a, b
each ANSWER may be an option's label, its number, or your own text"
        );
        assert!(
            resolve_all("Q1", &qs, &[])
                .unwrap_err()
                .starts_with("Q1 asks 2 questions and 0 answers were given")
        );
        assert!(
            resolve_all("Q1", &qs, &raw(&["1", " , "]))
                .unwrap_err()
                .starts_with("answer 2 is empty")
        );
    }
}
