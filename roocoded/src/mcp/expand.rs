//! `${VAR}` and `${VAR:-default}` in MCP server configs, as Claude Code writes them:
//! expanded from the environment of the client that started the session when the
//! server starts, never written back to disk. Anything else (`$VAR`, an unclosed
//! `${`, a name that is not an identifier) stays as written.

use std::collections::BTreeSet;

/// One `${…}` reference in a text: its byte range, the variable and its default.
struct Reference<'a> {
    start: usize,
    end: usize,
    name: &'a str,
    default: Option<&'a str>,
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The references of `text`, in order.
fn references(text: &str) -> Vec<Reference<'_>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("${").map(|i| from + i) {
        let Some(close) = text[at..].find('}').map(|i| at + i) else {
            break;
        };
        let inner = &text[at + 2..close];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if is_name(name) {
            found.push(Reference {
                start: at,
                end: close + 1,
                name,
                default,
            });
            from = close + 1;
        } else {
            from = at + 2;
        }
    }
    found
}

/// The variables `text` refers to.
pub fn variables(text: &str, into: &mut BTreeSet<String>) {
    into.extend(references(text).into_iter().map(|r| r.name.to_string()));
}

/// `text` with each reference replaced by its variable from `lookup`, else (unset or
/// empty) its default;
/// `Err(name)` for the first variable that has neither.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for r in references(text) {
        out.push_str(&text[copied..r.start]);
        // As in a shell, `:-` also stands for a variable set but empty.
        match (lookup(r.name), r.default) {
            (Some(value), Some(default)) if value.is_empty() => out.push_str(default),
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(r.name.to_string()),
        }
        copied = r.end;
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t-123".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn references_expand_from_the_environment_or_their_default() {
        assert_eq!(expand("Bearer ${TOKEN}", &env).unwrap(), "Bearer t-123");
        assert_eq!(expand("${MISSING:-none}/x", &env).unwrap(), "none/x");
        // Set but empty takes the default, as in a shell; without one it is empty.
        assert_eq!(expand("[${EMPTY:-d}]", &env).unwrap(), "[d]");
        assert_eq!(expand("[${EMPTY}]", &env).unwrap(), "[]");
        assert_eq!(expand("${TOKEN}${TOKEN}", &env).unwrap(), "t-123t-123");
        assert_eq!(expand("${MISSING}", &env).unwrap_err(), "MISSING");
    }

    #[test]
    fn what_is_not_a_reference_stays_as_written() {
        for text in ["$TOKEN", "${", "${TOKEN", "${1X}", "${A-B}", "a } b", ""] {
            assert_eq!(expand(text, &env).unwrap(), text);
        }
        assert_eq!(expand("${ ${TOKEN}", &env).unwrap(), "${ t-123");
        let mut names = BTreeSet::new();
        variables("${A} $B ${C:-x} ${1D}", &mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["A", "C"]);
    }
}
