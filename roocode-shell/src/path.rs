//! Paths as a command names them, before any expansion: where they start (`/`, `~`,
//! `$HOME`, the working directory), lexically normalised components, and the parts that
//! are unknown until run time (globs, variables). Used to follow `cd` and to judge the
//! targets of `rm -r` and `chmod -R`.

use std::path::Path;

use super::ast::{Seg, Word};

/// Where a path starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// `/`.
    Root,
    /// `~`, `$HOME`, `${HOME}`.
    Home,
    /// `~user`.
    User(String),
    /// The session's working directory (relative paths).
    Cwd,
    /// Starts with an expansion whose value is unknown (`$DIR/x`).
    Unknown,
}

/// One component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comp {
    Name(String),
    /// Unknown until run time: a glob or an expansion.
    Wild,
}

/// A normalised path expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathExpr {
    pub base: Base,
    /// `..` steps above the base that could not be cancelled (never for `Root`).
    pub ups: usize,
    pub comps: Vec<Comp>,
}

impl PathExpr {
    /// The session's working directory.
    pub fn cwd() -> Self {
        Self {
            base: Base::Cwd,
            ups: 0,
            comps: Vec::new(),
        }
    }

    pub fn of_base(base: Base) -> Self {
        Self {
            base,
            ups: 0,
            comps: Vec::new(),
        }
    }

    /// The path a word names. A final component made only of glob characters and dots
    /// (`*`, `.*`, `*.*`) stands for "everything in the directory" and is dropped, so
    /// `/*` is judged like `/`.
    pub fn from_word(word: &Word) -> Self {
        let segs = &word.segs;
        let (base, rest) = match segs.first() {
            Some(Seg::Char { ch: '/', .. }) => (Base::Root, &segs[1..]),
            Some(Seg::Tilde(user)) if user.is_empty() => (Base::Home, &segs[1..]),
            Some(Seg::Tilde(user)) if user == "+" => (Base::Cwd, &segs[1..]),
            Some(Seg::Tilde(user)) if user == "-" => (Base::Unknown, &segs[1..]),
            Some(Seg::Tilde(user)) => (Base::User(user.clone()), &segs[1..]),
            Some(Seg::Var { name: Some(n), .. }) if n == "HOME" => (Base::Home, &segs[1..]),
            Some(Seg::Var { name: Some(n), .. }) if n == "PWD" => (Base::Cwd, &segs[1..]),
            Some(Seg::Var { name: None, raw }) if is_trimmed_home(raw) => (Base::Home, &segs[1..]),
            Some(Seg::Subst { raw, .. }) if is_pwd(raw) => (Base::Cwd, &segs[1..]),
            Some(Seg::Char { .. }) => (Base::Cwd, &segs[..]),
            Some(_) => (Base::Unknown, &segs[1..]),
            None => (Base::Cwd, &segs[..]),
        };
        let mut out = Self::of_base(base);
        let mut parts: Vec<&[Seg]> = rest
            .split(|s| matches!(s, Seg::Char { ch: '/', .. }))
            .collect();
        if parts.last().is_some_and(|last| is_contents_glob(last)) {
            parts.pop();
        }
        for part in parts {
            out.push(component(part));
            out.proc_links();
        }
        out
    }

    /// `/proc/self/cwd/…` (and `/proc/thread-self/cwd`, `/proc/$$/cwd`) is the working
    /// directory, `/proc/self/root/…` the root.
    fn proc_links(&mut self) {
        if self.base != Base::Root || self.comps.len() < 3 {
            return;
        }
        let name = |c: &Comp| match c {
            Comp::Name(n) => Some(n.clone()),
            Comp::Wild => None,
        };
        let (first, pid, link) = (name(&self.comps[0]), &self.comps[1], name(&self.comps[2]));
        let own = matches!(pid, Comp::Wild)
            || name(pid).is_some_and(|p| {
                p == "self" || p == "thread-self" || p.chars().all(|c| c.is_ascii_digit())
            });
        if first.as_deref() != Some("proc") || !own {
            return;
        }
        let base = match link.as_deref() {
            Some("cwd") => Base::Cwd,
            Some("root") => Base::Root,
            _ => return,
        };
        self.comps.drain(..3);
        self.base = base;
        self.proc_links();
    }

    /// Adds one component (`None` for `.`, `Some(None)` for `..`).
    fn push(&mut self, comp: Option<Option<Comp>>) {
        match comp {
            None => {}
            Some(None) if self.comps.pop().is_none() && self.base != Base::Root => self.ups += 1,
            Some(None) => {}
            Some(Some(c)) => self.comps.push(c),
        }
    }

    /// `rel` resolved against `self` (as a working directory); absolute ones as is.
    pub fn join(&self, rel: &PathExpr) -> PathExpr {
        if rel.base != Base::Cwd {
            return rel.clone();
        }
        let mut out = self.clone();
        for _ in 0..rel.ups {
            out.push(Some(None));
        }
        out.comps.extend(rel.comps.iter().cloned());
        out
    }

    /// The absolute path when it can be known: `cwd` and `home` resolve `Cwd` and
    /// `Home` bases. Components may still be `Wild`.
    pub fn absolute(&self, cwd: &Path, home: Option<&Path>) -> Option<Vec<Comp>> {
        let start = match &self.base {
            Base::Root => return Some(self.comps.clone()),
            Base::Cwd => cwd,
            Base::Home => home?,
            Base::User(_) | Base::Unknown => return None,
        };
        let mut comps = path_comps(start);
        for _ in 0..self.ups {
            comps.pop();
        }
        comps.extend(self.comps.iter().cloned());
        Some(comps)
    }
}

/// The components of an absolute path.
pub fn path_comps(path: &Path) -> Vec<Comp> {
    path.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(Comp::Name(n.to_string_lossy().into_owned())),
            _ => None,
        })
        .collect()
}

/// `a` names `b` or one of its ancestors (`Wild` matches any name).
pub fn is_ancestor_or_same(a: &[Comp], b: &[Comp]) -> bool {
    a.len() <= b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Comp::Wild, _) | (_, Comp::Wild) => true,
            (Comp::Name(x), Comp::Name(y)) => x == y,
        })
}

/// One component's meaning: `None` for `.` or empty, `Some(None)` for `..`.
fn component(segs: &[Seg]) -> Option<Option<Comp>> {
    let mut name = String::new();
    for seg in segs {
        match seg {
            Seg::Char { ch, quoted } => {
                if !quoted && matches!(ch, '*' | '?' | '[') {
                    return Some(Some(Comp::Wild));
                }
                name.push(*ch);
            }
            _ => return Some(Some(Comp::Wild)),
        }
    }
    match name.as_str() {
        "" | "." => None,
        ".." => Some(None),
        _ => Some(Some(Comp::Name(name))),
    }
}

/// `$(pwd)` or `` `pwd` ``: the working directory.
fn is_pwd(raw: &str) -> bool {
    let inner = raw
        .strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| raw.strip_prefix('`').and_then(|r| r.strip_suffix('`')));
    matches!(inner.map(str::trim), Some("pwd" | "pwd -P" | "pwd -L"))
}

/// `*`, `.*`, `*.*`, `?*`, `.[!.]*`, `.??*`: unquoted globs that match everything (or
/// every hidden entry) in a directory: a star, question marks, dots and bracket
/// expressions, and no other literal name.
fn is_contents_glob(segs: &[Seg]) -> bool {
    let mut star = false;
    let mut in_bracket = false;
    for seg in segs {
        match seg {
            Seg::Char { quoted: false, .. } if in_bracket => {
                if matches!(seg, Seg::Char { ch: ']', .. }) {
                    in_bracket = false;
                }
            }
            Seg::Char { .. } if in_bracket => {}
            Seg::Char {
                ch: '[',
                quoted: false,
            } => in_bracket = true,
            Seg::Char {
                ch: '*',
                quoted: false,
            } => star = true,
            Seg::Char {
                ch: '?',
                quoted: false,
            }
            | Seg::Char { ch: '.', .. } => {}
            _ => return false,
        }
    }
    star && !in_bracket
}

/// `${HOME%/}`, `${HOME%%/}`, `${HOME%//}`: the home directory with trailing slashes
/// trimmed is still the home directory (`%` patterns of slashes only).
fn is_trimmed_home(raw: &str) -> bool {
    raw.strip_prefix("${HOME%")
        .and_then(|r| r.strip_suffix('}'))
        .is_some_and(|pattern| {
            let pattern = pattern.trim_start_matches('%');
            !pattern.is_empty() && pattern.chars().all(|c| c == '/')
        })
}
