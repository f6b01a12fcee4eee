//! The frontmatter of a workflow function: a skill that carries state (rolebox's
//! functions, seed 001). Any of these keys makes a skill a function:
//!
//! ```yaml
//! gate: artifact_exists(plan)          # active while it holds, gated otherwise
//! transitions:                          # applied before every model call
//!   - when: all(artifact_exists(plan), user_approval)   # or "gate": when the gate holds
//!     activate: [execute]
//!     deactivate: [self]               # only its own function
//! produces: [plan]                      # artifacts it writes (capture_artifact)
//! consumes: [plan]                      # artifacts injected while it is active
//! requires_evidence: [tests_pass]       # tags `evidence_met` waits for
//! observe:
//!   - on: tool_after                    # or message, activate
//!     tool: Bash                        # tool_after only; `A|B` for several
//!     when_output: {contains: "test result: ok", not_contains: FAILED}
//!     set_evidence: tests_pass          # actions: set_evidence, capture_artifact,
//!                                       # sync_todos, inject, set_state
//! continue_until: plan_todos_complete   # sent back to work until it holds
//! continue_max: 5                       # at most this many continuations (default 5)
//! locked: true                          # with skills.auto: never deactivated
//! ```
//!
//! Conditions are the closed vocabulary of [`crate::workflow::condition`], parsed
//! here once; a bad one makes the file a [`super::Problem`] naming its line.

use yaml_serde::{Mapping, Value};

use crate::frontmatter::values::{self, Cut};
use crate::workflow::condition::{self, Condition};

/// The default `continue_max`.
pub const DEFAULT_CONTINUE_MAX: u32 = 5;

/// The most continuations `continue_max` may ask for.
const MAX_CONTINUE_MAX: u32 = 50;

/// What makes a skill a function.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FunctionSpec {
    /// Active while it holds, gated otherwise; `None`: always active.
    pub gate: Option<Condition>,
    pub transitions: Vec<Transition>,
    /// Artifacts it writes.
    pub produces: Vec<String>,
    /// Artifacts injected (as `<artifact>` blocks) while it is active.
    pub consumes: Vec<String>,
    /// Tags `evidence_met` waits for.
    pub requires_evidence: Vec<String>,
    pub observers: Vec<Observer>,
    /// The agent is sent back to work at the end of a turn until it holds.
    pub continue_until: Option<Condition>,
    pub continue_max: u32,
    /// Activated by `skills.auto`: no transition deactivates it.
    pub locked: bool,
}

/// When a transition fires.
#[derive(Debug, Clone, PartialEq)]
pub enum When {
    /// `when: gate`: when the function's own gate holds.
    Gate,
    Condition(Condition),
}

/// `{when, activate, deactivate}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub when: When,
    /// Functions it activates.
    pub activate: Vec<String>,
    /// `deactivate: [self]`: the function completes.
    pub deactivate_self: bool,
}

/// What an observer watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// After each tool call of the agent (filtered by `tool` and `when_output`).
    ToolAfter,
    /// Each assistant message (and the end of a turn that called no tool).
    Message,
    /// The function's activation.
    Activate,
}

impl On {
    pub fn as_str(self) -> &'static str {
        match self {
            On::ToolAfter => "tool_after",
            On::Message => "message",
            On::Activate => "activate",
        }
    }
}

/// What an observer does when it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Records evidence tags.
    SetEvidence(Vec<String>),
    /// Captures the last fenced block tagged with the artifact's name in the assistant's
    /// text as the artifact.
    CaptureArtifact(String),
    /// Keeps the agent's todo list and the plan artifact's checklist in step.
    SyncTodos,
    /// Text delivered through the agent's inbox before its next model call.
    Inject(String),
    /// Sets keys of the function's key-value store (`state_eq` reads them).
    SetState(Vec<(String, String)>),
}

/// One `observe` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observer {
    pub on: On,
    /// `tool_after`: the tools it watches (`None`: all).
    pub tools: Option<Vec<String>>,
    /// `tool_after`: the output must contain this.
    pub contains: Option<String>,
    /// `tool_after`: the output must not contain this.
    pub not_contains: Option<String>,
    pub actions: Vec<Action>,
}

impl Observer {
    /// Whether a `tool_after` observer fires for `tool` with `output`.
    pub fn matches_tool(&self, tool: &str, output: &str) -> bool {
        self.on == On::ToolAfter
            && self
                .tools
                .as_ref()
                .is_none_or(|tools| tools.iter().any(|t| t == tool))
            && self.contains.as_ref().is_none_or(|c| output.contains(c))
            && self
                .not_contains
                .as_ref()
                .is_none_or(|c| !output.contains(c))
    }
}

/// The keys of a function, as [`super::fields`] meets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FunctionKey {
    Gate,
    Transitions,
    Produces,
    Consumes,
    RequiresEvidence,
    Observe,
    ContinueUntil,
    ContinueMax,
    Locked,
}

/// Every spelling of the function keys.
pub(crate) const SPELLINGS: &[(&str, FunctionKey)] = &[
    ("gate", FunctionKey::Gate),
    ("transitions", FunctionKey::Transitions),
    ("produces", FunctionKey::Produces),
    ("consumes", FunctionKey::Consumes),
    ("requires_evidence", FunctionKey::RequiresEvidence),
    ("requires-evidence", FunctionKey::RequiresEvidence),
    ("observe", FunctionKey::Observe),
    ("continue_until", FunctionKey::ContinueUntil),
    ("continue-until", FunctionKey::ContinueUntil),
    ("continue_max", FunctionKey::ContinueMax),
    ("continue-max", FunctionKey::ContinueMax),
    ("locked", FunctionKey::Locked),
];

/// Applies one key's `value` to `spec`; the error ends a sentence starting with the key.
pub(crate) fn apply(spec: &mut FunctionSpec, key: FunctionKey, value: Value) -> Result<(), String> {
    match key {
        FunctionKey::Gate => spec.gate = Some(condition(&value)?),
        FunctionKey::Transitions => spec.transitions = transitions(value)?,
        FunctionKey::Produces => spec.produces = artifact_names(value)?,
        FunctionKey::Consumes => spec.consumes = artifact_names(value)?,
        FunctionKey::RequiresEvidence => spec.requires_evidence = tags(value)?,
        FunctionKey::Observe => spec.observers = observers(value)?,
        FunctionKey::ContinueUntil => spec.continue_until = Some(condition(&value)?),
        FunctionKey::ContinueMax => {
            let n = values::integer(value)?;
            spec.continue_max = u32::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_CONTINUE_MAX).contains(n))
                .ok_or_else(|| format!("must be between 1 and {MAX_CONTINUE_MAX}, not {n}"))?;
        }
        FunctionKey::Locked => spec.locked = values::boolean(value, false)?,
    }
    Ok(())
}

/// Checks what one key cannot: the artifacts it captures are ones it `produces`.
pub(crate) fn check(spec: &FunctionSpec) -> Result<(), (FunctionKey, String)> {
    for observer in &spec.observers {
        for action in &observer.actions {
            if let Action::CaptureArtifact(name) = action
                && !spec.produces.contains(name)
            {
                return Err((
                    FunctionKey::Observe,
                    format!(
                        "captures the artifact `{name}`, which the function does not list in `produces`: add it there"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn condition(value: &Value) -> Result<Condition, String> {
    condition::parse(value).map_err(|e| e.to_string())
}

fn transitions(value: Value) -> Result<Vec<Transition>, String> {
    each(
        value,
        "a list of `{when, activate, deactivate}`",
        transition,
    )
}

/// The items of a list (one mapping alone is a list of one; nothing is none), each
/// read by `read`, an error naming its position; `what` says what the list holds.
fn each<T>(
    value: Value,
    what: &str,
    read: fn(Value) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Sequence(items) => items,
        Value::Mapping(map) => vec![Value::Mapping(map)],
        other => {
            let kind = crate::frontmatter::kind(&other);
            return Err(format!("must be {what}, not {kind}"));
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| read(item).map_err(|e| format!("item {}: {e}", i + 1)))
        .collect()
}

fn transition(item: Value) -> Result<Transition, String> {
    let Value::Mapping(map) = item else {
        let kind = crate::frontmatter::kind(&item);
        return Err(format!(
            "must be `{{when, activate, deactivate}}`, not {kind}"
        ));
    };
    let mut when = None;
    let mut out = Transition {
        when: When::Gate,
        activate: Vec::new(),
        deactivate_self: false,
    };
    for (k, v) in map {
        match values::text(k)?.as_str() {
            "when" => {
                when = Some(match &v {
                    Value::String(s) if s.trim() == "gate" => When::Gate,
                    _ => When::Condition(condition(&v).map_err(|e| format!("`when`: {e}"))?),
                })
            }
            "activate" => out.activate = skill_names(v, "activate")?,
            "deactivate" => {
                for name in skill_names(v, "deactivate")? {
                    if name != "self" {
                        return Err(format!(
                            "`deactivate` names `{name}`: a transition may deactivate only its own function (`deactivate: [self]`)"
                        ));
                    }
                    out.deactivate_self = true;
                }
            }
            other => {
                return Err(format!(
                    "takes `when`, `activate` and `deactivate`, not `{other}`"
                ));
            }
        }
    }
    out.when = when.ok_or("has no `when` (a condition, or `gate`)")?;
    if out.activate.is_empty() && !out.deactivate_self {
        return Err("neither activates nor deactivates anything".to_string());
    }
    Ok(out)
}

fn skill_names(value: Value, key: &str) -> Result<Vec<String>, String> {
    let names = values::list(value, Cut::Words)
        .map_err(|e| format!("`{key}` {e}"))?
        .unwrap_or_default();
    match names.iter().find(|n| *n != "self" && !super::valid_name(n)) {
        Some(bad) => Err(format!("`{key}` names `{bad}`, which is not a skill name")),
        None => Ok(names),
    }
}

/// Artifact names: `[a-z][a-z0-9_-]*`, at most 64 (they name files).
pub fn valid_artifact(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && name.len() <= 64
}

fn artifact_names(value: Value) -> Result<Vec<String>, String> {
    let names = values::list(value, Cut::Words)?.unwrap_or_default();
    match names.iter().find(|n| !valid_artifact(n)) {
        Some(bad) => Err(format!(
            "names `{bad}`, which is not an artifact name (lowercase letters, digits, `-` and `_`, starting with a letter)"
        )),
        None => Ok(names),
    }
}

fn tags(value: Value) -> Result<Vec<String>, String> {
    let tags = values::list(value, Cut::Words)?.unwrap_or_default();
    match tags.iter().find(|t| t.chars().any(char::is_control)) {
        Some(bad) => Err(format!("has the tag {bad:?}: tags are one line")),
        None => Ok(tags),
    }
}

fn observers(value: Value) -> Result<Vec<Observer>, String> {
    each(value, "a list of observers", observer)
}

const OBSERVER_KEYS: &str = "`on`, `tool`, `when_output`, `set_evidence`, `capture_artifact`, `sync_todos`, `inject`, `set_state`";

fn observer(item: Value) -> Result<Observer, String> {
    let Value::Mapping(map) = item else {
        let kind = crate::frontmatter::kind(&item);
        return Err(format!(
            "must be a mapping with `on` and an action, not {kind}"
        ));
    };
    let mut on = None;
    let mut out = Observer {
        on: On::Message,
        tools: None,
        contains: None,
        not_contains: None,
        actions: Vec::new(),
    };
    for (k, v) in map {
        match values::text(k)?.as_str() {
            "on" => {
                on = Some(match values::text(v)?.as_str() {
                    "tool_after" => On::ToolAfter,
                    "message" => On::Message,
                    "activate" => On::Activate,
                    other => {
                        return Err(format!(
                            "`on: {other}`: observers watch `tool_after`, `message` or `activate`"
                        ));
                    }
                })
            }
            "tool" => {
                let text = values::text(v)?;
                let tools: Vec<String> = text
                    .split(['|', ','])
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect();
                out.tools = (!tools.is_empty()).then_some(tools);
            }
            "when_output" => (out.contains, out.not_contains) = output_filter(v)?,
            "set_evidence" => out.actions.push(Action::SetEvidence(
                tags(v).map_err(|e| format!("`set_evidence` {e}"))?,
            )),
            "capture_artifact" => {
                let name = values::text(v)?;
                if !valid_artifact(&name) {
                    return Err(format!(
                        "`capture_artifact: {name}` is not an artifact name (lowercase letters, digits, `-` and `_`)"
                    ));
                }
                out.actions.push(Action::CaptureArtifact(name));
            }
            "sync_todos" => {
                if values::boolean(v, true)? {
                    out.actions.push(Action::SyncTodos);
                }
            }
            "inject" => {
                let text = values::text(v)?;
                if text.is_empty() {
                    return Err("`inject` is empty".to_string());
                }
                out.actions.push(Action::Inject(text));
            }
            "set_state" => out.actions.push(Action::SetState(state_pairs(v)?)),
            other => return Err(format!("takes {OBSERVER_KEYS}, not `{other}`")),
        }
    }
    out.on = on.ok_or("has no `on` (tool_after, message or activate)")?;
    if out.actions.is_empty() {
        return Err(
            "does nothing: give it an action (set_evidence, capture_artifact, sync_todos, inject, set_state)"
                .to_string(),
        );
    }
    if out.on != On::ToolAfter
        && (out.tools.is_some() || out.contains.is_some() || out.not_contains.is_some())
    {
        return Err(format!(
            "`tool` and `when_output` filter tool calls: they need `on: tool_after`, not `on: {}`",
            out.on.as_str()
        ));
    }
    Ok(out)
}

fn output_filter(value: Value) -> Result<(Option<String>, Option<String>), String> {
    let Value::Mapping(map) = value else {
        return Err("`when_output` must be `{contains, not_contains}`".to_string());
    };
    let (mut contains, mut not_contains) = (None, None);
    for (k, v) in map {
        let text = values::text(v)?;
        let text = (!text.is_empty()).then_some(text);
        match values::text(k)?.as_str() {
            "contains" => contains = text,
            "not_contains" => not_contains = text,
            other => {
                return Err(format!(
                    "`when_output` takes `contains` and `not_contains`, not `{other}`"
                ));
            }
        }
    }
    Ok((contains, not_contains))
}

fn state_pairs(value: Value) -> Result<Vec<(String, String)>, String> {
    let Value::Mapping(map) = value else {
        return Err("`set_state` must be a mapping of keys to values".to_string());
    };
    let mut pairs = Vec::new();
    for (k, v) in Mapping::into_iter(map) {
        let key = values::text(k)?;
        if key.is_empty() || key.chars().any(|c| c.is_whitespace() || c == '=') {
            return Err(format!(
                "`set_state` has the key {key:?}: keys are one word"
            ));
        }
        pairs.push((key, values::text(v)?));
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(yaml: &str) -> Result<FunctionSpec, String> {
        let value: Value = yaml_serde::from_str(yaml).map_err(|e| e.to_string())?;
        let Value::Mapping(map) = value else {
            return Err("not a mapping".into());
        };
        let mut spec = FunctionSpec {
            continue_max: DEFAULT_CONTINUE_MAX,
            ..FunctionSpec::default()
        };
        for (k, v) in map {
            let key = values::text(k)?;
            let (_, key) = SPELLINGS
                .iter()
                .find(|(s, _)| *s == key)
                .ok_or(format!("unknown {key}"))?;
            apply(&mut spec, *key, v).map_err(|e| format!("{key:?}: {e}"))?;
        }
        check(&spec).map_err(|(_, e)| e)?;
        Ok(spec)
    }

    #[test]
    fn a_full_function_parses() {
        let spec = parsed(
            r#"
gate: artifact_exists(plan)
transitions:
  - when: gate
    activate: [review]
    deactivate: [self]
produces: [plan]
consumes: plan
requires_evidence: [tests_pass]
observe:
  - on: tool_after
    tool: Bash|Grep
    when_output: {contains: "ok", not_contains: FAILED}
    set_evidence: tests_pass
  - on: message
    capture_artifact: plan
  - on: activate
    inject: remember the plan
    set_state: {review: pending}
continue_until: {all: [plan_todos_complete, evidence_met]}
continue_max: 3
locked: true
"#,
        )
        .unwrap();
        assert_eq!(spec.gate, Some(Condition::ArtifactExists("plan".into())));
        assert_eq!(spec.transitions[0].when, When::Gate);
        assert_eq!(spec.transitions[0].activate, ["review"]);
        assert!(spec.transitions[0].deactivate_self);
        assert_eq!(spec.consumes, ["plan"]);
        assert_eq!(spec.observers.len(), 3);
        assert!(spec.observers[0].matches_tool("Grep", "all ok"));
        assert!(!spec.observers[0].matches_tool("Grep", "ok but FAILED"));
        assert!(!spec.observers[0].matches_tool("Read", "ok"));
        assert_eq!(
            spec.observers[2].actions,
            [
                Action::Inject("remember the plan".into()),
                Action::SetState(vec![("review".into(), "pending".into())])
            ]
        );
        assert_eq!(spec.continue_max, 3);
        assert!(spec.locked);
    }

    #[test]
    fn mistakes_are_errors_that_say_what_to_write() {
        let cases = [
            ("gate: artifact_exist(plan)", "artifact_exist"),
            (
                "transitions: [{when: gate, activate: [x], deactivate: [other]}]",
                "only its own",
            ),
            ("transitions: [{activate: [x]}]", "no `when`"),
            ("transitions: [{when: gate}]", "neither"),
            (
                "transitions: [{when: gate, activate: [X]}]",
                "not a skill name",
            ),
            ("observe: [{on: tool_after}]", "does nothing"),
            ("observe: [{on: later, inject: x}]", "`on: later`"),
            (
                "observe: [{on: message, tool: Bash, inject: x}]",
                "need `on: tool_after`",
            ),
            (
                "observe: [{on: message, capture_artifact: plan}]",
                "produces",
            ),
            ("observe: [{on: message, shout: x}]", "not `shout`"),
            ("produces: [Plan]", "not an artifact name"),
            ("continue_max: 0", "between 1 and 50"),
            ("continue_until: 3", ""),
        ];
        for (yaml, fragment) in cases {
            let err = parsed(yaml).expect_err(yaml);
            assert!(err.contains(fragment), "{yaml}: {err}");
        }
    }
}
