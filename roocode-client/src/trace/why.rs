//! "Why was this call allowed, denied or asked?" in one paragraph: the tool and what
//! it was about, the agent, turn and model call that asked for it, the decision and
//! the layer that gave it with its details — a user rule's text, file and line; the
//! mode; a hook and what the permission layer had said before it; the check that asks
//! or denies whatever the rules say — who answered when a person was asked, and how
//! the call ended. Calls are found by id or by a unique prefix of one ([`find_call`]).

use std::fmt;

use roocode_protocol::trace::{AgentTrace, IterationTrace, SessionTrace, ToolTrace, TurnTrace};
use serde_json::Value;

use super::{agent_label, agents, format};

/// Characters of an error shown.
const ERROR_CHARS: usize = 200;

/// A tool call of a trace, with where it happened.
#[derive(Debug, Clone, Copy)]
pub struct FoundCall<'a> {
    pub tool: &'a ToolTrace,
    pub agent: &'a AgentTrace,
    pub turn: &'a TurnTrace,
    pub iteration: &'a IterationTrace,
}

/// Why [`find_call`] found no single call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallLookup {
    NotFound {
        given: String,
    },
    /// The ids that start with what was given.
    Ambiguous {
        given: String,
        ids: Vec<String>,
    },
}

impl fmt::Display for CallLookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallLookup::NotFound { given } => write!(f, "no tool call `{given}` in this trace"),
            CallLookup::Ambiguous { given, ids } => write!(
                f,
                "`{given}` is the start of several calls' ids ({}): give more characters",
                ids.join(", ")
            ),
        }
    }
}

impl std::error::Error for CallLookup {}

/// The call of `trace` whose id is `id`, or the only one whose id starts with it.
pub fn find_call<'a>(trace: &'a SessionTrace, id: &str) -> Result<FoundCall<'a>, CallLookup> {
    let id = id.trim();
    let mut prefixed = Vec::new();
    for agent in agents(&trace.agent) {
        for turn in &agent.turns {
            for iteration in &turn.iterations {
                for tool in &iteration.tools {
                    let found = FoundCall {
                        tool,
                        agent,
                        turn,
                        iteration,
                    };
                    if tool.call_id == id {
                        return Ok(found);
                    }
                    if !id.is_empty() && tool.call_id.starts_with(id) {
                        prefixed.push(found);
                    }
                }
            }
        }
    }
    match prefixed.as_slice() {
        [one] => Ok(*one),
        [] => Err(CallLookup::NotFound {
            given: id.to_owned(),
        }),
        many => Err(CallLookup::Ambiguous {
            given: id.to_owned(),
            ids: many.iter().map(|c| c.tool.call_id.clone()).collect(),
        }),
    }
}

/// The paragraph for call `call_id` (an id or a unique prefix) of `trace`; `None`
/// when no single call has it.
pub fn why(trace: &SessionTrace, call_id: &str) -> Option<String> {
    find_call(trace, call_id).ok().map(|c| paragraph(&c))
}

fn paragraph(c: &FoundCall<'_>) -> String {
    let tool = c.tool;
    let about = format::input_words(&tool.input, None);
    let mut out = if about.is_empty() {
        tool.tool.clone()
    } else {
        format!("{} `{about}`", tool.tool)
    };
    let agent = match c.agent.kind.as_str() {
        "main" => "the main agent".to_owned(),
        _ => format!("the {}", agent_label(c.agent)),
    };
    out.push_str(&format!(
        " (call {}) was asked for by {agent} in turn {}, model call {}. ",
        tool.call_id, c.turn.number, c.iteration.iteration
    ));
    out.push_str(&decision(tool));
    if let Some(answer) = &tool.answered_by {
        out.push(' ');
        out.push_str(&answered(answer));
    }
    out.push(' ');
    out.push_str(&ending(tool));
    out
}

/// `Decision: deny, by the deny rule `Bash(rm:*)` in /p/.roocode/config.yaml at line
/// 2.`
fn decision(tool: &ToolTrace) -> String {
    let what = &tool.decision;
    let by = &tool.decided_by;
    let text = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let why = tool.why.trim().trim_end_matches('.');
    let with_why = |who: String| {
        if why.is_empty() {
            who
        } else {
            format!("{who}: {why}")
        }
    };
    let who = match tool.layer.as_str() {
        "rule" => {
            let rule = text(by, "rule");
            let kind = text(by, "kind");
            let kind = if kind.is_empty() { "a" } else { kind.as_str() };
            match super::timeline::origin(tool, None) {
                Some((file, line)) => {
                    format!("the {kind} rule `{rule}` in {file} at line {line}")
                }
                None => format!(
                    "the {kind} rule `{rule}`, which is in no config file (a prompt \
                     command's or skill's allowed-tools)"
                ),
            }
        }
        "mode" => {
            let mode = text(by, "mode");
            with_why(if mode.is_empty() {
                "the session's mode".to_owned()
            } else {
                format!("the session's mode, {mode}")
            })
        }
        "hook" => {
            let point = text(by, "point");
            let mut who = if point.is_empty() {
                "a hook".to_owned()
            } else {
                format!("a {point} hook")
            };
            let name = text(by, "hook");
            if !name.is_empty() {
                who.push_str(&format!(" ({name})"));
            }
            let mut who = with_why(who);
            // What the permission layer had answered before the hook changed it.
            let before = by.get("gate").or_else(|| by.get("before"));
            if let Some(before) = before.filter(|b| b.is_object()) {
                let layer = text(before, "layer");
                let said = text(before, "why");
                who.push_str(&format!("; before it, the {layer} layer had said: {said}"));
            }
            who
        }
        "not_checked" => {
            "no one: the call never reached the permission layer (an unknown tool, an \
             input that does not fit the tool, or a turn cancelled first)"
                .to_owned()
        }
        layer => with_why(layer_name(layer)),
    };
    format!("Decision: {what}, by {who}.")
}

/// The layers that answer whatever the rules say, in words.
fn layer_name(layer: &str) -> String {
    match layer {
        "dangerous" => "the dangerous-command check".to_owned(),
        "read_only_agent" => "the read-only agent check".to_owned(),
        "path_sandbox" => "the path sandbox".to_owned(),
        "credentials" => "the credential-file check".to_owned(),
        "hard_link" => "the hard-link check".to_owned(),
        "protected" => "the protected-file check".to_owned(),
        "private_address" => "the private-address check".to_owned(),
        "opaque_command" => "the check of commands RooCode cannot see through".to_owned(),
        "os_sandbox" => "the OS sandbox question (dangerously_disable_sandbox)".to_owned(),
        "sandbox_stopped" => "the OS sandbox".to_owned(),
        "human" => "a person".to_owned(),
        "replay" => "a replay".to_owned(),
        other => format!("the {other} layer"),
    }
}

/// `When asked, the user allowed it once (in tui (pid 4242)).`
fn answered(answer: &str) -> String {
    let (answer, who) = match answer.split_once(" by ") {
        Some((a, who)) => (a, Some(who)),
        None => (answer, None),
    };
    let person = match who {
        Some(who) => format!("the user (in {who})"),
        None => "the user".to_owned(),
    };
    match answer {
        "allow_once" => format!("When asked, {person} allowed it once."),
        "allow_always" => format!(
            "When asked, {person} allowed it always (an allow rule was written for calls like it)."
        ),
        "deny" => format!("When asked, {person} denied it."),
        "hook_allow" => "A permission_request hook answered the question: allow.".to_owned(),
        "cancelled" => "The turn was cancelled while the question waited.".to_owned(),
        "not_asked" => "No one could be asked, so it was not allowed.".to_owned(),
        other => format!("When asked, the answer was {other}."),
    }
}

/// How the call ended.
fn ending(tool: &ToolTrace) -> String {
    let took = format::duration(tool.duration_ms);
    let error = tool
        .error
        .as_deref()
        .map(|e| format::first_line(e, ERROR_CHARS))
        .filter(|e| !e.is_empty());
    match (tool.outcome.as_str(), error) {
        ("ok", _) => format!("It ran for {took} and succeeded."),
        ("error", Some(e)) => format!("It ran for {took} and failed: {e}"),
        ("error", None) => format!("It ran for {took} and failed."),
        ("denied", Some(e)) => format!("It did not run ({e})."),
        ("denied", None) => "It did not run.".to_owned(),
        ("cancelled", _) => "It was cancelled.".to_owned(),
        (other, _) => format!("It ended: {other}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::example;
    use serde_json::json;

    #[test]
    fn a_call_denied_by_a_rule_names_the_rule_its_file_and_line() {
        let t = example::session();
        assert_eq!(
            why(&t, example::DENIED_CALL).unwrap(),
            "Bash `rm -rf target` (call toolu_01B_rm) was asked for by the main agent in turn 1, \
             model call 1. Decision: deny, by the deny rule `Bash(rm:*)` in \
             /work/parser/.roocode/config.yaml at line 2. It did not run (Permission denied: \
             matches the deny rule Bash(rm:*))."
        );
    }

    #[test]
    fn a_call_asked_says_who_answered() {
        let t = example::session();
        assert_eq!(
            why(&t, "toolu_02A").unwrap(),
            "Edit `/work/parser/src/lib.rs` (call toolu_02A_edit) was asked for by the main \
             agent in turn 1, model call 2. Decision: ask, by the session's mode, default: \
             asked by the mode: default asks before editing files. When asked, the user (in \
             tui (pid 4242)) allowed it once. It ran for 4 ms and succeeded."
        );
    }

    #[test]
    fn a_sub_agents_call_names_the_agent() {
        let t = example::session();
        let text = why(&t, "toolu_s1_grep").unwrap();
        assert!(
            text.contains("by the sub-agent scout (Explore) 5c0a7e1d in turn 1, model call 1."),
            "{text}"
        );
    }

    #[test]
    fn a_hook_says_what_the_permission_layer_had_said() {
        let mut t = example::session();
        let tool = &mut t.agent.turns[0].iterations[0].tools[0];
        tool.decision = "deny".into();
        tool.layer = "hook".into();
        tool.why = "a pre_tool_use hook changed the answer from allow to deny".into();
        tool.decided_by = json!({
            "layer": "hook",
            "why": tool.why,
            "gate": {"layer": "rule", "why": "allowed by rule `Bash(cargo test:*)`"},
        });
        let text = why(&t, "toolu_01A").unwrap();
        assert!(
            text.contains(
                "Decision: deny, by a hook: a pre_tool_use hook changed the answer from allow \
                 to deny; before it, the rule layer had said: allowed by rule `Bash(cargo \
                 test:*)`."
            ),
            "{text}"
        );
        assert!(text.ends_with("It ran for 2.3 s and failed: test parse_empty failed"));
    }

    #[test]
    fn other_layers_give_the_daemons_sentence() {
        let mut t = example::session();
        let tool = &mut t.agent.turns[0].iterations[0].tools[2];
        tool.decision = "deny".into();
        tool.layer = "path_sandbox".into();
        tool.why = "denied by the path sandbox: /etc/passwd is outside the project".into();
        tool.outcome = "denied".into();
        let text = why(&t, "toolu_01C").unwrap();
        assert!(
            text.contains(
                "Decision: deny, by the path sandbox: denied by the path sandbox: /etc/passwd \
                 is outside the project. It did not run."
            ),
            "{text}"
        );
    }

    #[test]
    fn unknown_and_ambiguous_ids() {
        let t = example::session();
        assert!(why(&t, "nope").is_none());
        assert_eq!(
            find_call(&t, "nope").unwrap_err().to_string(),
            "no tool call `nope` in this trace"
        );
        let err = find_call(&t, "toolu_01").unwrap_err();
        assert!(
            matches!(&err, CallLookup::Ambiguous { ids, .. } if ids.len() == 3),
            "{err}"
        );
        assert!(why(&t, "").is_none(), "an empty prefix names no call");
    }
}
