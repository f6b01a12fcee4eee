//! The flight recorder's account of one tool call (`tool_calls`, issue 16): what the
//! permission layer answered and which layer gave the answer, whether a hook changed
//! it, what the human said when asked, how the call ended and how long the tool ran.
//! The executor fills a [`Trail`] as the call goes through those steps and records it
//! with the result, through the recorder's writer; a failure to record is logged, never
//! the call's failure.

use roocode_protocol::content::ContentBlock;
use serde_json::{Value, json};

use super::executor::Call;
use crate::permission::{DecidedBy, Decision, HookPoint};
use crate::store::ToolCallRow;
use crate::trace::writer::Writer;

/// A recorded input longer than this is cut.
const INPUT_CAP: usize = 4_000;

/// How a call went through permission, filled as it goes.
#[derive(Debug, Clone)]
pub(super) struct Trail {
    /// `allow`, `ask`, `deny`, or `none` (it never reached the permission layer).
    pub decision: &'static str,
    /// Who decided, with `layer` and `why` (see `permission::DecidedBy`).
    pub decided_by: Value,
    /// What a human (or a `permission_request` hook) answered, when asked.
    pub answered_by: Option<String>,
    /// Set when the call did not run: `denied`, `cancelled`.
    pub stopped: Option<&'static str>,
    /// Unix milliseconds.
    pub started_at: i64,
}

impl Trail {
    /// A call not checked yet (unknown tool, invalid input, cancelled first).
    pub fn new() -> Trail {
        Trail {
            decision: "none",
            decided_by: json!({
                "layer": "not_checked",
                "why": "the call never reached the permission layer (unknown tool, invalid input, or cancelled first)",
            }),
            answered_by: None,
            stopped: None,
            started_at: crate::clock::now_ms(),
        }
    }

    /// The permission layer's answer and who gave it.
    pub fn decided(&mut self, decision: &Decision, decided_by: Value) {
        self.decision = decision_name(decision);
        self.decided_by = decided_by;
    }

    /// A `pre_tool_use` hook turned the gate's answer into `decision` (with `reason`
    /// when it gave one).
    pub fn hook_changed(&mut self, decision: &Decision, reason: Option<&str>) {
        let before = self.decision;
        let after = decision_name(decision);
        if before == after {
            return;
        }
        let by = DecidedBy::Hook {
            point: HookPoint::PreToolUse,
            hook: None,
            reason: reason.map(str::to_string),
            before: None,
        };
        let mut why = format!("a pre_tool_use hook changed the answer from {before} to {after}");
        if let Some(reason) = reason {
            why.push_str(&format!(": {reason}"));
        }
        let gate = self.decided_by.take();
        let mut value = serde_json::to_value(&by).unwrap_or_else(|_| json!({"layer": "hook"}));
        if let Some(fields) = value.as_object_mut() {
            fields.insert("why".into(), Value::String(why));
            fields.insert("before".into(), gate.clone());
            fields.insert("gate".into(), gate);
        }
        self.decided_by = value;
        self.decision = after;
    }

    /// A replay took the call's result from its recording instead of running it.
    pub fn replayed(&mut self) {
        self.decided_by = json!({
            "layer": "replay",
            "why": "a replay took this call's result from its recording (a tool that reaches outside, a call the recording did not run, or one it does not have)",
        });
    }

    /// A `pre_tool_use` hook blocked the call; `refused` is what the model was told.
    pub fn hook_blocked(&mut self, refused: &str) {
        let reason = refused
            .strip_prefix("Blocked by a hook: ")
            .unwrap_or(refused);
        self.hook_changed(
            &Decision::Deny {
                reason: String::new(),
            },
            Some(reason),
        );
        self.stopped = Some("denied");
    }
}

/// The gate's answer for a call, with who gave it.
pub(super) struct GateAnswer {
    pub decision: Decision,
    pub by: Value,
}

/// Asks the gate about `call` made from `ctx`, in a `permission` span (the name the
/// OTLP export gives the decision too).
pub(super) fn gate_answer(
    ctx: &crate::tools::ToolContext,
    gate: &crate::permission::PermissionGate,
    call: &crate::permission::Call<'_>,
) -> GateAnswer {
    let span = tracing::info_span!(
        "permission",
        tool = call.tool,
        layer = tracing::field::Empty
    );
    let _entered = span.enter();
    let decided = ctx.check_decided(gate, call);
    span.record("layer", decided.by.layer());
    let by = decided.record();
    GateAnswer {
        decision: decided.decision,
        by,
    }
}

/// Who decided a call the OS sandbox stopped while it ran: the sandbox, with the gate's
/// answer that let it run as `gate`.
fn sandbox_stopped(path: std::path::PathBuf, gate: &Value) -> Value {
    let by = crate::permission::DecidedBy::SandboxStopped { path: Some(path) };
    let mut value = json!({ "layer": by.layer(), "why": by.explain(), "gate": gate });
    if let (Some(fields), Ok(Value::Object(own))) =
        (value.as_object_mut(), serde_json::to_value(&by))
    {
        for (k, v) in own {
            fields.entry(k).or_insert(v);
        }
    }
    value
}

fn decision_name(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

/// Records `call`'s trail with its result (`block`, a tool result) and the tool's own
/// time (through the recorder's writer: a call never waits for its row).
pub(super) fn record(
    recorder: &Writer,
    of: (&str, &str, &str),
    call: &Call,
    trail: &Trail,
    block: &ContentBlock,
    duration_ms: u64,
) {
    let (session_id, turn_id, agent_id) = of;
    let (is_error, content) = match block {
        ContentBlock::ToolResult {
            is_error, content, ..
        } => (*is_error, content.as_str()),
        _ => (false, ""),
    };
    let outcome = match (trail.stopped, is_error) {
        (Some(stopped), _) => stopped,
        (None, true) if content == super::turn::INTERRUPTED_BY_USER => "cancelled",
        (None, true) => "error",
        (None, false) => "ok",
    };
    // The gate let it run and the OS sandbox stopped it: that is who decided.
    let decided_by = match (is_error, crate::sandbox::hint::stopped(content)) {
        (true, Some(path)) => sandbox_stopped(path, &trail.decided_by),
        _ => trail.decided_by.clone(),
    };
    let input = crate::tools::output::truncate_chars(&call.input.to_string(), INPUT_CAP);
    let row = ToolCallRow {
        session_id: session_id.to_string(),
        call_id: call.id.clone(),
        turn_id: turn_id.to_string(),
        agent_id: agent_id.to_string(),
        model_call_id: None,
        tool: call.name.clone(),
        input,
        decision: trail.decision.to_string(),
        decided_by: decided_by.to_string(),
        answered_by: trail.answered_by.clone(),
        outcome: outcome.to_string(),
        error: is_error.then(|| crate::tools::output::truncate_chars(content, 500)),
        started_at: trail.started_at,
        duration_ms: i64::try_from(duration_ms).unwrap_or(i64::MAX),
    };
    recorder.tool_call(row);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_os_sandbox_stopping_a_command_is_who_decided() {
        let gate = json!({"layer": "mode", "why": "bypassPermissions"});
        let by = sandbox_stopped("/etc/x".into(), &gate);
        assert_eq!(by["layer"], "sandbox_stopped");
        assert_eq!(by["path"], "/etc/x");
        assert_eq!(by["gate"]["layer"], "mode");
        assert!(by["why"].as_str().unwrap().contains("/etc/x"), "{by}");
    }

    #[test]
    fn a_hook_that_changes_the_answer_is_who_decided() {
        let mut trail = Trail::new();
        trail.decided(
            &Decision::Allow,
            json!({"layer": "mode", "why": "acceptEdits"}),
        );
        trail.hook_changed(&Decision::Allow, None);
        assert_eq!(
            trail.decided_by["layer"], "mode",
            "unchanged: the gate decided"
        );
        trail.hook_changed(
            &Decision::Ask {
                reason: "hook".into(),
            },
            None,
        );
        assert_eq!(trail.decision, "ask");
        assert_eq!(trail.decided_by["layer"], "hook");
        assert_eq!(trail.decided_by["point"], "pre_tool_use");
        assert_eq!(trail.decided_by["gate"]["layer"], "mode");
        assert_eq!(trail.decided_by["before"]["layer"], "mode");
        trail.hook_blocked("Blocked by a hook: not on Fridays");
        assert_eq!((trail.decision, trail.stopped), ("deny", Some("denied")));
        assert_eq!(trail.decided_by["reason"], "not on Fridays");
        let why = trail.decided_by["why"].as_str().unwrap();
        assert!(why.ends_with("not on Fridays"), "{why}");
    }
}
