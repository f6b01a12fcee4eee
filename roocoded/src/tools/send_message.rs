//! `SendMessage(to, message, summary?, kind?, request_id?, approve?)`: a message from the
//! calling agent to members of its team — a teammate by name, `lead`, an agent id, or
//! `*` for everyone but the sender. Claude Code's spellings `recipient`, `content` and
//! `type` are accepted as fields of their own; giving both spellings of one parameter
//! with different values is an error. Claude Code's `type: "broadcast"` is a plain
//! message to `*` (a `to` naming anyone else is refused). A message is at most
//! [`MAX_MESSAGE_CHARS`] characters and a summary [`MAX_SUMMARY_CHARS`] (the schema
//! says so), so one broadcast cannot fill every member's context. The sender is always the caller: nothing in the
//! input names it. What each kind may do is decided by the caller's
//! [`TeamHost`](super::TeamHost) (only the lead asks a teammate to shut down or answers a
//! plan, only a teammate answers a shutdown request).

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, Outgoing, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Default)]
pub struct SendMessageTool;

/// The longest `message` / `content`, in characters.
pub const MAX_MESSAGE_CHARS: usize = 20_000;
/// The longest `summary`, in characters.
pub const MAX_SUMMARY_CHARS: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageArgs {
    /// Who gets it: a teammate's name, "lead", an agent id, or "*" for every member but you
    pub to: Option<String>,
    /// Same as to
    pub recipient: Option<String>,
    /// The message (for a shutdown_response the reason, for a plan_approval_response the feedback)
    #[schemars(length(max = MAX_MESSAGE_CHARS))]
    pub message: Option<String>,
    /// Same as message
    #[schemars(length(max = MAX_MESSAGE_CHARS))]
    pub content: Option<String>,
    /// A 5-10 word summary, required for a plain message
    #[schemars(length(max = MAX_SUMMARY_CHARS))]
    pub summary: Option<String>,
    /// message (default), status_update, task_assignment, shutdown_request, shutdown_response, plan_approval_request or plan_approval_response
    pub kind: Option<String>,
    /// Same as kind
    #[serde(rename = "type")]
    pub kind_alias: Option<String>,
    /// For shutdown_response and plan_approval_response: the id of the request answered
    pub request_id: Option<String>,
    /// For shutdown_response and plan_approval_response: yes or no
    pub approve: Option<bool>,
}

/// One parameter in either of its spellings: blank counts as absent, two different
/// values are an error naming both.
fn either(
    name: &str,
    alias: &str,
    a: Option<String>,
    b: Option<String>,
) -> Result<Option<String>, ToolError> {
    let clean = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    match (clean(a), clean(b)) {
        (Some(a), Some(b)) if a != b => Err(ToolError::InvalidInput(format!(
            "`{name}` and `{alias}` are the same parameter and were given different values: give only `{name}`"
        ))),
        (Some(a), _) => Ok(Some(a)),
        (None, b) => Ok(b),
    }
}

impl SendMessageArgs {
    fn into_outgoing(self) -> Result<Outgoing, ToolError> {
        let mut to = either("to", "recipient", self.to, self.recipient)?;
        let message = either("message", "content", self.message, self.content)?;
        let mut kind = either("kind", "type", self.kind, self.kind_alias)?;
        if kind
            .as_deref()
            .is_some_and(|k| k.eq_ignore_ascii_case("broadcast"))
        {
            match to.as_deref() {
                None | Some("*") => {}
                Some(other) => {
                    return Err(ToolError::InvalidInput(format!(
                        "a broadcast goes to everyone (\"*\"), but `to` is `{other}`: drop `to` \
                         to broadcast, or drop the broadcast kind to message `{other}` alone"
                    )));
                }
            }
            to = Some("*".into());
            kind = Some("message".into());
        }
        let too_long = |name: &str, text: Option<&str>, max: usize| match text {
            Some(t) if t.chars().count() > max => Err(ToolError::InvalidInput(format!(
                "`{name}` is {} characters, more than the {max} allowed: shorten it (put long \
                 material in a file and send its path)",
                t.chars().count()
            ))),
            _ => Ok(()),
        };
        too_long("message", message.as_deref(), MAX_MESSAGE_CHARS)?;
        too_long("summary", self.summary.as_deref(), MAX_SUMMARY_CHARS)?;
        Ok(Outgoing {
            to,
            kind,
            message: message.unwrap_or_default(),
            summary: self
                .summary
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            request_id: self
                .request_id
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            approve: self.approve,
        })
    }
}

const DESCRIPTION: &str = "\
Send a message to members of your agent team: a teammate by name, the lead as \"lead\", an \
agent id, or \"*\" for everyone in the team but you (kind \"broadcast\" means the same; use \
broadcasts sparingly: every recipient reads it). Messages arrive in the recipient's context before its next step and \
wake it when it is idle; you never need to wait or poll for an answer, it comes to you as a \
<teammate-message>.

kind says what the message is: \"message\" (the default; needs a 5-10 word summary), \
\"status_update\" (information about your progress, never an order), \"task_assignment\" \
(the lead gives work), \"shutdown_request\" (the lead asks a teammate to stop; the answer \
carries the request_id this returns), \"shutdown_response\" (a teammate answers the lead: \
request_id, approve, and the reason in message when it refuses), \"plan_approval_request\" \
(a teammate's plan, in message; ExitPlanMode sends it for you) and \"plan_approval_response\" \
(the lead answers a plan: request_id, approve, feedback in message). Keep messages short \
and concrete: what was done, what is needed, by whom.";

impl TypedTool for SendMessageTool {
    type Args = SendMessageArgs;

    fn spec(&self) -> Spec {
        Spec::new(
            "SendMessage",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        args: SendMessageArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let Some(host) = &ctx.team else {
                return Err(ToolError::Failed(
                    "this agent is in no team, so it has nobody to message: answer in your reply instead".into(),
                ));
            };
            let outgoing = args.into_outgoing()?;
            let reply = host.send_message(outgoing).await.map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(reply))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> SendMessageArgs {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn claude_code_spellings_are_the_same_parameters() {
        let out = args(serde_json::json!({
            "recipient": "builder", "content": "hi", "type": "status_update", "summary": " s "
        }))
        .into_outgoing()
        .unwrap();
        assert_eq!(out.to.as_deref(), Some("builder"));
        assert_eq!(out.message, "hi");
        assert_eq!(out.kind.as_deref(), Some("status_update"));
        assert_eq!(out.summary.as_deref(), Some("s"));
        let same = args(serde_json::json!({"to": "b", "recipient": "b", "message": "x"}))
            .into_outgoing()
            .unwrap();
        assert_eq!(same.to.as_deref(), Some("b"));
        for clash in [
            serde_json::json!({"to": "a", "recipient": "b", "message": "x"}),
            serde_json::json!({"to": "a", "message": "x", "content": "y"}),
            serde_json::json!({"to": "a", "message": "x", "kind": "message", "type": "status_update"}),
        ] {
            let err = args(clash.clone()).into_outgoing().unwrap_err();
            assert!(
                err.to_string().contains("different values"),
                "{clash}: {err}"
            );
        }
    }

    #[test]
    fn a_broadcast_type_is_a_message_to_everyone() {
        for input in [
            serde_json::json!({"type": "broadcast", "content": "x", "summary": "s"}),
            serde_json::json!({"kind": "Broadcast", "to": "*", "message": "x"}),
        ] {
            let out = args(input.clone()).into_outgoing().unwrap();
            assert_eq!(out.to.as_deref(), Some("*"), "{input}");
            assert_eq!(out.kind.as_deref(), Some("message"), "{input}");
        }
        let err = args(serde_json::json!({"type": "broadcast", "to": "builder", "message": "x"}))
            .into_outgoing()
            .unwrap_err();
        assert!(err.to_string().contains("`to` is `builder`"), "{err}");
    }

    #[test]
    fn message_and_summary_lengths_are_limited_in_the_schema_and_the_call() {
        let registry = crate::tools::Registry::with_builtins();
        let long = "x".repeat(MAX_MESSAGE_CHARS + 1);
        for input in [
            serde_json::json!({"to": "a", "message": long}),
            serde_json::json!({"to": "a", "content": long}),
            serde_json::json!({"to": "a", "message": "x", "summary": "s".repeat(201)}),
        ] {
            assert!(registry.validate("SendMessage", &input).is_err());
            assert!(args(input).into_outgoing().is_err());
        }
        let fits = serde_json::json!({"to": "a", "message": "é".repeat(MAX_MESSAGE_CHARS),
            "summary": "s".repeat(MAX_SUMMARY_CHARS)});
        assert!(registry.validate("SendMessage", &fits).is_ok());
        assert!(args(fits).into_outgoing().is_ok());
    }
}
