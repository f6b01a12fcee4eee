//! [`Policy`]: which paths a sandboxed command may write, which it may only read inside
//! writable places (read-only islands), and which it cannot see at all, resolved to
//! real, existing paths. Both mechanisms (bubblewrap, Landlock) are built from it.
//!
//! - **Writable:** the workspace (project root or the agent's worktree), the user's
//!   `permissions.additional_directories` and `sandbox.allow_write`, the session's
//!   scratch directory (its `TMPDIR`, added at spawn time), and the tool caches
//!   `~/.cargo/registry`, `~/.cache`, `~/.npm`, `~/.rustup` where they exist. `/dev/null`,
//!   `/dev/tty` and `/dev/pts` come with bubblewrap's own `/dev`. For a workspace that
//!   is a git worktree, its git directory and the repository's common directory.
//! - **Read-only islands** inside writable places: each workspace's `.git/config`,
//!   `.git/hooks/` (and the directory `core.hooksPath` names), `.roocode/`, `.claude/`
//!   and `.mcp.json` — what RooCode, Claude Code, MCP clients and git run or obey.
//! - **Hidden** (an empty tmpfs; `/dev/null` for a file): the home's credential places
//!   (`~/.ssh`, `~/.gnupg`, `~/.aws`, `~/.config/gcloud`, `~/.kube`, `~/.docker/config.json`,
//!   `~/.config/gh/hosts.yml`, cargo's credentials, `~/.azure`, `~/.password-store`) and
//!   credential files (`~/.netrc`, `~/.git-credentials`, …), RooCode's own home (config,
//!   data with the database, state, the run directory with the socket) and
//!   `sandbox.deny_read`.
//!
//! Paths that do not exist are left out (bubblewrap fails on a missing source), so a
//! protected file created later during the command is not covered by an island; the
//! config-change check of the turn loop is what catches those. `~` means both the
//! command's `HOME` and the daemon user's home when they differ.
//!
//! Overlaps are settled by depth: mounts are applied shallow first, so the more
//! specific path wins (RooCode's data directory is hidden, an agent worktree inside it
//! is writable again); at the same path, hidden beats read-only beats writable.

use std::path::{Component, Path, PathBuf};

use super::settings::SandboxSettings;
use crate::config::SandboxNetwork;

/// How a path appears inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    Writable,
    ReadOnly,
    Hidden,
}

/// One path and how it appears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Real (canonical) path.
    pub path: PathBuf,
    pub access: Access,
    /// The path is a directory (else a file).
    pub is_dir: bool,
}

/// The resolved confinement of one session's commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Shallow first; see the module documentation.
    pub mounts: Vec<Mount>,
    pub network: SandboxNetwork,
}

/// What a [`Policy`] is built from.
#[derive(Debug, Clone)]
pub struct PolicyInputs<'a> {
    /// The workspace: project root or agent worktree.
    pub workspace: &'a Path,
    /// Relative configured paths resolve against it (the session's directory).
    pub cwd: &'a Path,
    /// The command's `HOME` and the daemon user's home.
    pub homes: Vec<PathBuf>,
    /// RooCode's own directories (user dir, data, state, run dir).
    pub roocode_dirs: Vec<PathBuf>,
    pub settings: &'a SandboxSettings,
}

/// Writable tool caches, relative to a home, used only where they exist.
pub const DEFAULT_WRITABLE_IN_HOME: &[&str] = &[".cargo/registry", ".cache", ".npm", ".rustup"];
/// Credential files directly in a home (the home-level names of
/// [`crate::permission::secrets::SECRET_NAMES`]).
const HOME_SECRET_FILES: &[&str] = &[".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc"];
/// Read-only islands relative to each writable workspace.
const ISLANDS: &[&str] = &[
    ".git/config",
    ".git/hooks",
    ".roocode",
    ".claude",
    ".mcp.json",
];

impl Policy {
    pub fn build(inputs: &PolicyInputs<'_>) -> Policy {
        let mut wanted: Vec<(PathBuf, Access)> = Vec::new();
        // Only the workspace's config is RooCode's; additional directories are left alone.
        ensure_roocode_dir(inputs.workspace);
        let mut workspaces = vec![inputs.workspace.to_path_buf()];
        for dir in &inputs.settings.additional_directories {
            workspaces.extend(expand(dir, inputs));
        }
        for ws in &workspaces {
            wanted.push((ws.clone(), Access::Writable));
            for island in ISLANDS {
                wanted.push((ws.join(island), Access::ReadOnly));
            }
            for git in git_dirs(ws) {
                wanted.push((git.clone(), Access::Writable));
                wanted.push((git.join("config"), Access::ReadOnly));
                wanted.push((git.join("config.worktree"), Access::ReadOnly));
                wanted.push((git.join("hooks"), Access::ReadOnly));
            }
            if let Some(hooks) = hooks_path(ws, &inputs.homes) {
                wanted.push((hooks, Access::ReadOnly));
            }
        }
        for dir in &inputs.settings.allow_write {
            wanted.extend(
                expand(dir, inputs)
                    .into_iter()
                    .map(|p| (p, Access::Writable)),
            );
        }
        for home in &inputs.homes {
            for rel in DEFAULT_WRITABLE_IN_HOME {
                wanted.push((home.join(rel), Access::Writable));
            }
            // The credential places the file tools guard are the ones commands cannot see.
            let places = crate::permission::secrets::HOME_PLACES.iter();
            for rel in places.chain(HOME_SECRET_FILES) {
                wanted.push((home.join(rel), Access::Hidden));
            }
        }
        for dir in &inputs.roocode_dirs {
            wanted.push((dir.clone(), Access::Hidden));
        }
        for dir in &inputs.settings.deny_read {
            wanted.extend(expand(dir, inputs).into_iter().map(|p| (p, Access::Hidden)));
        }
        let mut policy = Policy {
            mounts: Vec::new(),
            network: inputs.settings.network,
        };
        for (path, access) in wanted {
            policy.add(&path, access);
        }
        policy
    }

    /// Adds `path` (skipped when it does not exist) and keeps the list ordered.
    pub fn add(&mut self, path: &Path, access: Access) {
        let Ok(real) = path.canonicalize() else {
            return;
        };
        if real == Path::new("/") && access != Access::ReadOnly {
            // `/` is the read-only base; hiding it or making it writable is not a sandbox.
            tracing::warn!(?access, "ignoring `/` in the command sandbox's path lists");
            return;
        }
        let is_dir = real.is_dir();
        match self.mounts.iter_mut().find(|m| m.path == real) {
            Some(existing) => existing.access = existing.access.max(access),
            None => self.mounts.push(Mount {
                path: real,
                access,
                is_dir,
            }),
        }
        self.mounts.sort_by_key(|m| m.path.components().count());
    }

    /// The writable paths.
    pub fn writable(&self) -> impl Iterator<Item = &Path> {
        self.mounts
            .iter()
            .filter(|m| m.access == Access::Writable)
            .map(|m| m.path.as_path())
    }

    /// True if a command may write `path` (an absolute, lexically clean path; symlinks
    /// are resolved where they exist).
    pub fn may_write(&self, path: &Path) -> bool {
        let real = real_or_parent(path);
        // The deepest mount containing the path decides.
        self.mounts
            .iter()
            .filter(|m| real.starts_with(&m.path))
            .max_by_key(|m| m.path.components().count())
            .is_some_and(|m| m.access == Access::Writable)
            || ["/dev/null", "/dev/tty", "/dev/pts"]
                .iter()
                .any(|d| real.starts_with(d))
    }
}

/// The real path of `path`, or of its nearest existing ancestor plus the rest.
fn real_or_parent(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = path.to_path_buf();
    loop {
        if let Ok(real) = cur.canonicalize() {
            return rest.iter().rev().fold(real, |acc, part| acc.join(part));
        }
        match (cur.file_name().map(ToOwned::to_owned), cur.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                cur = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// A configured path: `~` and `~/x` against every home, relative against the cwd.
fn expand(raw: &str, inputs: &PolicyInputs<'_>) -> Vec<PathBuf> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Vec::new();
    }
    if raw == "~" {
        return inputs.homes.clone();
    }
    if let Some(rest) = raw.strip_prefix("~/") {
        return inputs.homes.iter().map(|h| h.join(rest)).collect();
    }
    let path = Path::new(raw);
    if path.is_absolute() {
        vec![path.to_path_buf()]
    } else {
        vec![inputs.cwd.join(path)]
    }
}

/// For a workspace whose `.git` is a file (a worktree): its git directory and the
/// repository's common directory, which `git commit` writes, when the `.git` file
/// really names them ([`crate::project::worktree::verified`]).
fn git_dirs(ws: &Path) -> Vec<PathBuf> {
    crate::project::worktree::verified(ws)
        .map(|dirs| vec![dirs.git_dir, dirs.common_dir])
        .unwrap_or_default()
}

/// Creates the workspace's (empty) `.roocode/` when it is missing, so that its island
/// is in place before the first command: otherwise a command could create
/// `.roocode/config.local.yaml` (say `sandbox: {mode: off}`) and loosen its own next
/// call. Skipped when the workspace is not a directory or cannot be written.
fn ensure_roocode_dir(ws: &Path) {
    let dir = ws.join(".roocode");
    if ws.is_dir() && std::fs::symlink_metadata(&dir).is_err() {
        let _ = std::fs::create_dir(&dir);
    }
}

/// The directory `core.hooksPath` of the workspace's `.git/config` names, if any.
fn hooks_path(ws: &Path, homes: &[PathBuf]) -> Option<PathBuf> {
    let text = std::fs::read_to_string(ws.join(".git").join("config")).ok()?;
    let value = git_config_value(&text, "core", "hookspath")?;
    let path = match value.strip_prefix("~/") {
        Some(rest) => homes.first()?.join(rest),
        None => ws.join(&value),
    };
    Some(path)
}

/// The last value of `key` in `[section]` of a git config text (a small reader:
/// sections, `key = value`, quotes and comments; enough to find `core.hooksPath`).
pub(crate) fn git_config_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut current = String::new();
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.split([']', ' ', '"']).next().unwrap_or_default();
            current = name.to_ascii_lowercase();
            continue;
        }
        if current != section || line.starts_with(['#', ';']) {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim().eq_ignore_ascii_case(key) {
            let v = v.split([';', '#']).next().unwrap_or_default().trim();
            found = Some(v.trim_matches('"').to_string());
        }
    }
    found.filter(|v| !v.is_empty())
}

/// Number of normal components (for tests and callers that compare depths).
pub fn depth(path: &Path) -> usize {
    path.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        _dir: tempfile::TempDir,
        base: PathBuf,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        for d in [
            "home/.ssh",
            "home/.cache",
            "home/.roocode/data",
            "ws/.git/hooks",
            "ws/.roocode",
            "ws/src",
            "hooks2",
            "other",
        ] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        std::fs::write(
            base.join("ws/.git/config"),
            "[core]\n\thooksPath = ../hooks2\n",
        )
        .unwrap();
        Fixture { _dir: dir, base }
    }

    fn build(f: &Fixture, settings: &SandboxSettings) -> Policy {
        Policy::build(&PolicyInputs {
            workspace: &f.base.join("ws"),
            cwd: &f.base.join("ws"),
            homes: vec![f.base.join("home")],
            roocode_dirs: vec![f.base.join("home/.roocode")],
            settings,
        })
    }

    fn access(p: &Policy, path: &Path) -> Option<Access> {
        p.mounts.iter().find(|m| m.path == path).map(|m| m.access)
    }

    #[test]
    fn workspace_writable_islands_read_only_secrets_hidden() {
        let f = fixture();
        let p = build(&f, &SandboxSettings::default());
        let b = &f.base;
        assert_eq!(access(&p, &b.join("ws")), Some(Access::Writable));
        assert_eq!(
            access(&p, &b.join("ws/.git/config")),
            Some(Access::ReadOnly)
        );
        assert_eq!(access(&p, &b.join("ws/.git/hooks")), Some(Access::ReadOnly));
        assert_eq!(access(&p, &b.join("ws/.roocode")), Some(Access::ReadOnly));
        assert_eq!(access(&p, &b.join("hooks2")), Some(Access::ReadOnly));
        assert_eq!(access(&p, &b.join("home/.ssh")), Some(Access::Hidden));
        assert_eq!(access(&p, &b.join("home/.roocode")), Some(Access::Hidden));
        assert_eq!(access(&p, &b.join("home/.cache")), Some(Access::Writable));
        // Missing paths are skipped.
        assert_eq!(access(&p, &b.join("ws/.claude")), None);
        assert_eq!(access(&p, &b.join("home/.aws")), None);
        // Shallow first.
        let depths: Vec<usize> = p.mounts.iter().map(|m| depth(&m.path)).collect();
        assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{depths:?}");
        assert!(p.may_write(&b.join("ws/src/new.rs")));
        assert!(!p.may_write(&b.join("ws/.git/config")));
        assert!(!p.may_write(&b.join("ws/.git/hooks/pre-commit")));
        assert!(!p.may_write(&b.join("other/x")));
        assert!(!p.may_write(Path::new("/etc/passwd")));
        assert!(p.may_write(Path::new("/dev/null")));
    }

    #[test]
    fn configured_paths_expand_and_deeper_wins() {
        let f = fixture();
        let settings = SandboxSettings {
            allow_write: vec!["~/.roocode/data".into(), "../other".into()],
            deny_read: vec!["src".into(), "/".into()],
            ..SandboxSettings::default()
        };
        let p = build(&f, &settings);
        let b = &f.base;
        assert_eq!(access(&p, &b.join("other")), Some(Access::Writable));
        assert_eq!(access(&p, &b.join("ws/src")), Some(Access::Hidden));
        // An agent worktree inside the hidden data directory is writable again.
        assert!(p.may_write(&b.join("home/.roocode/data/x")));
        assert!(!p.may_write(&b.join("home/.roocode/config.yaml")));
        assert!(p.mounts.iter().all(|m| m.path != Path::new("/")));
    }

    #[test]
    fn an_agent_worktree_is_the_one_place_of_the_hidden_data_directory_commands_see() {
        let f = fixture();
        let b = &f.base;
        let data = b.join("home/.roocode/data");
        for d in ["worktrees/a/src", "worktrees/b"] {
            std::fs::create_dir_all(data.join(d)).unwrap();
        }
        std::fs::write(data.join("roocode.db"), "").unwrap();
        let settings = SandboxSettings::default();
        let own = data.join("worktrees/a");
        let p = Policy::build(&PolicyInputs {
            workspace: &own,
            cwd: &own,
            homes: vec![b.join("home")],
            roocode_dirs: vec![b.join("home/.roocode"), data.clone()],
            settings: &settings,
        });
        assert_eq!(access(&p, &data), Some(Access::Hidden));
        assert_eq!(access(&p, &own), Some(Access::Writable));
        // Exactly that worktree: not its siblings, not the data directory around it.
        assert_eq!(access(&p, &data.join("worktrees")), None);
        assert_eq!(access(&p, &data.join("worktrees/b")), None);
        assert!(p.may_write(&own.join("src/main.rs")));
        assert!(!p.may_write(&data.join("worktrees/b/x")));
        assert!(!p.may_write(&data.join("roocode.db")));
        // The data directory is hidden first, then the worktree mounted inside it.
        let at = |path: &Path| p.mounts.iter().position(|m| m.path == path).unwrap();
        assert!(at(&data) < at(&own));
        // Its own `.roocode/` is read-only like a project's.
        assert!(!p.may_write(&own.join(".roocode/config.local.yaml")));
    }

    #[test]
    fn same_path_strongest_wins() {
        let f = fixture();
        let settings = SandboxSettings {
            allow_write: vec!["~/.ssh".into()],
            ..SandboxSettings::default()
        };
        let p = build(&f, &settings);
        assert_eq!(access(&p, &f.base.join("home/.ssh")), Some(Access::Hidden));
    }

    #[test]
    fn worktree_git_dirs_are_writable_but_their_config_is_not() {
        let f = fixture();
        let b = &f.base;
        std::fs::create_dir_all(b.join("repo/.git/worktrees/w1")).unwrap();
        std::fs::create_dir_all(b.join("repo/.git/objects")).unwrap();
        std::fs::write(b.join("repo/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(b.join("repo/.git/config"), "").unwrap();
        std::fs::write(b.join("repo/.git/worktrees/w1/commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(b.join("wt")).unwrap();
        std::fs::write(
            b.join("repo/.git/worktrees/w1/gitdir"),
            format!("{}\n", b.join("wt/.git").display()),
        )
        .unwrap();
        std::fs::write(
            b.join("wt/.git"),
            format!("gitdir: {}\n", b.join("repo/.git/worktrees/w1").display()),
        )
        .unwrap();
        let settings = SandboxSettings::default();
        let p = Policy::build(&PolicyInputs {
            workspace: &b.join("wt"),
            cwd: &b.join("wt"),
            homes: vec![],
            roocode_dirs: vec![],
            settings: &settings,
        });
        assert!(p.may_write(&b.join("repo/.git/objects/ab")));
        assert!(!p.may_write(&b.join("repo/.git/config")));
        // A rewritten .git file cannot make another place writable.
        std::fs::write(
            b.join("wt/.git"),
            format!("gitdir: {}\n", b.join("other").display()),
        )
        .unwrap();
        std::fs::write(b.join("other/commondir"), "..\n").unwrap();
        let p = Policy::build(&PolicyInputs {
            workspace: &b.join("wt"),
            cwd: &b.join("wt"),
            homes: vec![],
            roocode_dirs: vec![],
            settings: &settings,
        });
        assert!(!p.may_write(&b.join("other/x")));
        assert!(!p.may_write(&b.join("repo/.git/objects/ab")));
    }

    #[test]
    fn a_missing_roocode_directory_is_created_and_read_only() {
        let f = fixture();
        std::fs::remove_dir(f.base.join("ws/.roocode")).unwrap();
        let p = build(&f, &SandboxSettings::default());
        assert!(f.base.join("ws/.roocode").is_dir());
        assert!(!p.may_write(&f.base.join("ws/.roocode/config.local.yaml")));
    }

    #[test]
    fn reads_core_hooks_path() {
        let text =
            "[user]\n\thooksPath = nope\n[core]\n\tbare = false\n\tHooksPath = \"/x/hooks\" ; c\n";
        assert_eq!(
            git_config_value(text, "core", "hookspath").as_deref(),
            Some("/x/hooks")
        );
        assert_eq!(git_config_value("[core]\n", "core", "hookspath"), None);
    }
}
