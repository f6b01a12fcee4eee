//! What a slash command is, for every client and the daemon alike: `/` and a name of
//! `[a-z0-9][a-z0-9:_-]*` (`/cost`, `/review`, `/git:commit`, `/mcp__github__pr`), then
//! a space or the end. Anything else — `/usr/lib is broken`, `/Plan`, `/ alone` — is
//! a message for the model, sent as written. [`closest`] names the commands an unknown
//! one was probably meant to be.

/// A slash command as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlashCommand<'a> {
    /// Without the `/`.
    pub name: &'a str,
    /// What follows the name, trimmed (empty when nothing).
    pub args: &'a str,
}

/// The command `text` is (leading whitespace ignored), or `None` for a message.
pub fn parse(text: &str) -> Option<SlashCommand<'_>> {
    let rest = text.trim_start().strip_prefix('/')?;
    let end = rest
        .find(|c: char| {
            !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, ':' | '_' | '-'))
        })
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    let first = name.chars().next()?;
    if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
        return None;
    }
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    Some(SlashCommand {
        name,
        args: after.trim(),
    })
}

/// The names of `known` that `name` was probably meant to be: those it starts, those
/// that start it, and those a typo or two away (one in a name of two letters), best
/// first.
pub fn closest<'k>(name: &str, known: &[&'k str]) -> Vec<&'k str> {
    let allowed = if name.chars().count() <= 2 { 1 } else { 2 };
    let mut scored: Vec<(usize, &'k str)> = known
        .iter()
        .filter_map(|k| {
            let d = edit_distance(name, k);
            let related = k.starts_with(name) || name.starts_with(*k);
            (d <= allowed || related).then_some((if related { 0 } else { d }, *k))
        })
        .collect();
    scored.sort();
    scored.into_iter().map(|(_, k)| k).collect()
}

/// Levenshtein distance between two short names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_as_a_table() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            ("/cost", Some(("cost", ""))),
            ("  /mode plan ", Some(("mode", "plan"))),
            (
                "/git:commit fix the bug",
                Some(("git:commit", "fix the bug")),
            ),
            ("/mcp__github__pr 12", Some(("mcp__github__pr", "12"))),
            ("/2fa-setup", Some(("2fa-setup", ""))),
            ("/review\tsrc", Some(("review", "src"))),
            ("/usr/lib is broken", None),
            ("/Plan", None),
            ("/_x", None),
            ("/ alone", None),
            ("/", None),
            ("/cost!", None),
            ("/café", None),
            ("cost", None),
            ("see /cost", None),
        ];
        for (text, want) in cases {
            let got = parse(text).map(|c| (c.name, c.args));
            assert_eq!(got, *want, "{text:?}");
        }
    }

    #[test]
    fn the_closest_names_come_first() {
        let known = [
            "cost", "context", "compact", "clear", "mode", "model", "help",
        ];
        assert_eq!(closest("cots", &known), ["cost"]);
        assert_eq!(closest("mod", &known), ["mode", "model"]);
        assert_eq!(closest("contxt", &known), ["context"]);
        assert!(closest("deploy", &known).is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
