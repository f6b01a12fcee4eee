//! MCP prompts as the user invokes them: `/mcp__<server>__<prompt> args`
//! ([`McpPromptInfo::command_name`]), the arguments typed after the command mapped onto
//! the ones the prompt declares ([`map_arguments`]), and the usage line shown when one
//! that is required is missing ([`McpPromptInfo::usage`]).
//!
//! Mapping the typed arguments: the text is split into shell words (quotes keep words
//! together, as `shlex` splits them). A word `name=value` whose `name` is a declared
//! argument gives that argument (a later one wins over an earlier one); every other
//! word fills the declared arguments not given by name, positionally, in the declared
//! order. When there are more words than such arguments, the last of them takes the
//! rest of the words joined by single spaces (so `/mcp__gh__summarize 42 the whole
//! title` works). A required argument left without a value is an error naming it and
//! the usage; words left over when every argument already has a value are an error
//! too, never silently dropped.

use std::collections::BTreeMap;

use super::names::prompt_command;

/// A prompt as a server lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPrompt {
    /// The server's own name of the prompt (what `prompts/get` is asked for).
    pub name: String,
    /// Its description, or its title when it has no description.
    pub description: Option<String>,
    pub arguments: Vec<McpPromptArg>,
}

/// One argument a prompt declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPromptArg {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt of one of a session's servers, under the name the session's configuration
/// gives the server (servers are shared between projects that may name them apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPromptInfo {
    pub server: String,
    pub name: String,
    pub description: Option<String>,
    pub arguments: Vec<McpPromptArg>,
}

impl McpPromptInfo {
    /// `prompt` of the server configured as `server`.
    pub fn new(server: &str, prompt: &McpPrompt) -> Self {
        McpPromptInfo {
            server: server.to_string(),
            name: prompt.name.clone(),
            description: prompt.description.clone(),
            arguments: prompt.arguments.clone(),
        }
    }

    /// The slash command that invokes it, without the slash: `mcp__<server>__<prompt>`
    /// (see [`prompt_command`] for names that need cleaning).
    pub fn command_name(&self) -> String {
        prompt_command(&self.server, &self.name)
    }

    /// How the command is typed: `/mcp__srv__p <a> [b]`, required arguments in angle
    /// brackets and optional ones in square brackets, in declared order.
    pub fn usage(&self) -> String {
        let synopsis = synopsis(&self.arguments);
        if synopsis.is_empty() {
            format!("/{}", self.command_name())
        } else {
            format!("/{} {synopsis}", self.command_name())
        }
    }

    /// `args` mapped onto its arguments as [`map_arguments`] does, an error naming the
    /// command's usage.
    pub fn map_arguments(&self, args: &str) -> Result<BTreeMap<String, String>, String> {
        mapped(&self.arguments, args).map_err(|e| format!("{e}; usage: {}", self.usage()))
    }
}

/// The arguments as the usage line shows them: `<a> [b]`.
fn synopsis(declared: &[McpPromptArg]) -> String {
    declared
        .iter()
        .map(|a| {
            if a.required {
                format!("<{}>", a.name)
            } else {
                format!("[{}]", a.name)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why typed arguments do not fit a prompt.
#[derive(Debug, thiserror::Error)]
enum Mismatch {
    #[error("the arguments have an unclosed quote or a trailing backslash")]
    Quotes,
    #[error("too many arguments: `{0}` is left over")]
    LeftOver(String),
    #[error("the required argument `{0}` is missing")]
    Missing(String),
    #[error("the required arguments {} are missing", .0.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))]
    MissingSeveral(Vec<String>),
}

/// The words of `args` mapped onto the `declared` arguments (see the module doc).
/// An error says what is wrong and ends with the arguments' synopsis
/// (`(arguments: <a> [b])`); [`McpPromptInfo::map_arguments`] gives the whole usage.
pub fn map_arguments(
    declared: &[McpPromptArg],
    args: &str,
) -> Result<BTreeMap<String, String>, String> {
    mapped(declared, args).map_err(|e| {
        let synopsis = synopsis(declared);
        if synopsis.is_empty() {
            format!("{e} (arguments: none)")
        } else {
            format!("{e} (arguments: {synopsis})")
        }
    })
}

fn mapped(declared: &[McpPromptArg], args: &str) -> Result<BTreeMap<String, String>, Mismatch> {
    let words = shlex::split(args).ok_or(Mismatch::Quotes)?;
    let mut mapped = BTreeMap::new();
    let mut positional = Vec::new();
    for word in words {
        let named = word
            .split_once('=')
            .filter(|(name, _)| declared.iter().any(|a| a.name == *name));
        match named {
            Some((name, value)) => {
                mapped.insert(name.to_string(), value.to_string());
            }
            None => positional.push(word),
        }
    }
    let open: Vec<&McpPromptArg> = declared
        .iter()
        .filter(|a| !mapped.contains_key(&a.name))
        .collect();
    let mut words = positional.into_iter();
    for (i, arg) in open.iter().enumerate() {
        let value = if i + 1 == open.len() {
            let rest: Vec<String> = words.by_ref().collect();
            (!rest.is_empty()).then(|| rest.join(" "))
        } else {
            words.next()
        };
        match value {
            Some(value) => {
                mapped.insert(arg.name.clone(), value);
            }
            None => break,
        }
    }
    let left: Vec<String> = words.collect();
    if !left.is_empty() {
        return Err(Mismatch::LeftOver(left.join(" ")));
    }
    let mut missing: Vec<String> = declared
        .iter()
        .filter(|a| a.required && !mapped.contains_key(&a.name))
        .map(|a| a.name.clone())
        .collect();
    match missing.len() {
        0 => Ok(mapped),
        1 => Err(Mismatch::Missing(missing.remove(0))),
        _ => Err(Mismatch::MissingSeveral(missing)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(name: &str, required: bool) -> McpPromptArg {
        McpPromptArg {
            name: name.into(),
            description: None,
            required,
        }
    }

    fn info(server: &str, name: &str, arguments: Vec<McpPromptArg>) -> McpPromptInfo {
        McpPromptInfo {
            server: server.into(),
            name: name.into(),
            description: None,
            arguments,
        }
    }

    /// Declared arguments, what is typed, and the `k=v` pairs mapped or the error's start.
    type Case<'a> = (
        &'a [McpPromptArg],
        &'a str,
        Result<&'a [(&'a str, &'a str)], &'a str>,
    );

    #[test]
    fn words_map_onto_the_declared_arguments() {
        let two = [arg("a", true), arg("b", false)];
        let three = [arg("a", true), arg("b", false), arg("c", false)];
        let none: [McpPromptArg; 0] = [];
        let table: &[Case] = &[
            (&two, "x", Ok(&[("a", "x")])),
            (&two, "x y", Ok(&[("a", "x"), ("b", "y")])),
            (&two, "", Err("the required argument `a` is missing")),
            (&two, "b=y", Err("the required argument `a` is missing")),
            (&two, "b=y x", Ok(&[("a", "x"), ("b", "y")])),
            (&two, "x b=y", Ok(&[("a", "x"), ("b", "y")])),
            (&two, "a=1 a=2", Ok(&[("a", "2")])),
            // the last argument takes the rest
            (&two, "x y z  w", Ok(&[("a", "x"), ("b", "y z w")])),
            (
                &three,
                "b=B x y z",
                Ok(&[("a", "x"), ("b", "B"), ("c", "y z")]),
            ),
            // quotes keep a word together; `=` in a value or an undeclared name is a word
            (&two, "'x y' \"z\"", Ok(&[("a", "x y"), ("b", "z")])),
            (&two, "q=1 b=k=v", Ok(&[("a", "q=1"), ("b", "k=v")])),
            (&two, "a= b", Ok(&[("a", ""), ("b", "b")])),
            (&none, "", Ok(&[])),
            (&none, "   ", Ok(&[])),
            (&none, "x", Err("too many arguments: `x` is left over")),
            (
                &two,
                "a=1 b=2 x",
                Err("too many arguments: `x` is left over"),
            ),
            (&two, "'x", Err("the arguments have an unclosed quote")),
            (
                &[arg("a", true), arg("b", true)],
                "",
                Err("the required arguments `a`, `b` are missing"),
            ),
        ];
        for (declared, typed, want) in table {
            let got = map_arguments(declared, typed);
            match (want, &got) {
                (Ok(pairs), Ok(map)) => {
                    let pairs: BTreeMap<String, String> = pairs
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect();
                    assert_eq!(map, &pairs, "{typed:?}");
                }
                (Err(start), Err(e)) => assert!(e.starts_with(start), "{typed:?}: {e}"),
                _ => panic!("{typed:?}: {got:?}, wanted {want:?}"),
            }
        }
        let e = map_arguments(&two, "").unwrap_err();
        assert!(e.ends_with("(arguments: <a> [b])"), "{e}");
        let e = map_arguments(&none, "x").unwrap_err();
        assert!(e.ends_with("(arguments: none)"), "{e}");
    }

    #[test]
    fn usage_and_command_names() {
        let p = info("srv", "p", vec![arg("a", true), arg("b", false)]);
        assert_eq!(p.command_name(), "mcp__srv__p");
        assert_eq!(p.usage(), "/mcp__srv__p <a> [b]");
        let e = p.map_arguments("").unwrap_err();
        assert_eq!(
            e,
            "the required argument `a` is missing; usage: /mcp__srv__p <a> [b]"
        );
        assert_eq!(info("srv", "bare", vec![]).usage(), "/mcp__srv__bare");
        assert_eq!(
            info("My Server", "Review.PR", vec![]).command_name(),
            "mcp__my_server__review_pr"
        );
    }
}
