//! What the walker knows about shell variables: literal assignments made earlier in the
//! line (`D=/; rm -rf $D`, `export D=…`) and the positional parameters of an `sh -c`
//! script (`sh -c 'rm -rf "$1"' _ /`). Known values are put in place of `$NAME` before
//! the checks look at a command; unknown ones stay variables.

use std::collections::HashMap;

use super::ast::{Seg, Word};
use super::parse::is_name;

#[derive(Debug, Clone, Default)]
pub struct Vars {
    /// `$0`, `$1`, … of the `sh -c` script being walked.
    positional: Vec<Word>,
    named: HashMap<String, Vec<Seg>>,
}

impl Vars {
    /// Sets the positional parameters; returns the previous ones.
    pub fn set_positional(&mut self, args: Vec<Word>) -> Vec<Word> {
        std::mem::replace(&mut self.positional, args)
    }

    /// Records `NAME=value` (a word of an assignment or of `export`/`local`/…); a word
    /// without `=` is ignored.
    pub fn assign(&mut self, word: &Word) {
        let Some(eq) = word.segs.iter().position(|s| {
            matches!(
                s,
                Seg::Char {
                    ch: '=',
                    quoted: false
                }
            )
        }) else {
            return;
        };
        let name: String = word.segs[..eq]
            .iter()
            .map(|s| match s {
                Seg::Char { ch, .. } => *ch,
                _ => '\0',
            })
            .collect();
        let name = name.strip_suffix('+').unwrap_or(&name).to_string();
        if !is_name(&name) {
            return;
        }
        let value = tilde_value(self.substitute_segs(&word.segs[eq + 1..]));
        self.named.insert(name, value);
    }

    /// Forgets `NAME` (`unset NAME`).
    pub fn unset(&mut self, name: &str) {
        self.named.remove(name);
    }

    fn value(&self, name: &str) -> Option<&[Seg]> {
        let index = match name {
            "@" | "*" if self.positional.len() == 2 => Some(1),
            n if n.len() == 1 => n.parse::<usize>().ok(),
            _ => None,
        };
        match index {
            Some(i) => self.positional.get(i).map(|w| w.segs.as_slice()),
            None => self.named.get(name).map(Vec::as_slice),
        }
    }

    fn substitute_segs(&self, segs: &[Seg]) -> Vec<Seg> {
        let mut out = Vec::with_capacity(segs.len());
        for seg in segs {
            match seg {
                Seg::Var { name: Some(n), .. } => match self.value(n) {
                    Some(value) => out.extend(value.iter().cloned()),
                    None => out.push(seg.clone()),
                },
                other => out.push(other.clone()),
            }
        }
        out
    }

    /// `word` with the known variables put in place (`D=~; rm -rf "$D"` is `rm -rf ~`).
    pub fn substitute(&self, word: &Word) -> Word {
        let known = word
            .segs
            .iter()
            .any(|s| matches!(s, Seg::Var { name: Some(n), .. } if self.value(n).is_some()));
        if !known {
            return word.clone();
        }
        let mut out = Word {
            segs: self.substitute_segs(&word.segs),
            raw: String::new(),
        };
        out.raw = out.shell_text();
        out
    }
}

/// An assigned value starting with an unquoted `~` expands it, as the shell does in
/// assignments (`D=~`, `D=~/x`, `D=~root`).
fn tilde_value(mut segs: Vec<Seg>) -> Vec<Seg> {
    if !matches!(
        segs.first(),
        Some(Seg::Char {
            ch: '~',
            quoted: false
        })
    ) {
        return segs;
    }
    let user_len = segs[1..]
        .iter()
        .take_while(|s| {
            matches!(s, Seg::Char { ch, quoted: false } if ch.is_alphanumeric() || "._-+".contains(*ch))
        })
        .count();
    let user: String = segs[1..=user_len]
        .iter()
        .filter_map(|s| match s {
            Seg::Char { ch, .. } => Some(*ch),
            _ => None,
        })
        .collect();
    let rest = segs.split_off(1 + user_len);
    let mut out = vec![Seg::Tilde(user)];
    out.extend(rest);
    out
}
