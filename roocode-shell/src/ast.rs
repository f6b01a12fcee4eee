//! The syntax tree of a parsed command line: scripts, and-or lists, pipelines,
//! commands and words. A [`Word`] remembers, character by character, what was quoted
//! and where expansions sit, so later checks can tell `rm` from `$CMD` and `'*'` from `*`.

use std::cell::RefCell;
use std::rc::Rc;

/// A list of and-or items separated by `;`, `&` or newlines.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub items: Vec<Item>,
}

/// Pipelines joined by `&&`/`||`; `background` if the item ended with `&`.
#[derive(Debug, Clone)]
pub struct Item {
    pub pipelines: Vec<Pipeline>,
    pub background: bool,
}

/// Commands joined by `|` or `|&`.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone)]
pub enum Command {
    Simple(Simple),
    /// `( … )`.
    Subshell {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `{ …; }`.
    Group {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `case` and `for` headers: words that are expanded but not run, and the bodies.
    Compound {
        words: Vec<Word>,
        bodies: Vec<Script>,
    },
    /// `name() body` or `function name body`.
    Function {
        name: String,
        body: Box<Command>,
    },
}

/// Assignments, words and redirections of one simple command.
#[derive(Debug, Clone, Default)]
pub struct Simple {
    pub assigns: Vec<Word>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// The command's source text.
    pub raw: String,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    In,
    Out,
    Append,
    Clobber,
    DupIn,
    DupOut,
    ReadWrite,
    AndOut,
    AndAppend,
    HereDoc,
    HereString,
}

impl RedirOp {
    /// True for operators that write to their target.
    pub fn writes(self) -> bool {
        matches!(
            self,
            Self::Out
                | Self::Append
                | Self::Clobber
                | Self::ReadWrite
                | Self::AndOut
                | Self::AndAppend
        ) || self == Self::DupOut
    }
}

/// The body of a here-document, filled in when the parser reaches the line after it.
#[derive(Debug, Clone, Default)]
pub struct HereDoc {
    pub body: Rc<RefCell<String>>,
    /// False when the delimiter was quoted (no expansions in the body).
    pub expand: bool,
}

#[derive(Debug, Clone)]
pub struct Redirect {
    pub op: RedirOp,
    /// The file, descriptor, here-string or here-document delimiter.
    pub target: Word,
    pub heredoc: Option<HereDoc>,
}

/// One piece of a word.
#[derive(Debug, Clone)]
pub enum Seg {
    /// A literal character; `quoted` if it came from quotes or a backslash.
    Char { ch: char, quoted: bool },
    /// `$NAME` or `${…}`; `name` is `None` when the expansion is more than a name
    /// (`${X/a/b}`, `${#X}`). `raw` is its source text.
    Var { name: Option<String>, raw: String },
    /// `$(…)`, `` `…` `` (`process` false) or `<(…)`, `>(…)` (`process` true).
    Subst {
        script: Script,
        raw: String,
        process: bool,
    },
    /// `~` or `~user` at the start of a word.
    Tilde(String),
    /// `$((…))`.
    Arith(String),
}

/// A shell word.
#[derive(Debug, Clone, Default)]
pub struct Word {
    pub segs: Vec<Seg>,
    /// The source text.
    pub raw: String,
}

const GLOB_CHARS: [char; 3] = ['*', '?', '['];

impl Word {
    /// A word with this literal value.
    pub fn quoted(text: &str) -> Self {
        Self {
            segs: text
                .chars()
                .map(|ch| Seg::Char { ch, quoted: true })
                .collect(),
            raw: text.to_string(),
        }
    }

    /// The value when the word has no expansions.
    pub fn literal(&self) -> Option<String> {
        self.segs
            .iter()
            .map(|s| match s {
                Seg::Char { ch, .. } => Some(*ch),
                _ => None,
            })
            .collect()
    }

    /// True if the word is exactly `text`, unquoted (keywords, `{`, `}`).
    pub fn is_plain(&self, text: &str) -> bool {
        let mut chars = text.chars();
        self.segs.iter().all(|s| match s {
            Seg::Char { ch, quoted: false } => chars.next() == Some(*ch),
            _ => false,
        }) && chars.next().is_none()
    }

    /// The value as shell source with every expansion kept as written (`$HOME`,
    /// `$(…)`), quotes removed: what an inner `sh -c` would parse.
    pub fn shell_text(&self) -> String {
        let mut out = String::new();
        for seg in &self.segs {
            match seg {
                Seg::Char { ch, .. } => out.push(*ch),
                Seg::Var { raw, .. } | Seg::Subst { raw, .. } | Seg::Arith(raw) => {
                    out.push_str(raw)
                }
                Seg::Tilde(user) => {
                    out.push('~');
                    out.push_str(user);
                }
            }
        }
        out
    }

    /// True if some part is a command or process substitution.
    pub fn has_subst(&self) -> bool {
        self.segs.iter().any(|s| matches!(s, Seg::Subst { .. }))
    }

    /// True if some part is a variable, substitution or arithmetic.
    pub fn has_expansion(&self) -> bool {
        self.segs
            .iter()
            .any(|s| !matches!(s, Seg::Char { .. } | Seg::Tilde(_)))
    }

    /// The word's brace expansions (`/{etc,usr}` → `/etc`, `/usr`), at most 64; the
    /// word itself when it has none.
    pub fn brace_alternatives(&self) -> Vec<Word> {
        let mut out = Vec::new();
        expand_braces(&self.segs, &self.raw, &mut out, &mut 256);
        if out.is_empty() {
            out.push(self.clone());
        }
        out
    }

    /// True if an unquoted `*`, `?` or `[` is in the word.
    pub fn has_unquoted_glob(&self) -> bool {
        self.segs
            .iter()
            .any(|s| matches!(s, Seg::Char { ch, quoted: false } if GLOB_CHARS.contains(ch)))
    }
}

/// True for an unquoted `ch` segment.
fn is_unquoted(seg: &Seg, ch: char) -> bool {
    matches!(seg, Seg::Char { ch: c, quoted: false } if *c == ch)
}

/// Expands the first brace group and recurses; `budget` bounds the work whatever the
/// word looks like.
fn expand_braces(segs: &[Seg], raw: &str, out: &mut Vec<Word>, budget: &mut usize) {
    if out.len() >= 64 || *budget == 0 {
        return;
    }
    *budget -= 1;
    let Some((open, close, commas)) = find_brace(segs) else {
        out.push(Word {
            segs: segs.to_vec(),
            raw: raw.to_string(),
        });
        return;
    };
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    for pair in bounds.windows(2) {
        let mut next: Vec<Seg> = segs[..open].to_vec();
        next.extend_from_slice(&segs[pair[0] + 1..pair[1]]);
        next.extend_from_slice(&segs[close + 1..]);
        expand_braces(&next, raw, out, budget);
    }
}

/// The first unquoted `{…}` with a top-level comma: (open, close, comma positions).
fn find_brace(segs: &[Seg]) -> Option<(usize, usize, Vec<usize>)> {
    for open in 0..segs.len() {
        if !is_unquoted(&segs[open], '{') {
            continue;
        }
        let mut level = 0usize;
        let mut commas = Vec::new();
        for (i, seg) in segs.iter().enumerate().skip(open + 1) {
            if is_unquoted(seg, '{') {
                level += 1;
            } else if is_unquoted(seg, '}') {
                if level == 0 {
                    if commas.is_empty() {
                        break;
                    }
                    return Some((open, i, commas));
                }
                level -= 1;
            } else if level == 0 && is_unquoted(seg, ',') {
                commas.push(i);
            }
        }
    }
    None
}
