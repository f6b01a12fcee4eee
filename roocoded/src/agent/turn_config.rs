//! The configuration a turn runs with (issue 9, item 2). It is read once, when the turn
//! starts: a user's edit of a config file applies at the next turn. Two things change it
//! while the turn runs:
//!
//! - an "allow always" answer, whose rule applies at once ([`TurnConfig::allow_rule`]);
//! - a change of a permission-relevant key ([`Guarded`]) that appears in the files while
//!   the turn runs, whoever wrote it: [`TurnConfig::recheck`] finds it between model
//!   calls, the turn asks the user (showing the change) and applies it only if approved
//!   ([`TurnConfig::apply`]); refused, the turn keeps its settings and is not asked
//!   again about the same content.
//!
//! A refusal outlives the turn ([`Refused`]): if the files still say the same when the
//! next turn starts, that turn starts with the settings the user kept and asks again
//! ([`TurnConfig::resume`]), so a refused change is never applied silently later.
//!
//! A file that turns invalid while the turn runs changes nothing: the turn keeps its
//! last good configuration and reports the error once.
//!
//! The command sandbox's settings ([`SandboxSettings`]: the same files, read with each
//! file's trust) follow the same rule: taken when the turn starts, replaced only by an
//! approved change, so a command that rewrites a config file (possible where Landlock
//! is all there is, which has no read-only islands) cannot loosen its own sandbox.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::config::{Config, ConfigError, Guarded};
use crate::sandbox::SandboxSettings;

/// What [`TurnConfig::recheck`] found in the files.
#[derive(Debug, Clone, PartialEq)]
pub enum FileCheck {
    /// Nothing the turn must act on (no change, a change of keys that wait for the
    /// next turn, or a change already asked about).
    Same,
    /// A file is invalid (reported once per distinct error); the turn keeps its config.
    Invalid(String),
    /// Permission-relevant keys differ from the turn's: `changes` for the user, and
    /// `newer` to [`TurnConfig::apply`] if they approve.
    Changed {
        changes: Vec<String>,
        files: Vec<PathBuf>,
        newer: Box<Guarded>,
    },
}

/// A change the user refused: the permission-relevant keys they kept, and the ones
/// they refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    kept: Guarded,
    kept_sandbox: SandboxSettings,
    refused: Guarded,
}

/// One turn's configuration.
pub struct TurnConfig {
    user_dir: PathBuf,
    root: PathBuf,
    state: Mutex<State>,
}

struct State {
    /// What the turn runs with.
    config: Config,
    /// The command sandbox's settings the turn runs with.
    sandbox: SandboxSettings,
    /// The permission-relevant keys of the files as last seen (applied or refused).
    seen: Guarded,
    /// The last invalid-file error reported.
    reported: Option<String>,
}

/// The command sandbox's settings of a confined turn (see
/// [`TurnConfig::confine_to_workspace`]): `sandbox.mode: off` does not apply.
pub fn confine_settings(settings: &mut SandboxSettings) {
    settings.allow_write.clear();
    settings.additional_directories.clear();
    settings.network = crate::config::SandboxNetwork::Deny;
    if settings.mode == crate::config::SandboxMode::Off {
        settings.mode = crate::config::SandboxMode::Auto;
    }
}

impl TurnConfig {
    /// Reads the merged configuration of the project at `root`.
    pub fn load(user_dir: &Path, root: &Path) -> Result<Self, ConfigError> {
        let config = Config::load(user_dir, root)?;
        let sandbox = SandboxSettings::load(user_dir, root)?;
        Ok(Self::new(user_dir, root, config, sandbox))
    }

    /// A turn configuration starting from `config` and `sandbox` (read from `user_dir`
    /// and `root`).
    pub fn new(user_dir: &Path, root: &Path, config: Config, sandbox: SandboxSettings) -> Self {
        Self {
            user_dir: user_dir.to_path_buf(),
            root: root.to_path_buf(),
            state: Mutex::new(State {
                seen: Guarded::of(&config),
                config,
                sandbox,
                reported: None,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the turn's commands and file tools to the workspace and off the network:
    /// no additional directory, no `sandbox.allow_write`, `sandbox.network: deny`, the
    /// OS sandbox never off (a replay runs recorded calls, offline, which must reach
    /// nothing but its scratch copy).
    pub fn confine_to_workspace(&self) {
        let mut state = self.state();
        state.config.permissions.additional_directories.clear();
        state.config.sandbox.allow_write.clear();
        state.config.sandbox.network = Some(crate::config::SandboxNetwork::Deny);
        confine_settings(&mut state.sandbox);
    }

    /// The configuration the turn runs with now.
    pub fn get(&self) -> Config {
        self.state().config.clone()
    }

    /// The command sandbox's settings the turn runs with now.
    pub fn sandbox(&self) -> SandboxSettings {
        self.state().sandbox.clone()
    }

    /// An "allow always" rule was written to the local config: it applies at once, and
    /// the file's new content is not a change to ask about.
    pub fn allow_rule(&self, rule: &str) {
        let mut state = self.state();
        let allow = &mut state.config.permissions.allow;
        if !allow.iter().any(|r| r == rule) {
            allow.push(rule.to_string());
        }
        state.seen.add_allow_rule(rule);
    }

    /// Reads the files again and compares their permission-relevant keys with the
    /// turn's (see [`FileCheck`]).
    pub fn recheck(&self) -> FileCheck {
        let loaded = Config::load(&self.user_dir, &self.root);
        let mut state = self.state();
        let disk = match loaded {
            Ok(disk) => disk,
            Err(e) => {
                let message = e.to_string();
                if state.reported.as_deref() == Some(message.as_str()) {
                    return FileCheck::Same;
                }
                state.reported = Some(message.clone());
                return FileCheck::Invalid(message);
            }
        };
        state.reported = None;
        let newer = Guarded::of(&disk);
        if newer == state.seen {
            return FileCheck::Same;
        }
        state.seen = newer.clone();
        let changes = Guarded::of(&state.config).changes(&newer);
        if changes.is_empty() {
            return FileCheck::Same;
        }
        FileCheck::Changed {
            changes,
            files: disk.sources,
            newer: Box::new(newer),
        }
    }

    /// The user approved `newer`: the turn runs with it from now on.
    pub fn apply(&self, newer: &Guarded) {
        let mut state = self.state();
        newer.apply_to(&mut state.config);
        // The sandbox settings of the files the user approved; if they changed again
        // since, the old ones stay and the next recheck asks about the new content.
        let approved =
            Config::load(&self.user_dir, &self.root).is_ok_and(|disk| Guarded::of(&disk) == *newer);
        if approved && let Ok(sandbox) = SandboxSettings::load(&self.user_dir, &self.root) {
            state.sandbox = sandbox;
        }
    }

    /// The user refused `newer`: the turn keeps its settings; the returned record lets
    /// the next turn ask again.
    pub fn refuse(&self, newer: &Guarded) -> Refused {
        let state = self.state();
        Refused {
            kept: Guarded::of(&state.config),
            kept_sandbox: state.sandbox.clone(),
            refused: newer.clone(),
        }
    }

    /// A turn starting after `refused`: if the files still hold the refused settings,
    /// it runs with the kept ones and its first [`recheck`](Self::recheck) asks again;
    /// otherwise (the files were edited since) the refusal no longer applies.
    pub fn resume(self, refused: Refused) -> Self {
        {
            let mut state = self.state();
            if state.seen == refused.refused {
                refused.kept.apply_to(&mut state.config);
                state.sandbox = refused.kept_sandbox;
                state.seen = refused.kept;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dirs {
        _tmp: tempfile::TempDir,
        user: PathBuf,
        root: PathBuf,
    }

    impl Dirs {
        fn new() -> Self {
            let tmp = tempfile::tempdir().unwrap();
            let user = tmp.path().join("user");
            let root = tmp.path().join("proj");
            std::fs::create_dir_all(&user).unwrap();
            std::fs::create_dir_all(root.join(".roocode")).unwrap();
            Self {
                _tmp: tmp,
                user,
                root,
            }
        }

        fn local(&self, text: &str) {
            std::fs::write(self.root.join(".roocode/config.local.yaml"), text).unwrap();
        }

        fn load(&self) -> TurnConfig {
            TurnConfig::load(&self.user, &self.root).unwrap()
        }
    }

    #[test]
    fn other_keys_wait_for_the_next_turn() {
        let dirs = Dirs::new();
        dirs.local("max_turns: 3\n");
        let turn = dirs.load();
        dirs.local("max_turns: 9\n");
        assert_eq!(turn.recheck(), FileCheck::Same);
        assert_eq!(turn.get().max_turns(), 3);
    }

    #[test]
    fn a_rule_added_during_the_turn_waits_for_approval_and_is_asked_once() {
        let dirs = Dirs::new();
        let turn = dirs.load();
        dirs.local("permissions: {allow: [\"Bash(*)\"]}\n");
        let FileCheck::Changed { changes, newer, .. } = turn.recheck() else {
            panic!("expected a change")
        };
        assert_eq!(changes, ["+ permissions.allow: Bash(*)"]);
        assert!(turn.get().permissions.allow.is_empty());
        assert_eq!(turn.recheck(), FileCheck::Same, "asked once");
        turn.apply(&newer);
        assert_eq!(turn.get().permissions.allow, ["Bash(*)"]);
    }

    #[test]
    fn an_invalid_file_keeps_the_last_good_config_and_is_reported_once() {
        let dirs = Dirs::new();
        dirs.local("permissions: {deny: [Bash]}\n");
        let turn = dirs.load();
        dirs.local("permissions: {deny: [Bash\n");
        let FileCheck::Invalid(message) = turn.recheck() else {
            panic!("expected an error")
        };
        assert!(message.contains("config.local.yaml"), "{message}");
        assert_eq!(turn.recheck(), FileCheck::Same);
        assert_eq!(turn.get().permissions.deny, ["Bash"]);
        dirs.local("permissions: {deny: [Bash]}\n");
        assert_eq!(turn.recheck(), FileCheck::Same);
    }

    #[test]
    fn a_typo_saved_during_the_turn_drops_no_rule_and_lists_every_problem() {
        let dirs = Dirs::new();
        dirs.local("permissions: {deny: [Bash]}\n");
        let turn = dirs.load();
        // `permisions:` must not read as a file without deny rules.
        dirs.local("permisions: {deny: [Bash]}\nmax_turns: many\n");
        let FileCheck::Invalid(message) = turn.recheck() else {
            panic!("expected an error")
        };
        let lines: Vec<&str> = message.lines().collect();
        assert_eq!(lines.len(), 2, "{message}");
        assert!(
            lines[0].contains(
                "config.local.yaml:1:1: unknown key `permisions` (did you mean `permissions`?)"
            ),
            "{message}"
        );
        assert!(
            lines[1].contains("config.local.yaml:2:12: max_turns"),
            "{message}"
        );
        assert_eq!(turn.get().permissions.deny, ["Bash"]);
        assert_eq!(turn.recheck(), FileCheck::Same, "reported once");
        assert!(
            TurnConfig::load(&dirs.user, &dirs.root).is_err(),
            "the next turn refuses it"
        );
    }

    #[test]
    fn a_refused_change_is_asked_again_by_the_next_turn_while_the_files_hold_it() {
        let dirs = Dirs::new();
        let turn = dirs.load();
        dirs.local("permissions: {allow: [\"Bash(*)\"]}\n");
        let FileCheck::Changed { newer, .. } = turn.recheck() else {
            panic!("expected a change")
        };
        let refused = turn.refuse(&newer);
        let next = dirs.load().resume(refused.clone());
        assert!(
            next.get().permissions.allow.is_empty(),
            "not applied silently"
        );
        assert!(
            matches!(next.recheck(), FileCheck::Changed { .. }),
            "asked again"
        );
        // Edited since: the refusal is gone, the files apply.
        dirs.local("permissions: {allow: [Read]}\n");
        let edited = dirs.load().resume(refused);
        assert_eq!(edited.get().permissions.allow, ["Read"]);
        assert_eq!(edited.recheck(), FileCheck::Same);
    }

    #[test]
    fn an_allow_always_rule_applies_at_once_and_is_not_a_change() {
        let dirs = Dirs::new();
        let turn = dirs.load();
        crate::permission::persist::append_allow_rule(&dirs.root, "Bash(make)").unwrap();
        turn.allow_rule("Bash(make)");
        assert_eq!(turn.get().permissions.allow, ["Bash(make)"]);
        assert_eq!(turn.recheck(), FileCheck::Same);
    }

    #[test]
    fn the_command_sandbox_loosens_only_with_an_approved_change() {
        use crate::config::SandboxMode;
        let dirs = Dirs::new();
        let turn = dirs.load();
        assert_eq!(turn.sandbox().mode, SandboxMode::Auto);
        // What a command could write where no read-only island protects the file.
        dirs.local("sandbox: {mode: off, allow_write: [\"/\"]}\n");
        let FileCheck::Changed { newer, .. } = turn.recheck() else {
            panic!("expected a change")
        };
        assert_eq!(
            turn.sandbox().mode,
            SandboxMode::Auto,
            "not before approval"
        );
        let refused = turn.refuse(&newer);
        assert_eq!(turn.sandbox().mode, SandboxMode::Auto);
        let next = dirs.load().resume(refused);
        assert_eq!(
            next.sandbox().mode,
            SandboxMode::Auto,
            "nor at the next turn"
        );
        assert!(next.sandbox().allow_write.is_empty());
        let FileCheck::Changed { newer, .. } = next.recheck() else {
            panic!("asked again")
        };
        next.apply(&newer);
        assert_eq!(
            next.sandbox().mode,
            SandboxMode::Off,
            "applied once approved"
        );
        assert_eq!(next.sandbox().allow_write, ["/"]);
    }
}
