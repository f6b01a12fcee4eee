//! One interactive prompt of `send` as a pure state machine: a permission request
//! (`[y] allow once  [a] allow always  [n] deny`, then optional feedback) or the
//! questions of an `AskUserQuestion` call (one typed answer per question, numbers
//! turned into labels). Each line the user types is a step; the last one yields the
//! [`Reply`] to send. Showing it and reading the terminal are the caller's business.

use std::path::Path;

use roocode_protocol::session::{PendingRequest, PermissionDecision};
use serde_json::Value;

use crate::questions::{self, Question};
use crate::render::main_arg;

/// The choices offered for a permission request.
pub const CHOICES: &str = "[y] allow once  [a] allow always  [n] deny (with optional feedback)";
/// Where the user types.
pub const CURSOR: &str = "> ";
/// Where the user types the feedback of a deny.
pub const FEEDBACK_CURSOR: &str = "feedback> ";
/// Most lines of a command shown in a permission prompt.
const MAX_COMMAND_LINES: usize = 20;

/// What the user decided, to send to the daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Permission {
        request_id: String,
        decision: PermissionDecision,
        feedback: Option<String>,
    },
    Question {
        request_id: String,
        answers: Vec<String>,
    },
}

impl Reply {
    pub fn request_id(&self) -> &str {
        match self {
            Reply::Permission { request_id, .. } | Reply::Question { request_id, .. } => request_id,
        }
    }
}

/// The outcome of one typed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The prompt goes on: show these lines, then the cursor again.
    Ask(Vec<String>),
    /// The prompt is over: send this.
    Done(Reply),
}

/// A prompt waiting for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    Permission {
        request_id: String,
        tool: String,
        /// What the call does: the whole command, or the path/argument.
        detail: Vec<String>,
        reason: String,
        /// `n` was typed: the next line is the feedback.
        awaiting_feedback: bool,
    },
    Question {
        request_id: String,
        questions: Vec<Question>,
        answers: Vec<String>,
    },
}

impl Prompt {
    /// A prompt for a `permission_request`.
    pub fn permission(
        request_id: &str,
        tool: &str,
        input: &Value,
        reason: &str,
        cwd: Option<&Path>,
    ) -> Prompt {
        Prompt::Permission {
            request_id: request_id.to_owned(),
            tool: tool.to_owned(),
            detail: detail(input, cwd),
            reason: reason.trim().to_owned(),
            awaiting_feedback: false,
        }
    }

    /// A prompt for a `question`; `None` when it holds no question this client reads
    /// (it can still be answered with `roocode-cli answer`).
    pub fn question(request_id: &str, questions: &Value) -> Option<Prompt> {
        let questions = questions::parse(questions);
        (!questions.is_empty()).then(|| Prompt::Question {
            request_id: request_id.to_owned(),
            questions,
            answers: vec![],
        })
    }

    /// A prompt for a request listed by a snapshot.
    pub fn pending(p: &PendingRequest, cwd: Option<&Path>) -> Option<Prompt> {
        match p.kind.as_str() {
            "question" => Prompt::question(&p.request_id, &p.input),
            _ => {
                let mut prompt =
                    Prompt::permission(&p.request_id, &p.tool, &p.input, &p.reason, cwd);
                if let Prompt::Permission { detail, .. } = &mut prompt
                    && detail.is_empty()
                    && !p.summary.trim().is_empty()
                {
                    detail.push(p.summary.trim().to_owned());
                }
                Some(prompt)
            }
        }
    }

    pub fn request_id(&self) -> &str {
        match self {
            Prompt::Permission { request_id, .. } | Prompt::Question { request_id, .. } => {
                request_id
            }
        }
    }

    /// The lines shown when the prompt opens (the cursor follows).
    pub fn opening(&self) -> Vec<String> {
        match self {
            Prompt::Permission {
                tool,
                detail,
                reason,
                ..
            } => {
                let mut lines = match detail.split_first() {
                    Some((first, rest)) => {
                        let indent = " ".repeat(tool.chars().count() + 4);
                        let mut lines = vec![format!("  {tool}: {first}")];
                        lines.extend(rest.iter().map(|l| format!("{indent}{l}")));
                        lines
                    }
                    None => vec![format!("  {tool}")],
                };
                if !reason.is_empty() {
                    lines.push(format!("  reason: {reason}"));
                }
                lines.push(format!("  {CHOICES}"));
                lines
            }
            Prompt::Question {
                questions, answers, ..
            } => question_lines(questions, answers.len()),
        }
    }

    /// Where the user types now.
    pub fn cursor(&self) -> &'static str {
        match self {
            Prompt::Permission {
                awaiting_feedback: true,
                ..
            } => FEEDBACK_CURSOR,
            _ => CURSOR,
        }
    }

    /// Takes one typed line (without its newline).
    pub fn on_input(&mut self, line: &str) -> Step {
        let line = line.trim();
        match self {
            Prompt::Permission {
                request_id,
                awaiting_feedback,
                ..
            } => {
                let done = |decision, feedback: Option<&str>| {
                    Step::Done(Reply::Permission {
                        request_id: request_id.clone(),
                        decision,
                        feedback: feedback.filter(|f| !f.is_empty()).map(str::to_owned),
                    })
                };
                if *awaiting_feedback {
                    return done(PermissionDecision::Deny, Some(line));
                }
                let (word, rest) = line
                    .split_once(char::is_whitespace)
                    .map_or((line, ""), |(w, r)| (w, r.trim()));
                match word.to_ascii_lowercase().as_str() {
                    "y" | "yes" | "allow" if rest.is_empty() => {
                        done(PermissionDecision::Allow, None)
                    }
                    "a" | "always" if rest.is_empty() => {
                        done(PermissionDecision::AllowAlways, None)
                    }
                    "n" | "no" | "deny" if !rest.is_empty() => {
                        done(PermissionDecision::Deny, Some(rest))
                    }
                    "n" | "no" | "deny" => {
                        *awaiting_feedback = true;
                        Step::Ask(vec![
                            "  feedback for the model (optional; Enter to deny without)".into(),
                        ])
                    }
                    _ => Step::Ask(vec![format!("  type y, a or n — {CHOICES}")]),
                }
            }
            Prompt::Question {
                request_id,
                questions,
                answers,
            } => {
                let Some(q) = questions.get(answers.len()) else {
                    return Step::Done(Reply::Question {
                        request_id: request_id.clone(),
                        answers: answers.clone(),
                    });
                };
                let answer = questions::resolve(q, line);
                if answer.is_empty() {
                    return Step::Ask(vec![format!("  {}", questions::hint(q))]);
                }
                answers.push(answer);
                if answers.len() < questions.len() {
                    Step::Ask(question_lines(questions, answers.len()))
                } else {
                    Step::Done(Reply::Question {
                        request_id: request_id.clone(),
                        answers: answers.clone(),
                    })
                }
            }
        }
    }
}

/// What a permission prompt shows of the call: every line of a command or of a plan
/// (up to `MAX_COMMAND_LINES`), else the main argument.
fn detail(input: &Value, cwd: Option<&Path>) -> Vec<String> {
    let whole = ["command", "plan"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str));
    if let Some(command) = whole {
        let lines: Vec<&str> = command.trim_end().lines().collect();
        let mut out: Vec<String> = lines
            .iter()
            .take(MAX_COMMAND_LINES)
            .map(|l| (*l).to_owned())
            .collect();
        if lines.len() > MAX_COMMAND_LINES {
            out.push(format!("… (+{} lines)", lines.len() - MAX_COMMAND_LINES));
        }
        if !out.is_empty() {
            return out;
        }
    }
    main_arg(input, cwd).into_iter().collect()
}

/// Question `i` of `questions`: its title (numbered when there are several), its
/// numbered options and how to answer.
fn question_lines(questions: &[Question], i: usize) -> Vec<String> {
    let Some(q) = questions.get(i) else {
        return vec![];
    };
    let mut lines = vec![if questions.len() > 1 {
        format!("  ({}/{}) {}", i + 1, questions.len(), q.title())
    } else {
        format!("  {}", q.title())
    }];
    lines.extend(
        questions::option_lines(q)
            .into_iter()
            .map(|l| format!("    {l}")),
    );
    lines.push(format!("  {}", questions::hint(q)));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{pending, questions_input};
    use serde_json::json;

    fn bash() -> Prompt {
        Prompt::permission(
            "R1",
            "Bash",
            &json!({"command": "cargo test\n  --quiet"}),
            "commands need approval",
            None,
        )
    }

    fn decision(step: Step) -> (PermissionDecision, Option<String>) {
        match step {
            Step::Done(Reply::Permission {
                decision, feedback, ..
            }) => (decision, feedback),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_permission_prompt_shows_the_call_the_reason_and_the_choices() {
        assert_eq!(
            bash().opening(),
            [
                "  Bash: cargo test",
                "          --quiet",
                "  reason: commands need approval",
                "  [y] allow once  [a] allow always  [n] deny (with optional feedback)",
            ]
        );
        let edit = Prompt::permission(
            "R2",
            "Edit",
            &json!({"file_path": "/w/a.rs"}),
            "",
            Some(Path::new("/w")),
        );
        assert_eq!(edit.opening()[0], "  Edit: a.rs");
        assert_eq!(edit.opening().len(), 2);
        assert_eq!(edit.cursor(), CURSOR);
        let plan = Prompt::permission(
            "R3",
            "ExitPlanMode",
            &json!({"plan": "1. a\n2. b\n"}),
            "",
            None,
        );
        assert_eq!(
            plan.opening()[..2],
            ["  ExitPlanMode: 1. a", "                2. b"]
        );
    }

    #[test]
    fn keys_become_decisions() {
        for (key, want) in [
            ("y", PermissionDecision::Allow),
            ("Y", PermissionDecision::Allow),
            (" yes ", PermissionDecision::Allow),
            ("a", PermissionDecision::AllowAlways),
            ("always", PermissionDecision::AllowAlways),
        ] {
            assert_eq!(decision(bash().on_input(key)), (want, None), "{key}");
        }
        assert_eq!(
            decision(bash().on_input("n use cargo nextest")),
            (PermissionDecision::Deny, Some("use cargo nextest".into()))
        );
    }

    #[test]
    fn deny_asks_for_optional_feedback() {
        let mut p = bash();
        assert!(matches!(p.on_input("n"), Step::Ask(_)));
        assert_eq!(p.cursor(), FEEDBACK_CURSOR);
        assert_eq!(
            decision(p.on_input("  not now ")),
            (PermissionDecision::Deny, Some("not now".into()))
        );
        let mut p = bash();
        p.on_input("no");
        assert_eq!(decision(p.on_input("")), (PermissionDecision::Deny, None));
    }

    #[test]
    fn anything_else_asks_again() {
        let mut p = bash();
        for key in ["", "maybe", "y please"] {
            match p.on_input(key) {
                Step::Ask(lines) => assert!(lines[0].starts_with("  type y, a or n"), "{key}"),
                other => panic!("{key}: {other:?}"),
            }
        }
        assert_eq!(decision(p.on_input("y")).0, PermissionDecision::Allow);
    }

    #[test]
    fn questions_are_asked_in_turn() {
        let mut p = Prompt::question("Q1", &questions_input()).unwrap();
        assert_eq!(
            p.opening(),
            [
                "  (1/2) [DB] Which database?",
                "    1) Postgres — robust",
                "    2) SQLite — simple",
                "  answer with a number, a label, or your own text",
            ]
        );
        match p.on_input("") {
            Step::Ask(lines) => {
                assert_eq!(lines, ["  answer with a number, a label, or your own text"])
            }
            other => panic!("{other:?}"),
        }
        match p.on_input("2") {
            Step::Ask(lines) => assert_eq!(lines[0], "  (2/2) [Features] Which features?"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            p.on_input("1, 2"),
            Step::Done(Reply::Question {
                request_id: "Q1".into(),
                answers: vec!["SQLite".into(), "auth, search".into()],
            })
        );
    }

    #[test]
    fn prompts_from_a_snapshot() {
        let p = Prompt::pending(&pending("R1", "permission"), None).unwrap();
        assert_eq!(p.opening()[0], "  Bash: cargo test");
        assert_eq!(p.request_id(), "R1");
        let q = Prompt::pending(&pending("Q1", "question"), None).unwrap();
        assert!(matches!(q, Prompt::Question { .. }));
        assert!(Prompt::question("Q2", &json!(null)).is_none());
    }
}
