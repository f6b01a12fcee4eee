//! Layer 3, the `allow`/`ask`/`deny` rules of the merged configuration (DESIGN §8).
//!
//! Syntax: `Tool` matches every call of the tool; `Tool(specifier)` narrows it:
//!
//! | rule | matches |
//! | --- | --- |
//! | `Bash(git diff:*)` | a command whose words start with `git diff` |
//! | `Bash(npm run *)` | a glob over the whole command (`*` any characters; `\*` a star) |
//! | `Bash(make)` | exactly `make` |
//! | `Read(src/**)`, `Edit(docs/*.md)` | gitignore-style glob relative to the project root; `~/x` home, `//abs` absolute |
//! | `WebFetch(domain:example.com)` | that host and its subdomains; hosts compare canonically, so `domain:127.0.0.1` is also `localhost`, `[::1]`, `2130706433`… ([`super::network`]) |
//! | `mcp__github__*`, `mcp__github` | tools by name (glob), all tools of a server |
//! | `Agent(Explore)`, `Skill(commit)` | by agent type, by skill name (or `name arguments`) |
//!
//! `Edit(…)` rules also cover `Write`, `MultiEdit` and `NotebookEdit`; `Read(…)` rules
//! also cover `Glob` and `Grep` (matched on the directory they search).
//!
//! Precedence across every file: **deny beats ask beats allow**. A compound command
//! (`a && b | c`) is denied or asked if any of its simple commands (or any program seen
//! through wrappers such as `sudo`) is, and allowed only if every simple command as
//! written is allowed, or the whole line is exactly an allowed `Bash(…)` rule (which is
//! what "allow always" writes). A `prefix:*` rule does not allow a command that also
//! writes a file with a redirection (`git diff > x`); globs and exact rules see the
//! redirection in the text. Neither a prefix nor a glob rule allows a command whose
//! path-taking options name a file outside the workspace (`git diff --no-index
//! --output=~/.bashrc`, `curl -o /etc/x`, `tee ~/.profile`; see `escape.rs`); an exact
//! rule names the whole command and does. Deny and ask rules see files by their lexical and their
//! real path; allow rules only by their real path.
//!
//! Invalid rules are reported by [`validate`] / [`Rules::parse`] and otherwise ignored.
//!
//! A rule read from the configuration keeps the file and line it was written at
//! ([`Rules::from_config`]); the [`Verdict`] names it, so the gate can say which rule of
//! which file decided a call.

mod escape;
mod pattern;

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command::Analysis;
pub use crate::config::RuleKind;
use crate::config::{PermissionsConfig, RuleOrigin, RuleOrigins};

pub use escape::Workspace;
use pattern::{CommandSpec, DomainSpec, PathBase, PathSpec, Wildcard};
pub use pattern::{escape_glob, host_of, normalize};

/// A rule that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid permission rule {rule:?} in permissions.{}: {message}", list.as_str())]
pub struct RuleError {
    pub rule: String,
    pub list: RuleKind,
    pub message: String,
}

/// The winning rule for a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub kind: RuleKind,
    /// The rule as written.
    pub rule: String,
    /// The file and line it was written at; `None` for a rule that comes from no file
    /// (a command's or skill's `allowed-tools`, a rule given in code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<RuleOrigin>,
}

impl Verdict {
    /// `` `Bash(make)` in /p/.roocode/config.yaml line 7 ``, or `` `Bash(make)` (in no
    /// config file) ``.
    pub fn in_words(&self) -> String {
        match &self.origin {
            Some(origin) => format!("`{}` in {}", self.rule, origin.in_words()),
            None => format!("`{}` (in no config file)", self.rule),
        }
    }
}

/// What a call is matched on.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Command {
        line: &'a str,
        analysis: &'a Analysis,
    },
    /// An absolute, lexically normalised path and, when it resolves, its real path.
    Path {
        path: &'a Path,
        real: Option<&'a Path>,
        is_dir: bool,
    },
    Url(&'a str),
    /// The tool's input (for `Agent(type)`, `Skill(name)`).
    Input(&'a Value),
}

/// Directories path rules are anchored at.
#[derive(Debug, Clone, Copy)]
pub struct Bases<'a> {
    pub root: &'a Path,
    pub real_root: Option<&'a Path>,
    pub home: Option<&'a Path>,
    pub real_home: Option<&'a Path>,
}

#[derive(Debug, Clone)]
enum ToolPattern {
    Name(String),
    Glob(Wildcard),
}

#[derive(Debug, Clone)]
enum Spec {
    Command(CommandSpec),
    Path(PathSpec),
    Domain(DomainSpec),
    Name(Wildcard),
}

/// One parsed rule.
#[derive(Debug, Clone)]
pub struct Rule {
    text: String,
    tool: ToolPattern,
    spec: Option<Spec>,
    /// Where it was written, when it comes from a config file.
    origin: Option<RuleOrigin>,
}

const READ_FAMILY: [&str; 5] = ["Read", "Glob", "Grep", "LS", "NotebookRead"];
const EDIT_FAMILY: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

impl Rule {
    /// Parses `Tool` or `Tool(specifier)`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (name, spec) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..]
                    .strip_suffix(')')
                    .ok_or("a rule with `(` must end with `)`")?;
                if inner.trim().is_empty() {
                    return Err("empty specifier in `()`".into());
                }
                (&text[..open], Some(inner))
            }
            None => (text, None),
        };
        if name.is_empty() {
            return Err("missing tool name".into());
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.'))
        {
            return Err(format!("`{name}` is not a tool name"));
        }
        let tool = if name.contains('*') {
            if spec.is_some() {
                return Err("a tool name pattern cannot take a specifier".into());
            }
            ToolPattern::Glob(Wildcard::parse(name))
        } else {
            ToolPattern::Name(name.to_string())
        };
        let spec = match spec {
            None => None,
            Some(spec) => Some(match name {
                "Bash" => Spec::Command(CommandSpec::parse(spec)?),
                "WebFetch" => Spec::Domain(DomainSpec::parse(spec)?),
                n if READ_FAMILY.contains(&n) || EDIT_FAMILY.contains(&n) => {
                    Spec::Path(PathSpec::parse(spec)?)
                }
                _ => Spec::Name(Wildcard::parse(spec)),
            }),
        };
        Ok(Self {
            text: text.to_string(),
            tool,
            spec,
            origin: None,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where the rule was written, when it comes from a config file.
    pub fn origin(&self) -> Option<&RuleOrigin> {
        self.origin.as_ref()
    }

    /// This rule as the verdict of list `kind`.
    fn verdict(&self, kind: RuleKind) -> Verdict {
        Verdict {
            kind,
            rule: self.text.clone(),
            origin: self.origin.clone(),
        }
    }

    /// Does the rule's tool part cover `tool`?
    fn applies_to(&self, tool: &str) -> bool {
        match &self.tool {
            ToolPattern::Glob(glob) => glob.matches(tool),
            ToolPattern::Name(name) => {
                name == tool
                    || (name == "Read" && READ_FAMILY.contains(&tool))
                    || (name == "Edit" && EDIT_FAMILY.contains(&tool))
                    || (name.starts_with("mcp__")
                        && !name[5..].contains("__")
                        && tool
                            .strip_prefix(name.as_str())
                            .is_some_and(|r| r.starts_with("__")))
            }
        }
    }

    /// Matches like deny and ask rules do: any part of a command, lexical or real path.
    fn matches_any(&self, tool: &str, subject: &Subject<'_>, bases: &Bases<'_>) -> bool {
        if !self.applies_to(tool) {
            return false;
        }
        let Some(spec) = &self.spec else {
            return true;
        };
        match (spec, subject) {
            (Spec::Command(c), Subject::Command { line, analysis }) => {
                (!matches!(c, CommandSpec::Prefix(_)) && c.matches(line, &[]))
                    || analysis.parts.iter().any(|p| c.matches(&p.text, &p.words))
                    || analysis.execs.iter().any(|e| {
                        let mut words = vec![e.name.clone()];
                        words.extend(e.arg_texts());
                        c.matches(&e.text, &words) || c.matches(&words.join(" "), &words)
                    })
            }
            (Spec::Path(p), Subject::Path { path, real, is_dir }) => {
                path_matches(p, path, bases, false, *is_dir)
                    || real.is_some_and(|r| path_matches(p, r, bases, true, *is_dir))
            }
            _ => self.matches_other(spec, subject),
        }
    }

    /// Matches like allow rules do for one simple command or path.
    fn matches_strict(&self, tool: &str, subject: &Subject<'_>, bases: &Bases<'_>) -> bool {
        if !self.applies_to(tool) {
            return false;
        }
        let Some(spec) = &self.spec else {
            return true;
        };
        match (spec, subject) {
            (Spec::Command(_), Subject::Command { .. }) => false, // per part, see `allows_command`
            (Spec::Path(p), Subject::Path { path, real, is_dir }) => match real {
                Some(r) => path_matches(p, r, bases, true, *is_dir),
                None => path_matches(p, path, bases, false, *is_dir),
            },
            _ => self.matches_other(spec, subject),
        }
    }

    fn matches_other(&self, spec: &Spec, subject: &Subject<'_>) -> bool {
        match (spec, subject) {
            (Spec::Domain(d), Subject::Url(url)) => d.matches_url(url),
            (Spec::Name(name), Subject::Input(input)) => subject_names(&self.tool, input)
                .iter()
                .any(|n| name.matches(n)),
            _ => false,
        }
    }
}

/// What `Agent(…)` and `Skill(…)` match on.
fn subject_names(tool: &ToolPattern, input: &Value) -> Vec<String> {
    let field = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    match tool {
        ToolPattern::Name(n) if n == "Agent" || n == "Task" => {
            field("subagent_type").into_iter().collect()
        }
        ToolPattern::Name(n) if n == "Skill" => {
            let name = field("name").or_else(|| field("skill"));
            let mut out: Vec<String> = name.iter().cloned().collect();
            if let (Some(name), Some(args)) = (name, field("arguments").or_else(|| field("args"))) {
                out.push(format!("{name} {args}"));
            }
            out
        }
        _ => ["name", "subagent_type"]
            .iter()
            .filter_map(|k| field(k))
            .collect(),
    }
}

fn path_matches(spec: &PathSpec, path: &Path, bases: &Bases<'_>, real: bool, is_dir: bool) -> bool {
    let base = match (spec.base, real) {
        (PathBase::Root, true) => bases.real_root.unwrap_or(bases.root),
        (PathBase::Root, false) => bases.root,
        (PathBase::Home, true) => match bases.real_home.or(bases.home) {
            Some(h) => h,
            None => return false,
        },
        (PathBase::Home, false) => match bases.home {
            Some(h) => h,
            None => return false,
        },
        (PathBase::Absolute, _) => Path::new("/"),
    };
    spec.matches(path, base, is_dir)
}

/// The rules of the merged configuration.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
}

impl Rules {
    /// Parses the three lists; invalid rules are returned and left out. The rules
    /// have no origin; [`Rules::from_config`] gives them theirs.
    pub fn parse(allow: &[String], ask: &[String], deny: &[String]) -> (Self, Vec<RuleError>) {
        Self::parse_from(allow, ask, deny, &RuleOrigins::default())
    }

    /// [`Rules::parse`], each rule with its origin in `origins`.
    fn parse_from(
        allow: &[String],
        ask: &[String],
        deny: &[String],
        origins: &RuleOrigins,
    ) -> (Self, Vec<RuleError>) {
        let mut errors = Vec::new();
        let mut list = |texts: &[String], kind: RuleKind| -> Vec<Rule> {
            texts
                .iter()
                .filter_map(|text| match Rule::parse(text) {
                    Ok(rule) => Some(Rule {
                        origin: origins.of(kind, text).cloned(),
                        ..rule
                    }),
                    Err(message) => {
                        errors.push(RuleError {
                            rule: text.clone(),
                            list: kind,
                            message,
                        });
                        None
                    }
                })
                .collect()
        };
        let rules = Self {
            allow: list(allow, RuleKind::Allow),
            ask: list(ask, RuleKind::Ask),
            deny: list(deny, RuleKind::Deny),
        };
        (rules, errors)
    }

    /// The rules of a (merged) `permissions:` section, each with the file and line it
    /// was written at ([`PermissionsConfig::origins`]).
    pub fn from_config(config: &PermissionsConfig) -> (Self, Vec<RuleError>) {
        Self::parse_from(&config.allow, &config.ask, &config.deny, &config.origins)
    }

    /// Every rule with its list, deny first, then ask, then allow (the order
    /// precedence reads them), each list in file order.
    pub fn iter(&self) -> impl Iterator<Item = (RuleKind, &Rule)> {
        let deny = self.deny.iter().map(|r| (RuleKind::Deny, r));
        let ask = self.ask.iter().map(|r| (RuleKind::Ask, r));
        let allow = self.allow.iter().map(|r| (RuleKind::Allow, r));
        deny.chain(ask).chain(allow)
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    /// The rules' verdict on a call, or `None` when no rule speaks; commands are judged
    /// as run in the project root, with the workspace being the root.
    pub fn evaluate(
        &self,
        tool: &str,
        subject: &Subject<'_>,
        bases: &Bases<'_>,
    ) -> Option<Verdict> {
        self.evaluate_in(tool, subject, bases, None)
    }

    /// [`Rules::evaluate`] for a command run in `workspace.cwd`, whose paths are
    /// checked against the workspace (the path sandbox).
    pub fn evaluate_in(
        &self,
        tool: &str,
        subject: &Subject<'_>,
        bases: &Bases<'_>,
        workspace: Option<&Workspace<'_>>,
    ) -> Option<Verdict> {
        if let Some(rule) = self
            .deny
            .iter()
            .find(|r| r.matches_any(tool, subject, bases))
        {
            return Some(rule.verdict(RuleKind::Deny));
        }
        if let Some(rule) = self
            .ask
            .iter()
            .find(|r| r.matches_any(tool, subject, bases))
        {
            return Some(rule.verdict(RuleKind::Ask));
        }
        let allowed = match subject {
            Subject::Command { line, analysis } => {
                self.allows_command(tool, line, analysis, bases, workspace)
            }
            _ => self
                .allow
                .iter()
                .find(|r| r.matches_strict(tool, subject, bases)),
        };
        allowed.map(|rule| rule.verdict(RuleKind::Allow))
    }

    /// True if an allow rule for `tool` names `host` with a `domain:` specifier (a bare
    /// `WebFetch` rule names no host). Local addresses need such a rule to be fetched
    /// without asking ([`super::network`]).
    pub fn allow_names_host(&self, tool: &str, host: &super::network::Host) -> bool {
        self.allow_naming_host(tool, host).is_some()
    }

    /// The first allow rule for `tool` that names `host` with a `domain:` specifier, as
    /// a verdict ([`Rules::allow_names_host`]).
    pub fn allow_naming_host(&self, tool: &str, host: &super::network::Host) -> Option<Verdict> {
        self.allow
            .iter()
            .find(|r| {
                r.applies_to(tool)
                    && matches!(&r.spec, Some(Spec::Domain(d)) if d.matches_host(host))
            })
            .map(|r| r.verdict(RuleKind::Allow))
    }

    /// The deny rule for `tool` that names `host` with a `domain:` specifier, if any
    /// (WebFetch checks the addresses a name resolves to against them).
    pub fn deny_naming_host(&self, tool: &str, host: &super::network::Host) -> Option<&str> {
        self.deny
            .iter()
            .find(|r| {
                r.applies_to(tool)
                    && matches!(&r.spec, Some(Spec::Domain(d)) if d.matches_host(host))
            })
            .map(|r| r.text.as_str())
    }

    /// The allow rule that covers a whole command line (the last one needed when several
    /// cover its parts), if every part is covered.
    fn allows_command(
        &self,
        tool: &str,
        line: &str,
        analysis: &Analysis,
        bases: &Bases<'_>,
        workspace: Option<&Workspace<'_>>,
    ) -> Option<&Rule> {
        if !analysis.opaque.is_empty() {
            return None;
        }
        fn command_spec(rule: &Rule) -> Option<&CommandSpec> {
            match &rule.spec {
                Some(Spec::Command(c)) => Some(c),
                _ => None,
            }
        }
        let applying: Vec<&Rule> = self.allow.iter().filter(|r| r.applies_to(tool)).collect();
        if let Some(bare) = applying.iter().find(|r| r.spec.is_none()) {
            return Some(bare);
        }
        if let Some(exact) = applying
            .iter()
            .find(|r| command_spec(r).is_some_and(|c| c.is_exact() && c.matches(line, &[])))
        {
            return Some(exact);
        }
        if analysis.parts.is_empty() {
            return None;
        }
        let mut last = None;
        for part in &analysis.parts {
            // A prefix rule is about a command's words: it does not extend to writing
            // files with a redirection (`git diff > ~/.bashrc`).
            // Nor, for prefix and glob rules, to files outside the workspace named by
            // its options (`git diff --no-index --output=~/.bashrc`).
            let escapes = escape::escaping_path(part, bases, workspace).is_some();
            let covers = |c: &CommandSpec| {
                let redirects = part.writes_file && matches!(c, CommandSpec::Prefix(_));
                let leaves = escapes && !c.is_exact();
                !redirects && !leaves && c.matches(&part.text, &part.words)
            };
            let rule = applying
                .iter()
                .find(|r| command_spec(r).is_some_and(covers))?;
            last = Some(*rule);
        }
        last
    }
}

/// Checks the rule lists of a `permissions:` section, for config validation.
pub fn validate(config: &PermissionsConfig) -> Vec<RuleError> {
    Rules::from_config(config).1
}

#[cfg(test)]
mod tests;
