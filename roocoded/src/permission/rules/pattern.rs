//! The specifiers inside `Tool(…)` rules and how each matches: command text (exact,
//! `prefix:*` by words, `*` glob), gitignore-style paths, `domain:` hosts, and names.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use crate::permission::network::Host;

/// A wildcard pattern over text: `*` matches any characters (including none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wildcard(Vec<Piece>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Star,
}

impl Wildcard {
    /// `\*` is a literal star and `\\` a literal backslash; other backslashes are kept.
    pub fn parse(pattern: &str) -> Self {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if matches!(chars.peek(), Some('*' | '\\')) => {
                    if let Some(next) = chars.next() {
                        text.push(next);
                    }
                }
                '*' => {
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Star);
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Self(pieces)
    }

    /// The text when there is no star.
    pub fn literal(&self) -> Option<String> {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => Some(t.as_str()),
                Piece::Star => None,
            })
            .collect()
    }

    pub fn matches(&self, text: &str) -> bool {
        matches_from(&self.0, text)
    }
}

/// Star-only globs match greedily in linear time: the first text piece is a prefix, the
/// last a suffix, and each one between is found leftmost in what remains.
fn matches_from(pieces: &[Piece], text: &str) -> bool {
    let mut rest = text;
    let mut pieces = pieces;
    if let Some((Piece::Text(first), tail)) = pieces.split_first() {
        let Some(after) = rest.strip_prefix(first.as_str()) else {
            return false;
        };
        rest = after;
        pieces = tail;
    }
    if pieces.is_empty() {
        return rest.is_empty();
    }
    if let Some((Piece::Text(last), head)) = pieces.split_last() {
        let Some(before) = rest.strip_suffix(last.as_str()) else {
            return false;
        };
        rest = before;
        pieces = head;
    }
    for piece in pieces {
        if let Piece::Text(t) = piece {
            match rest.find(t.as_str()) {
                Some(i) => rest = &rest[i + t.len()..],
                None => return false,
            }
        }
    }
    true
}

/// `Bash(…)` specifiers.
#[derive(Debug, Clone)]
pub enum CommandSpec {
    /// `Bash(make)`: exactly this command.
    Exact(String),
    /// `Bash(git diff:*)`: a command whose words start with these.
    Prefix(Vec<String>),
    /// `Bash(npm run *)`: a glob over the whole command.
    Glob(Wildcard),
}

impl CommandSpec {
    pub fn parse(spec: &str) -> Result<Self, String> {
        if let Some(prefix) = spec.strip_suffix(":*").filter(|p| !p.ends_with('\\')) {
            let words = shlex::split(prefix).ok_or("the prefix has unbalanced quotes")?;
            if words.is_empty() {
                return Err("the prefix before `:*` is empty".into());
            }
            return Ok(Self::Prefix(words));
        }
        let pattern = Wildcard::parse(spec);
        match pattern.literal() {
            Some(exact) => Ok(Self::Exact(exact.trim().to_string())),
            None => Ok(Self::Glob(pattern)),
        }
    }

    /// Matches a command given as text and words.
    pub fn matches(&self, text: &str, words: &[String]) -> bool {
        match self {
            Self::Exact(exact) => text.trim() == exact,
            Self::Prefix(prefix) => {
                words.len() >= prefix.len() && words[..prefix.len()] == prefix[..]
            }
            Self::Glob(glob) => glob.matches(text.trim()),
        }
    }

    /// True for `Exact`, the only kind allowed to match a whole compound line.
    pub fn is_exact(&self) -> bool {
        matches!(self, Self::Exact(_))
    }
}

/// Where a path rule is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathBase {
    /// The project root (`src/**`, `/src`, `*.md`).
    Root,
    /// `~/…`.
    Home,
    /// `//abs/…`.
    Absolute,
}

/// A gitignore-style path pattern.
#[derive(Debug, Clone)]
pub struct PathSpec {
    pub base: PathBase,
    /// `None` matches everything under the base (`Read(~)`).
    matcher: Option<GlobMatcher>,
}

/// A file name no pattern about real files is likely to name: a directory matches when
/// the pattern matches what is inside it (`src/**` matches the directory `src`).
const INSIDE_PROBE: &str = "\u{1}roocode-probe\u{1}";

impl PathSpec {
    pub fn parse(spec: &str) -> Result<Self, String> {
        if spec.starts_with('!') {
            return Err("negated patterns (`!…`) are not supported".into());
        }
        let (base, pattern, anchored) = if let Some(rest) = spec.strip_prefix("//") {
            (PathBase::Absolute, rest, true)
        } else if spec == "~" {
            (PathBase::Home, "", true)
        } else if let Some(rest) = spec.strip_prefix("~/") {
            (PathBase::Home, rest, true)
        } else if let Some(rest) = spec.strip_prefix("./").or_else(|| spec.strip_prefix('/')) {
            (PathBase::Root, rest, true)
        } else {
            let inner = spec.trim_end_matches('/');
            (PathBase::Root, spec, inner.contains('/'))
        };
        let pattern = pattern.trim_end_matches('/');
        if pattern.is_empty() {
            return Ok(Self {
                base,
                matcher: None,
            });
        }
        let glob = if anchored || pattern.starts_with("**") {
            pattern.to_string()
        } else {
            format!("**/{pattern}")
        };
        let matcher = GlobBuilder::new(&glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("bad path pattern: {e}"))?
            .compile_matcher();
        Ok(Self {
            base,
            matcher: Some(matcher),
        })
    }

    /// Matches an absolute `path` given the directory the pattern is anchored at. A
    /// pattern matching a directory covers everything inside it.
    pub fn matches(&self, path: &Path, base: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(base) else {
            return false;
        };
        let Some(matcher) = &self.matcher else {
            return true;
        };
        if is_dir && matcher.is_match(rel.join(INSIDE_PROBE)) {
            return true;
        }
        rel.ancestors()
            .filter(|p| !p.as_os_str().is_empty())
            .any(|p| matcher.is_match(p))
    }
}

/// `domain:example.com` (that host and its subdomains) or `domain:*.example.com`
/// (subdomains only). Hosts are compared canonically ([`Host::covers`]): every spelling
/// of this machine (`localhost`, `127.0.0.1`, `127.1`, `2130706433`, `[::1]`,
/// `0.0.0.0`…) is one host, and an address never matches as a "subdomain".
#[derive(Debug, Clone)]
pub struct DomainSpec {
    host: Host,
    subdomains_only: bool,
}

impl DomainSpec {
    pub fn parse(spec: &str) -> Result<Self, String> {
        let Some(domain) = spec.strip_prefix("domain:") else {
            return Err("expected `domain:<host>`, as in WebFetch(domain:example.com)".into());
        };
        let domain = domain.trim();
        let (text, subdomains_only) = match domain.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (domain, false),
        };
        let host = Host::parse(text).ok_or_else(|| format!("`{domain}` is not a host name"))?;
        if subdomains_only && matches!(host, Host::Ip(_)) {
            return Err(format!("`{domain}`: an address has no subdomains"));
        }
        Ok(Self {
            host,
            subdomains_only,
        })
    }

    pub fn matches_url(&self, url: &str) -> bool {
        Host::of_url(url).is_some_and(|host| self.matches_host(&host))
    }

    pub fn matches_host(&self, host: &Host) -> bool {
        self.host.covers(host, self.subdomains_only)
    }
}

/// The host of a URL in canonical form (the WHATWG parser, as the fetching code uses:
/// `http://a.com\@b.com` is `a.com`; `http://2130706433/` is `127.0.0.1`; `[::1]` is
/// `::1`).
pub fn host_of(url: &str) -> Option<String> {
    Host::of_url(url).map(|h| h.to_string())
}

/// `path` with `.` and `..` resolved lexically (the path is absolute).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Escapes glob metacharacters so a path matches only itself.
pub fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
