//! Which project hooks the user approved: `hook-approvals.json` in RooCode's data
//! directory. A project's `.roocode/config.yaml` or `.claude/settings.json` comes with
//! a cloned repository, so its hooks run only once approved (`roocode-cli hooks
//! approve`), as its MCP servers do. An approval is kept under the project's root and
//! the hook's id ([`super::HookSpec::id`]: its file, position, event, matcher,
//! condition and action): editing the hook, or the same file in another repository,
//! asks again. The user's own hooks and local ones need none.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::{HookScope, HookSpec};

/// The approvals file.
pub struct HookApprovals {
    path: PathBuf,
    /// Held while the file is rewritten (the daemon is its only writer).
    writing: Mutex<()>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    approved: Vec<Approval>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Approval {
    project: String,
    hook: String,
    /// Seconds since the Unix epoch.
    approved_at: u64,
}

impl HookApprovals {
    /// The approvals kept in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        HookApprovals {
            path: data_dir.join("hook-approvals.json"),
            writing: Mutex::new(()),
        }
    }

    fn read(&self) -> std::io::Result<File> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{} is not valid: {e}", self.path.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File::default()),
            Err(e) => Err(e),
        }
    }

    /// Whether `hook` may run in the project at `root`: the user's and local hooks
    /// always, a project hook once approved as it is now. An unreadable file approves
    /// nothing (and says so in the log).
    pub fn allows(&self, root: &Path, hook: &HookSpec) -> bool {
        if hook.source.scope != HookScope::Project {
            return true;
        }
        let file = match self.read() {
            Ok(file) => file,
            Err(e) => {
                tracing::warn!("hook approvals not read: {e}");
                return false;
            }
        };
        let project = root.display().to_string();
        let id = hook.id();
        file.approved
            .iter()
            .any(|a| a.project == project && a.hook == id)
    }

    /// Approves `hooks` of the project at `root` (written atomically).
    pub fn approve<'a>(
        &self,
        root: &Path,
        hooks: impl IntoIterator<Item = &'a HookSpec>,
    ) -> std::io::Result<()> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let mut file = self.read()?;
        let project = root.display().to_string();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        for hook in hooks {
            let id = hook.id();
            if !file
                .approved
                .iter()
                .any(|a| a.project == project && a.hook == id)
            {
                file.approved.push(Approval {
                    project: project.clone(),
                    hook: id,
                    approved_at: now,
                });
            }
        }
        let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hooks(dir: &Path) -> Vec<HookSpec> {
        let path = dir.join(".roocode/config.yaml");
        let text = "hooks:\n  - event: stop\n    action: {type: command, command: a}\n  - event: stop\n    action: {type: command, command: b}\n";
        crate::hooks::parse_yaml(&path, text, HookScope::Project).hooks
    }

    #[test]
    fn project_hooks_run_once_approved_as_they_are() {
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let approvals = HookApprovals::new(data.path());
        let set = hooks(project.path());
        assert_eq!(set.len(), 2);
        assert!(!approvals.allows(project.path(), &set[0]));
        approvals.approve(project.path(), &set[..1]).unwrap();
        assert!(approvals.allows(project.path(), &set[0]));
        assert!(
            !approvals.allows(project.path(), &set[1]),
            "only the one approved"
        );
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(
            !approvals.allows(elsewhere.path(), &set[0]),
            "the same file in another repository asks again"
        );
        let mut user = set[1].clone();
        user.source.scope = HookScope::User;
        assert!(approvals.allows(project.path(), &user));
    }
}
