//! Activating skills from a message, with rolebox's syntax (seed 001, `parser.ts`):
//!
//! | written | activates |
//! | --- | --- |
//! | `\|commit\|` | `commit` |
//! | `\|review:src/auth,strict\|` | `review` with positional arguments, in `params` order |
//! | `\|review target=HEAD~3 focus="error handling"\|` | `review` with named arguments |
//! | `\|plan\|review:src\|test k=v\|` | a chain: segments joined by single `\|`, one `\|` closing all |
//!
//! Only at the very start of a message (leading whitespace allowed), and only when the
//! closing `|` is followed by whitespace or the end; the syntax is removed from what the
//! model sees. Names are `[a-z][a-z0-9-]*`; the syntax never spans lines; a value holding
//! `,`, `|` or spaces is written in double quotes (`\"` and `\\` escape inside).
//!
//! Anything else is an ordinary message, sent as written ([`parse`] returns `None`):
//! `see |x| here`, `|Plan|`, `|1x|`, `| a | b |`, `|Name|Age|`, a header row followed by
//! a `|---|---|` line, only pipes, an unclosed `|plan`. The caller looks the names up
//! (an unknown one is an error naming the closest: [`super::resolve`]).

/// One activated skill.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Activation {
    pub name: String,
    /// `|name:a,b|`: `a`, `b` (trimmed, quotes removed; an empty one keeps the default).
    pub positional: Vec<String>,
    /// `|name k=v|`: (`k`, `v`), in order.
    pub named: Vec<(String, String)>,
    /// The arguments as written (after `:` or the first space), trimmed: `$ARGUMENTS`.
    pub raw: String,
}

/// What [`parse`] found at the start of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activations {
    /// In the order written.
    pub activations: Vec<Activation>,
    /// The message without the syntax, leading whitespace trimmed.
    pub rest: String,
}

/// The activations at the start of `text`, or `None` when it does not start with the
/// syntax (the message is then sent as written).
pub fn parse(text: &str) -> Option<Activations> {
    let mut s = text.trim_start().strip_prefix('|')?;
    let mut activations = Vec::new();
    let rest = loop {
        let (activation, after) = segment(s)?;
        activations.push(activation);
        let after = after.strip_prefix('|')?;
        if after.is_empty() || after.starts_with(char::is_whitespace) {
            break after;
        }
        s = after;
    };
    if table_follows(rest) {
        return None;
    }
    Some(Activations {
        activations,
        rest: rest.trim_start().to_string(),
    })
}

/// One `name[:args| k=v...]` segment of `s`, and what follows it (the `|` ending it).
fn segment(s: &str) -> Option<(Activation, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
        .unwrap_or(s.len());
    let (name, after) = s.split_at(end);
    if !super::valid_name(name) {
        return None;
    }
    let mut activation = Activation {
        name: name.to_string(),
        ..Activation::default()
    };
    let after = match after.chars().next()? {
        '|' => after,
        ':' => {
            let args = &after[1..];
            let (positional, after) = positional(args)?;
            activation.positional = positional;
            activation.raw = args[..args.len() - after.len()].trim().to_string();
            after
        }
        ' ' | '\t' => {
            let (named, after) = named(after)?;
            activation.named = named;
            activation.raw = after_raw(s, end, after);
            after
        }
        _ => return None,
    };
    Some((activation, after))
}

/// The text between the name (ending at `end` of `s`) and `after`, trimmed.
fn after_raw(s: &str, end: usize, after: &str) -> String {
    s[end..s.len() - after.len()].trim().to_string()
}

/// `a, "b,c",d` up to the unquoted `|`; what follows starts with it.
fn positional(mut s: &str) -> Option<(Vec<String>, &str)> {
    let mut values = Vec::new();
    loop {
        let trimmed = s.trim_start_matches([' ', '\t']);
        let (value, after) = if trimmed.starts_with('"') {
            let (value, after) = quoted(trimmed)?;
            (value, after.trim_start_matches([' ', '\t']))
        } else {
            let end = trimmed.find([',', '|', '\n', '\r', '"'])?;
            (trimmed[..end].trim().to_string(), &trimmed[end..])
        };
        match after.chars().next()? {
            ',' => {
                values.push(value);
                s = &after[1..];
            }
            '|' => {
                if !(values.is_empty() && value.is_empty()) {
                    values.push(value);
                }
                return Some((values, after));
            }
            _ => return None,
        }
    }
}

/// ` k=v k2="quoted value"` up to the `|`; what follows starts with it.
fn named(mut s: &str) -> Option<(Vec<(String, String)>, &str)> {
    let mut pairs = Vec::new();
    loop {
        s = s.trim_start_matches([' ', '\t']);
        if s.starts_with('|') {
            return (!pairs.is_empty()).then_some((pairs, s));
        }
        let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
        let key = &s[..end];
        if !key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return None;
        }
        let value_text = s[end..].strip_prefix('=')?;
        let (value, after) = if value_text.starts_with('"') {
            quoted(value_text)?
        } else {
            let end = value_text
                .find(|c: char| c.is_whitespace() || c == '|' || c == '"')
                .unwrap_or(value_text.len());
            (value_text[..end].to_string(), &value_text[end..])
        };
        if !(after.starts_with([' ', '\t', '|'])) {
            return None;
        }
        pairs.push((key.to_string(), value));
        s = after;
    }
}

/// A `"..."` value at the start of `s` (`\"` and `\\` escaped), and what follows.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &s[i + 1..])),
            '\\' => match chars.next()? {
                (_, c @ ('"' | '\\')) => value.push(c),
                (_, c) => {
                    value.push('\\');
                    value.push(c);
                }
            },
            '\n' | '\r' => return None,
            c => value.push(c),
        }
    }
    None
}

/// Whether the line after the syntax's line is a Markdown table's delimiter row
/// (`|---|:--:|`): then the first line was a table header, not an activation.
fn table_follows(rest: &str) -> bool {
    let Some((line, after)) = rest.split_once('\n') else {
        return false;
    };
    if !line.trim().is_empty() {
        return false;
    }
    let next = after.lines().next().unwrap_or_default().trim();
    next.contains('|')
        && next.contains('-')
        && next
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `name`, positional, named.
    type Want<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    /// The activations and the rest, or `None`.
    type Expected<'a> = Option<(&'a [Want<'a>], &'a str)>;

    #[test]
    fn table() {
        #[rustfmt::skip]
        let cases: &[(&str, Expected)] = &[
            ("|commit|", Some((&[("commit", &[], &[])], ""))),
            ("|commit| fix the login bug", Some((&[("commit", &[], &[])], "fix the login bug"))),
            ("  \n |commit|\n\n  then this", Some((&[("commit", &[], &[])], "then this"))),
            ("|review:src/auth,strict| now", Some((&[("review", &["src/auth", "strict"], &[])], "now"))),
            ("|review: a , b |", Some((&[("review", &["a", "b"], &[])], ""))),
            ("|review:a,,c|", Some((&[("review", &["a", "", "c"], &[])], ""))),
            ("|review:|", Some((&[("review", &[], &[])], ""))),
            ("|translate:French,formal tone|", Some((&[("translate", &["French", "formal tone"], &[])], ""))),
            ("|review:\"a,b\",\"x|y\", \"say \\\"hi\\\"\"|", Some((&[("review", &["a,b", "x|y", "say \"hi\""], &[])], ""))),
            ("|review target=HEAD~3|", Some((&[("review", &[], &[("target", "HEAD~3")])], ""))),
            ("|review target=main focus=\"error handling\"| go", Some((&[("review", &[], &[("target", "main"), ("focus", "error handling")])], "go"))),
            ("|review  a=1\tb=x:y |", Some((&[("review", &[], &[("a", "1"), ("b", "x:y")])], ""))),
            ("|review k=|", Some((&[("review", &[], &[("k", "")])], ""))),
            ("|review k=\"a|b\"|", Some((&[("review", &[], &[("k", "a|b")])], ""))),
            ("|plan|review:src|test k=v| all three", Some((&[("plan", &[], &[]), ("review", &["src"], &[]), ("test", &[], &[("k", "v")])], "all three"))),
            ("|plan-v2|x9|", Some((&[("plan-v2", &[], &[]), ("x9", &[], &[])], ""))),
            ("|commit|\ttabbed", Some((&[("commit", &[], &[])], "tabbed"))),
            ("|commit|\n|not|a chain|", Some((&[("commit", &[], &[])], "|not|a chain|"))),
            // the grammar cannot tell these from an activation; the caller's name check
            // (unknown skill, did you mean ...) does
            ("|x| x + 1 does not compile", Some((&[("x", &[], &[])], "x + 1 does not compile"))),
            ("|name|age|", Some((&[("name", &[], &[]), ("age", &[], &[])], ""))),
            // not activations: sent as written
            ("see |commit| here", None),
            ("|Plan|", None),
            ("|1x|", None),
            ("|-x|", None),
            ("|a_b|", None),
            ("|评审|", None),
            ("|Name|Age|", None),
            ("| a | b |", None),
            ("|name|age|\n|---|---|\n|bob|3|", None),
            ("|name|age|\n| :-- | --: |", None),
            ("|", None),
            ("||", None),
            ("|||", None),
            ("| |", None),
            ("|| x", None),
            ("|commit", None),
            ("|commit fix it", None),
            ("|commit|fix it", None),
            ("|commit|review", None),
            ("|a||b|", None),
            ("|a|B|", None),
            ("|review:a|b", None),
            ("|review:\"open|", None),
            ("|review:a\"b|", None),
            ("|review:\"a\"b|", None),
            ("|review:a\nb|", None),
            ("|review k|", None),
            ("|review k=v x|", None),
            ("|review =v|", None),
            ("|review 1k=v|", None),
            ("|review k=\"v\"x|", None),
            ("|review k=\"line\nbreak\"|", None),
            ("|review |", None),
            ("|review:a k=v|x", None),
            ("`|commit|`", None),
            ("\\|commit|", None),
            ("", None),
        ];
        for (text, expected) in cases {
            let got = parse(text);
            let expected = expected.map(|(acts, rest)| Activations {
                activations: acts
                    .iter()
                    .map(|(name, pos, named)| Activation {
                        name: name.to_string(),
                        positional: pos.iter().map(|s| s.to_string()).collect(),
                        named: named
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect(),
                        raw: got
                            .as_ref()
                            .and_then(|g| g.activations.iter().find(|a| a.name == *name))
                            .map(|a| a.raw.clone())
                            .unwrap_or_default(),
                    })
                    .collect(),
                rest: rest.to_string(),
            });
            assert_eq!(got, expected, "{text:?}");
        }
    }

    #[test]
    fn raw_is_the_arguments_as_written() {
        let raw = |text: &str| {
            parse(text)
                .unwrap()
                .activations
                .into_iter()
                .map(|a| a.raw)
                .collect::<Vec<_>>()
        };
        assert_eq!(raw("|review: a, \"b,c\" |x|"), ["a, \"b,c\"", ""]);
        assert_eq!(raw("|review  k=v  k2=\"q v\" |"), ["k=v  k2=\"q v\""]);
    }
}
