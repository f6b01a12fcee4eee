//! The frontmatter keys of a skill: RooCode's snake_case keys, Claude Code's kebab-case
//! ones (which keep Claude Code's meaning), the keys accepted and not applied, and how
//! each value is read.

use std::path::Path;

use roocode_protocol::command::closest;
use yaml_serde::{Mapping, Value};

use super::error::{Invalid, Located};
use super::function::{self, FunctionSpec};
use super::{DEFAULT_PRIORITY, Param, Skill, SkillMode, SkillSource, valid_name};
use crate::frontmatter::FileError;
use crate::frontmatter::Split;
use crate::frontmatter::values::{self, Cut};

/// The longest description made from a body that has none.
const SUMMARY_CHARS: usize = 120;

/// A key RooCode applies, whatever its spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Name,
    Description,
    WhenToUse,
    Tags,
    AllowedTools,
    PreApproved,
    Mode,
    Context,
    ArgumentHint,
    Model,
    Params,
    Requires,
    Priority,
    DisableModelInvocation,
    UserInvocable,
}

/// Every spelling of the keys RooCode applies.
const SPELLINGS: &[(&str, Key)] = &[
    ("name", Key::Name),
    ("description", Key::Description),
    ("when_to_use", Key::WhenToUse),
    ("when-to-use", Key::WhenToUse),
    ("tags", Key::Tags),
    ("allowed_tools", Key::AllowedTools),
    ("allowed-tools", Key::PreApproved),
    ("mode", Key::Mode),
    ("context", Key::Context),
    ("argument_hint", Key::ArgumentHint),
    ("argument-hint", Key::ArgumentHint),
    ("model", Key::Model),
    ("params", Key::Params),
    ("requires", Key::Requires),
    ("priority", Key::Priority),
    ("disable-model-invocation", Key::DisableModelInvocation),
    ("disable_model_invocation", Key::DisableModelInvocation),
    ("user-invocable", Key::UserInvocable),
    ("user_invocable", Key::UserInvocable),
];

/// Descriptive keys of the Agent Skills format: accepted silently.
const METADATA: [&str; 5] = ["license", "version", "metadata", "compatibility", "author"];

/// Claude Code keys RooCode accepts but does not apply (listed in the warnings).
const NOT_APPLIED: [&str; 6] = [
    "agent",
    "hooks",
    "effort",
    "disallowed-tools",
    "shell",
    "paths",
];

/// Builds the skill from a parsed frontmatter (empty when the file has none); `split`
/// places errors on lines.
pub(crate) fn skill(
    map: Mapping,
    split: &Split,
    default_name: &str,
    source: SkillSource,
    path: Option<&Path>,
) -> Result<Skill, Located> {
    let body = split.body.trim_start_matches('\n').trim_end().to_string();
    let mut skill = Skill {
        name: String::new(),
        description: String::new(),
        when_to_use: None,
        tags: Vec::new(),
        allowed_tools: None,
        pre_approved: Vec::new(),
        mode: SkillMode::Inline,
        argument_hint: None,
        model: None,
        params: Vec::new(),
        requires: Vec::new(),
        priority: DEFAULT_PRIORITY,
        disable_model_invocation: false,
        user_invocable: true,
        body,
        source,
        path: path.map(Path::to_path_buf),
        dir: None,
        references: None,
        tools: Vec::new(),
        warnings: Vec::new(),
        function: None,
    };
    let mut seen: Vec<(Key, String)> = Vec::new();
    let mut modes: (Option<String>, Option<String>) = (None, None);
    let (mut not_applied, mut unknown) = (Vec::new(), Vec::new());
    for (k, value) in map {
        let spelling = match k {
            Value::String(s) => s,
            other => format!("{other:?}"),
        };
        if let Some(&(_, key)) = function::SPELLINGS.iter().find(|(s, _)| *s == spelling) {
            let line = split.line_of(&spelling);
            let spec = skill.function.get_or_insert_with(|| FunctionSpec {
                continue_max: function::DEFAULT_CONTINUE_MAX,
                ..FunctionSpec::default()
            });
            function::apply(spec, key, value)
                .map_err(|e| Located::at(line, Invalid::field(&spelling, e)))?;
            continue;
        }
        let Some(&(_, known)) = SPELLINGS.iter().find(|(s, _)| *s == spelling) else {
            if NOT_APPLIED.contains(&spelling.as_str()) {
                not_applied.push(spelling);
            } else if !METADATA.contains(&spelling.as_str()) {
                unknown.push(spelling);
            }
            continue;
        };
        let line = split.line_of(&spelling);
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == known) {
            return Err(Located::at(
                line,
                Invalid::two_spellings(first.clone(), spelling),
            ));
        }
        let at = |e: String| Located::at(line, Invalid::field(&spelling, e));
        match known {
            Key::Mode => modes.0 = Some(mode(&spelling, value).map_err(at)?),
            Key::Context => modes.1 = Some(mode(&spelling, value).map_err(at)?),
            _ => apply(&mut skill, known, value).map_err(at)?,
        }
        seen.push((known, spelling));
    }
    skill.mode = resolve_mode(modes, split)?;
    if let Some(spec) = &skill.function
        && let Err((key, e)) = function::check(spec)
    {
        let spelling = function::SPELLINGS
            .iter()
            .find(|(_, k)| *k == key)
            .map_or("observe", |(s, _)| *s);
        return Err(Located::at(
            split.line_of(spelling),
            Invalid::field(spelling, e),
        ));
    }
    finish_name(&mut skill, split, default_name)?;
    warn(&mut skill, &not_applied, &unknown);
    Ok(skill)
}

fn apply(skill: &mut Skill, known: Key, value: Value) -> Result<(), String> {
    match known {
        Key::Name => skill.name = values::line(value)?.unwrap_or_default(),
        // Claude Code's generator writes `\n` escapes in plain scalars; they are breaks.
        Key::Description => skill.description = values::text(value)?.replace("\\n", "\n"),
        Key::WhenToUse => {
            let text = values::text(value)?.replace("\\n", "\n");
            skill.when_to_use = (!text.is_empty()).then_some(text);
        }
        Key::Tags => skill.tags = values::list(value, Cut::Commas)?.unwrap_or_default(),
        Key::AllowedTools => skill.allowed_tools = allowed_tools(value)?,
        Key::PreApproved => {
            skill.pre_approved = values::list(value, Cut::Words)?.unwrap_or_default()
        }
        Key::ArgumentHint => skill.argument_hint = values::hint(value)?,
        Key::Model => {
            let model = values::line(value)?;
            skill.model = model.filter(|m| !m.eq_ignore_ascii_case("inherit"));
        }
        Key::Params => skill.params = params(value)?,
        Key::Requires => skill.requires = requires(value)?,
        Key::Priority => skill.priority = values::integer(value)?,
        Key::DisableModelInvocation => {
            skill.disable_model_invocation = values::boolean(value, false)?
        }
        Key::UserInvocable => skill.user_invocable = values::boolean(value, true)?,
        Key::Mode | Key::Context => {}
    }
    Ok(())
}

/// RooCode's narrowing list: absent, empty text or `*` = every tool (`None`); an
/// explicit empty list = no tool at all.
fn allowed_tools(value: Value) -> Result<Option<Vec<String>>, String> {
    match &value {
        Value::String(s) if matches!(s.trim(), "" | "*") => Ok(None),
        Value::Sequence(items) if items.is_empty() => Ok(Some(Vec::new())),
        _ => values::list(value, Cut::Words),
    }
}

/// `inline`/`fork` (`mode`) or Claude Code's `inherit`/`fork` (`context`), lowercased.
fn mode(spelling: &str, value: Value) -> Result<String, String> {
    let text = values::text(value)?.to_ascii_lowercase();
    match text.as_str() {
        "inline" | "fork" => Ok(text),
        "inherit" | "" if spelling == "context" => Ok("inline".to_string()),
        _ => Err(format!("must be `inline` or `fork`, not `{text}`")),
    }
}

fn resolve_mode(
    modes: (Option<String>, Option<String>),
    split: &Split,
) -> Result<SkillMode, Located> {
    let chosen = match modes {
        (Some(mode), Some(context)) if mode != context => {
            let line = split.line_of("context");
            return Err(Located::at(line, Invalid::ModeConflict { mode, context }));
        }
        (Some(m), _) | (None, Some(m)) => m,
        (None, None) => return Ok(SkillMode::Inline),
    };
    Ok(if chosen == "fork" {
        SkillMode::Fork
    } else {
        SkillMode::Inline
    })
}

/// A list of `{name, default?, description?}` (or bare names), or a mapping of names to
/// defaults (or to `{default?, description?}`), in order.
fn params(value: Value) -> Result<Vec<Param>, String> {
    let mut out: Vec<Param> = Vec::new();
    match value {
        Value::Null => {}
        Value::Sequence(items) => {
            for item in items {
                let param = match item {
                    Value::String(name) => bare(name),
                    Value::Mapping(map) => param_item(map)?,
                    other => {
                        let kind = crate::frontmatter::kind(&other);
                        return Err(format!(
                            "items must be `{{name, default, description}}`, not {kind}"
                        ));
                    }
                };
                push_param(&mut out, param)?;
            }
        }
        Value::Mapping(map) => {
            for (name, v) in map {
                let name = values::text(name)?;
                let mut param = match v {
                    Value::Mapping(details) => {
                        let mut details = details;
                        details.insert(Value::String("name".into()), Value::String(name));
                        param_item(details)?
                    }
                    other => Param {
                        name,
                        default: scalar(other)?,
                        description: None,
                    },
                };
                param.name = param.name.trim().to_string();
                push_param(&mut out, param)?;
            }
        }
        other => {
            let kind = crate::frontmatter::kind(&other);
            return Err(format!(
                "must be a list of parameters or a mapping of names to defaults, not {kind}"
            ));
        }
    }
    Ok(out)
}

fn bare(name: String) -> Param {
    Param {
        name: name.trim().to_string(),
        default: None,
        description: None,
    }
}

fn param_item(map: Mapping) -> Result<Param, String> {
    let mut param = bare(String::new());
    for (k, v) in map {
        match values::text(k)?.as_str() {
            "name" => param.name = values::text(v)?,
            "default" => param.default = scalar(v)?,
            "description" => param.description = values::line(v)?,
            other => {
                return Err(format!(
                    "items take `name`, `default` and `description`, not `{other}`"
                ));
            }
        }
    }
    Ok(param)
}

/// A default: text, a number or true/false as text; nothing is no default.
fn scalar(value: Value) -> Result<Option<String>, String> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => values::text(other).map(Some),
    }
}

fn push_param(out: &mut Vec<Param>, param: Param) -> Result<(), String> {
    let name = &param.name;
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok || name == "ARGUMENTS" {
        return Err(format!(
            "has a parameter `{name}`: names are letters, digits and `_`, starting with a \
             letter (used as `$name` in the body), and not `ARGUMENTS`"
        ));
    }
    if out.iter().any(|p| p.name == *name) {
        return Err(format!("names the parameter `{name}` twice"));
    }
    out.push(param);
    Ok(())
}

fn requires(value: Value) -> Result<Vec<String>, String> {
    let names = values::list(value, Cut::Words)?.unwrap_or_default();
    match names.iter().find(|n| !valid_name(n)) {
        Some(bad) => Err(format!("names `{bad}`, which is not a skill name")),
        None => Ok(names),
    }
}

/// Checks the name from the frontmatter, or takes the file's, and fills a missing
/// description from the body.
fn finish_name(skill: &mut Skill, split: &Split, default_name: &str) -> Result<(), Located> {
    if skill.name.is_empty() {
        if !valid_name(default_name) {
            let what = if skill.path.as_ref().is_some_and(|p| p.ends_with("SKILL.md")) {
                "folder"
            } else {
                "file"
            };
            let error = Invalid::BadFileName {
                what,
                name: default_name.to_string(),
                suggestion: super::error::suggest_name(default_name),
            };
            return Err(Located::at(split.first_line, error));
        }
        skill.name = default_name.to_string();
    } else if !valid_name(&skill.name) {
        let error = Invalid::BadName {
            name: skill.name.clone(),
            suggestion: super::error::suggest_name(&skill.name),
        };
        return Err(Located::at(split.line_of("name"), error));
    }
    if skill.description.is_empty() {
        skill.description = values::summary(&skill.body, SUMMARY_CHARS);
        skill.warnings.push(
            "no `description`: the model picks skills by it, so the body's first line is \
             shown instead; add one"
                .to_string(),
        );
    }
    Ok(())
}

fn warn(skill: &mut Skill, not_applied: &[String], unknown: &[String]) {
    if !not_applied.is_empty() {
        skill.warnings.push(format!(
            "not applied by RooCode (Claude Code settings): {}",
            not_applied.join(", ")
        ));
    }
    let spellings: Vec<&str> = SPELLINGS
        .iter()
        .map(|(s, _)| *s)
        .chain(function::SPELLINGS.iter().map(|(s, _)| *s))
        .collect();
    for key in unknown {
        let hint = match closest(key, &spellings).first() {
            Some(best) => format!(" (did you mean `{best}`?)"),
            None => String::new(),
        };
        skill
            .warnings
            .push(format!("unknown key `{key}`, ignored{hint}"));
    }
    if skill.body.is_empty() {
        skill
            .warnings
            .push("the body is empty: the skill gives the model nothing to do".to_string());
    }
}
