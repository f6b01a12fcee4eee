//! Which project hooks the user approved: `hook-approvals.json` in RooCode's data
//! directory. A project's `.roocode/config.yaml` or `.claude/settings.json` comes with
//! a cloned repository, so its hooks run only once approved (`roocode-cli hooks
//! approve`), as its MCP servers do. An approval is kept under the project's root and
//! the hook's id ([`super::HookSpec::id`]: its file, position, event, matcher,
//! condition and action): editing the hook, or the same file in another repository,
//! asks again. A local file (`.roocode/config.local.yaml`, `.claude/settings.local.json`)
//! needs the same approval: it lives in the project's tree, where a cloned repository
//! can ship one and an agent's write can add one, and a hook runs as the user's own
//! command outside the sandbox. Only the user's own hooks (`~/.roocode`, `~/.claude`)
//! need none.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{HookScope, HookSpec};
use crate::store::json_file::{JsonFile, now_secs, project_key};

/// The approvals file.
pub struct HookApprovals {
    file: JsonFile,
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
            file: JsonFile::new(data_dir.join("hook-approvals.json")),
        }
    }

    /// Whether `hook` may run in the project at `root`: the user's own hooks always, a
    /// project or local one once approved as it is now. An unreadable file approves
    /// nothing (and says so in the log).
    pub fn allows(&self, root: &Path, hook: &HookSpec) -> bool {
        if hook.source.scope == HookScope::User {
            return true;
        }
        let file: File = match self.file.read() {
            Ok(file) => file,
            Err(e) => {
                tracing::warn!("hook approvals not read: {e}");
                return false;
            }
        };
        let (project, id) = (project_key(root), hook.id());
        file.approved
            .iter()
            .any(|a| a.project == project && a.hook == id)
    }

    /// Approves `hooks` of the project at `root` as they are now.
    pub fn approve<'a>(
        &self,
        root: &Path,
        hooks: impl IntoIterator<Item = &'a HookSpec>,
    ) -> std::io::Result<()> {
        let project = project_key(root);
        let ids: Vec<String> = hooks.into_iter().map(HookSpec::id).collect();
        self.file.update(|file: &mut File| {
            for id in ids {
                if !file
                    .approved
                    .iter()
                    .any(|a| a.project == project && a.hook == id)
                {
                    file.approved.push(Approval {
                        project: project.clone(),
                        hook: id,
                        approved_at: now_secs(),
                    });
                }
            }
        })
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
        let mut local = set[1].clone();
        local.source.scope = HookScope::Local;
        assert!(
            !approvals.allows(project.path(), &local),
            "a local file is in the project's tree: approved like a project hook"
        );
    }
}
