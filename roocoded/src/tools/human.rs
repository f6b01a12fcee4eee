//! The seam through which a tool reaches a human without knowing about clients:
//! `AskUserQuestion` asks questions, `ExitPlanMode` asks for a plan's approval. The
//! agent implements [`Human`] with permission-style requests that every attached
//! client sees and any of them (or `roocode-cli answer`/`approve`) can answer.

use futures_util::future::BoxFuture;
use serde_json::Value;

/// What the human said about a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanVerdict {
    /// Approved; the session now runs in `mode`.
    Approved { mode: roocode_protocol::Mode },
    /// Rejected, with what to change.
    Rejected { feedback: Option<String> },
}

/// What the human said about something a running call asks approval for (WebFetch: a
/// name that turned out to resolve to a local address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Once,
    /// Approved, and a rule should allow it from now on.
    Always,
    Denied {
        feedback: Option<String>,
    },
}

/// A human, as a tool sees one.
pub trait Human: Send + Sync + std::fmt::Debug {
    /// Asks the `questions` of an `AskUserQuestion` call; one answer per question.
    fn ask_questions<'a>(
        &'a self,
        questions: &'a Value,
    ) -> BoxFuture<'a, Result<Vec<String>, String>>;
    /// Shows `plan` for approval; approving leaves plan mode.
    fn approve_plan<'a>(&'a self, plan: &'a str) -> BoxFuture<'a, Result<PlanVerdict, String>>;
    /// The session's permission mode now.
    fn mode(&self) -> roocode_protocol::Mode;
    /// Asks for a permission the call found it needs while running, as a permission
    /// request for `tool` with `input`, shown as `summary` because of `reason`. The error
    /// says why nobody could answer.
    fn approve<'a>(
        &'a self,
        tool: &'a str,
        input: &'a Value,
        summary: &'a str,
        reason: &'a str,
    ) -> BoxFuture<'a, Result<Approval, String>> {
        let _ = (tool, input, summary, reason);
        Box::pin(async { Err("nobody can be asked for this call".to_string()) })
    }
}
