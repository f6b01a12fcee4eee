//! [`SandboxSettings`]: the sandbox keys of the user, project and local config files,
//! merged so that a committed project file can only *tighten* the command sandbox.
//!
//! A cloned repository's `.roocode/config.yaml` is written by whoever controls the
//! repository, not by the user. It may ask for more confinement — `sandbox.mode:
//! required`, `sandbox.network: deny`, more `sandbox.deny_read` and `sandbox.scrub_env`
//! entries — but its `sandbox.mode: off|auto` over a stricter value, its
//! `sandbox.network: allow` over a deny, its `sandbox.allow_write`, its
//! `permissions.additional_directories` (as writable places for commands) and its
//! `env.forward` are ignored, and [`SandboxSettings::ignored`] says so. The user's
//! `~/.roocode/config.yaml` and the git-ignored `.roocode/config.local.yaml` may set
//! anything: they are the user's own.

use std::path::{Path, PathBuf};

use crate::config::{Config, ConfigError, SandboxMode, SandboxNetwork};

/// The command sandbox's settings for one project.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxSettings {
    pub mode: SandboxMode,
    pub network: SandboxNetwork,
    /// `sandbox.allow_write` of the user and local files, as written.
    pub allow_write: Vec<String>,
    /// `permissions.additional_directories` of the user and local files, as written.
    pub additional_directories: Vec<String>,
    /// `sandbox.deny_read` of every file, as written.
    pub deny_read: Vec<String>,
    /// `sandbox.scrub_env` of every file.
    pub scrub_env: Vec<String>,
    /// `env.forward` of the user and local files.
    pub forward: Vec<String>,
    /// What the project file asked for and did not get, one sentence each.
    pub ignored: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            mode: SandboxMode::Auto,
            network: SandboxNetwork::Allow,
            allow_write: Vec::new(),
            additional_directories: Vec::new(),
            deny_read: Vec::new(),
            scrub_env: Vec::new(),
            forward: Vec::new(),
            ignored: Vec::new(),
        }
    }
}

fn strictness_mode(mode: SandboxMode) -> u8 {
    match mode {
        SandboxMode::Off => 0,
        SandboxMode::Auto => 1,
        SandboxMode::Required => 2,
    }
}

fn strictness_network(network: SandboxNetwork) -> u8 {
    match network {
        SandboxNetwork::Allow => 0,
        SandboxNetwork::Deny => 1,
    }
}

impl SandboxSettings {
    /// Reads `user_dir/config.yaml`, `root/.roocode/config.yaml` and
    /// `root/.roocode/config.local.yaml` (missing files are skipped) and merges them.
    pub fn load(user_dir: &Path, root: &Path) -> Result<Self, ConfigError> {
        let read = |path: PathBuf| -> Result<Option<Config>, ConfigError> {
            match std::fs::read_to_string(&path) {
                Ok(text) => Config::parse(&path, &text).map(Some),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(source) => Err(ConfigError::Read { path, source }),
            }
        };
        let user_file = user_dir.join("config.yaml");
        let project_file = root.join(".roocode").join("config.yaml");
        let local_file = root.join(".roocode").join("config.local.yaml");
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        let user = read(user_file.clone())?;
        // The project is the home directory: its project file is the user's own file.
        let project = if same(&user_file, &project_file) {
            None
        } else {
            read(project_file)?
        };
        let local = read(local_file)?;
        Ok(Self::merge(user.as_ref(), project.as_ref(), local.as_ref()))
    }

    /// Default → user → project (tightening only) → local.
    pub fn merge(user: Option<&Config>, project: Option<&Config>, local: Option<&Config>) -> Self {
        let mut s = Self::default();
        if let Some(user) = user {
            s.apply_trusted(user);
        }
        if let Some(project) = project {
            s.apply_project(project);
        }
        if let Some(local) = local {
            s.apply_trusted(local);
        }
        s
    }

    fn apply_trusted(&mut self, file: &Config) {
        if let Some(mode) = file.sandbox.mode {
            self.mode = mode;
        }
        if let Some(network) = file.sandbox.network {
            self.network = network;
        }
        extend(&mut self.allow_write, &file.sandbox.allow_write);
        extend(
            &mut self.additional_directories,
            &file.permissions.additional_directories,
        );
        extend(&mut self.deny_read, &file.sandbox.deny_read);
        extend(&mut self.scrub_env, &file.sandbox.scrub_env);
        extend(&mut self.forward, &file.env.forward);
    }

    fn apply_project(&mut self, file: &Config) {
        if let Some(mode) = file.sandbox.mode {
            if strictness_mode(mode) >= strictness_mode(self.mode) {
                self.mode = mode;
            } else {
                self.ignored.push(format!(
                    "sandbox.mode: {} (it would weaken the sandbox)",
                    mode.as_str()
                ));
            }
        }
        if let Some(network) = file.sandbox.network {
            if strictness_network(network) >= strictness_network(self.network) {
                self.network = network;
            } else {
                self.ignored
                    .push("sandbox.network: allow (it would weaken the sandbox)".to_string());
            }
        }
        if !file.sandbox.allow_write.is_empty() {
            self.ignored.push(format!(
                "sandbox.allow_write: {}",
                file.sandbox.allow_write.join(", ")
            ));
        }
        if !file.permissions.additional_directories.is_empty() {
            self.ignored.push(format!(
                "permissions.additional_directories as places commands may write: {}",
                file.permissions.additional_directories.join(", ")
            ));
        }
        if !file.env.forward.is_empty() {
            self.ignored
                .push(format!("env.forward: {}", file.env.forward.join(", ")));
        }
        extend(&mut self.deny_read, &file.sandbox.deny_read);
        extend(&mut self.scrub_env, &file.sandbox.scrub_env);
    }
}

fn extend(list: &mut Vec<String>, more: &[String]) {
    for item in more {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> Config {
        Config::parse(Path::new("test.yaml"), text).unwrap()
    }

    #[test]
    fn a_project_file_cannot_weaken_the_sandbox() {
        let user = cfg("sandbox: {mode: required, network: deny}\n");
        let project = cfg(
            "sandbox: {mode: off, network: allow, allow_write: [\"~\"], deny_read: [\"~/secret\"], scrub_env: [\"X_*\"]}\n\
             permissions: {additional_directories: [\"/\"]}\nenv: {forward: [AWS_SECRET_ACCESS_KEY]}\n",
        );
        let s = SandboxSettings::merge(Some(&user), Some(&project), None);
        assert_eq!(s.mode, SandboxMode::Required);
        assert_eq!(s.network, SandboxNetwork::Deny);
        assert!(s.allow_write.is_empty());
        assert!(s.additional_directories.is_empty());
        assert!(s.forward.is_empty());
        assert_eq!(s.deny_read, vec!["~/secret".to_string()]);
        assert_eq!(s.scrub_env, vec!["X_*".to_string()]);
        assert_eq!(s.ignored.len(), 5, "{:?}", s.ignored);
        // Default auto: a project's `off` is ignored too.
        let s = SandboxSettings::merge(None, Some(&cfg("sandbox: {mode: off}\n")), None);
        assert_eq!(s.mode, SandboxMode::Auto);
    }

    #[test]
    fn a_project_file_may_tighten_and_user_files_may_do_anything() {
        let project = cfg("sandbox: {mode: required, network: deny}\n");
        let s = SandboxSettings::merge(None, Some(&project), None);
        assert_eq!(s.mode, SandboxMode::Required);
        assert_eq!(s.network, SandboxNetwork::Deny);
        let local = cfg(
            "sandbox: {mode: off, network: allow, allow_write: [/opt/x]}\npermissions: {additional_directories: [../lib]}\n",
        );
        let s = SandboxSettings::merge(None, Some(&project), Some(&local));
        assert_eq!(s.mode, SandboxMode::Off);
        assert_eq!(s.network, SandboxNetwork::Allow);
        assert_eq!(s.allow_write, vec!["/opt/x".to_string()]);
        assert_eq!(s.additional_directories, vec!["../lib".to_string()]);
        assert!(s.ignored.is_empty());
    }

    #[test]
    fn loads_the_three_files() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(".roocode")).unwrap();
        std::fs::write(
            home.path().join("config.yaml"),
            "sandbox: {network: deny}\n",
        )
        .unwrap();
        std::fs::write(
            root.path().join(".roocode/config.yaml"),
            "sandbox: {network: allow}\n",
        )
        .unwrap();
        let s = SandboxSettings::load(home.path(), root.path()).unwrap();
        assert_eq!(s.network, SandboxNetwork::Deny);
        std::fs::write(
            root.path().join(".roocode/config.local.yaml"),
            "sandbox: {network: allow}\n",
        )
        .unwrap();
        let s = SandboxSettings::load(home.path(), root.path()).unwrap();
        assert_eq!(s.network, SandboxNetwork::Allow);
        std::fs::write(
            root.path().join(".roocode/config.local.yaml"),
            "sandbox: [\n",
        )
        .unwrap();
        assert!(SandboxSettings::load(home.path(), root.path()).is_err());
    }
}
