//! Where each permission rule was written (issue 16, item 2): the merged
//! configuration keeps, for every `permissions.allow|ask|deny` entry, the file and the
//! line it came from ([`RuleOrigins`], in [`PermissionsConfig::origins`]), so that the
//! permission layer can say *which* rule of *which* file decided a call, and
//! `/permissions` can list each rule with its `file:line`.
//!
//! How lines are found: `yaml_serde` gives positions only in its errors, so for each
//! entry the file is read once more by a visitor that walks to
//! `permissions.<list>[index]` and refuses the value it finds there on purpose
//! (`validate::locate`); the error's position is the entry's line, whatever the style
//! (a block list, a `[flow, list]` over several lines, quoted or not). It costs one
//! parse of the file per rule: about 30 µs for a short file, a few milliseconds for
//! hundreds of rules, paid when a file is read (at each turn's start and check).
//! Should a position not come out (never seen for a file that parsed), the line of the
//! list's own key is used, else line 1.
//!
//! A rule written in several files (or twice in one) keeps every origin, in merge
//! order; the first is the one the merged list keeps, and the one a verdict names.
//!
//! The origins are not part of what a configuration *says*: two configurations with
//! the same rules are equal wherever the rules are written ([`RuleOrigins`]' `PartialEq`
//! is always true), so moving a rule down a line or adding a comment above it is not a
//! permission change to approve mid-turn, and a refused change stays refused.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::PermissionsConfig;
use super::validate;

/// Which list a permission rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    Allow,
    Ask,
    Deny,
}

impl RuleKind {
    /// Every list, in the order precedence reads them (deny beats ask beats allow).
    pub const BY_PRECEDENCE: [RuleKind; 3] = [RuleKind::Deny, RuleKind::Ask, RuleKind::Allow];

    /// The list's key in `permissions:` (`allow`, `ask`, `deny`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// Where one rule is written: a config file and the 1-based line of the entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RuleOrigin {
    pub file: PathBuf,
    pub line: u32,
}

impl RuleOrigin {
    pub fn new(file: impl Into<PathBuf>, line: u32) -> Self {
        Self {
            file: file.into(),
            line,
        }
    }

    /// `/p/.roocode/config.yaml line 7`, for sentences.
    pub fn in_words(&self) -> String {
        format!("{} line {}", self.file.display(), self.line)
    }
}

/// `/p/.roocode/config.yaml:7`.
impl fmt::Display for RuleOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// The origins of the rules of a `permissions:` section, by list and rule text (as
/// written in the file).
#[derive(Debug, Clone, Default)]
pub struct RuleOrigins {
    by_rule: BTreeMap<(RuleKind, String), Vec<RuleOrigin>>,
}

/// Always equal: see the module documentation.
impl PartialEq for RuleOrigins {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl RuleOrigins {
    /// Where `rule` of list `kind` was first written, if known.
    pub fn of(&self, kind: RuleKind, rule: &str) -> Option<&RuleOrigin> {
        self.all(kind, rule).first()
    }

    /// Every place `rule` of list `kind` is written, in merge order.
    pub fn all(&self, kind: RuleKind, rule: &str) -> &[RuleOrigin] {
        self.by_rule
            .get(&(kind, rule.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Records that `rule` of list `kind` is written at `origin` (once per place).
    pub fn add(&mut self, kind: RuleKind, rule: &str, origin: RuleOrigin) {
        let places = self.by_rule.entry((kind, rule.to_string())).or_default();
        if !places.contains(&origin) {
            places.push(origin);
        }
    }

    /// The origins of a later file after these (see `Config::merge`).
    pub fn merge(&mut self, later: RuleOrigins) {
        for ((kind, rule), places) in later.by_rule {
            for origin in places {
                self.add(kind, &rule, origin);
            }
        }
    }
}

impl PermissionsConfig {
    /// The rules of list `kind`, as written.
    pub fn rules(&self, kind: RuleKind) -> &[String] {
        match kind {
            RuleKind::Allow => &self.allow,
            RuleKind::Ask => &self.ask,
            RuleKind::Deny => &self.deny,
        }
    }

    /// Where `rule` of list `kind` was first written, if known.
    pub fn origin(&self, kind: RuleKind, rule: &str) -> Option<&RuleOrigin> {
        self.origins.of(kind, rule)
    }

    /// Appends `rule` to `allow` unless it is there, with where it was written (what
    /// "allow always" does: `permission::persist::append_allow_rule_at` tells the
    /// origin).
    pub fn add_allow_rule(&mut self, rule: &str, origin: Option<RuleOrigin>) {
        if !self.allow.iter().any(|r| r == rule) {
            self.allow.push(rule.to_string());
        }
        if let Some(origin) = origin {
            self.origins.add(RuleKind::Allow, rule, origin);
        }
    }
}

/// Files located this daemon's life, by path and text: config files are read again
/// before every turn and between model calls, and locating walks a file once per rule.
static LOCATED: std::sync::Mutex<Option<HashMap<(PathBuf, u64), RuleOrigins>>> =
    std::sync::Mutex::new(None);

/// At most this many files are remembered (then the memory starts again).
const LOCATED_MAX: usize = 256;

/// The origins of the rules of `permissions`, read from `path` whose text is `text`
/// (a file that parsed).
pub(super) fn locate(path: &Path, text: &str, permissions: &PermissionsConfig) -> RuleOrigins {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let key = (path.to_path_buf(), hasher.finish());
    let mut memory = LOCATED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let known = memory.get_or_insert_with(HashMap::new);
    if let Some(origins) = known.get(&key) {
        return origins.clone();
    }
    let origins = locate_now(path, text, permissions);
    if known.len() >= LOCATED_MAX {
        known.clear();
    }
    known.insert(key, origins.clone());
    origins
}

fn locate_now(path: &Path, text: &str, permissions: &PermissionsConfig) -> RuleOrigins {
    let mut origins = RuleOrigins::default();
    for kind in RuleKind::BY_PRECEDENCE {
        for (index, rule) in permissions.rules(kind).iter().enumerate() {
            let line = entry_line(text, kind, index)
                .or_else(|| validate::key_line(text, &["permissions", kind.as_str()]))
                .unwrap_or(1);
            origins.add(kind, rule, RuleOrigin::new(path, line));
        }
    }
    origins
}

/// The line of the first entry `rule` of list `kind` in the config file `text`; `None`
/// if the file does not parse or has no such entry.
pub fn rule_line(text: &str, kind: RuleKind, rule: &str) -> Option<u32> {
    let doc: yaml_serde::Value = yaml_serde::from_str(text).ok()?;
    let index = doc
        .get("permissions")?
        .get(kind.as_str())?
        .as_sequence()?
        .iter()
        .position(|v| v.as_str() == Some(rule))?;
    entry_line(text, kind, index)
}

fn entry_line(text: &str, kind: RuleKind, index: usize) -> Option<u32> {
    validate::item_line(text, &["permissions", kind.as_str()], index)
}

#[cfg(test)]
mod tests;
