//! `AskUserQuestion`: asks the user one to four multiple-choice questions and returns
//! the answers. The question reaches every attached client as a `question` event;
//! the first answer wins. The questions are protocol's [`Question`]s, the type the
//! clients read them with.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use roocode_protocol::question::Question;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Default)]
pub struct AskUserQuestionTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserQuestionArgs {
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<Question>,
}

const DESCRIPTION: &str = "Ask the user questions when you need their decision or \
information you cannot find yourself: a choice between approaches, unclear requirements, \
preferences. Each question has a short header (at most 12 characters), 2-4 options with a \
label and a description, and multiSelect when several options may be chosen. The user \
can always answer with their own text instead of an option. Do not ask what you can \
find out with the other tools, and do not ask for permission to use tools: the \
permission system does that.";

impl TypedTool for AskUserQuestionTool {
    type Args = AskUserQuestionArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "AskUserQuestion",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        input: AskUserQuestionArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(human) = &ctx.human else {
                return Err(ToolError::Failed(
                    "no user can be asked here: decide yourself and say what you assumed".into(),
                ));
            };
            // The questions travel to the clients as JSON, as the model wrote them (the
            // schema made every field present, so nothing is added or lost).
            let questions = serde_json::to_value(&input.questions)
                .map_err(|e| ToolError::Failed(format!("cannot send the questions: {e}")))?;
            let answers = human
                .ask_questions(&questions)
                .await
                .map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(format_answers(&input.questions, &answers)))
        }
        .boxed()
    }
}

/// `"<question>" = "<answer>"` lines, as the model reads them.
fn format_answers(questions: &[Question], answers: &[String]) -> String {
    let mut out = String::from("The user answered:\n");
    for (q, a) in questions.iter().zip(answers) {
        out.push_str(&format!("- \"{}\" = \"{a}\"\n", q.question));
    }
    out.push_str("Continue with these answers in mind.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_paired_with_their_questions() {
        let q = json!([{"question": "Which DB?"}, {"question": "Tests?"}]);
        let q: Vec<Question> = serde_json::from_value(q).unwrap();
        assert_eq!(
            format_answers(&q, &["SQLite".into(), "yes, unit".into()]),
            "The user answered:\n- \"Which DB?\" = \"SQLite\"\n- \"Tests?\" = \"yes, unit\"\nContinue with these answers in mind."
        );
    }
}
