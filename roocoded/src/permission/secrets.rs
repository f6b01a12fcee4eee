//! Files that usually hold credentials (issue 9, item 4): `Read` of one asks in every
//! mode but `bypassPermissions` (denied in `dontAsk`), unless an allow rule naming the
//! file allows it; `Grep` and `Glob` leave such files out of their results.
//!
//! A file is a secret file when, by its name as given, by its real name (symlinks
//! followed) or — for a file with more than one hard link — by another name of the
//! same inode:
//! - its name is one of [`SECRET_NAMES`]' patterns: `.env`, `.env.*`, `*.env`,
//!   `.envrc`, `*.pem`, `*.key`, `*.p12`/`*.pfx`, `id_rsa*`/`id_ed25519*`/… (not
//!   `*.pub`), `.npmrc`, `.pypirc`, `.netrc`, `.pgpass`, `.git-credentials`,
//!   `credentials*.json`, `*.tfstate`(`.backup`), `secrets.y*ml`, …;
//! - or its real path lies in one of the home directory's credential places
//!   ([`HOME_PLACES`]: `~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.config/gcloud`, …).
//!
//! Templates meant to be committed — `.env.example`, `.env.sample`, `.env.template`,
//! `.env.dist` — are not secret files: by convention they hold placeholders (their
//! content still passes the output redaction like any other).
//!
//! Other names of a hard link are looked for in the home credential places and among
//! the secret-named files of the project, found by one bounded breadth-first walk
//! ([`LINK_SEARCH_LIMIT`] entries, hidden files included, `.git` skipped) made only
//! when a file with several links is met.

use std::collections::{HashMap, VecDeque};
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::modes::{self, Mode};
use super::rules::{RuleKind, Verdict};
use super::{Decided, DecidedBy};
use crate::permission::PermissionTarget;

/// Name patterns of secret files (lower-cased names), for messages and docs.
pub const SECRET_NAMES: &str = ".env, .env.*, *.env, .envrc, *.pem, *.key, *.p12, *.pfx, \
*.jks, *.keystore, *.ppk, *.kdbx, id_rsa*, id_dsa*, id_ecdsa*, id_ed25519* (not *.pub), \
.npmrc, .pypirc, .netrc, _netrc, .pgpass, .git-credentials, .htpasswd, .dockercfg, \
credentials, credentials*.json, client_secret*.json, *.tfstate, *.tfstate.backup, \
secrets.yml, secrets.yaml, secrets.json, secrets.toml";

/// Credential places under the home directory: any file below them is a secret file.
pub const HOME_PLACES: [&str; 11] = [
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".config/gh/hosts.yml",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".azure",
    ".password-store",
];

/// Entries visited when looking for the other names of a hard link in the project.
pub const LINK_SEARCH_LIMIT: usize = 20_000;

/// Entries visited per home credential place when collecting their inodes.
const HOME_PLACE_LIMIT: usize = 2_000;

/// `.env.<suffix>` files that are templates, not secrets.
const ENV_TEMPLATES: [&str; 5] = ["example", "sample", "template", "dist", "defaults"];

/// The pattern a file name matches, if it is a secret file's name.
pub fn secret_name(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    let n = n.as_str();
    const EXACT: [&str; 12] = [
        ".env",
        ".envrc",
        ".npmrc",
        ".pypirc",
        ".netrc",
        "_netrc",
        ".pgpass",
        ".git-credentials",
        ".htpasswd",
        ".dockercfg",
        "credentials",
        "secrets.yml",
    ];
    if let Some(exact) = EXACT.iter().find(|e| **e == n) {
        return Some(exact);
    }
    if let Some(rest) = n.strip_prefix(".env.") {
        let last = rest.rsplit('.').next().unwrap_or(rest);
        return (!ENV_TEMPLATES.contains(&last)).then_some(".env.*");
    }
    const EXTENSIONS: [(&str, &str); 12] = [
        (".env", "*.env"),
        (".pem", "*.pem"),
        (".key", "*.key"),
        (".p12", "*.p12"),
        (".pfx", "*.pfx"),
        (".jks", "*.jks"),
        (".keystore", "*.keystore"),
        (".ppk", "*.ppk"),
        (".kdbx", "*.kdbx"),
        (".tfstate", "*.tfstate"),
        (".tfstate.backup", "*.tfstate.backup"),
        (".tfstate.bak", "*.tfstate.backup"),
    ];
    if let Some((_, pattern)) = EXTENSIONS.iter().find(|(ext, _)| n.ends_with(ext)) {
        return Some(pattern);
    }
    const KEY_PREFIXES: [(&str, &str); 4] = [
        ("id_rsa", "id_rsa*"),
        ("id_dsa", "id_dsa*"),
        ("id_ecdsa", "id_ecdsa*"),
        ("id_ed25519", "id_ed25519*"),
    ];
    if let Some((_, pattern)) = KEY_PREFIXES.iter().find(|(p, _)| n.starts_with(p)) {
        return (!n.ends_with(".pub")).then_some(pattern);
    }
    if n.ends_with(".json") {
        if n.starts_with("credentials") {
            return Some("credentials*.json");
        }
        if n.starts_with("client_secret") {
            return Some("client_secret*.json");
        }
    }
    match n {
        "secrets.yaml" | "secrets.json" | "secrets.toml" => Some("secrets.*"),
        _ => None,
    }
}

/// Why a file counts as a secret file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Why {
    /// Its name (as given or real) matches a pattern.
    Name { pattern: String },
    /// Its real path lies in a home credential place.
    HomePlace { place: PathBuf },
    /// It is a hard link to a file that is one.
    Link { other: PathBuf },
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name { pattern } => write!(f, "its name matches `{pattern}`"),
            Self::HomePlace { place } => write!(f, "it is in {}", place.display()),
            Self::Link { other } => {
                write!(f, "it is a hard link to {}", other.display())
            }
        }
    }
}

/// The credential places of one home directory, with the inodes of the files in them,
/// and (built on first need) the inodes of the secret-named files of the project, for
/// hard links. Built once per call: a few `stat`s when the places are small, and at
/// most one bounded walk of the project, only when a file with several links is met.
#[derive(Debug, Default)]
pub struct SecretFiles {
    places: Vec<PathBuf>,
    /// (device, inode) of the files in the home places → one of their paths.
    inodes: HashMap<(u64, u64), PathBuf>,
    /// The project root whose secret-named files are looked up for hard links.
    project: Option<PathBuf>,
    project_inodes: OnceLock<HashMap<(u64, u64), PathBuf>>,
}

impl SecretFiles {
    /// For the home directory `home` (`None`: no home places).
    pub fn new(home: Option<&Path>) -> Self {
        let Some(home) = home else {
            return Self::default();
        };
        let real_home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        let mut places = Vec::new();
        let mut inodes = HashMap::new();
        for place in HOME_PLACES {
            let path = real_home.join(place);
            if path.symlink_metadata().is_err() {
                continue;
            }
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            walk(&real, HOME_PLACE_LIMIT, |entry, meta| {
                if meta.is_file() {
                    inodes
                        .entry((meta.dev(), meta.ino()))
                        .or_insert_with(|| entry.to_path_buf());
                }
            });
            places.push(real);
        }
        Self {
            places,
            inodes,
            ..Self::default()
        }
    }

    /// For the home directory the daemon runs with.
    pub fn for_daemon_user() -> Self {
        let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
        Self::new(home.as_deref())
    }

    /// Also look for other names of hard links among the secret-named files of the
    /// project at `root` (the first [`LINK_SEARCH_LIMIT`] entries, `.git` skipped).
    pub fn with_project(mut self, root: &Path) -> Self {
        self.project = Some(std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()));
        self
    }

    /// Why `path` (as given) with real path `real` and metadata `meta` (of `real`) is
    /// a secret file; `None` if it is not.
    pub fn classify(&self, path: &Path, real: &Path, meta: Option<&Metadata>) -> Option<Why> {
        for p in [path, real] {
            if let Some(pattern) = p.file_name().and_then(|n| n.to_str()).and_then(secret_name) {
                return Some(Why::Name {
                    pattern: pattern.to_string(),
                });
            }
        }
        if let Some(place) = self.places.iter().find(|p| real.starts_with(p)) {
            return Some(Why::HomePlace {
                place: place.clone(),
            });
        }
        let meta = meta.filter(|m| m.is_file() && m.nlink() > 1)?;
        let key = (meta.dev(), meta.ino());
        if let Some(other) = self.inodes.get(&key) {
            return Some(Why::Link {
                other: other.clone(),
            });
        }
        let project = self.project.as_deref()?;
        let linked = self.project_inodes.get_or_init(|| {
            let mut found = HashMap::new();
            walk(project, LINK_SEARCH_LIMIT, |entry, m| {
                let named = entry
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| secret_name(n).is_some());
                if named && m.is_file() {
                    found
                        .entry((m.dev(), m.ino()))
                        .or_insert_with(|| entry.to_path_buf());
                }
            });
            found
        });
        linked.get(&key).map(|other| Why::Link {
            other: other.clone(),
        })
    }

    /// [`Self::classify`] with the metadata read from `real`.
    pub fn classify_path(&self, path: &Path, real: &Path) -> Option<Why> {
        let meta = std::fs::metadata(real).ok();
        self.classify(path, real, meta.as_ref())
    }
}

/// Breadth-first walk of `start` (itself included), symlinks not followed, `.git`
/// skipped, at most `limit` entries.
fn walk(start: &Path, limit: usize, mut visit: impl FnMut(&Path, &Metadata)) {
    let mut queue = VecDeque::from([start.to_path_buf()]);
    let mut seen = 0usize;
    while let Some(path) = queue.pop_front() {
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        seen += 1;
        visit(&path, &meta);
        if seen >= limit {
            return;
        }
        if meta.is_dir()
            && let Ok(entries) = std::fs::read_dir(&path)
        {
            queue.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name() != ".git")
                    .map(|e| e.path()),
            );
        }
    }
}

/// True when the allow rule `rule` (as written) names a file rather than a whole tree:
/// it has a path specifier whose last component is not only `*`s (`Read(.env)`,
/// `Read(config/*.pem)`, `Read(**/.env)` do; `Read`, `Read(**)`, `Read(src/**)` do
/// not).
pub fn rule_names_a_file(rule: &str) -> bool {
    let Some(spec) = rule
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
    else {
        return false;
    };
    // A trailing `/` names a directory.
    let last = spec.trim().rsplit('/').next().unwrap_or("");
    !last.is_empty() && last.chars().any(|c| c != '*')
}

/// The gate's hook for `Read`: an ask (a deny in `dontAsk`) when the call reads a
/// secret file and neither the mode (`bypassPermissions`) nor a rule settles it. Deny
/// and ask rules keep their own answer (`None` here); an allow rule counts only if it
/// names the file ([`rule_names_a_file`]). `real` is the path the sandbox resolved.
pub fn guard(
    tool: &str,
    target: &PermissionTarget,
    real: Option<&Path>,
    verdict: Option<&Verdict>,
    mode: Mode,
    root: &Path,
    home: Option<&Path>,
) -> Option<Decided> {
    if tool != "Read" || mode == Mode::BypassPermissions {
        return None;
    }
    let PermissionTarget::Path { path, write: false } = target else {
        return None;
    };
    match verdict {
        Some(Verdict {
            kind: RuleKind::Deny | RuleKind::Ask,
            ..
        }) => return None,
        Some(Verdict {
            kind: RuleKind::Allow,
            rule,
            ..
        }) if rule_names_a_file(rule) => return None,
        Some(Verdict {
            kind: RuleKind::Allow,
            ..
        })
        | None => {}
    }
    let real = real?;
    let why = SecretFiles::new(home)
        .with_project(root)
        .classify_path(path, real)?;
    let shown = real.strip_prefix(root).unwrap_or(real);
    let decision = modes::ask(
        mode,
        format!(
            "{tool} wants to read {}, a file that usually holds credentials ({why}); RooCode \
             asks before such a read in every mode but bypassPermissions. An allow rule \
             naming the file, such as Read({}), lets it be read without asking",
            path.display(),
            shown.display()
        ),
    );
    Some(Decided::new(
        decision,
        DecidedBy::Credentials {
            path: path.clone(),
            why,
        },
    ))
}

/// Secret files a Grep or Glob left out, for the note at the end of its result.
#[derive(Debug, Default)]
pub struct LeftOut {
    names: Vec<String>,
    count: usize,
}

/// Most left-out files named in the note.
const LEFT_OUT_NAMED: usize = 5;

impl LeftOut {
    pub fn add(&mut self, shown: String) {
        self.count += 1;
        if self.names.len() < LEFT_OUT_NAMED {
            self.names.push(shown);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `(N file(s) that usually hold credentials left out: a, b; …)`, or nothing.
    pub fn note(&self) -> Option<String> {
        if self.count == 0 {
            return None;
        }
        let files = match self.count {
            1 => "1 file that usually holds credentials was".to_string(),
            n => format!("{n} files that usually hold credentials were"),
        };
        let more = self.count - self.names.len();
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        Some(format!(
            "({files} left out of this search: {}{more}. To look inside one, Read it; \
             RooCode asks the user first.)",
            self.names.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests;
