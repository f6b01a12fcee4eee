//! The questions of an `AskUserQuestion` call and how a person answers them: each
//! answer is an option's label, its 1-based number, or free text; for a multi-select
//! question several labels or numbers separated by commas (parsing and resolving are
//! [`roocode_protocol::question`]'s; this module shows questions on a terminal).

pub use roocode_protocol::question::{Question, parse, resolve};

/// The numbered options, one a line: `1) label — description`.
pub fn option_lines(q: &Question) -> Vec<String> {
    q.options
        .iter()
        .enumerate()
        .map(|(i, c)| match c.description.trim() {
            "" => format!("{}) {}", i + 1, c.label),
            d => format!("{}) {} — {d}", i + 1, c.label),
        })
        .collect()
}

/// How to answer this question, in a few words.
pub fn hint(q: &Question) -> &'static str {
    match (q.options.is_empty(), q.multi_select) {
        (true, _) => "type your answer",
        (false, false) => "answer with a number, a label, or your own text",
        (false, true) => "answer with numbers or labels separated by commas, or your own text",
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
        for line in option_lines(q) {
            out.push_str(&format!("       {line}\n"));
        }
    }
    out.push_str("each ANSWER may be an option's label, its number, or your own text");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

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
