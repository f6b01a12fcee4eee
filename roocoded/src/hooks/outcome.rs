//! What a hook's run means for the engine ([`HookOutcome`]), read the way Claude Code
//! reads its hooks, so that hooks written for Claude Code behave the same here:
//!
//! - **exit 0**: stdout that is a JSON object is read for the fields below; any other
//!   stdout is plain output, which for `user_prompt_submit` and `session_start` is
//!   additional context for the model (elsewhere it is only shown).
//! - **exit 2**: blocking, with stderr as the reason ([`Decision::Deny`] for
//!   `pre_tool_use`/`permission_request`, [`Decision::Block`] for `post_tool_use`,
//!   `user_prompt_submit`, `stop`, `subagent_stop`). Stdout is not read. At events that
//!   cannot block (`session_start`, `session_end`, `pre_compact`, `notification`)
//!   stderr is only reported, as [`HookOutcome::error`].
//! - **any other exit, a kill, a timeout, a command that cannot start**: a non-blocking
//!   error, reported in [`HookOutcome::error`]; nothing is blocked.
//!
//! JSON fields (exit 0): `continue` (false: stop the agent, `stopReason` shown to the
//! user), `stopReason`, `systemMessage` (a warning for the user), `suppressOutput`,
//! `decision` (`approve` → [`Decision::Allow`]; `block` → [`Decision::Deny`] at tool
//! events before the call, else [`Decision::Block`]), `reason`, and
//! `hookSpecificOutput`: `permissionDecision` (`allow`|`deny`|`ask`, wins over
//! `decision`) with `permissionDecisionReason` (wins over `reason`), `updatedInput`
//! (the tool input to use instead), `additionalContext` (text for the model), and for
//! `PermissionRequest` `decision: {behavior: allow|deny, updatedInput, message,
//! interrupt}` (`message` is the reason; `interrupt: true` means `continue: false`).
//! Fields of the wrong type are ignored and noted in [`HookOutcome::error`].

use serde_json::{Map, Value};

use super::event::HookEvent;

/// What a hook decided about the thing its event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Let the tool call run without asking (`approve`, `allow`).
    Allow,
    /// Refuse the tool call; the reason is the tool's error result.
    Deny,
    /// Ask the user, whatever the rules say.
    Ask,
    /// Object: the reason goes back to the model (`post_tool_use`), the prompt is
    /// rejected (`user_prompt_submit`), or the agent goes on working (`stop`,
    /// `subagent_stop`).
    Block,
}

/// What the engine should do after a hook ran. Every field is optional: a hook that
/// printed nothing and exited 0 is `HookOutcome::default()`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    pub decision: Option<Decision>,
    /// Why (exit 2's stderr, `reason`, `permissionDecisionReason`).
    pub reason: Option<String>,
    /// `continue`: `Some(false)` stops the agent after this hook.
    pub continue_: Option<bool>,
    /// Shown to the user when `continue` is false.
    pub stop_reason: Option<String>,
    /// A message for the user.
    pub system_message: Option<String>,
    /// Hide the hook's stdout from the transcript.
    pub suppress_output: bool,
    /// A replacement for the tool's input (`pre_tool_use`, `permission_request`).
    pub updated_input: Option<Value>,
    /// Text added to the model's context.
    pub additional_context: Option<String>,
    /// A non-blocking failure to report to the user (bad exit, timeout, bad JSON field).
    pub error: Option<String>,
}

impl HookOutcome {
    /// Reads a finished command: see the module doc. `exit_code` is `None` when the
    /// process was killed by a signal.
    pub fn from_output(
        event: HookEvent,
        exit_code: Option<i32>,
        stdout: &str,
        stderr: &str,
    ) -> HookOutcome {
        let stderr = stderr.trim();
        match exit_code {
            Some(0) => match serde_json::from_str::<Value>(stdout.trim()) {
                Ok(Value::Object(map)) => from_json(event, &map),
                _ => plain(event, stdout),
            },
            Some(2) if event.can_block() => HookOutcome {
                decision: Some(block(event)),
                reason: Some(if stderr.is_empty() {
                    "a hook blocked this (exit code 2) without saying why".to_string()
                } else {
                    stderr.to_string()
                }),
                ..HookOutcome::default()
            },
            Some(code) => {
                HookOutcome::failed(with_stderr(format!("exited with code {code}"), stderr))
            }
            None => HookOutcome::failed(with_stderr("was killed by a signal".into(), stderr)),
        }
    }

    /// A hook that did not run to its end (timeout, cannot start): a non-blocking error.
    pub fn failed(message: impl Into<String>) -> HookOutcome {
        HookOutcome {
            error: Some(message.into()),
            ..HookOutcome::default()
        }
    }

    /// Whether the hook refused (`Deny` or `Block`).
    pub fn is_blocking(&self) -> bool {
        matches!(self.decision, Some(Decision::Deny | Decision::Block))
    }
}

/// The outcome of an `inject` action: its text as additional context.
pub fn outcome_of_inject(text: &str) -> HookOutcome {
    HookOutcome {
        additional_context: Some(text.to_string()),
        ..HookOutcome::default()
    }
}

/// What `block` means at `event`: before a tool call, refusing it.
fn block(event: HookEvent) -> Decision {
    match event {
        HookEvent::PreToolUse | HookEvent::PermissionRequest => Decision::Deny,
        HookEvent::SessionStart
        | HookEvent::SessionEnd
        | HookEvent::UserPromptSubmit
        | HookEvent::PostToolUse
        | HookEvent::Stop
        | HookEvent::SubagentStop
        | HookEvent::PreCompact
        | HookEvent::Notification => Decision::Block,
    }
}

fn with_stderr(message: String, stderr: &str) -> String {
    if stderr.is_empty() {
        message
    } else {
        format!("{message}: {stderr}")
    }
}

fn plain(event: HookEvent, stdout: &str) -> HookOutcome {
    let text = stdout.trim();
    let context =
        matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart) && !text.is_empty();
    HookOutcome {
        additional_context: context.then(|| text.to_string()),
        ..HookOutcome::default()
    }
}

/// Reads fields of a JSON output, noting the ones of the wrong type.
struct Fields<'m, 'n> {
    map: &'m Map<String, Value>,
    prefix: &'static str,
    notes: &'n mut Vec<String>,
}

impl<'m> Fields<'m, '_> {
    fn string(&mut self, key: &str) -> Option<String> {
        match self.map.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => {
                self.note(key, "a string", other);
                None
            }
        }
    }

    fn bool(&mut self, key: &str) -> Option<bool> {
        match self.map.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::Null => None,
            other => {
                self.note(key, "true or false", other);
                None
            }
        }
    }

    fn object(&mut self, key: &str) -> Option<&'m Map<String, Value>> {
        match self.map.get(key)? {
            Value::Object(m) => Some(m),
            Value::Null => None,
            other => {
                self.note(key, "an object", other);
                None
            }
        }
    }

    fn note(&mut self, key: &str, expected: &str, got: &Value) {
        self.notes.push(format!(
            "`{}{key}` should be {expected}, not {got} (ignored)",
            self.prefix
        ));
    }

    fn decision(&mut self, key: &str, values: &[(&str, Decision)]) -> Option<Decision> {
        let value = self.string(key)?;
        let found = values.iter().find(|(name, _)| *name == value);
        if found.is_none() {
            let names: Vec<_> = values.iter().map(|(n, _)| *n).collect();
            self.notes.push(format!(
                "`{}{key}` should be {}, not {value:?} (ignored)",
                self.prefix,
                names.join(" or ")
            ));
        }
        found.map(|(_, d)| *d)
    }
}

fn from_json(event: HookEvent, map: &Map<String, Value>) -> HookOutcome {
    let mut notes = Vec::new();
    let mut f = Fields {
        map,
        prefix: "",
        notes: &mut notes,
    };
    let mut out = HookOutcome {
        continue_: f.bool("continue"),
        stop_reason: f.string("stopReason"),
        system_message: f.string("systemMessage"),
        suppress_output: f.bool("suppressOutput").unwrap_or(false),
        decision: f.decision(
            "decision",
            &[("approve", Decision::Allow), ("block", block(event))],
        ),
        reason: f.string("reason"),
        ..HookOutcome::default()
    };
    if let Some(specific) = f.object("hookSpecificOutput") {
        let mut s = Fields {
            map: specific,
            prefix: "hookSpecificOutput.",
            notes: &mut notes,
        };
        let permission = s.decision(
            "permissionDecision",
            &[
                ("allow", Decision::Allow),
                ("deny", Decision::Deny),
                ("ask", Decision::Ask),
            ],
        );
        out.decision = permission.or(out.decision);
        out.reason = s.string("permissionDecisionReason").or(out.reason);
        out.additional_context = s.string("additionalContext");
        if let Some(input) = s.object("updatedInput") {
            out.updated_input = Some(Value::Object(input.clone()));
        }
        if let Some(decision) = s.object("decision") {
            let mut d = Fields {
                map: decision,
                prefix: "hookSpecificOutput.decision.",
                notes: &mut notes,
            };
            if let Some(behavior) = d.decision(
                "behavior",
                &[("allow", Decision::Allow), ("deny", Decision::Deny)],
            ) {
                out.decision = Some(behavior);
            }
            out.reason = d.string("message").or(out.reason);
            if let Some(input) = d.object("updatedInput") {
                out.updated_input = Some(Value::Object(input.clone()));
            }
            if d.bool("interrupt") == Some(true) {
                out.continue_ = Some(false);
            }
        }
    }
    if !notes.is_empty() {
        out.error = Some(format!("its JSON output: {}", notes.join("; ")));
    }
    out
}

#[cfg(test)]
#[path = "outcome_tests.rs"]
mod tests;
