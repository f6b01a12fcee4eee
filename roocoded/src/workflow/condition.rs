//! The closed condition vocabulary of workflow functions: what a skill's `gate`,
//! `transitions[].when` and `continue_until` may say, parsed from frontmatter
//! ([`parse`], [`parse_str`]), printed back in canonical form (`Display`), and
//! evaluated against the [`Facts`] the engine gathers ([`Condition::holds`],
//! [`Condition::unmet`]). Pure: no I/O, no store.
//!
//! The text form is `name` or `name(argument)`, with the combinators written as
//! functions: `all(c1, c2, ...)`, `any(c1, ...)`, `not(c)`. In YAML a condition may
//! also be a mapping with exactly one key `all` or `any` (a list of at least one
//! condition) or `not` (one condition), or a list, which means `all` of its items.
//! Both forms nest freely. The word `gate` is not part of the vocabulary: the caller
//! resolves it before calling here.

use std::fmt;

use roocode_protocol::command::closest;
use thiserror::Error;
use yaml_serde::Value;

/// One condition of the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// `user_approval`: a genuine user message arrived since the function was activated.
    UserApproval,
    /// `artifact_exists(plan)`: the named artifact was written.
    ArtifactExists(String),
    /// `plan_todos_complete`: every todo of the plan is done.
    PlanTodosComplete,
    /// `evidence_met`: every `requires_evidence` tag was seen.
    EvidenceMet,
    /// `tool_observed(Bash)`: the tool ran since activation.
    ToolObserved(String),
    /// `turn_count(3)`: at least n model calls since activation.
    TurnCount(u32),
    /// `state_eq(review=passed)`: the state key holds exactly this value.
    StateEq { key: String, value: String },
    /// `all(c1, c2, ...)`: every one holds.
    All(Vec<Condition>),
    /// `any(c1, c2, ...)`: at least one holds.
    Any(Vec<Condition>),
    /// `not(c)`: c does not hold.
    Not(Box<Condition>),
}

/// The vocabulary as shown in error messages.
const VOCABULARY: &str = "user_approval, artifact_exists(name), plan_todos_complete, \
     evidence_met, tool_observed(Tool), turn_count(n), state_eq(key=value), \
     all(c, ...), any(c, ...), not(c)";

/// Every name of the vocabulary, for "did you mean".
const NAMES: [&str; 10] = [
    "user_approval",
    "artifact_exists",
    "plan_todos_complete",
    "evidence_met",
    "tool_observed",
    "turn_count",
    "state_eq",
    "all",
    "any",
    "not",
];

/// The largest `turn_count(n)`.
const MAX_TURNS: u32 = 1000;

/// Why a condition could not be read. Messages read well after a location prefix
/// such as `.roocode/skills/x.md:4: gate: `.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConditionError {
    #[error("no condition written; the conditions are: {}", VOCABULARY)]
    Empty,
    #[error(
        "unknown condition \"{name}\"{}; the conditions are: {}",
        did_you_mean(.closest),
        VOCABULARY
    )]
    Unknown {
        name: String,
        closest: Option<&'static str>,
    },
    #[error("{problem} in \"{text}\"; write name or name(argument), e.g. artifact_exists(plan)")]
    Syntax { text: String, problem: String },
    #[error("{name} takes no argument: write {name}")]
    UnexpectedArgument { name: &'static str },
    #[error("{name} needs an argument: write {form}")]
    MissingArgument {
        name: &'static str,
        form: &'static str,
    },
    #[error("{name}({argument}): {expected}")]
    BadArgument {
        name: &'static str,
        argument: String,
        expected: &'static str,
    },
    #[error(
        "{name}(...) needs at least one condition, \
         e.g. {name}(artifact_exists(plan), user_approval)"
    )]
    EmptyCombinator { name: &'static str },
    #[error(
        "not(...) takes exactly one condition, found {found}; \
         write not(all(...)) or not(any(...)) to negate several"
    )]
    NotArity { found: usize },
    #[error(
        "expected a condition (text such as artifact_exists(plan), a mapping with one key \
         all, any or not, or a list meaning all of its items), found {found}"
    )]
    Yaml { found: String },
    #[error("`{key}` takes a list of at least one condition, found {found}")]
    YamlList { key: &'static str, found: String },
    #[error("a condition written as a mapping has exactly one key, all, any or not; found {keys}")]
    YamlKeys { keys: String },
    #[error(
        "the condition nests deeper than {MAX_DEPTH} levels or is longer than {MAX_CHARS} characters: split it"
    )]
    TooBig,
}

/// The deepest nesting of combinators (parentheses or YAML levels) a condition may
/// have: a skill file is not trusted to keep the parser's recursion small.
pub const MAX_DEPTH: usize = 32;

/// The longest condition text.
pub const MAX_CHARS: usize = 4096;

/// Whether `text` nests parentheses (outside double quotes) deeper than [`MAX_DEPTH`].
fn too_deep(text: &str) -> bool {
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    for c in text.chars() {
        match (quoted, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (true, '"') | (false, '"') => quoted = !quoted,
            (false, '(') => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            (false, ')') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Whether a YAML condition nests deeper than [`MAX_DEPTH`] (counted without recursing
/// past the limit).
fn yaml_too_deep(value: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match value {
        Value::Sequence(items) => items.iter().any(|v| yaml_too_deep(v, depth + 1)),
        Value::Mapping(map) => map.values().any(|v| yaml_too_deep(v, depth + 1)),
        Value::Tagged(tagged) => yaml_too_deep(&tagged.value, depth + 1),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => false,
    }
}

fn did_you_mean(closest: &Option<&'static str>) -> String {
    closest
        .map(|best| format!(" (did you mean {best}?)"))
        .unwrap_or_default()
}

/// A condition from frontmatter: a string in the text form; a mapping with exactly one
/// key `all`/`any` (a list of at least one condition) or `not` (one condition); or a
/// list, which means `all` of its items (so `not: [a, b]` is `not(all(a, b))`).
pub fn parse(value: &Value) -> Result<Condition, ConditionError> {
    if yaml_too_deep(value, 0) {
        return Err(ConditionError::TooBig);
    }
    parse_yaml(value)
}

fn parse_yaml(value: &Value) -> Result<Condition, ConditionError> {
    match value {
        Value::String(text) => parse_str(text),
        Value::Sequence(items) if items.is_empty() => Err(ConditionError::Yaml {
            found: describe(value),
        }),
        Value::Sequence(items) => items
            .iter()
            .map(parse_yaml)
            .collect::<Result<_, _>>()
            .map(Condition::All),
        Value::Mapping(map) => {
            let mut entries = map.iter();
            let (Some((key, inner)), None) = (entries.next(), entries.next()) else {
                return Err(ConditionError::YamlKeys {
                    keys: mapping_keys(value),
                });
            };
            match key.as_str() {
                Some("all") => yaml_list("all", inner).map(Condition::All),
                Some("any") => yaml_list("any", inner).map(Condition::Any),
                Some("not") => parse_yaml(inner).map(|c| Condition::Not(Box::new(c))),
                _ => Err(ConditionError::YamlKeys {
                    keys: mapping_keys(value),
                }),
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Tagged(_) => {
            Err(ConditionError::Yaml {
                found: describe(value),
            })
        }
    }
}

/// The items of `key: [...]`, at least one.
fn yaml_list(key: &'static str, value: &Value) -> Result<Vec<Condition>, ConditionError> {
    match value {
        Value::Sequence(items) if !items.is_empty() => items.iter().map(parse_yaml).collect(),
        _ => Err(ConditionError::YamlList {
            key,
            found: describe(value),
        }),
    }
}

/// What a YAML value is, for an error message.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing (null)".to_string(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => format!("the text \"{s}\""),
        Value::Sequence(items) if items.is_empty() => "an empty list".to_string(),
        Value::Sequence(_) => "a list".to_string(),
        Value::Mapping(map) if map.is_empty() => "an empty mapping".to_string(),
        Value::Mapping(_) => "a mapping".to_string(),
        Value::Tagged(tagged) => format!("a tagged value ({})", tagged.tag),
    }
}

/// The keys of a mapping, for an error message.
fn mapping_keys(value: &Value) -> String {
    let Value::Mapping(map) = value else {
        return describe(value);
    };
    if map.is_empty() {
        return "no keys".to_string();
    }
    let keys: Vec<String> = map
        .keys()
        .map(|k| k.as_str().map_or_else(|| describe(k), str::to_string))
        .collect();
    format!("keys {}", keys.join(", "))
}

/// A condition in the text form: `name`, `name(argument)`, `all(c1, c2, ...)`,
/// `any(...)`, `not(c)`; whitespace allowed around tokens.
pub fn parse_str(text: &str) -> Result<Condition, ConditionError> {
    if text.len() > MAX_CHARS || too_deep(text) {
        return Err(ConditionError::TooBig);
    }
    parse_text(text)
}

fn parse_text(text: &str) -> Result<Condition, ConditionError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ConditionError::Empty);
    }
    let syntax = |problem: String| ConditionError::Syntax {
        text: text.to_string(),
        problem,
    };
    let name_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let (name, rest) = text.split_at(name_end);
    if name.is_empty() {
        return Err(syntax("expected a condition name".to_string()));
    }
    let rest = rest.trim_start();
    let argument = match rest.strip_prefix('(') {
        None if rest.is_empty() => None,
        None => return Err(syntax(trailing(rest, name))),
        Some(inner) => {
            let close = closing(inner).map_err(|problem| syntax(problem.to_string()))?;
            let after = inner[close + 1..].trim();
            if !after.is_empty() {
                return Err(syntax(trailing(after, &text[..text.len() - after.len()])));
            }
            Some(inner[..close].trim())
        }
    };
    leaf_or_combinator(name, argument, text)
}

/// The problem with text found after a complete condition.
fn trailing(after: &str, before: &str) -> String {
    if after.starts_with(')') {
        "unbalanced parentheses".to_string()
    } else {
        format!("unexpected text \"{after}\" after \"{}\"", before.trim())
    }
}

/// The byte index in `inner` (the text after an opening parenthesis) of the
/// parenthesis closing it; double-quoted text (with `\"` and `\\` escapes) is skipped.
fn closing(inner: &str) -> Result<usize, &'static str> {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in inner.char_indices() {
        match (quoted, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (true, '"') | (false, '"') => quoted = !quoted,
            (true, _) => {}
            (false, '(') => depth += 1,
            (false, ')') if depth == 0 => return Ok(i),
            (false, ')') => depth -= 1,
            (false, _) => {}
        }
    }
    Err(if quoted {
        "an unclosed double quote"
    } else {
        "unbalanced parentheses"
    })
}

/// `inner` split at the commas outside parentheses and double quotes.
fn split_top(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0usize, false, false, 0);
    for (i, c) in inner.char_indices() {
        match (quoted, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (true, '"') | (false, '"') => quoted = !quoted,
            (true, _) => {}
            (false, '(') => depth += 1,
            (false, ')') => depth = depth.saturating_sub(1),
            (false, ',') if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            (false, _) => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

/// The condition `name(argument)` (`argument` trimmed, `None` without parentheses).
fn leaf_or_combinator(
    name: &str,
    argument: Option<&str>,
    text: &str,
) -> Result<Condition, ConditionError> {
    let Some(&known) = NAMES.iter().find(|known| **known == name) else {
        return Err(ConditionError::Unknown {
            name: name.to_string(),
            closest: closest(&name.to_ascii_lowercase(), &NAMES).first().copied(),
        });
    };
    let bad = |argument: &str, expected| ConditionError::BadArgument {
        name: known,
        argument: argument.to_string(),
        expected,
    };
    let missing = |form| ConditionError::MissingArgument { name: known, form };
    match (known, argument) {
        ("user_approval", None) => Ok(Condition::UserApproval),
        ("plan_todos_complete", None) => Ok(Condition::PlanTodosComplete),
        ("evidence_met", None) => Ok(Condition::EvidenceMet),
        ("user_approval" | "plan_todos_complete" | "evidence_met", Some(_)) => {
            Err(ConditionError::UnexpectedArgument { name: known })
        }
        ("artifact_exists", None | Some("")) => Err(missing("artifact_exists(name)")),
        ("artifact_exists", Some(a)) if artifact_name(a) => {
            Ok(Condition::ArtifactExists(a.to_string()))
        }
        ("artifact_exists", Some(a)) => Err(bad(
            a,
            "an artifact name is lowercase letters, digits, _ and -, starting with a letter",
        )),
        ("tool_observed", None | Some("")) => {
            Err(missing("tool_observed(Tool), e.g. tool_observed(Bash)"))
        }
        ("tool_observed", Some(a)) if tool_name(a) => Ok(Condition::ToolObserved(a.to_string())),
        ("tool_observed", Some(a)) => Err(bad(
            a,
            "a tool name is letters, digits and _, starting with a letter \
             (e.g. Bash, mcp__server__tool)",
        )),
        ("turn_count", None | Some("")) => Err(missing("turn_count(n), e.g. turn_count(3)")),
        ("turn_count", Some(a)) => a
            .parse::<u32>()
            .ok()
            .filter(|n| a.bytes().all(|b| b.is_ascii_digit()) && (1..=MAX_TURNS).contains(n))
            .map(Condition::TurnCount)
            .ok_or_else(|| bad(a, "the count is a whole number from 1 to 1000")),
        ("state_eq", None | Some("")) => {
            Err(missing("state_eq(key=value), e.g. state_eq(review=passed)"))
        }
        ("state_eq", Some(a)) => state_eq(a).ok_or_else(|| {
            bad(
                a,
                "write key=value: the key is lowercase letters, digits, _, . and -, not starting \
                 with a digit; the value is non-empty text, in double quotes (with \\\" and \\\\) \
                 when it holds parentheses or quotes",
            )
        }),
        ("all" | "any" | "not", None | Some("")) => Err(if known == "not" {
            ConditionError::NotArity { found: 0 }
        } else {
            ConditionError::EmptyCombinator { name: known }
        }),
        ("all" | "any" | "not", Some(inner)) => {
            let parts = split_top(inner);
            if parts.iter().any(|part| part.trim().is_empty()) {
                return Err(ConditionError::Syntax {
                    text: text.to_string(),
                    problem: format!("an empty item in {known}(...)"),
                });
            }
            let mut items: Vec<Condition> = parts
                .into_iter()
                .map(parse_text)
                .collect::<Result<_, _>>()?;
            match (known, items.len()) {
                ("all", _) => Ok(Condition::All(items)),
                ("any", _) => Ok(Condition::Any(items)),
                (_, 1) => Ok(Condition::Not(Box::new(items.remove(0)))),
                (_, found) => Err(ConditionError::NotArity { found }),
            }
        }
        (_, _) => Err(ConditionError::Unknown {
            name: name.to_string(),
            closest: None,
        }),
    }
}

/// `[a-z][a-z0-9_-]*`
fn artifact_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// `[A-Za-z][A-Za-z0-9_]*`
fn tool_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `key=value`: key `[a-z_][a-z0-9_.-]*`; value non-empty after trimming, optionally
/// in double quotes (`\"`, `\\` escaped).
fn state_eq(argument: &str) -> Option<Condition> {
    let (key, value) = argument.split_once('=')?;
    let key = key.trim();
    let key_ok = key.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '.' | '-'));
    let value = value.trim();
    let value = match value.strip_prefix('"') {
        Some(quoted) => unquote(quoted)?,
        None => value.to_string(),
    };
    (key_ok && !value.is_empty()).then(|| Condition::StateEq {
        key: key.to_string(),
        value,
    })
}

/// The text of `quoted` (after its opening quote) up to the closing quote, which must
/// end it.
fn unquote(quoted: &str) -> Option<String> {
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?),
            '"' => return chars.as_str().is_empty().then_some(value),
            _ => value.push(c),
        }
    }
    None
}

/// The canonical text form; [`parse_str`] reads it back to an equal condition.
impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, items: &[Condition]| {
            write!(f, "{name}(")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            f.write_str(")")
        };
        match self {
            Condition::UserApproval => f.write_str("user_approval"),
            Condition::ArtifactExists(name) => write!(f, "artifact_exists({name})"),
            Condition::PlanTodosComplete => f.write_str("plan_todos_complete"),
            Condition::EvidenceMet => f.write_str("evidence_met"),
            Condition::ToolObserved(tool) => write!(f, "tool_observed({tool})"),
            Condition::TurnCount(n) => write!(f, "turn_count({n})"),
            Condition::StateEq { key, value } => {
                let plain =
                    !value.is_empty() && value.trim() == value && !value.contains(['(', ')', '"']);
                if plain {
                    write!(f, "state_eq({key}={value})")
                } else {
                    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
                    write!(f, "state_eq({key}=\"{escaped}\")")
                }
            }
            Condition::All(items) => list(f, "all", items),
            Condition::Any(items) => list(f, "any", items),
            Condition::Not(inner) => write!(f, "not({inner})"),
        }
    }
}

/// What the engine knows about a running workflow function, since its activation.
pub trait Facts {
    /// A genuine user message arrived.
    fn user_approval(&self) -> bool;
    /// The named artifact exists.
    fn artifact_exists(&self, name: &str) -> bool;
    /// Every todo of the plan is done.
    fn plan_todos_complete(&self) -> bool;
    /// Every `requires_evidence` tag was seen.
    fn evidence_met(&self) -> bool;
    /// The tool ran.
    fn tool_observed(&self, tool: &str) -> bool;
    /// Model calls made.
    fn turn_count(&self) -> u32;
    /// The value of a state key, if set.
    fn state(&self, key: &str) -> Option<String>;
}

impl Condition {
    /// Whether the condition holds. An empty `all` holds and an empty `any` does not
    /// (neither can be parsed).
    pub fn holds(&self, facts: &dyn Facts) -> bool {
        match self {
            Condition::UserApproval => facts.user_approval(),
            Condition::ArtifactExists(name) => facts.artifact_exists(name),
            Condition::PlanTodosComplete => facts.plan_todos_complete(),
            Condition::EvidenceMet => facts.evidence_met(),
            Condition::ToolObserved(tool) => facts.tool_observed(tool),
            Condition::TurnCount(n) => facts.turn_count() >= *n,
            Condition::StateEq { key, value } => facts.state(key).as_deref() == Some(value),
            Condition::All(items) => items.iter().all(|c| c.holds(facts)),
            Condition::Any(items) => items.iter().any(|c| c.holds(facts)),
            Condition::Not(inner) => !inner.holds(facts),
        }
    }

    /// The artifact names referenced anywhere, in order, each once.
    pub fn artifacts(&self) -> Vec<&str> {
        let mut names = Vec::new();
        self.collect_artifacts(&mut names);
        names
    }

    fn collect_artifacts<'a>(&'a self, names: &mut Vec<&'a str>) {
        match self {
            Condition::ArtifactExists(name) => {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
            Condition::All(items) | Condition::Any(items) => {
                items.iter().for_each(|c| c.collect_artifacts(names));
            }
            Condition::Not(inner) => inner.collect_artifacts(names),
            Condition::UserApproval
            | Condition::PlanTodosComplete
            | Condition::EvidenceMet
            | Condition::ToolObserved(_)
            | Condition::TurnCount(_)
            | Condition::StateEq { .. } => {}
        }
    }

    /// The canonical texts of what keeps the condition from holding, each once, in
    /// order (for "waiting for: artifact_exists(plan), user_approval"): each leaf that
    /// does not hold; for `all`, its items' unmet leaves; for an `any` that does not
    /// hold, all of its items' unmet leaves; for a `not(x)` whose `x` holds,
    /// `not(x)` itself. Empty when the condition holds.
    pub fn unmet(&self, facts: &dyn Facts) -> Vec<String> {
        let mut texts = Vec::new();
        self.collect_unmet(facts, &mut texts);
        texts
    }

    fn collect_unmet(&self, facts: &dyn Facts, texts: &mut Vec<String>) {
        if self.holds(facts) {
            return;
        }
        match self {
            Condition::All(items) | Condition::Any(items) => {
                items.iter().for_each(|c| c.collect_unmet(facts, texts));
            }
            Condition::UserApproval
            | Condition::ArtifactExists(_)
            | Condition::PlanTodosComplete
            | Condition::EvidenceMet
            | Condition::ToolObserved(_)
            | Condition::TurnCount(_)
            | Condition::StateEq { .. }
            | Condition::Not(_) => {
                let text = self.to_string();
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "condition_tests.rs"]
mod tests;
