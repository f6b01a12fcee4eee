//! The frontmatter keys of a prompt command: RooCode's snake_case keys, Claude Code's
//! kebab-case ones (which keep Claude Code's meaning), and how each value is read.

use std::path::Path;

use roocode_protocol::command::closest;
use yaml_serde::{Mapping, Value};

use super::error::{Invalid, Located};
use super::{CommandSource, PromptCommand};
use crate::frontmatter::values::{self, Cut};
use crate::frontmatter::{FileError, Split};

/// The longest description made from the body.
const SUMMARY_CHARS: usize = 80;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Description,
    ArgumentHint,
    AllowedTools,
    PreApproved,
    Model,
    /// Accepted and ignored: a prompt command is run by the user.
    Ignored,
}

const SPELLINGS: &[(&str, Key)] = &[
    ("description", Key::Description),
    ("argument_hint", Key::ArgumentHint),
    ("argument-hint", Key::ArgumentHint),
    ("allowed_tools", Key::AllowedTools),
    ("allowed-tools", Key::PreApproved),
    ("model", Key::Model),
    ("disable-model-invocation", Key::Ignored),
    ("disable_model_invocation", Key::Ignored),
];

/// Builds the command from a parsed frontmatter (empty when the file has none).
pub(crate) fn command(
    map: Mapping,
    split: &Split,
    name: String,
    source: CommandSource,
    path: &Path,
) -> Result<PromptCommand, Located> {
    let mut command = PromptCommand {
        name,
        description: String::new(),
        argument_hint: None,
        allowed_tools: None,
        pre_approved: Vec::new(),
        model: None,
        body: split.body.trim_start_matches('\n').trim_end().to_string(),
        path: path.to_path_buf(),
        source,
        warnings: Vec::new(),
    };
    let mut seen: Vec<(Key, String)> = Vec::new();
    let spellings: Vec<&str> = SPELLINGS.iter().map(|(s, _)| *s).collect();
    for (k, value) in map {
        let spelling = match k {
            Value::String(s) => s,
            other => format!("{other:?}"),
        };
        let Some(&(_, known)) = SPELLINGS.iter().find(|(s, _)| *s == spelling) else {
            let hint = match closest(&spelling, &spellings).first() {
                Some(best) => format!(" (did you mean `{best}`?)"),
                None => String::new(),
            };
            command
                .warnings
                .push(format!("unknown key `{spelling}`, ignored{hint}"));
            continue;
        };
        let line = split.line_of(&spelling);
        if let Some((_, first)) = seen
            .iter()
            .find(|(k, _)| *k == known && known != Key::Ignored)
        {
            return Err(Located::at(
                line,
                Invalid::two_spellings(first.clone(), spelling),
            ));
        }
        apply(&mut command, known, value)
            .map_err(|e| Located::at(line, Invalid::field(&spelling, e)))?;
        seen.push((known, spelling));
    }
    if command.description.is_empty() {
        command.description = values::summary(&command.body, SUMMARY_CHARS);
    }
    Ok(command)
}

fn apply(command: &mut PromptCommand, known: Key, value: Value) -> Result<(), String> {
    match known {
        Key::Description => {
            command.description = values::one_line(&values::text(value)?.replace("\\n", "\n"));
        }
        Key::ArgumentHint => command.argument_hint = values::hint(value)?,
        Key::AllowedTools => {
            command.allowed_tools = match &value {
                Value::String(s) if matches!(s.trim(), "" | "*") => None,
                Value::Sequence(items) if items.is_empty() => Some(Vec::new()),
                _ => values::list(value, Cut::Words)?,
            };
        }
        Key::PreApproved => {
            command.pre_approved = values::list(value, Cut::Words)?.unwrap_or_default();
        }
        Key::Model => {
            let model = values::line(value)?;
            command.model = model.filter(|m| !m.eq_ignore_ascii_case("inherit"));
        }
        Key::Ignored => {}
    }
    Ok(())
}
