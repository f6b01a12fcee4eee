//! Permission: the only place that decides whether a tool call may run (DESIGN §8).
//!
//! [`PermissionGate::check`] runs the layers in order and the first final answer wins:
//!
//! 1. dangerous commands ([`dangerous`], on commands parsed by [`command`]) — a hard
//!    deny nothing overrides; a command the parser cannot see through is asked in every
//!    mode, `bypassPermissions` included (denied in `dontAsk`), unless a deny rule
//!    denies it;
//!    Then, for an agent limited to read-only commands (`Explore`, `Plan`:
//!    [`GateSettings::read_only_commands`]), any command [`read_only`] does not accept,
//!    and any other call that runs or stops processes, is denied: no mode (not even
//!    `bypassPermissions`) and no rule lifts it;
//! 2. the path sandbox ([`sandbox`]) — never overridable; the session's plan file is
//!    part of it; then files that usually hold credentials ([`secrets`]): a `Read` of
//!    one asks in every mode but `bypassPermissions` unless a rule naming it allows it.
//!    A write to a protected file ([`protected`]: RooCode's config, `.git/`, shell
//!    start-up files, …) is asked in every mode (denied in `dontAsk`) unless a deny
//!    rule denies it; no allow rule skips that question;
//! 3. allow/ask/deny rules ([`rules`]): deny beats ask beats allow. A deny is final; an
//!    ask asks in every mode (an explicit ask rule is stronger than `bypassPermissions`;
//!    `dontAsk` turns it into a deny); an allow allows in every mode;
//! 4. the session mode ([`modes`]);
//! 5. the human in the loop — an `Ask` answer is turned into a permission request by
//!    the agent loop, outside this module. "Allow always" writes a rule with
//!    [`persist`].
//!
//! [`PermissionGate::check_decided`] also says which layer answered ([`Decided`],
//! [`DecidedBy`]: the rule with its file and line, the mode, the protected class…), for
//! the flight recorder; [`PermissionGate::check`] is its answer alone.

pub mod command;
pub mod dangerous;
mod decided;
mod facts;
pub mod modes;
pub mod network;
pub mod persist;
pub mod protected;
pub mod read_only;
pub mod rules;
pub mod sandbox;
pub mod secrets;

use std::path::{Path, PathBuf};

use crate::config::Config;

pub use dangerous::{DangerContext, Finding};
pub use decided::{Decided, DecidedBy, HookPoint, HumanAnswer};
pub use facts::{Call, Effect, PermissionTarget, Place, Scope};
pub use modes::{Mode, ModeCase};
pub use rules::{RuleError, RuleKind, Rules, Verdict};
pub use sandbox::{Access, SandboxError, check_access, check_path};

/// The answer for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the user; `reason` says what the call would do.
    Ask { reason: String },
    /// Refuse; `reason` goes back to the model as the call's error result.
    Deny { reason: String },
}

/// Everything a gate needs besides the call.
#[derive(Debug, Clone)]
pub struct GateSettings {
    pub mode: Mode,
    /// The merged `permissions.allow/ask/deny` lists.
    pub rules: Rules,
    /// `permissions.protected_branches`; `main`, `master` and `default_branch` are
    /// always protected.
    pub protected_branches: Vec<String>,
    /// The remote's default branch ([`crate::project::default_branch`]).
    pub default_branch: Option<String>,
    /// The session's plan file (`<data dir>/plans/<session>.md`).
    pub plan_file: Option<PathBuf>,
    /// The user's home directory, for `~/` in rules and dangerous targets.
    pub home: Option<PathBuf>,
    /// The agent may run read-only commands only (`Explore`, `Plan`): any other
    /// command is denied, whatever the mode and rules say (see `read_only`).
    pub read_only_commands: bool,
}

impl GateSettings {
    /// A mode with no rules and nothing else known.
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            rules: Rules::default(),
            protected_branches: Vec::new(),
            default_branch: None,
            plan_file: None,
            home: None,
            read_only_commands: false,
        }
    }

    /// Settings from the merged configuration of the project at `root`, for a session in
    /// `mode`: its rules (the invalid ones are returned and left out), protected
    /// branches, the repository's default branch and the daemon user's home directory.
    /// The caller adds the plan file.
    pub fn from_config(config: &Config, mode: Mode, root: &Path) -> (Self, Vec<RuleError>) {
        let (rules, errors) = Rules::from_config(&config.permissions);
        let settings = Self {
            mode,
            rules,
            protected_branches: config.permissions.protected_branches.clone(),
            default_branch: crate::project::default_branch(root),
            plan_file: None,
            home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
            read_only_commands: false,
        };
        (settings, errors)
    }
}

impl From<Mode> for GateSettings {
    fn from(mode: Mode) -> Self {
        Self::new(mode)
    }
}

/// A mode by name (`default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`);
/// an unknown name falls back to `default`.
impl From<&str> for GateSettings {
    fn from(name: &str) -> Self {
        let mode = Mode::parse(name).unwrap_or_else(|| {
            tracing::warn!(mode = name, "unknown permission mode; using default");
            Mode::Default
        });
        Self::new(mode)
    }
}

impl From<&String> for GateSettings {
    fn from(name: &String) -> Self {
        Self::from(name.as_str())
    }
}

/// The permission state of one session (or one agent).
#[derive(Debug, Clone)]
pub struct PermissionGate {
    settings: GateSettings,
    /// `main`, `master`, the default branch and the configured ones.
    protected: Vec<String>,
    /// RooCode's user directory, protected from file tools ([`protected`]).
    user_dir: Option<PathBuf>,
    /// The session's memory directories, which are not ([`protected`]).
    memory_dirs: Option<crate::memory::MemoryDirs>,
}

impl PermissionGate {
    /// A gate from full settings, or from a mode (`Mode` or its name) for a gate with
    /// no rules.
    pub fn new(settings: impl Into<GateSettings>) -> Self {
        let settings = settings.into();
        let mut protected: Vec<String> = vec!["main".into(), "master".into()];
        for branch in settings
            .default_branch
            .iter()
            .chain(&settings.protected_branches)
        {
            if !protected.contains(branch) {
                protected.push(branch.clone());
            }
        }
        Self {
            settings,
            protected,
            user_dir: None,
            memory_dirs: None,
        }
    }

    pub fn mode(&self) -> Mode {
        self.settings.mode
    }

    pub fn settings(&self) -> &GateSettings {
        &self.settings
    }

    /// Branches a force push may never rewrite.
    pub fn protected_branches(&self) -> &[String] {
        &self.protected
    }

    /// Decide whether `call` may run (its input already validated) at `place`. A Bash
    /// call outside the OS sandbox is then asked in every mode
    /// ([`crate::sandbox::disable`]).
    pub fn check(&self, call: &Call<'_>, place: &Place<'_>) -> Decision {
        self.check_decided(call, place).decision
    }

    /// [`PermissionGate::check`]'s answer with the layer that gave it.
    pub fn check_decided(&self, call: &Call<'_>, place: &Place<'_>) -> Decided {
        let decided = self.check_layers(call, place);
        crate::sandbox::disable::review(decided, self.settings.mode, call, place)
    }

    /// The five layers (module documentation).
    fn check_layers(&self, call: &Call<'_>, place: &Place<'_>) -> Decided {
        let target = call.target;
        let scope = place.scope;
        let tool = call.tool;
        let mode = self.settings.mode;
        let home = self.settings.home.as_deref();

        // Layer 1: dangerous commands, judged from where the shell really is.
        let shell_cwd = place.shell_cwd;
        let mut cannot_see = None;
        let analysis = match target {
            PermissionTarget::Command(line) => {
                let analysis = command::analyze(line);
                let cx = DangerContext {
                    protected_branches: &self.protected,
                    home,
                    root: &scope.root,
                    cwd: shell_cwd,
                };
                match dangerous::check(&analysis, &cx) {
                    Some(Finding::Deny(reason)) => {
                        return Decided::new(
                            Decision::Deny {
                                reason: reason.clone(),
                            },
                            DecidedBy::Dangerous { finding: reason },
                        );
                    }
                    Some(Finding::Opaque(why)) => cannot_see = Some(why),
                    None => {}
                }
                Some(analysis)
            }
            _ => None,
        };

        // Layer 1, continued: an agent that may only look runs nothing else.
        if let Some(denied) = self.read_only_denial(call) {
            return denied;
        }

        // Layer 2: the path sandbox (the plan file belongs to it).
        let mut plan_file = false;
        let mut real = None;
        if let PermissionTarget::Path { path, write } = target {
            plan_file = self.is_plan_file(path, scope);
            if !plan_file {
                let access = if *write { Access::Write } else { Access::Read };
                match check_access(path, access, scope) {
                    Ok(r) => real = Some(r),
                    Err(e) => {
                        let reason = e.to_string();
                        return Decided::new(
                            Decision::Deny {
                                reason: reason.clone(),
                            },
                            DecidedBy::PathSandbox { reason },
                        );
                    }
                }
            }
        }

        // Layer 3: rules.
        let lexical = match target {
            PermissionTarget::Path { path, .. } => Some(rules::normalize(&scope.resolve(path))),
            _ => None,
        };
        let subject = match (target, &analysis, &lexical) {
            (PermissionTarget::Command(line), Some(analysis), _) => {
                rules::Subject::Command { line, analysis }
            }
            (PermissionTarget::Path { .. }, _, Some(path)) => rules::Subject::Path {
                path,
                real: real.as_deref(),
                is_dir: real.as_deref().is_some_and(Path::is_dir),
            },
            (PermissionTarget::Url(url), _, _) => rules::Subject::Url(url),
            _ => rules::Subject::Input(call.input),
        };
        let real_root = sandbox::real_path(&scope.root).ok();
        let real_home = home.and_then(|h| sandbox::real_path(h).ok());
        let bases = rules::Bases {
            root: &scope.root,
            real_root: real_root.as_deref(),
            home,
            real_home: real_home.as_deref(),
        };
        let inside = |path: &Path, write: bool| {
            let access = if write { Access::Write } else { Access::Read };
            check_access(path, access, scope).is_ok()
        };
        let workspace = rules::Workspace {
            cwd: shell_cwd,
            inside: &inside,
        };
        let verdict = self
            .settings
            .rules
            .evaluate_in(tool, &subject, &bases, Some(&workspace));
        // Files that usually hold credentials: asked in every mode but bypass.
        if let Some(decided) = secrets::guard(
            tool,
            target,
            real.as_deref(),
            verdict.as_ref(),
            mode,
            &scope.root,
            home,
        ) {
            return decided;
        }
        // Layer 2, continued: a file with other names (hard links) asks (sandbox::links).
        let rule_kind = verdict.as_ref().map(|v| v.kind);
        if let (PermissionTarget::Path { path, write }, Some(real)) = (target, &real)
            && rule_kind != Some(RuleKind::Deny)
            && let Some(decided) = sandbox::links::ask_for_hard_link(
                mode,
                tool,
                path,
                real,
                *write,
                rule_kind == Some(RuleKind::Allow),
            )
        {
            return decided;
        }
        if let PermissionTarget::Url(url) = target
            && cannot_see.is_none()
            && let Some(decided) =
                network::local_decision(mode, tool, url, verdict.as_ref(), &self.settings.rules)
        {
            return decided;
        }
        let described = || modes::describe(tool, target);
        // Protected files ask in every mode; only a deny rule answers first.
        if let Some(class) = self.protected_write(target, scope).filter(|_| !plan_file)
            && rule_kind != Some(RuleKind::Deny)
        {
            let path = lexical.clone().unwrap_or_default();
            return Decided::new(
                modes::ask(mode, protected::ask_reason(&described(), class)),
                DecidedBy::Protected { path, class },
            );
        }
        match (verdict, cannot_see) {
            (
                Some(
                    verdict @ Verdict {
                        kind: RuleKind::Deny,
                        ..
                    },
                ),
                _,
            ) => Decided::new(
                Decision::Deny {
                    reason: format!("denied by rule {} in your config", verdict.rule),
                },
                verdict.into(),
            ),
            (_, Some(why)) => Decided::new(
                modes::ask(
                    mode,
                    format!(
                        "{} (RooCode cannot check this command before it runs: {why})",
                        described()
                    ),
                ),
                DecidedBy::OpaqueCommand { why },
            ),
            (
                Some(
                    verdict @ Verdict {
                        kind: RuleKind::Ask,
                        ..
                    },
                ),
                None,
            ) => Decided::new(
                modes::ask(
                    mode,
                    format!(
                        "{} (rule {} in your config asks first)",
                        described(),
                        verdict.rule
                    ),
                ),
                verdict.into(),
            ),
            (
                Some(
                    verdict @ Verdict {
                        kind: RuleKind::Allow,
                        ..
                    },
                ),
                None,
            ) => Decided::new(Decision::Allow, verdict.into()),
            // Layer 4: the mode.
            (None, None) => modes::decide(mode, call, plan_file),
        }
    }

    /// The denial of a call that runs something other than a read-only command, for an
    /// agent limited to those ([`GateSettings::read_only_commands`]); `None` otherwise.
    fn read_only_denial(&self, call: &Call<'_>) -> Option<Decided> {
        if !self.settings.read_only_commands || call.effect != Effect::RunCommands {
            return None;
        }
        let why = match call.target {
            PermissionTarget::Command(line) => {
                let why = read_only::check(line).err()?;
                let line = line.trim();
                let shown = match line.char_indices().nth(200) {
                    Some((cut, _)) => format!("{}…", &line[..cut]),
                    None => line.to_string(),
                };
                format!("`{shown}` is not a read-only command: {why}")
            }
            _ => format!("{} runs or stops processes", call.tool),
        };
        let decision = Decision::Deny {
            reason: format!(
                "{why}. This agent can only run read-only commands (such as git log, git \
                 show, git diff, ls, cat, rg, find without -exec): read and search with \
                 Read, Glob and Grep, and report what would need to change instead of \
                 changing it."
            ),
        };
        Some(Decided::new(decision, DecidedBy::ReadOnlyAgent { why }))
    }

    /// True if `path` (resolved against `scope.cwd`) is the session's plan file: its real
    /// path is the plan file's directory's real path plus its name, so a symlink at the
    /// plan file's place does not count.
    fn is_plan_file(&self, path: &Path, scope: &Scope) -> bool {
        let Some(plan) = &self.settings.plan_file else {
            return false;
        };
        let (Some(dir), Some(name)) = (plan.parent(), plan.file_name()) else {
            return false;
        };
        let Ok(real_dir) = sandbox::real_path(dir) else {
            return false;
        };
        sandbox::real_path(&scope.resolve(path)).is_ok_and(|real| real == real_dir.join(name))
    }
}

#[cfg(test)]
mod decided_gate_tests;
#[cfg(test)]
mod gate_tests;
#[cfg(test)]
mod read_only_gate_tests;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;
