//! Arguments into a skill's or prompt command's body, as Claude Code does it:
//!
//! - `$ARGUMENTS` (or `${ARGUMENTS}`): the arguments as given;
//! - `$1` … `$9` (or `${1}`): the shell words of the arguments (quotes group, as a shell
//!   splits them with nothing expanded); a missing one is empty; `$0` and `$10` are text;
//! - `$name` / `${name}`: a declared parameter ([`Param`]) — filled by `name=value` words
//!   (or named activation arguments), then by the other words in order, then by its
//!   default, else empty. `$HOME` or `$name` of an undeclared name stays as written;
//! - when the body uses none of these and arguments were given, they are appended as
//!   `ARGUMENTS: <args>`, so they are never lost.
//!
//! One pass over the body: a value is never scanned again, so an argument holding
//! `$ARGUMENTS` or `$1` stays as typed.

use super::{Activation, Param};

/// The arguments of one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Arguments {
    /// As given, trimmed: `$ARGUMENTS`.
    pub raw: String,
    /// The positional words: `$1` … `$9`, then the parameters in order.
    pub words: Vec<String>,
    /// Named values (from `|name k=v|`), before `k=v` words.
    pub named: Vec<(String, String)>,
}

impl Arguments {
    /// The arguments of `/name <raw>` or of a `Skill` call, split into shell words (an
    /// unbalanced quote falls back to splitting at whitespace).
    pub fn parse(raw: &str) -> Self {
        let raw = raw.trim();
        let words = shlex::split(raw)
            .unwrap_or_else(|| raw.split_whitespace().map(str::to_string).collect());
        Self {
            raw: raw.to_string(),
            words,
            named: Vec::new(),
        }
    }

    /// The arguments of an activation (`|name:a,b|`, `|name k=v|`).
    pub fn from_activation(activation: &Activation) -> Self {
        Self {
            raw: activation.raw.clone(),
            words: activation.positional.clone(),
            named: activation.named.clone(),
        }
    }

    /// Whether nothing was given.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty() && self.words.is_empty() && self.named.is_empty()
    }

    /// The named keys that are not parameters of `params` (ignored; worth a warning).
    pub fn unknown_keys<'a>(&'a self, params: &[Param]) -> Vec<&'a str> {
        self.named
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !params.iter().any(|p| p.name == *k))
            .collect()
    }
}

/// The value of every parameter, in `params` order: named values first (a `k=v` word
/// of a declared `k` counts as named; the last of a name wins), then the remaining words
/// in order (an empty word keeps the default), then defaults, else "".
pub fn bind(params: &[Param], args: &Arguments) -> Vec<(String, String)> {
    let mut named: Vec<Option<String>> = vec![None; params.len()];
    let index = |key: &str| params.iter().position(|p| p.name == key);
    for (key, value) in &args.named {
        if let Some(i) = index(key) {
            named[i] = Some(value.clone());
        }
    }
    let mut positional = Vec::new();
    for word in &args.words {
        match word.split_once('=').and_then(|(k, v)| Some((index(k)?, v))) {
            Some((i, value)) => named[i] = Some(value.to_string()),
            None => positional.push(word.as_str()),
        }
    }
    let mut positional = positional.into_iter();
    params
        .iter()
        .zip(named)
        .map(|(param, named)| {
            let value = named.or_else(|| {
                let word = positional.next()?;
                (!word.is_empty()).then(|| word.to_string())
            });
            let value = value.or_else(|| param.default.clone()).unwrap_or_default();
            (param.name.clone(), value)
        })
        .collect()
}

/// `body` with its placeholders replaced by `args` (see the module documentation).
pub fn substitute(body: &str, params: &[Param], args: &Arguments) -> String {
    let mut substituter = Substituter::new(params, args);
    let out = substituter.apply(body);
    substituter.finish(out)
}

/// Substitution over a body in pieces (the prompt commands' inlined content is not one
/// of them): [`Substituter::apply`] each piece of the body's own text, join, then
/// [`Substituter::finish`].
pub(crate) struct Substituter<'a> {
    args: &'a Arguments,
    values: Vec<(String, String)>,
    used: bool,
}

impl<'a> Substituter<'a> {
    pub fn new(params: &[Param], args: &'a Arguments) -> Self {
        Self {
            args,
            values: bind(params, args),
            used: false,
        }
    }

    /// `text` with its placeholders replaced.
    pub fn apply(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            match self.placeholder(after) {
                Some((value, len)) => {
                    out.push_str(&value);
                    self.used = true;
                    rest = &after[len..];
                }
                None => {
                    out.push('$');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The value of the placeholder `after` a `$` starts with, and its length.
    fn placeholder(&self, after: &str) -> Option<(String, usize)> {
        if let Some(inner) = after.strip_prefix('{') {
            let close = inner.find('}')?;
            let value = self.value(&inner[..close])?;
            return Some((value, close + 2));
        }
        let first = after.chars().next()?;
        let len = if first.is_ascii_digit() {
            after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len())
        } else if first.is_ascii_alphabetic() || first == '_' {
            after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len())
        } else {
            return None;
        };
        Some((self.value(&after[..len])?, len))
    }

    /// The value of a placeholder name, `None` when it is not one.
    fn value(&self, name: &str) -> Option<String> {
        if name == "ARGUMENTS" {
            return Some(self.args.raw.clone());
        }
        if let [digit @ b'1'..=b'9'] = name.as_bytes() {
            let i = usize::from(digit - b'1');
            return Some(self.args.words.get(i).cloned().unwrap_or_default());
        }
        self.values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// The substituted body, the arguments appended when no placeholder took them.
    pub fn finish(self, out: String) -> String {
        let raw = self.args.raw.trim();
        if self.used || raw.is_empty() {
            return out;
        }
        if out.trim().is_empty() {
            return format!("ARGUMENTS: {raw}");
        }
        format!("{}\n\nARGUMENTS: {raw}", out.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, default: Option<&str>) -> Param {
        Param {
            name: name.to_string(),
            default: default.map(str::to_string),
            description: None,
        }
    }

    #[test]
    fn table() {
        let params = [
            param("target", Some("HEAD")),
            param("depth", None),
            param("mode", Some("quick")),
        ];
        #[rustfmt::skip]
        let cases: &[(&str, &str, &str)] = &[
            // body, arguments, expected
            ("Fix: $ARGUMENTS", "the login bug", "Fix: the login bug"),
            ("Fix: ${ARGUMENTS}!", "x", "Fix: x!"),
            ("Fix: $ARGUMENTS", "", "Fix: "),
            ("a=$1 b=$2 c=$3", "one 'two words' \"three\"", "a=one b=two words c=three"),
            ("a=$1 b=$2", "one", "a=one b="),
            ("$0 $10 ${1}", "x", "$0 $10 x"),
            ("$9", "1 2 3 4 5 6 7 8 9", "9"),
            ("t=$target d=$depth m=${mode}", "", "t=HEAD d= m=quick"),
            ("t=$target d=$depth m=$mode", "main 3", "t=main d=3 m=quick"),
            ("t=$target d=$depth m=$mode", "depth=5 main", "t=main d=5 m=quick"),
            ("t=$target d=$depth", "\"\" 2", "t=HEAD d=2"),
            ("t=$target d=$depth", "other=1 x", "t=other=1 d=x"),
            ("$targets $target_x $HOME $ $", "v", "$targets $target_x $HOME $ $\n\nARGUMENTS: v"),
            ("Review the diff.", "src/lib.rs", "Review the diff.\n\nARGUMENTS: src/lib.rs"),
            ("Review the diff.\n\n", "  src/lib.rs  ", "Review the diff.\n\nARGUMENTS: src/lib.rs"),
            ("Review the diff.", "", "Review the diff."),
            ("", "x", "ARGUMENTS: x"),
            ("uses $1 only", "a b", "uses a only"),
            ("uses $target only", "a b", "uses a only"),
            // values are not scanned again
            ("say $1", "'$ARGUMENTS $2' two", "say $ARGUMENTS $2"),
            ("say $ARGUMENTS", "${target} $1", "say ${target} $1"),
            // an unbalanced quote: split at whitespace
            ("$1|$2", "it's fine", "it's|fine"),
            ("é$1ü", "ß", "éßü"),
            ("${unclosed", "v", "${unclosed\n\nARGUMENTS: v"),
        ];
        for (body, args, expected) in cases {
            let got = substitute(body, &params, &Arguments::parse(args));
            assert_eq!(&got, expected, "body {body:?} args {args:?}");
        }
    }

    #[test]
    fn activation_arguments_bind_named_then_positional() {
        let params = [param("target", Some("HEAD")), param("depth", None)];
        let activation = Activation {
            name: "review".into(),
            positional: vec!["".into(), "7".into()],
            named: vec![],
            raw: ",7".into(),
        };
        let args = Arguments::from_activation(&activation);
        assert_eq!(
            substitute("$target/$depth/$1/$2", &params, &args),
            "HEAD/7//7"
        );
        let activation = Activation {
            name: "review".into(),
            positional: vec![],
            named: vec![
                ("depth".into(), "deep one".into()),
                ("nope".into(), "1".into()),
            ],
            raw: "depth=\"deep one\" nope=1".into(),
        };
        let args = Arguments::from_activation(&activation);
        assert_eq!(
            substitute("$target/$depth", &params, &args),
            "HEAD/deep one"
        );
        assert_eq!(
            substitute("all: $ARGUMENTS", &params, &args),
            "all: depth=\"deep one\" nope=1"
        );
        assert_eq!(args.unknown_keys(&params), ["nope"]);
        assert!(Arguments::parse("  ").is_empty());
    }
}
