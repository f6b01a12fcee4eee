//! `AskUserQuestion`: asks the user one to four multiple-choice questions and returns
//! the answers. The question reaches every attached client as a `question` event;
//! the first answer wins.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use super::{Effect, PermissionTarget, Tool, ToolCategory, ToolContext, ToolError, ToolOutput};

pub struct AskUserQuestionTool;

const DESCRIPTION: &str = "Ask the user questions when you need their decision or \
information you cannot find yourself: a choice between approaches, unclear requirements, \
preferences. Each question has a short header (at most 12 characters), 2-4 options with a \
label and a description, and multiSelect when several options may be chosen. The user \
can always answer with their own text instead of an option. Do not ask what you can \
find out with the other tools, and do not ask for permission to use tools: the \
permission system does that.";

impl Tool for AskUserQuestionTool {
    fn name(&self) -> &'static str {
        "AskUserQuestion"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "questions": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 4,
                    "items": {
                        "type": "object",
                        "properties": {
                            "question": {"type": "string", "description": "The full question"},
                            "header": {"type": "string", "description": "A very short label, e.g. \"Database\""},
                            "options": {
                                "type": "array",
                                "minItems": 2,
                                "maxItems": 4,
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "label": {"type": "string"},
                                        "description": {"type": "string"}
                                    },
                                    "required": ["label", "description"],
                                    "additionalProperties": false
                                }
                            },
                            "multiSelect": {"type": "boolean"}
                        },
                        "required": ["question", "header", "options", "multiSelect"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["questions"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::OwnState
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Coordination
    }

    fn permission_target(&self, _input: &Value, _ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::None
    }

    fn execute<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(human) = &ctx.human else {
                return Err(ToolError::Failed(
                    "no user can be asked here: decide yourself and say what you assumed".into(),
                ));
            };
            let questions = &input["questions"];
            let answers = human
                .ask_questions(questions)
                .await
                .map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(format_answers(questions, &answers)))
        }
        .boxed()
    }
}

/// `"<question>" = "<answer>"` lines, as the model reads them.
fn format_answers(questions: &Value, answers: &[String]) -> String {
    let mut out = String::from("The user answered:\n");
    let empty = Vec::new();
    for (q, a) in questions.as_array().unwrap_or(&empty).iter().zip(answers) {
        let question = q["question"].as_str().unwrap_or_default();
        out.push_str(&format!("- \"{question}\" = \"{a}\"\n"));
    }
    out.push_str("Continue with these answers in mind.");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn answers_are_paired_with_their_questions() {
        let q = json!([{"question": "Which DB?"}, {"question": "Tests?"}]);
        assert_eq!(
            format_answers(&q, &["SQLite".into(), "yes, unit".into()]),
            "The user answered:\n- \"Which DB?\" = \"SQLite\"\n- \"Tests?\" = \"yes, unit\"\nContinue with these answers in mind."
        );
    }
}
